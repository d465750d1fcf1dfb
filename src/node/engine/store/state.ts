// The live state: ethereumjs' MerkleStateManager over an in-memory node store, with its slow paths
// replaced (storage writes and reads, flushes: stored-trie.ts) and the cache read synchronously
// for admission.
import type { Common } from '@ethereumjs/common'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { Caches, CODEHASH_PREFIX, MerkleStateManager, type MerkleStateManagerOpts } from '@ethereumjs/statemanager'
import { Account, Address, concatBytes, createAccountFromRLP, MapDB, unpadBytes, ValueEncoding } from '@ethereumjs/util'
import { hexKey } from '../../bytes.js'
import { type AccountEntry, AccountObjectCache } from './account-cache.js'
import { Preimages } from './preimages.js'
import { MemoTrie, ReadMemo } from './read-memo.js'
import type { TrieWrite } from './stored-trie.js'

const EMPTY = new Uint8Array()
/** RLP of the empty string: how the storage cache holds a slot known to be zero. */
const RLP_EMPTY = Uint8Array.of(0x80)
const hexBytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, 'hex'))

/**
 * MerkleStateManager whose putStorage writes to the storage cache only (upstream 10.1.3 writes
 * every SSTORE through to the trie as well, `cache.put(...) ?? write()` with put() returning
 * undefined, ~0.3 ms each), whose storage reads skip per-account trie objects, and whose caches
 * reach the tries in one batch when a root is asked for (flush).
 */
export class FastStateManager extends MerkleStateManager {
  /** The state upstream builds by default (a key-hashing trie in memory), over `nodes`. */
  static create(common: Common, nodes: NodeStore): FastStateManager {
    return new FastStateManager({ common, trie: liveTrie(common, nodes), caches: new Caches() })
  }

  /** Keys written, for dumping the state (the trie only has their hashes). Absent on views and shallow copies. */
  readonly preimages: Preimages | undefined

  constructor(opts: MerkleStateManagerOpts, keepPreimages = true) {
    super(opts)
    this.preimages = keepPreimages ? new Preimages() : undefined
    useAccountObjects(this)
  }

  /** The account cache's entry for `address` (account-cache.ts); undefined when not cached. */
  protected accountEntry(address: Address): AccountEntry | undefined {
    return (this._caches?.account as unknown as AccountObjectCache | undefined)?.get(address)
  }

  /** As upstream's, without decoding a cached account (account-cache.ts). */
  override async getAccount(address: Address): Promise<Account | undefined> {
    const entry = this.accountEntry(address)
    if (entry !== undefined) return entry.copy()
    const rlp = await this._trie.get(address.bytes)
    const account = rlp !== null ? createAccountFromRLP(rlp) : undefined
    this._caches?.account?.put(address, account)
    return account
  }

  /**
   * The account as the cache holds it, without touching the trie: `null` when known absent,
   * `undefined` when not cached. Synchronous, so it is safe outside the serial queue (between two
   * transactions of a flashblock the cache is consistent); an async read there could interleave
   * with execution and write a stale trie value back into the cache.
   */
  peekAccount(address: Address): Account | null | undefined {
    const entry = this.accountEntry(address)
    return entry === undefined ? undefined : (entry.copy() ?? null)
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    this.preimages?.account(address.bytes)
    return super.putAccount(address, account)
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    this.preimages?.slot(address.bytes, key)
    const storage = this._caches?.storage
    if (storage === undefined) return super.putStorage(address, key, value)
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long')
    if (value.length > 32) throw new Error('Storage value cannot be longer than 32 bytes')
    if (!(await this.exists(address))) throw new Error('putStorage() called on non-existing account')
    storage.put(address, key, this.encodeSlot(unpadBytes(value)))
  }

