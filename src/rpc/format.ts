// Node records → JSON-RPC objects, with the field sets geth serves.
import { EMPTY_UNCLES_HASH, HEADER_FIELDS } from '../node/header-fields.js'
import type { DevNode } from '../node/node.js'
import { blockMillis, blockTimeMs } from '../node/opstack/denim.js'
import type { BlockRecord, IncludedTx, LogEntry, MatchedLog, PoolTxInfo, ReceiptData, TxRecord } from '../node/types.js'
import { type Hex, toData, toFixed, toQuantity } from './hex.js'

const ZERO_HASH = `0x${'0'.repeat(64)}` as Hex

type TxFields = Record<string, unknown>

/**
 * Denim's millisecond time of a block (base/base rpc/eth/base_time.rs): from its BaseTime deposit;
 * none before Denim or on genesis, where the field is left out.
 */
function timestampMs(block: BlockRecord): Hex | undefined {
  return blockMillis(block) === undefined ? undefined : toQuantity(blockTimeMs(block))
}

/** The fields every form of a transaction object shares (geth's RPCTransaction, by type). */
export function txTypeFields(tx: TxRecord): TxFields {
  const out: TxFields = {
    type: toQuantity(tx.type),
    nonce: toQuantity(tx.nonce),
    gas: toQuantity(tx.gasLimit),
    to: tx.to ? toData(tx.to) : null,
    value: toQuantity(tx.value),
    input: toData(tx.data),
  }
  if (tx.chainId !== undefined) out.chainId = toQuantity(tx.chainId)
  if (tx.maxFeePerGas !== undefined) {
    out.maxFeePerGas = toQuantity(tx.maxFeePerGas)
    out.maxPriorityFeePerGas = toQuantity(tx.maxPriorityFeePerGas ?? 0n)
  }
  if (tx.maxFeePerBlobGas !== undefined) {
    out.maxFeePerBlobGas = toQuantity(tx.maxFeePerBlobGas)
    out.blobVersionedHashes = (tx.blobVersionedHashes ?? []).map(toData)
  }
  if (tx.accessList) {
    out.accessList = tx.accessList.map((e) => ({ address: toData(e.address), storageKeys: e.storageKeys.map(toData) }))
  }
  if (tx.authorizationList) {
    out.authorizationList = tx.authorizationList.map((a) => ({
      chainId: toQuantity(a.chainId),
      address: toData(a.address),
      nonce: toQuantity(a.nonce),
      yParity: toQuantity(a.yParity),
      r: toQuantity(a.r),
      s: toQuantity(a.s),
    }))
  }
  if (tx.v !== undefined) {
    out.v = toQuantity(tx.v)
    out.r = toQuantity(tx.r ?? 0n)
    out.s = toQuantity(tx.s ?? 0n)
    if (tx.type !== 0) out.yParity = toQuantity(tx.v)
  }
  if (tx.deposit) {
    // OP deposits as reth (Base's node) serves them through op-alloy's TxDeposit: no signature, so
    // v, r, s and yParity are zero; isSystemTx is a quantity, left out when false. op-alloy reads it
    // only as a quantity, so a JSON `false` fails the whole block in alloy clients (cast run).
    out.sourceHash = toData(tx.deposit.sourceHash)
    out.mint = toQuantity(tx.deposit.mint)
    if (tx.deposit.isSystemTx) out.isSystemTx = '0x1'
    out.v = out.r = out.s = out.yParity = '0x0'
  }
  return out
}

