// Trie reads memoized by (root, key). A call runs in a checkpoint that is always reverted, and
// ethereumjs' state manager drops on revert everything the call read into its caches (accounts
// and the storage tries of the accounts touched), so every eth_call, estimate run and simulated
// call walked the trie again from the root for the same sender, contract and slots: RLP-decoding
// each node on the path, the largest part of a simple call's cost (issue 18). A trie is content
// addressed, so what `get(key)` answers at a root never changes: one engine-wide memo serves the
// live trie, every view's copy of it and the storage tries made from them, whatever their root.
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { hexKey } from '../bytes.js'

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

/** A MerklePatriciaTrie whose gets go through a ReadMemo, and whose copies share it. */
export class MemoTrie extends MerklePatriciaTrie {
  memo!: ReadMemo

  static over(trie: MerklePatriciaTrie, memo: ReadMemo): MemoTrie {
    Object.setPrototypeOf(trie, MemoTrie.prototype)
    ;(trie as MemoTrie).memo = memo
    return trie as MemoTrie
  }

  override async get(key: Uint8Array, throwIfMissing = false): Promise<Uint8Array | null> {
    const id = hexKey(this.root()) + hexKey(key)
    const known = this.memo.get(id)
    if (known !== undefined) return known
    const value = await super.get(key, throwIfMissing)
    this.memo.set(id, value)
    return value
  }

  // Upstream's shallowCopy builds a plain MerklePatriciaTrie; a key prefix (storage tries of a
  // prefixed layout, not used here) would change what a (root, key) pair reads, so those stay plain.
  override shallowCopy(includeCheckpoints = true, opts?: Parameters<MerklePatriciaTrie['shallowCopy']>[1]): MerklePatriciaTrie {
    const copy = super.shallowCopy(includeCheckpoints, opts)
    return opts?.keyPrefix ? copy : MemoTrie.over(copy, this.memo)
  }
}