  /** Whether the account exists; from the cache without decoding it (every SSTORE asks). */
  protected async exists(address: Address): Promise<boolean> {
    const entry = this.accountEntry(address)
    if (entry !== undefined) return entry.account !== undefined
    return (await this.getAccount(address)) !== undefined
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const cached = this._caches?.storage?.get(address, key)
    if (cached !== undefined || key.length !== 32) return super.getStorage(address, key)
    const account = await this.getAccount(address)
    if (!account) return EMPTY
    const stored = await this.storedSlot(address, account, key)
    this._caches?.storage?.put(address, key, stored ?? RLP_EMPTY)
    return RLP.decode(stored ?? EMPTY) as Uint8Array
  }

  /**
   * A slot as the account's storage trie holds it (RLP), or null. Read from the node store at the
   * account's storage root (memoized), without the trie object upstream builds per account and
   * drops at every revert (~40 µs per call that reads storage).
   */
  protected async storedSlot(address: Address, account: Account, key: Uint8Array): Promise<Uint8Array | null> {
    const found = this._trie instanceof MemoTrie ? this._trie.readAt(account.storageRoot, key) : undefined
    return found !== undefined ? found : this._getStorageTrie(address, account).get(key)
  }

  /** The stored form of a slot's (unpadded) value: its RLP, as ethereumjs stores it. */
  protected encodeSlot(value: Uint8Array): Uint8Array {
    return RLP.encode(value)
  }

  override shallowCopy(downlevelCaches = true): MerkleStateManager {
    const copy = super.shallowCopy(downlevelCaches)
    Object.setPrototypeOf(copy, Object.getPrototypeOf(this))
    useAccountObjects(copy)
    this.copyInto(copy as FastStateManager)
    return copy
  }

  /** Set while commit() or revert() runs: the flush they end with waits for the next root. */
  private closing = false

  /**
   * Upstream flushes the caches to the trie when the last checkpoint closes, after every
   * transaction and every run of dev edits. Here they stay in the caches (which answer every
   * read) until a root is asked for (getStateRoot, setStateRoot, a proof), so writes between two
   * roots (a run of anvil_setBalance batches, a flashblock's transactions) reach the trie as one
   * batch.
   */
  override commit(): Promise<void> {
    return this.closingCheckpoint(() => super.commit())
  }

  override revert(): Promise<void> {
    return this.closingCheckpoint(() => super.revert())
  }

  private async closingCheckpoint(close: () => Promise<void>): Promise<void> {
    this.closing = true
    try {
      await close()
    } finally {
      this.closing = false
    }
  }

  /**
   * Writes the caches to the tries as upstream's flush does (code, then storage, then accounts),
   * but each trie takes its writes as one batch (stored-trie.ts) instead of one put per key:
   * the cost of a flush follows what changed, and no intermediate trie version is stored.
   */
  override async flush(): Promise<void> {
    const caches = this._caches
    // Without caches every write already went to the trie.
    if (caches === undefined || !(this._trie instanceof MemoTrie)) return super.flush()
    if (this.closing) return
    const trie = this._trie
    const update = trie.updater()
    const keccak = trie.keccak
    for (const [addressHex, { code }] of caches.code?.flush() ?? []) {
      if (code === undefined) continue
      const address = new Address(hexBytes(addressHex))
      const codeHash = keccak(code)
      await this._getCodeDB().put(concatBytes(CODEHASH_PREFIX, codeHash), code)
      if ((await this.getAccount(address)) === undefined) await this.putAccount(address, new Account())
      await this.modifyAccountFields(address, { codeHash })
    }
    const slots = new Map<string, TrieWrite[]>()
    for (const [addressHex, keyHex, value] of caches.storage?.flush() ?? []) {
      let writes = slots.get(addressHex)
      if (writes === undefined) slots.set(addressHex, (writes = []))
      // The cache holds slots as the trie does (RLP of the unpadded value; encodeSlot); RLP("") is a deletion.
      const deleted = value === undefined || (value.length === 1 && value[0] === 0x80)
      writes.push([keccak(hexBytes(keyHex)), deleted ? null : value])
    }
    for (const [addressHex, writes] of slots) {
      const address = new Address(hexBytes(addressHex))
      const account = await this.getAccount(address)
      if (account === undefined) continue
      account.storageRoot = update.apply(account.storageRoot, writes)
      this._storageTries[hexKey(keccak(address.bytes))]?.root(account.storageRoot)
      await this.putAccount(address, account)
    }
    const accounts: TrieWrite[] = []
    for (const [addressHex, elem] of caches.account?.flush() ?? []) {
      accounts.push([keccak(hexBytes(addressHex)), elem.accountRLP ?? null])
    }
    trie.root(update.apply(trie.root(), accounts))
  }