/** OP-stack receipt fields: a deposit's nonce and receipt version; every receipt's L1 fee (Base's L1BlockInfo). */
function opReceiptFields(r: ReceiptData): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const l1 = r.l1
  if (l1) {
    out.l1GasPrice = toQuantity(l1.l1GasPrice)
    out.l1GasUsed = toQuantity(l1.l1GasUsed)
    out.l1Fee = toQuantity(l1.l1Fee)
    out.l1BaseFeeScalar = toQuantity(l1.l1BaseFeeScalar)
    out.l1BlobBaseFee = toQuantity(l1.l1BlobBaseFee)
    out.l1BlobBaseFeeScalar = toQuantity(l1.l1BlobBaseFeeScalar)
    // Only when the operator fee is in use, as Base shows them.
    if (l1.operatorFeeScalar > 0n || l1.operatorFeeConstant > 0n) {
      out.operatorFeeScalar = toQuantity(l1.operatorFeeScalar)
      out.operatorFeeConstant = toQuantity(l1.operatorFeeConstant)
    }
    out.daFootprintGasScalar = toQuantity(l1.daFootprintGasScalar)
    // Jovian: a transaction's blobGasUsed is its DA footprint.
    if (l1.daFootprint > 0n) out.blobGasUsed = toQuantity(l1.daFootprint)
  }
  if (r.depositNonce !== undefined) {
    out.depositNonce = toQuantity(r.depositNonce)
    out.depositReceiptVersion = '0x1'
  }
  return out
}

/** A transaction in a block: pre-confirmed ones have blockHash null, as Base serves them. */
export function formatIncludedTx(t: IncludedTx): TxFields {
  const out: TxFields = {
    blockHash: t.block.sealed ? toData(t.block.hash) : null,
    blockNumber: toQuantity(t.block.header.number),
    blockTimestamp: toQuantity(t.block.header.timestamp),
    from: toData(t.tx.from),
    gasPrice: toQuantity(t.receipt.effectiveGasPrice),
    hash: toData(t.tx.hash),
    transactionIndex: toQuantity(t.index),
    ...txTypeFields(t.tx),
  }
  const ms = timestampMs(t.block)
  if (ms !== undefined) out.blockTimestampMs = ms
  // A deposit's nonce is the one it ran at (its receipt's depositNonce), as op-geth serves it.
  if (t.receipt.depositNonce !== undefined) {
    out.nonce = toQuantity(t.receipt.depositNonce)
    out.depositReceiptVersion = '0x1'
  }
  return out
}

export function formatPoolTx(info: PoolTxInfo): TxFields {
  return {
    blockHash: null,
    blockNumber: null,
    from: toData(info.tx.from),
    gasPrice: toQuantity(info.tx.gasPrice ?? info.tx.maxFeePerGas ?? 0n),
    hash: toData(info.tx.hash),
    transactionIndex: null,
    ...txTypeFields(info.tx),
  }
}

/**
 * An unsigned transaction as geth's types.Transaction marshals it (eth_fillTransaction's `tx`): the
 * type's fields, a zero signature and the hash of that encoding; no sender, no block fields.
 */
export function formatUnsignedTx(tx: TxRecord): TxFields {
  const out: TxFields = { ...txTypeFields(tx), v: '0x0', r: '0x0', s: '0x0' }
  if (tx.gasPrice !== undefined) out.gasPrice = toQuantity(tx.gasPrice)
  if (tx.type !== 0) out.yParity = '0x0'
  out.hash = toData(tx.hash)
  return out
}

export function formatTx(found: IncludedTx | PoolTxInfo): TxFields {
  return 'block' in found ? formatIncludedTx(found) : formatPoolTx(found)
}

/** Receipt; while pre-confirmed, blockHash is the zero hash (Base's behaviour). */
export function formatReceipt(t: IncludedTx): Record<string, unknown> {
  const blockHash = t.block.sealed ? toData(t.block.hash) : ZERO_HASH
  const r = t.receipt
  const out: Record<string, unknown> = {
    type: toQuantity(t.tx.type),
    status: toQuantity(r.status),
    cumulativeGasUsed: toQuantity(r.cumulativeGasUsed),
    logs: r.logs.map((log, i) => formatLog(log, t, r.firstLogIndex + i)),
    logsBloom: toData(r.logsBloom),
    transactionHash: toData(t.tx.hash),
    transactionIndex: toQuantity(t.index),
    blockHash,
    blockNumber: toQuantity(t.block.header.number),
    gasUsed: toQuantity(r.gasUsed),
    effectiveGasPrice: toQuantity(r.effectiveGasPrice),
    from: toData(t.tx.from),
    to: t.tx.to ? toData(t.tx.to) : null,
    contractAddress: r.contractAddress ? toData(r.contractAddress) : null,
  }
  if (r.blobGasUsed !== undefined) {
    out.blobGasUsed = toQuantity(r.blobGasUsed)
    out.blobGasPrice = toQuantity(r.blobGasPrice ?? 0n)
  }
  return Object.assign(out, opReceiptFields(r))
}

