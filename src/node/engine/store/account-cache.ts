// The state's account cache, holding accounts decoded. ethereumjs' AccountCache (statemanager
// cache/account.ts) keeps each account as its RLP in a red-black tree keyed by hex: every
// getAccount decodes it (RLP, two bigints from hex) and every putAccount encodes it again, and a
// lookup walks ~17 string comparisons at 100k accounts. A call reads and writes the sender, the
// recipient and the coinbase several times each, so those decodes and encodes are a large part of
// an eth_call's engine time and of a simulated transfer's. Here an entry holds an Account
// of its own (copied in and out, so a caller mutating what it got changes nothing until it puts
// it back), in a Map, and is encoded only when the flush writes it to the trie. Checkpoints
// journal entries exactly as upstream's: the entry a key had before its first change at a level.
import { Account, type Address, equalsBytes, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'
import { hexKey } from '../../bytes.js'

/** What the cache holds for an address: the account, or `undefined` for one known absent. */
export class AccountEntry {
  readonly account: Account | undefined

  constructor(account: Account | undefined) {
    this.account = account && frozenCopy(account)
  }

  /** A copy for a caller to change (undefined when the account is absent). */
  copy(): Account | undefined {
    const a = this.account
    return a && new Account(a.nonce, a.balance, a.storageRoot, a.codeHash)
  }

  /** The account's RLP as the trie stores it, as upstream's cache elements carry it (undefined: absent). */
  get accountRLP(): Uint8Array | undefined {
    return this.account && encodeAccount(this.account)
  }
}

/**
 * An account's RLP, [nonce, balance, storageRoot, codeHash], written in one buffer: the bytes of
 * Account.serialize(), which builds an array per field, each integer through a padded hex string
 * and a Buffer (a sixth of a flush of 50k new accounts).
 */
export function encodeAccount(a: Account): Uint8Array {
  const nonce = a.nonce === 0n ? '' : a.nonce.toString(16)
  const balance = a.balance === 0n ? '' : a.balance.toString(16)
  const payload = intLength(nonce, a.nonce) + intLength(balance, a.balance) + 66
  // Two 32-byte hashes and two integers of at most 32 bytes: the payload is under 256 bytes.
  const head = payload < 56 ? 1 : 2
  const out = new Uint8Array(head + payload)
  if (head === 1) out[0] = 0xc0 + payload
  else out.set([0xf8, payload])
  let pos = writeInt(out, head, nonce, a.nonce)
  pos = writeInt(out, pos, balance, a.balance)
  out[pos] = 0xa0
  out.set(a.storageRoot, pos + 1)
  out[pos + 33] = 0xa0
  out.set(a.codeHash, pos + 34)
  return out
}

/** Bytes of an RLP integer whose hex (no 0x, no leading zero; '' for 0) is `hex`. */
function intLength(hex: string, value: bigint): number {
  const bytes = (hex.length + 1) >> 1
  return bytes === 1 && value < 0x80n ? 1 : 1 + bytes
}

function writeInt(out: Uint8Array, pos: number, hex: string, value: bigint): number {
  const bytes = (hex.length + 1) >> 1
  if (bytes === 1 && value < 0x80n) {
    out[pos] = Number(value)
    return pos + 1
  }
  out[pos++] = 0x80 + bytes
  // An odd-length hex starts with a lone nibble.
  let i = 0
  if (hex.length & 1) out[pos++] = nibble(hex.charCodeAt(i++))
  for (; i < hex.length; i += 2) out[pos++] = (nibble(hex.charCodeAt(i)) << 4) | nibble(hex.charCodeAt(i + 1))
  return pos
}

/** A lowercase hex digit's value (BigInt#toString(16) writes lowercase). */
function nibble(c: number): number {
  return c <= 57 ? c - 48 : c - 87
}

/**
 * The cache's own copy. The empty-storage root and the empty-code hash, which most accounts
 * have, are shared (an account's byte fields are replaced, never written in place, upstream too).
 */
function frozenCopy(a: Account): Account {
  const storageRoot = equalsBytes(a.storageRoot, KECCAK256_RLP) ? KECCAK256_RLP : a.storageRoot
  const codeHash = equalsBytes(a.codeHash, KECCAK256_NULL) ? KECCAK256_NULL : a.codeHash
  return new Account(a.nonce, a.balance, storageRoot, codeHash)
}

/** Upstream AccountCache's interface, over a Map of AccountEntry (state.ts installs it). */
export class AccountObjectCache {
  /** undefined: not cached (a hole a revert left, see revert). */
  private map = new Map<string, AccountEntry | undefined>()
  /** Per checkpoint level, the entry each key had before its first change there (undefined: none). */
  private diffs: Array<Map<string, AccountEntry | undefined>> = [new Map()]

  get(address: Address): AccountEntry | undefined {
    return this.map.get(hexKey(address.bytes))
  }

  /** Caches `account` (undefined: known absent), journaled for revert and flushed to the trie. */
  put(address: Address, account: Account | undefined): void {
    this.set(hexKey(address.bytes), new AccountEntry(account))
  }

  del(address: Address): void {
    this.set(hexKey(address.bytes), new AccountEntry(undefined))
  }

  private set(key: string, entry: AccountEntry): void {
    const diff = this.diffs[this.diffs.length - 1]
    if (!diff.has(key)) diff.set(key, this.map.get(key))
    this.map.set(key, entry)
  }

  /** The entries changed since the last flush at the current level (upstream's order: first change). */
  flush(): Array<[string, AccountEntry]> {
    const level = this.diffs.length - 1
    const items: Array<[string, AccountEntry]> = []
    for (const key of this.diffs[level].keys()) {
      const entry = this.map.get(key)
      if (entry !== undefined) items.push([key, entry])
    }
    this.diffs[level] = new Map()
    return items
  }

  checkpoint(): void {
    this.diffs.push(new Map())
  }

  /**
   * A key that was not cached before the checkpoint keeps a hole (undefined), not deleted: on
   * Node 20, V8's Map pays for a delete and re-insert with a cost that grows with its size (~5 µs
   * at 10k keys, ~50 µs at 60k), and every call's revert removes the keys it added (the fee
   * recipient, a new recipient…) from a cache that holds every account read so far.
   */
  revert(): void {
    const diff = this.diffs.pop() as Map<string, AccountEntry | undefined>
    for (const [key, entry] of diff) this.map.set(key, entry)
  }

  commit(): void {
    const diff = this.diffs.pop() as Map<string, AccountEntry | undefined>
    const below = this.diffs[this.diffs.length - 1]
    for (const [key, entry] of diff) if (!below.has(key)) below.set(key, entry)
  }

  clear(): void {
    this.map.clear()
  }

  /** Accounts held, holes not counted (upstream's interface; only tests and stats ask, so a count). */
  size(): number {
    let n = 0
    for (const entry of this.map.values()) if (entry !== undefined) n++
    return n
  }
}
