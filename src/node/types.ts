// Plain data the node hands to the RPC layer and keeps in its history: bigint for quantities,
// Uint8Array for bytes. Nothing here is an ethereumjs object (those stay in engine/).

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
  /** OP-stack deposits: the sender's nonce before the deposit (op-geth's and reth's depositNonce). */
  depositNonce?: bigint
  /** OP-stack blocks: the L1 fee and the values it was computed from (opstack/receipt.ts). */
  l1?: L1ReceiptFields
  /** A failed transaction's EVM error and return data (the activity log decodes the revert); not served. */
  failure?: { error: string; output: Uint8Array }
}

/** What an OP-stack receipt reports of the L1 data fee and the operator fee (Base's L1BlockInfo). */
export interface L1ReceiptFields {
  l1GasPrice: bigint
  l1GasUsed: bigint
  l1Fee: bigint
  l1BaseFeeScalar: bigint
  l1BlobBaseFee: bigint
  l1BlobBaseFeeScalar: bigint
  /** Shown only when the scalar or the constant is non-zero, as Base shows them. */
  operatorFeeScalar: bigint
  operatorFeeConstant: bigint
  daFootprintGasScalar: bigint
  /** The transaction's DA footprint (Jovian; served as the receipt's blobGasUsed), 0 for deposits. */
  daFootprint: bigint
}

/** The fields of L1ReceiptFields, in order (the cold-block codec and the state file read them all). */
export const L1_RECEIPT_FIELDS: ReadonlyArray<keyof L1ReceiptFields> = [
  'l1GasPrice',
  'l1GasUsed',
  'l1Fee',
  'l1BaseFeeScalar',
  'l1BlobBaseFee',
  'l1BlobBaseFeeScalar',
  'operatorFeeScalar',
  'operatorFeeConstant',
  'daFootprintGasScalar',
  'daFootprint',
]

/** A block header's fields; chain/header.ts has their table (names, kinds, sizes, defaults). */
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
  /** Proof-of-work difficulty: 0 after the merge. */
  difficulty: bigint
  mixHash: Uint8Array
  /** Proof-of-work nonce (8 bytes): zero after the merge. */
  nonce: Uint8Array
  extraData: Uint8Array
  withdrawalsRoot: Uint8Array
  blobGasUsed: bigint
  excessBlobGas: bigint
  parentBeaconBlockRoot: Uint8Array
  requestsHash: Uint8Array
}

export interface AccessListEntry {
  address: Uint8Array
  storageKeys: Uint8Array[]
}

export interface Authorization {
  chainId: bigint
  address: Uint8Array
  nonce: bigint
  yParity: bigint
  r: bigint
  s: bigint
}

/**
 * A transaction as the node keeps it: its wire bytes, hash and sender, and its decoded fields as
 * plain values. The engine keeps its own executable object beside it (engine/tx/record.ts).
 */
export interface TxRecord {
  readonly type: number
  readonly hash: Uint8Array
  /** The EIP-2718 envelope as blocks carry it (legacy: the RLP list); what eth_sendRawTransaction took. */
  readonly raw: Uint8Array
  readonly from: Uint8Array
  readonly chainId?: bigint
  readonly nonce: bigint
  readonly gasLimit: bigint
  readonly to?: Uint8Array
  readonly value: bigint
  readonly data: Uint8Array
  /** Legacy and EIP-2930. */
  readonly gasPrice?: bigint
  /** EIP-1559 and later. */
  readonly maxFeePerGas?: bigint
  readonly maxPriorityFeePerGas?: bigint
  readonly accessList?: AccessListEntry[]
  readonly authorizationList?: Authorization[]
  readonly maxFeePerBlobGas?: bigint
  readonly blobVersionedHashes?: Uint8Array[]
  readonly v?: bigint
  readonly r?: bigint
  readonly s?: bigint
  /** Sent with no key (an impersonated sender): the signature is a placeholder. */
  readonly impersonated?: boolean
  /**
   * An OP-stack deposit (type 0x7e): no signature, no fee, and no nonce of its own (`nonce` is 0;
   * the receipt's depositNonce is the sender's nonce it ran at).
   */
  readonly deposit?: DepositFields
}

/** The fields only a deposit has (OP specs, deposits.md). */
export interface DepositFields {
  sourceHash: Uint8Array
  /** Wei minted to the sender before the deposit runs, kept even when it fails. */
  mint: bigint
  isSystemTx: boolean
}

/** A transaction placed in a block (pre-confirmed or sealed). */
export interface IncludedTx {
  tx: TxRecord
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
  /** Header fields the block's hardfork does not have (a block before London has no base fee…). */
  absent?: ReadonlyArray<keyof HeaderFields>
  /** Zero-length until sealed. */
  hash: Uint8Array
  sealed: boolean
  txs: IncludedTx[]
  /** Flashblocks emitted for this block so far (index 0 opens it). */
  flashblocks: number
  size: bigint
  /**
   * The id its flashblock stream carries (the payload's `payload_id`, 8 bytes): new each time the
   * open block's stream starts, so a restarted stream (pcnode_restartFlashblocks) has a new one.
   */
  payloadId?: Uint8Array
  /**
   * Built while flashblocks are halted (pcnode_haltFlashblocks): it is not pre-confirmed, so
   * nothing of it is served (at `pending` or by hash) before it is sealed.
   */
  hidden?: boolean
  /**
   * Denim (profile base): the block's time past its timestamp's second, 0..800 ms, as its BaseTime
   * deposit sets it; absent on blocks before Denim and on genesis.
   */
  millis?: number
}

export type BlockTag = 'latest' | 'pending' | 'safe' | 'finalized' | 'earliest'
export type BlockRef = { tag: BlockTag } | { number: bigint } | { hash: Uint8Array }

export interface PoolTxInfo {
  tx: TxRecord
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
  accessList?: AccessListEntry[]
  authorizationList?: Authorization[]
  maxFeePerBlobGas?: bigint
  blobVersionedHashes?: Uint8Array[]
}

/** One account's eth_call / eth_simulateV1 override. */
export interface AccountOverride {
  address: Uint8Array
  balance?: bigint
  nonce?: bigint
  code?: Uint8Array
  /** Replaces the whole storage: [32-byte slot, 32-byte value]. */
  state?: Array<[Uint8Array, Uint8Array]>
  /** Changes these slots only. */
  stateDiff?: Array<[Uint8Array, Uint8Array]>
  movePrecompileToAddress?: Uint8Array
}

/** In request order; at most one entry per address (the parser refuses duplicates). */
export type StateOverrides = AccountOverride[]

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
