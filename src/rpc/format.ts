// Node objects → JSON-RPC objects, with the field sets geth serves.
import type { TypedTransaction } from '@ethereumjs/tx'
import type { DevNode } from '../node/node.js'
import type { BlockRecord, IncludedTx, LogEntry, MatchedLog, PoolTxInfo } from '../node/types.js'
import { type Hex, toData, toFixed, toQuantity } from './hex.js'

const ZERO_HASH = `0x${'0'.repeat(64)}` as Hex
const EMPTY_UNCLES_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347'

type TxFields = Record<string, unknown>

function txTypeFields(tx: TypedTransaction): TxFields {
  const t = tx as unknown as Record<string, unknown>
  const out: TxFields = {
    type: toQuantity(tx.type),
    nonce: toQuantity(tx.nonce),
    gas: toQuantity(tx.gasLimit),
    to: tx.to ? toData(tx.to.bytes) : null,
    value: toQuantity(tx.value),
    input: toData(tx.data),
  }
  if (t.chainId !== undefined) out.chainId = toQuantity(t.chainId as bigint)
  else if (tx.v !== undefined && tx.v >= 35n) out.chainId = toQuantity((tx.v - 35n) / 2n)
  if (t.maxFeePerGas !== undefined) {
    out.maxFeePerGas = toQuantity(t.maxFeePerGas as bigint)
    out.maxPriorityFeePerGas = toQuantity(t.maxPriorityFeePerGas as bigint)
  }
  if (t.maxFeePerBlobGas !== undefined) {
    out.maxFeePerBlobGas = toQuantity(t.maxFeePerBlobGas as bigint)
    out.blobVersionedHashes = (t.blobVersionedHashes as string[]).map((h) => h)
  }
  if (Array.isArray(t.accessList)) {
    out.accessList = (t.accessList as Array<[Uint8Array, Uint8Array[]]>).map(([address, keys]) => ({
      address: toData(address),
      storageKeys: keys.map(toData),
    }))
  }
  if (Array.isArray(t.authorizationList)) {
    out.authorizationList = (t.authorizationList as Uint8Array[][]).map(([chainId, address, nonce, yParity, r, s]) => ({
      chainId: toQuantity(bytesToBig(chainId)),
      address: toData(address),
      nonce: toQuantity(bytesToBig(nonce)),
      yParity: toQuantity(bytesToBig(yParity)),
      r: toQuantity(bytesToBig(r)),
      s: toQuantity(bytesToBig(s)),
    }))
  }
  if (tx.v !== undefined) {
    out.v = toQuantity(tx.v)
    out.r = toQuantity(tx.r ?? 0n)
    out.s = toQuantity(tx.s ?? 0n)
    if (tx.type !== 0) out.yParity = toQuantity(tx.v)
  }
  return out
}

function bytesToBig(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(toData(bytes))
}

function legacyPrice(tx: TypedTransaction): bigint {
  const t = tx as unknown as { gasPrice?: bigint; maxFeePerGas?: bigint }
  return t.gasPrice ?? t.maxFeePerGas ?? 0n
}

/** A transaction in a block: pre-confirmed ones have blockHash null, as Base serves them. */
export function formatIncludedTx(t: IncludedTx): TxFields {
  return {
    blockHash: t.block.sealed ? toData(t.block.hash) : null,
    blockNumber: toQuantity(t.block.header.number),
    blockTimestamp: toQuantity(t.block.header.timestamp),
    from: toData(t.from),
    gasPrice: toQuantity(t.receipt.effectiveGasPrice),
    hash: toData(t.hash),
    transactionIndex: toQuantity(t.index),
    ...txTypeFields(t.tx),
  }
}

export function formatPoolTx(info: PoolTxInfo): TxFields {
  return {
    blockHash: null,
    blockNumber: null,
    from: toData(info.from),
    gasPrice: toQuantity(legacyPrice(info.tx)),
    hash: toData(info.hash),
    transactionIndex: null,
    ...txTypeFields(info.tx),
  }
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
    transactionHash: toData(t.hash),
    transactionIndex: toQuantity(t.index),
    blockHash,
    blockNumber: toQuantity(t.block.header.number),
    gasUsed: toQuantity(r.gasUsed),
    effectiveGasPrice: toQuantity(r.effectiveGasPrice),
    from: toData(t.from),
    to: t.tx.to ? toData(t.tx.to.bytes) : null,
    contractAddress: r.contractAddress ? toData(r.contractAddress) : null,
  }
  if (r.blobGasUsed !== undefined) {
    out.blobGasUsed = toQuantity(r.blobGasUsed)
    out.blobGasPrice = toQuantity(r.blobGasPrice ?? 0n)
  }
  return out
}

export function formatLog(log: LogEntry, t: IncludedTx, logIndex: number): Record<string, unknown> {
  return {
    address: toData(log.address),
    topics: log.topics.map((topic) => toFixed(topic, 32)),
    data: toData(log.data),
    blockNumber: toQuantity(t.block.header.number),
    blockHash: t.block.sealed ? toData(t.block.hash) : ZERO_HASH,
    blockTimestamp: toQuantity(t.block.header.timestamp),
    transactionHash: toData(t.hash),
    transactionIndex: toQuantity(t.index),
    logIndex: toQuantity(logIndex),
    removed: false,
  }
}

export function formatMatchedLog(m: MatchedLog): Record<string, unknown> {
  return formatLog(m.log, m.tx, m.logIndex)
}

export function formatBlock(node: DevNode, block: BlockRecord, fullTransactions: boolean): Record<string, unknown> {
  const h = block.header
  const hash = node.blockHash(block)
  return {
    hash: toData(hash),
    parentHash: toData(h.parentHash),
    sha3Uncles: EMPTY_UNCLES_HASH,
    miner: toData(h.coinbase),
    stateRoot: toData(h.stateRoot),
    transactionsRoot: toData(h.transactionsRoot),
    receiptsRoot: toData(h.receiptsRoot),
    logsBloom: toData(h.logsBloom),
    difficulty: '0x0',
    number: toQuantity(h.number),
    gasLimit: toQuantity(h.gasLimit),
    gasUsed: toQuantity(h.gasUsed),
    timestamp: toQuantity(h.timestamp),
    extraData: toData(h.extraData),
    mixHash: toData(h.mixHash),
    nonce: '0x0000000000000000',
    baseFeePerGas: toQuantity(h.baseFeePerGas),
    withdrawalsRoot: toData(h.withdrawalsRoot),
    blobGasUsed: toQuantity(h.blobGasUsed),
    excessBlobGas: toQuantity(h.excessBlobGas),
    parentBeaconBlockRoot: toData(h.parentBeaconBlockRoot),
    requestsHash: toData(h.requestsHash),
    size: toQuantity(block.size),
    uncles: [],
    transactions: block.txs.map((t) => (fullTransactions ? formatIncludedTx(t) : toData(t.hash))),
    withdrawals: [],
  }
}
