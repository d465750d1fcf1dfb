// Trie reads memoized by (root, key). A call runs in a checkpoint that is always reverted, and
// ethereumjs' state manager drops on revert everything the call read into its caches (accounts
// and the storage tries of the accounts touched), so every eth_call, estimate run and simulated
// call walked the trie again from the root for the same sender, contract and slots: RLP-decoding
// each node on the path, the largest part of a simple call's cost. A trie is content
// addressed, so what `get(key)` answers at a root never changes: one engine-wide memo serves the
// live trie, every view's copy of it and the storage tries made from them, whatever their root.
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { KeyEncoding, ValueEncoding } from '@ethereumjs/util'
import { hexKey } from '../../bytes.js'
import { type NodeSink, TrieUpdate, trieGet } from './stored-trie.js'

/** Entries kept before the memo starts again (~200 bytes each: ~40 MiB at most). */
const MAX_ENTRIES = 200_000

export class ReadMemo {
  private map = new Map<string, Uint8Array | null>()

  get(id: string): Uint8Array | null | undefined {
    return this.map.get(id)
  }

  set(id: string, value: Uint8Array | null): void {
    if (this.map.size >= MAX_ENTRIES) this.map = new Map()
    this.map.set(id, value)
  }

  get size(): number {
    return this.map.size
  }
}

/** The node store a MemoTrie reads (state.ts NodeStore). */
export interface MemoStore extends NodeSink {
  readonly reads: ReadMemo
}

/**
 * A MerklePatriciaTrie whose gets go through a ReadMemo, and whose copies share it; batched
 * writes go through `updater()`.
 */
export class MemoTrie extends MerklePatriciaTrie {
  store!: MemoStore
  /**
   * Whether get() goes through the memo. Not for the live state's own trie: its account cache
   * keeps every account it read for good, so its reads (one per new account of an anvil_setBalance
   * batch) only filled the memo with misses nobody asks again (100,049 entries after 100k accounts).
   * Copies (views, storage tries) use it.
   */
  remember = true

  static over(trie: MerklePatriciaTrie, store: MemoStore, remember = true): MemoTrie {
    Object.setPrototypeOf(trie, MemoTrie.prototype)
    ;(trie as MemoTrie).store = store
    ;(trie as MemoTrie).remember = remember
    readsOutsideCheckpoints((trie as MemoTrie)._db as unknown as LayeredDB)
    return trie as MemoTrie
  }

  get memo(): ReadMemo {
    return this.store.reads
  }

  /** The trie's hash of keys and nodes (keccak-256, the Common's when it brings one). */
  get keccak(): (data: Uint8Array) => Uint8Array {
    return this._opts.useKeyHashingFunction
  }

  /** Batched writes into this trie's node store, hashing as the trie does. */
  updater(): TrieUpdate {
    return new TrieUpdate(this.store, this.keccak, this.EMPTY_TRIE_ROOT)
  }

  override async get(key: Uint8Array, throwIfMissing = false): Promise<Uint8Array | null> {
    const id = this.remember ? hexKey(this.root()) + hexKey(key) : undefined
    const known = id === undefined ? undefined : this.memo.get(id)
    if (known !== undefined) return known
    // The store holds every node unless writes sit in the trie's checkpoints (never, while the
    // state manager caches its writes): then ethereumjs' own walk reads them there.
    const found = this.writesInCheckpoints() ? undefined : trieGet(this.store, this.root(), this.appliedKey(key))
    const value = found === undefined ? await super.get(key, throwIfMissing) : found
    if (id !== undefined) this.memo.set(id, value)
    return value
  }

  /**
   * The value under `key` in the trie at `root` (this trie's or another over the same store, a
   * storage trie's): null when absent, undefined when the store cannot answer (a node it lacks).
   */
  readAt(root: Uint8Array, key: Uint8Array): Uint8Array | null | undefined {
    const id = hexKey(root) + hexKey(key)
    const known = this.memo.get(id)
    if (known !== undefined) return known
    const found = trieGet(this.store, root, this.appliedKey(key))
    if (found !== undefined) this.memo.set(id, found)
    return found
  }

  /** Whether trie writes wait in its checkpoints (CheckpointDB's layers; selfcheck.ts checks the shape). */
  writesInCheckpoints(): boolean {
    for (const layer of this._db.checkpoints) if (layer.keyValueMap.size > 0) return true
    return false
  }

  // Upstream's shallowCopy builds a plain MerklePatriciaTrie; a key prefix (storage tries of a
  // prefixed layout, not used here) would change what a (root, key) pair reads, so those stay plain.
  override shallowCopy(includeCheckpoints = true, opts?: Parameters<MerklePatriciaTrie['shallowCopy']>[1]): MerklePatriciaTrie {
    const copy = super.shallowCopy(includeCheckpoints, opts)
    return opts?.keyPrefix ? copy : MemoTrie.over(copy, this.store)
  }
}

/** The slice of ethereumjs' CheckpointDB (mpt db/checkpointDB.ts) a MemoTrie's reads use. */
interface LayeredDB {
  checkpoints: Array<{ keyValueMap: Map<string, Uint8Array | undefined> }>
  _cache?: unknown
  valueEncoding: string
  db: { get(key: string, opts: { keyEncoding: string; valueEncoding: string }): Promise<unknown> }
  get(key: Uint8Array): Promise<Uint8Array | undefined>
}

/**
 * CheckpointDB.get copies every node it reads from its database into the open checkpoint's layer
 * ("so future gets will not look the key up again"). The database is an in-memory map here, so
 * the copy saves nothing, and it would make the layers look written: MemoTrie.get would then take
 * ethereumjs' async walk for every read until the checkpoint closed (a simulation's, a pending
 * block's: half of a 100-call eth_simulateV1). Reads answer from the layers, then the database, as upstream's.
 */
function readsOutsideCheckpoints(db: LayeredDB): void {
  if (db._cache !== undefined || db.valueEncoding !== ValueEncoding.Bytes) return
  const opts = { keyEncoding: KeyEncoding.String, valueEncoding: ValueEncoding.Bytes }
  db.get = async (key: Uint8Array) => {
    const id = hexKey(key)
    for (let i = db.checkpoints.length - 1; i >= 0; i--) {
      const layer = db.checkpoints[i].keyValueMap
      if (layer.has(id)) return layer.get(id)
    }
    return (await db.db.get(id, opts)) as Uint8Array | undefined
  }
}