export function formatLog(log: LogEntry, t: IncludedTx, logIndex: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    address: toData(log.address),
    topics: log.topics.map((topic) => toFixed(topic, 32)),
    data: toData(log.data),
    blockNumber: toQuantity(t.block.header.number),
    blockHash: t.block.sealed ? toData(t.block.hash) : ZERO_HASH,
    blockTimestamp: toQuantity(t.block.header.timestamp),
    transactionHash: toData(t.tx.hash),
    transactionIndex: toQuantity(t.index),
    logIndex: toQuantity(logIndex),
    removed: false,
  }
  const ms = timestampMs(t.block)
  if (ms !== undefined) out.blockTimestampMs = ms
  return out
}

export function formatMatchedLog(m: MatchedLog): Record<string, unknown> {
  return formatLog(m.log, m.tx, m.logIndex)
}

export function formatBlock(node: DevNode, block: BlockRecord, fullTransactions: boolean): Record<string, unknown> {
  const h = block.header
  const out: Record<string, unknown> = { hash: toData(node.blockHash(block)), sha3Uncles: toData(EMPTY_UNCLES_HASH) }
  // Fields the block's hardfork lacks are left out, as geth leaves them out.
  const absent = block.absent
  for (const { name, kind, rpc } of HEADER_FIELDS) {
    if (absent?.includes(name)) continue
    const value = h[name]
    out[rpc ?? name] = kind === 'quantity' ? toQuantity(value as bigint) : toData(value as Uint8Array)
  }
  const ms = timestampMs(block)
  if (ms !== undefined) out.timestampMs = ms
  out.size = toQuantity(block.size)
  out.uncles = []
  out.transactions = block.txs.map((t) => (fullTransactions ? formatIncludedTx(t) : toData(t.tx.hash)))
  if (!absent?.includes('withdrawalsRoot')) out.withdrawals = []
  return out
}

/**
 * A block object's header part, as geth's RPCMarshalHeader has it: no transactions, uncles,
 * withdrawals or totalDifficulty; `size` only if kept (reth's header carries it).
 */
export function headerOfBlock(block: Record<string, unknown>, keepSize: boolean): Record<string, unknown> {
  const { transactions: _t, uncles: _u, withdrawals: _w, totalDifficulty: _d, size, ...header } = block
  return keepSize && size !== undefined ? { ...header, size } : header
}

/** geth's header object (newHeads): the block object without body fields. */
export function formatHeader(node: DevNode, block: BlockRecord): Record<string, unknown> {
  return headerOfBlock(formatBlock(node, block, false), false)
}

/** eth_getHeaderByNumber/ByHash: the header object, with the block's size where the profile's client adds it (reth). */
export function formatHeaderWithSize(node: DevNode, block: BlockRecord): Record<string, unknown> {
  return headerOfBlock(formatBlock(node, block, false), node.profile.headerSize)
}

/** A pre-confirmed transaction with its logs and receipt fields, as Base's newFlashblockTransactions sends it. */
export function formatTxWithReceipt(t: IncludedTx): Record<string, unknown> {
  const r = formatReceipt(t)
  return {
    ...formatIncludedTx(t),
    logs: r.logs,
    status: r.status,
    gasUsed: r.gasUsed,
    cumulativeGasUsed: r.cumulativeGasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    contractAddress: r.contractAddress,
    logsBloom: r.logsBloom,
    ...opReceiptFields(t.receipt),
  }
}
