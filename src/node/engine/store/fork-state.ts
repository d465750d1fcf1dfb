// Fork mode's state (pcnode start --fork-url): the live trie and every view over it hold only what
// changed locally; an account or slot the trie lacks is the upstream's at the fork block, read
// through a ForkSource the first time execution touches it (anvil's CacheDB over its fork DB,
// foundry-fork-db; ethereumjs' RPCStateManager reads accounts through eth_getProof and keeps no
// local writes apart, so it does not fit).
//
// Reads of the upstream are never written into the trie, so a state root holds exactly the local
// changes and roots stay valid for views, snapshots and pruning. Because "absent from the trie"
// means "as upstream", deletions leave markers instead: a slot set to zero is stored as the byte
// 0x00 (read back as zero), a deleted account as an account with a reserved code hash, and storage
// cleared as a whole (an eth_call state override) as a reserved slot.
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { Caches, CODEHASH_PREFIX, type MerkleStateManagerOpts } from '@ethereumjs/statemanager'
import {
  Account,
  type Address,
  concatBytes,
  createAccountFromRLP,
  equalsBytes,
  KECCAK256_NULL,
  KECCAK256_RLP,
  unpadBytes,
} from '@ethereumjs/util'
import { hexKey } from '../../bytes.js'
import { FastStateManager, liveTrie, type NodeStore } from './state.js'

/** An upstream account at the fork block, in plain values. */
export interface RemoteAccount {
  nonce: bigint
  balance: bigint
  code: Uint8Array
}

/** Where a fork's state comes from (node/fork/ implements it over JSON-RPC, memoized and cached). */
export interface ForkSource {
  /** The account at the fork block; undefined when it is empty there. */
  account(address: Uint8Array): Promise<RemoteAccount | undefined>
  /** A storage slot at the fork block, 32 bytes. */
  storage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array>
  /** The hash of block `n` (at or before the fork block), for BLOCKHASH. */
  blockHash(n: bigint): Promise<Uint8Array | undefined>
}

/** An upstream account as the state manager uses it: its RLP (no storage root of its own), code and hash. */
interface RemoteEntry {
  rlp: Uint8Array
  code: Uint8Array
  codeHash: Uint8Array
  /** Whether its storage may be non-empty upstream: it has code or has sent (EIP-161 empty accounts have none). */
  hasStorage: boolean
}

const utf8 = (text: string) => new TextEncoder().encode(text)

/**
 * The link every state manager of the engine shares with the fork's source (none on a fresh
 * chain), and the accounts it answered, memoized in the engine's form.
 */
export class ForkLink {
  source: ForkSource | undefined
  private readonly accounts = new Map<string, RemoteEntry | null>()
  /** A deleted account's stored form: empty, with a code hash no code has. */
  readonly tombstoneCodeHash: Uint8Array
  /** The key of the slot that says "storage cleared here, the upstream's is gone". */
  readonly clearedSlot: Uint8Array

  constructor(private readonly keccak: (data: Uint8Array) => Uint8Array) {
    this.tombstoneCodeHash = keccak(utf8('pcnode fork: account deleted'))
    this.clearedSlot = keccak(utf8('pcnode fork: storage cleared'))
  }

  /** Switches to another fork (or none); what the last one answered is forgotten. */
  attach(source: ForkSource | undefined): void {
    this.source = source
    this.accounts.clear()
  }

  async account(address: Uint8Array): Promise<RemoteEntry | null> {
    const key = hexKey(address)
    const known = this.accounts.get(key)
    if (known !== undefined) return known
    const source = this.source
    if (!source) return null
    const remote = await source.account(address)
    const entry = remote ? this.entryOf(remote) : null
    if (this.source === source) this.accounts.set(key, entry)
    return entry
  }

  private entryOf(a: RemoteAccount): RemoteEntry {
    const codeHash = a.code.length > 0 ? this.keccak(a.code) : KECCAK256_NULL
    return {
      rlp: new Account(a.nonce, a.balance, KECCAK256_RLP, codeHash).serialize(),
      code: a.code,
      codeHash,
      hasStorage: a.code.length > 0 || a.nonce > 0n,
    }
  }

  isTombstone(account: Account): boolean {
    return equalsBytes(account.codeHash, this.tombstoneCodeHash)
  }

  tombstone(): Account {
    return new Account(0n, 0n, KECCAK256_RLP, this.tombstoneCodeHash)
  }
}

/** A slot set to zero locally: stored as the single byte 0x00 (RLP of the string "\0"), read as zero. */
export const ZERO_SLOT = Uint8Array.of(0)
const EMPTY = new Uint8Array()
const ONE = Uint8Array.of(1)

