// The state file's format (`pcnode start --state FILE`, anvil_dumpState / anvil_loadState): versioned
// JSON, hex strings, one account / block / pool entry per line. docs/state-file.md documents it.
//
// It holds the head's state (every account with balance, nonce, code and storage), the sealed
// history with receipts and logs, and the pool. On a fork, the accounts changed locally (their
// storage: the slots written locally) and the history from the fork block on. Transactions of the open (unsealed) block are saved
// as pool entries and pre-confirmed again after a load. Headers are stored whole and checked
// against their hashes on load, so block hashes survive exactly.
import { resolve } from 'node:path'
import type { Hex } from '../../../shared/hex.js'
import type { ResolvedOptions } from '../../options.js'
import type { HeaderFields, L1ReceiptFields } from '../../types.js'

export const STATE_FORMAT = 'pcnode-state'
export const STATE_VERSION = 1

export interface AccountJson {
  nonce: Hex
  balance: Hex
  code?: Hex
  /** 32-byte slot → 32-byte value; zero slots are absent (on a fork: a slot zeroed over the upstream's). */
  storage?: Record<Hex, Hex>
  /** On a fork: deleted here, though the upstream has it. */
  deleted?: true
}

/** On a fork: the fork block the file's history starts from (the upstream URL is not kept: it may hold a key). */
export interface ForkJson {
  blockNumber: Hex
  blockHash: Hex
}

export type HeaderJson = { [K in keyof HeaderFields]: Hex }

export interface ReceiptJson {
  status: Hex
  gasUsed: Hex
  cumulativeGasUsed: Hex
  effectiveGasPrice: Hex
  contractAddress?: Hex
  logs: Array<{ address: Hex; topics: Hex[]; data: Hex }>
  blobGasUsed?: Hex
  blobGasPrice?: Hex
  /** OP-stack deposits. */
  depositNonce?: Hex
  /** OP-stack blocks: the L1 fee fields. */
  l1?: { [K in keyof L1ReceiptFields]: Hex }
}

export interface TxJson {
  hash: Hex
  from: Hex
  /** The signed transaction as eth_sendRawTransaction takes it (EIP-2718 envelope). */
  raw: Hex
  flashblockIndex: Hex
  receipt: ReceiptJson
}

export interface BlockJson {
  hash: Hex
  size: Hex
  flashblocks: Hex
  header: HeaderJson
  transactions: TxJson[]
}

export interface PoolJson {
  hash: Hex
  from: Hex
  raw: Hex
  /** Sent from an impersonated account: the signature is a placeholder and `from` is the sender. */
  impersonated?: true
}

export interface StateFileJson {
  format: typeof STATE_FORMAT
  version: typeof STATE_VERSION
  chainId: Hex
  hardfork: string
  savedAt: string
  /** Seconds evm_increaseTime / evm_setNextBlockTimestamp put between the wall clock and block time. */
  timeOffset: number
  /** The head block's number and hash, for people reading the file. */
  blockNumber: Hex
  blockHash: Hex
  /** Root of `accounts`; checked on load (delete it to load hand-edited accounts). */
  stateRoot?: Hex
  /** Saved on a fork: `accounts` are the local changes over the fork block's state, `blocks` start at it. */
  fork?: ForkJson
  accounts: Record<Hex, AccountJson>
  blocks: BlockJson[]
  pool: PoolJson[]
  /** The built-in bundler's user operations not yet in a sealed block (bundler/op-persist.ts UserOpJson). */
  userOps?: unknown[]
}

/** Path of the state file the options ask for: `stateFile`, else `<dataDir>/state.json`, else none. */
export function stateFilePath(options: Pick<ResolvedOptions, 'stateFile' | 'dataDir'>): string | undefined {
  if (options.stateFile) return resolve(options.stateFile)
  if (options.dataDir) return resolve(options.dataDir, 'state.json')
  return undefined
}