  /** Subclasses carry their own fields over to a shallow copy. */
  protected copyInto(_copy: FastStateManager): void {}
}

/** Gives the state the account cache that holds accounts decoded (account-cache.ts), if it caches accounts. */
function useAccountObjects(sm: MerkleStateManager): void {
  const caches = (sm as unknown as { _caches?: { account?: unknown } })._caches
  if (caches?.account !== undefined && !(caches.account instanceof AccountObjectCache)) caches.account = new AccountObjectCache()
}

/** The live state's trie: key-hashing, in memory, over `nodes`. */
export function liveTrie(common: Common, nodes: NodeStore): MerklePatriciaTrie {
  const trie = new MerklePatriciaTrie({
    useKeyHashing: true,
    common,
    db: new FlatKeyDB(nodes),
    valueEncoding: ValueEncoding.Bytes,
  })
  return MemoTrie.over(trie, nodes, false)
}

/**
 * How many checkpoints the state holds (ethereumjs' protected `_checkpointCount`; selfcheck.ts
 * checks its shape). An error thrown from inside the EVM that is not an EVM error (a fork's
 * upstream failing mid-call) leaves every frame's checkpoint open; runTx reverts one.
 */
export function checkpointDepth(sm: MerkleStateManager): number {
  return (sm as unknown as { _checkpointCount: number })._checkpointCount
}

/** Reverts the checkpoints opened above `depth` (after an error left them open). */
export async function unwindTo(sm: MerkleStateManager, depth: number): Promise<void> {
  while (checkpointDepth(sm) > depth) await sm.revert()
}

/**
 * Every state root's trie nodes (by hash, hex) and contract code (by "c" + code hash), shared by
 * the live trie, its storage tries and every view over an older root.
 */
export class NodeStore {
  readonly map = new Map<string, Uint8Array>()
  /** What trie reads over these nodes answered, by root and key (read-memo.ts). */
  readonly reads = new ReadMemo()
  /** While a sweep marks (pruning.ts): the keys written meanwhile, which it must not delete. */
  written: Set<string> | undefined

  has(hash: Uint8Array): boolean {
    return this.map.has(hexKey(hash))
  }

  get(key: string): Uint8Array | undefined {
    return this.map.get(key)
  }

  /** Stores a trie node by its hash (a running sweep keeps it). */
  put(hash: Uint8Array, encoded: Uint8Array): void {
    const key = hexKey(hash)
    this.written?.add(key)
    this.map.set(key, encoded)
  }
}

/**
 * The trie's view of a NodeStore: a MapDB whose keys are stored flat. The trie hands MapDB each
 * node's hash as hex built by `+=` two characters at a time, which V8 keeps as a rope of ~30
 * pieces; as Map keys those ropes stay for the life of the process (~9 KiB of the ~18 KiB an
 * empty block cost).
 */
class FlatKeyDB extends MapDB<string, Uint8Array> {
  constructor(private readonly store: NodeStore) {
    super(store.map)
  }
  override async put(key: string, value: Uint8Array): Promise<void> {
    const flat = flatKey(key)
    this.store.written?.add(flat)
    this._database.set(flat, value)
  }
  override shallowCopy(): FlatKeyDB {
    return new FlatKeyDB(this.store)
  }
}

/** MapDB's key for `key` (hex, no 0x), as a flat string. */
function flatKey(key: string | Uint8Array): string {
  return key instanceof Uint8Array ? hexKey(key) : Buffer.from(key, 'latin1').toString('latin1')
}
