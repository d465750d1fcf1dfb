// A transaction's record (the node's TxRecord) and the executable ethereumjs object the engine keeps
// beside it: made from a decoded or built object, or, for a sealed block's history loaded from a
// state file, decoded on first read.
import type { Common } from '@ethereumjs/common'
import {
  createTxFromRLP,
  getCalldataFloorGas,
  isAccessList2930Tx,
  isBlob4844Tx,
  isEOACode7702Tx,
  isFeeMarket1559Tx,
  type TypedTransaction,
} from '@ethereumjs/tx'
import { Address, bigIntToUnpaddedBytes, bytesToBigInt } from '@ethereumjs/util'
import type { AccessListEntry, Authorization, TxRecord } from '../../types.js'
import { txCommon } from '../vm/commons.js'

export type Keccak = (data: Uint8Array) => Uint8Array

/** What decoding and building transactions needs from the engine. */
export interface DecodeContext {
  common: Common
  keccak: Keccak
  chainId: bigint
}

const handles = new WeakMap<TxRecord, TypedTransaction>()

/** @internal The executable ethereumjs object behind a record. */
export function engineTx(t: TxRecord): TypedTransaction {
  let tx = handles.get(t)
  if (!tx) {
    lazyDecoders.get(t)?.()
    tx = handles.get(t)
  }
  if (!tx) throw new Error('transaction record without an engine object')
  return tx
}

/** @internal An unsigned big-endian integer's value (empty: 0). */
export const bigOf = (bytes: Uint8Array) => (bytes.length === 0 ? 0n : bytesToBigInt(bytes))

/** The record of `tx`, whose wire bytes, hash and sender are known. */
export function recordOf(
  tx: TypedTransaction,
  raw: Uint8Array,
  hash: Uint8Array,
  from: Uint8Array,
  impersonated = false,
): TxRecord {
  const record: TxRecord = {
    type: tx.type,
    hash,
    raw,
    from,
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    to: tx.to?.bytes,
    value: tx.value,
    data: tx.data,
    v: tx.v,
    r: tx.r,
    s: tx.s,
    ...feeFields(tx),
    ...(impersonated ? { impersonated } : {}),
  }
  handles.set(record, tx)
  return record
}

function feeFields(tx: TypedTransaction): Partial<TxRecord> {
  if (isFeeMarket1559Tx(tx) || isBlob4844Tx(tx) || isEOACode7702Tx(tx)) {
    const out: Partial<TxRecord> = {
      chainId: tx.chainId,
      maxFeePerGas: tx.maxFeePerGas,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
      accessList: accessListOf(tx.accessList),
    }
    if (isBlob4844Tx(tx))
      return { ...out, maxFeePerBlobGas: tx.maxFeePerBlobGas, blobVersionedHashes: tx.blobVersionedHashes.map(toBytes) }
    if (isEOACode7702Tx(tx)) return { ...out, authorizationList: tx.authorizationList.map(authorizationOf) }
    return out
  }
  if (isAccessList2930Tx(tx)) return { chainId: tx.chainId, gasPrice: tx.gasPrice, accessList: accessListOf(tx.accessList) }
  const legacy = tx as TypedTransaction & { gasPrice: bigint }
  const v = tx.v
  return { gasPrice: legacy.gasPrice, ...(v !== undefined && v >= 35n ? { chainId: (v - 35n) / 2n } : {}) }
}

function toBytes(value: Uint8Array | string): Uint8Array {
  return typeof value === 'string' ? Uint8Array.from(Buffer.from(value.slice(2), 'hex')) : value
}

function accessListOf(list: Array<[Uint8Array, Uint8Array[]]>): AccessListEntry[] {
  return list.map(([address, storageKeys]) => ({ address, storageKeys }))
}

function authorizationOf([chainId, address, nonce, yParity, r, s]: Uint8Array[]): Authorization {
  return { chainId: bigOf(chainId), address, nonce: bigOf(nonce), yParity: bigOf(yParity), r: bigOf(r), s: bigOf(s) }
}

/** An EIP-7702 authorization as the list item a transaction encodes: [chainId, address, nonce, yParity, r, s]. */
export function authorizationItem(a: Authorization): Uint8Array[] {
  const n = bigIntToUnpaddedBytes
  return [n(a.chainId), a.address, n(a.nonce), n(a.yParity), n(a.r), n(a.s)]
}

/** Gas charged before execution (calldata, creation, access list, authorizations). */
export function intrinsicGas(t: TxRecord): bigint {
  return engineTx(t).getIntrinsicGas()
}

/** EIP-7623's calldata floor (0 before Prague). */
export function floorDataGas(t: TxRecord): bigint {
  return getCalldataFloorGas(engineTx(t) as never, new Address(t.from))
}

/**
 * Freezes a decoded transaction with its wire bytes as its serialization, their hash as its hash
 * and its recovered sender: the tx root, block sizes, payloads and execution reuse them instead of
 * re-encoding and re-hashing (ethereumjs re-encodes the RLP on every serialize(), and caches
 * hash() only on frozen objects).
 */
export function keepEncoding(tx: TypedTransaction, raw: Uint8Array, hash: Uint8Array, from: Uint8Array): TxRecord {
  const sender = new Address(from)
  Object.defineProperty(tx, 'serialize', { value: () => raw })
  Object.defineProperty(tx, 'getSenderAddress', { value: () => sender })
  tx.cache.hash = hash
  Object.freeze(tx)
  return recordOf(tx, raw, hash, from)
}

const DECODED_FIELDS = [
  'chainId',
  'nonce',
  'gasLimit',
  'to',
  'value',
  'data',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'accessList',
  'authorizationList',
  'maxFeePerBlobGas',
  'blobVersionedHashes',
  'v',
  'r',
  's',
] as const

/**
 * A sealed block's transaction from a state file, whose hash (checked by the caller) and sender the
 * file gives: decoded on first read of a field, since a history of thousands of transactions is
 * mostly never read again (decoding is most of a load's cost otherwise).
 */
export function lazyTransaction(common: Common, raw: Uint8Array, hash: Uint8Array, from: Uint8Array): TxRecord {
  let decoded: TxRecord | undefined
  const decode = () => {
    if (!decoded) {
      const tx = createTxFromRLP(raw, { common: txCommon(common), freeze: false })
      decoded = keepEncoding(tx, raw, hash, from)
      handles.set(record, tx)
    }
    return decoded
  }
  const record = { type: raw[0] < 0x80 ? raw[0] : 0, hash, raw, from } as TxRecord
  for (const field of DECODED_FIELDS) {
    Object.defineProperty(record, field, { enumerable: true, get: () => decode()[field] })
  }
  lazyDecoders.set(record, decode)
  return record
}

const lazyDecoders = new WeakMap<TxRecord, () => TxRecord>()