/** A stored slot (RLP) as getStorage answers it: the value without leading zeros; the zero marker reads as zero. */
function slotValue(stored: Uint8Array): Uint8Array {
  if (stored.length === 1 && stored[0] === 0) return EMPTY
  return RLP.decode(stored) as Uint8Array
}

/**
 * The engine's state manager: FastStateManager, reading through to a fork's source while one is
 * attached (`link.source`), and exactly FastStateManager otherwise.
 */
export class ForkStateManager extends FastStateManager {
  link: ForkLink

  constructor(opts: MerkleStateManagerOpts, link: ForkLink, keepPreimages = true) {
    super(opts, keepPreimages)
    this.link = link
  }

  static createLive(common: Common, nodes: NodeStore, link: ForkLink): ForkStateManager {
    return new ForkStateManager({ common, trie: liveTrie(common, nodes), caches: new Caches() }, link)
  }

  protected override copyInto(copy: FastStateManager): void {
    ;(copy as ForkStateManager).link = this.link
  }

  override peekAccount(address: Address): Account | null | undefined {
    const account = super.peekAccount(address)
    return account && this.link.isTombstone(account) ? null : account
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    if (!this.link.source) return super.getAccount(address)
    const entry = this.accountEntry(address)
    if (entry !== undefined) {
      const cached = entry.copy()
      return cached && this.link.isTombstone(cached) ? undefined : cached
    }
    const stored = await this._trie.get(address.bytes)
    if (stored !== null) {
      const account = createAccountFromRLP(stored)
      // Cached as stored (a tombstone too: the cache flushes what it holds back to the trie).
      this._caches?.account?.put(address, account)
      return this.link.isTombstone(account) ? undefined : account
    }
    // Not local: the upstream's, not cached here (the cache would write it into the trie).
    const remote = await this.link.account(address.bytes)
    return remote ? createAccountFromRLP(remote.rlp) : undefined
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    if (account === undefined && this.link.source) return this.deleteAccount(address)
    return super.putAccount(address, account)
  }

  override async deleteAccount(address: Address): Promise<void> {
    await super.deleteAccount(address)
    // Gone locally but there upstream: a tombstone keeps the upstream's from showing through.
    if (this.link.source && (await this.link.account(address.bytes))) await super.putAccount(address, this.link.tombstone())
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    if (!this.link.source) return super.getCode(address)
    const elem = this._caches?.code?.get(address)
    if (elem !== undefined) return elem.code ?? EMPTY
    const account = await this.getAccount(address)
    if (!account?.isContract()) return EMPTY
    const stored = await this._trie.database().get(concatBytes(CODEHASH_PREFIX, account.codeHash))
    if (stored) {
      this._caches?.code?.put(address, stored)
      return stored
    }
    // The upstream's code (the account may be local with a changed balance, the code unchanged).
    const remote = await this.link.account(address.bytes)
    return remote && equalsBytes(remote.codeHash, account.codeHash) ? remote.code : EMPTY
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (!this.link.source) return super.getStorage(address, key)
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long')
    const cached = this._caches?.storage?.get(address, key)
    if (cached !== undefined) return slotValue(cached)
    const account = await this.getAccount(address)
    if (!account) return EMPTY
    const stored = await this.storedSlot(address, account, key)
    if (stored !== null) {
      this._caches?.storage?.put(address, key, stored)
      return slotValue(stored)
    }
    if (!(await this.readsUpstreamStorage(address, account))) return EMPTY
    return unpadBytes(await (this.link.source as ForkSource).storage(address.bytes, key))
  }

  /** Whether a slot the trie lacks is the upstream's: the account may have storage there, not cleared here. */
  private async readsUpstreamStorage(address: Address, account: Account): Promise<boolean> {
    if (!(await this.link.account(address.bytes))?.hasStorage) return false
    const marker = this._caches?.storage?.get(address, this.link.clearedSlot)
    if (marker !== undefined) return slotValue(marker).length === 0
    return (await this.storedSlot(address, account, this.link.clearedSlot)) === null
  }

  protected override async exists(address: Address): Promise<boolean> {
    // A cached tombstone is a deleted account.
    return this.link.source ? (await this.getAccount(address)) !== undefined : super.exists(address)
  }

  protected override encodeSlot(value: Uint8Array): Uint8Array {
    // Zero stays in the trie as a marker: deleting the slot would let the upstream's value through.
    return value.length === 0 && this.link.source ? ZERO_SLOT : super.encodeSlot(value)
  }

  override async clearStorage(address: Address): Promise<void> {
    await super.clearStorage(address)
    if (this.link.source && (await this.link.account(address.bytes))?.hasStorage) {
      await this.putStorage(address, this.link.clearedSlot, ONE)
    }
  }
}
