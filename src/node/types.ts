// Plain data the node hands to the RPC layer: bigint for quantities, Uint8Array for bytes.
import type { TypedTransaction } from '@ethereumjs/tx'

export interface LogEntry {
  address: Uint8Array
  topics: Uint8Array[]
  data: Uint8Array
}

export interface ReceiptData {
  status: 0 | 1
  gasUsed: bigint
  cumulativeGasUsed: bigint
  effectiveGasPrice: bigint
  contractAddress?: Uint8Array
  logs: LogEntry[]
  logsBloom: Uint8Array
  blobGasUsed?: bigint
  blobGasPrice?: bigint
  /** Index in the block of this receipt's first log. */
  firstLogIndex: number
}

export interface HeaderFields {
  parentHash: Uint8Array
  number: bigint
  timestamp: bigint
  gasLimit: bigint
  gasUsed: bigint
  baseFeePerGas: bigint
  coinbase: Uint8Array
  stateRoot: Uint8Array
  transactionsRoot: Uint8Array
  receiptsRoot: Uint8Array
  logsBloom: Uint8Array
  mixHash: Uint8Array
  extraData: Uint8Array
  withdrawalsRoot: Uint8Array
  blobGasUsed: bigint
  excessBlobGas: bigint
  parentBeaconBlockRoot: Uint8Array
  requestsHash: Uint8Array
}

/** A transaction placed in a block (pre-confirmed or sealed). */
export interface IncludedTx {
  tx: TypedTransaction
  hash: Uint8Array
  from: Uint8Array
  index: number
  /** Flashblock that pre-confirmed it. */
  flashblockIndex: number
  receipt: ReceiptData
  /** performance.now() when it was pre-confirmed; for logs and latency figures. */
  preconfirmedAt: number
  block: BlockRecord
}

export interface BlockRecord {
  header: HeaderFields
  /** Zero-length until sealed. */
  hash: Uint8Array
  sealed: boolean
  txs: IncludedTx[]
  /** Flashblocks emitted for this block so far (index 0 opens it). */
  flashblocks: number
  size: bigint
}

export type BlockTag = 'latest' | 'pending' | 'safe' | 'finalized' | 'earliest'
export type BlockRef = { tag: BlockTag } | { number: bigint } | { hash: Uint8Array; requireCanonical?: boolean }

export interface PoolTxInfo {
  tx: TypedTransaction
  hash: Uint8Array
  from: Uint8Array
  receivedAt: number
}

/** A call as eth_call / eth_estimateGas receive it. Absent fields take the usual defaults. */
export interface CallRequest {
  from?: Uint8Array
  to?: Uint8Array
  gas?: bigint
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  value?: bigint
  data?: Uint8Array
  nonce?: bigint
  accessList?: Array<{ address: Uint8Array; storageKeys: Uint8Array[] }>
  authorizationList?: Array<{
    chainId: bigint
    address: Uint8Array
    nonce: bigint
    yParity: bigint
    r: bigint
    s: bigint
  }>
  maxFeePerBlobGas?: bigint
  blobVersionedHashes?: Uint8Array[]
  type?: number
}

export interface AccountOverride {
  balance?: bigint
  nonce?: bigint
  code?: Uint8Array
  state?: Map<string, Uint8Array>
  stateDiff?: Map<string, Uint8Array>
  movePrecompileToAddress?: Uint8Array
}

/** Keyed by lowercase 0x-address. */
export type StateOverrides = Map<string, AccountOverride>

export interface BlockOverrides {
  number?: bigint
  time?: bigint
  gasLimit?: bigint
  feeRecipient?: Uint8Array
  prevRandao?: Uint8Array
  baseFeePerGas?: bigint
  blobBaseFee?: bigint
  /** eth_simulateV1 only: credited after the block's calls (amounts in gwei). */
  withdrawals?: Withdrawal[]
  /** eth_simulateV1 only (geth's extension): the block's parent beacon root. */
  beaconRoot?: Uint8Array
}

export interface Withdrawal {
  index: bigint
  validatorIndex: bigint
  address: Uint8Array
  /** In gwei. */
  amount: bigint
}

export interface LogFilter {
  fromBlock?: BlockRef
  toBlock?: BlockRef
  blockHash?: Uint8Array
  addresses?: Uint8Array[]
  /** Per position: null = any, else any of the listed topics. */
  topics?: Array<Uint8Array[] | null>
}

export interface MatchedLog {
  log: LogEntry
  logIndex: number
  txIndex: number
  tx: IncludedTx
}
