// A whole state in and out of the node store, for the state file (anvil_dumpState / loadState):
// every account of a root listed through the live state's key preimages, and accounts written
// bottom-up as a new root. Both go straight to the node store and its key layout (MPT's unprefixed
// node hashes, code under CODEHASH_PREFIX + its hash); selfcheck.ts checks that layout at start-up.
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { CODEHASH_PREFIX } from '@ethereumjs/statemanager'
import {
  Account,
  concatBytes,
  createAccountFromRLP,
  equalsBytes,
  KECCAK256_NULL,
  KECCAK256_RLP,
  unpadBytes,
} from '@ethereumjs/util'
import { hexKey } from '../../bytes.js'
import { ZERO_SLOT } from './fork-state.js'
import type { FastStateManager, NodeStore } from './state.js'
import { trieRoot, walkTrie } from './trie.js'

type Keccak = (data: Uint8Array) => Uint8Array

/** An account with everything in it, as the state file holds it. */
export interface AccountDump {
  address: Uint8Array
  nonce: bigint
  balance: bigint
  code: Uint8Array
  /**
   * [32-byte slot, 32-byte value], sorted by slot in a dump: non-zero slots only, but on a fork
   * zero ones too (a slot zeroed locally, over the upstream's value).
   */
  storage: Array<[Uint8Array, Uint8Array]>
  /** On a fork: deleted locally, though the upstream has it. */
  deleted?: boolean
}

/** What dumping and writing a fork's local state needs (fork-state.ts). */
export interface ForkDump {
  /** Whether a stored account is a deletion marker. */
  isTombstone(account: Account): boolean
  tombstone(): Account
  /** The upstream's code of `address` when its hash is `codeHash` (the trie holds only local code). */
  code(address: Uint8Array, codeHash: Uint8Array): Promise<Uint8Array | undefined>
}

/** The store key of a contract's code. */
function codeKey(codeHash: Uint8Array): string {
  return hexKey(concatBytes(CODEHASH_PREFIX, codeHash))
}

const pad32 = (bytes: Uint8Array): Uint8Array => {
  if (bytes.length === 32) return bytes
  const out = new Uint8Array(32)
  out.set(bytes, 32 - bytes.length)
  return out
}

const compareBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b)

/** Every account of the state at `root`, sorted by address; keys come back through the preimages. */
export async function dumpAccounts(
  live: FastStateManager,
  nodes: NodeStore,
  root: Uint8Array,
  keccak: Keccak,
  fork?: ForkDump,
): Promise<AccountDump[]> {
  const preimages = live.preimages
  if (!preimages) throw new Error('the live state records no key preimages')
  const leaves: Array<[Uint8Array, Uint8Array]> = []
  await walkTrie(nodes.map, [root], {
    withKeys: true,
    strict: true,
    leaf: (value, key) => leaves.push([key as Uint8Array, value]),
  })
  const out: AccountDump[] = []
  for (const [hashed, rlp] of leaves) {
    const address = preimages.addressOf(hexKey(hashed), keccak)
    if (address === undefined) throw new Error(`no preimage for account key 0x${hexKey(hashed)}`)
    const account = createAccountFromRLP(rlp)
    const dump: AccountDump = {
      address: Uint8Array.from(Buffer.from(address, 'hex')),
      nonce: account.nonce,
      balance: account.balance,
      code: new Uint8Array(),
      storage: [],
    }
    if (fork?.isTombstone(account)) {
      out.push({ ...dump, deleted: true })
      continue
    }
    if (account.isContract()) {
      const code = nodes.map.get(codeKey(account.codeHash)) ?? (await fork?.code(dump.address, account.codeHash))
      if (!code) throw new Error(`missing code 0x${hexKey(account.codeHash)} of 0x${address}`)
      dump.code = code
    }
    if (!equalsBytes(account.storageRoot, KECCAK256_RLP)) {
      await walkTrie(nodes.map, [account.storageRoot], {
        withKeys: true,
        strict: true,
        leaf: (value, hashedSlot) => {
          const slot = preimages.slotOf(address, hexKey(hashedSlot as Uint8Array), keccak)
          if (slot === undefined)
            throw new Error(`no preimage for storage key 0x${hexKey(hashedSlot as Uint8Array)} of 0x${address}`)
          dump.storage.push([Uint8Array.from(Buffer.from(slot, 'hex')), pad32(RLP.decode(value) as Uint8Array)])
        },
      })
      dump.storage.sort((a, b) => compareBytes(a[0], b[0]))
    }
    out.push(dump)
  }
  return out.sort((a, b) => compareBytes(a.address, b.address))
}

/**
 * Builds the state trie of `accounts` bottom-up straight into the node store (each node hashed
 * once; inserting account by account through the trie costs ~5x more) and returns its root. The
 * keys are recorded as preimages for later dumps.
 */
export async function writeAccounts(
  live: FastStateManager,
  accounts: AccountDump[],
  keccak: Keccak,
  fork?: ForkDump,
): Promise<Uint8Array> {
  const preimages = live.preimages
  const ops: Array<{ type: 'put'; key: Uint8Array; value: Uint8Array }> = []
  const store = (key: Uint8Array, value: Uint8Array) => ops.push({ type: 'put', key, value })
  const leaves: Array<[Uint8Array, Uint8Array]> = []
  for (const a of accounts) {
    preimages?.account(a.address)
    if (a.deleted && fork) {
      leaves.push([keccak(a.address), fork.tombstone().serialize()])
      continue
    }
    const slots: Array<[Uint8Array, Uint8Array]> = []
    for (const [slot, value] of a.storage) {
      preimages?.slot(a.address, slot)
      const word = unpadBytes(value)
      // On a fork a zero slot stays, as the marker the fork's state reads as zero (fork-state.ts).
      if (word.length > 0) slots.push([keccak(slot), RLP.encode(word)])
      else if (fork) slots.push([keccak(slot), ZERO_SLOT])
    }
    const storageRoot = slots.length > 0 ? trieRoot(slots, keccak, store) : KECCAK256_RLP
    let codeHash = KECCAK256_NULL
    if (a.code.length > 0) {
      codeHash = keccak(a.code)
      store(concatBytes(CODEHASH_PREFIX, codeHash), a.code)
    }
    leaves.push([keccak(a.address), new Account(a.nonce, a.balance, storageRoot, codeHash).serialize()])
  }
  const root = leaves.length > 0 ? trieRoot(leaves, keccak, store) : KECCAK256_RLP
  // Through the trie's database (not the map itself): a running prune sweep sees these writes.
  await (live as unknown as { _trie: MerklePatriciaTrie })._trie.database().batch(ops as never)
  return root
}
