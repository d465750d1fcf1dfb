// Transactions between the node's TxRecord and ethereumjs: decoding what eth_sendRawTransaction
// receives (geth's error texts), building what eth_sendTransaction and calls send, and the
// executable object the engine keeps beside each record.
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import {
  createAccessList2930Tx,
  createBlob4844Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  createTxFromRLP,
  getCalldataFloorGas,
  isAccessList2930Tx,
  isBlob4844Tx,
  isEOACode7702Tx,
  isFeeMarket1559Tx,
  type TypedTransaction,
} from '@ethereumjs/tx'
import { Address, bigIntToUnpaddedBytes, bytesToBigInt } from '@ethereumjs/util'
import { InvalidParamsError, TxRejectedError } from '../../errors.js'
import type { AccessListEntry, Authorization, CallRequest, TxRecord } from '../../types.js'
import { txCommon } from '../vm/commons.js'
import { decodeBlobNetworkWrapper } from './blob-wrapper.js'

type Keccak = (data: Uint8Array) => Uint8Array

/** Largest transaction eth_sendRawTransaction takes (geth's txMaxSize, 128 KiB). */
export const MAX_TX_SIZE = 128 * 1024

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

const bigOf = (bytes: Uint8Array) => (bytes.length === 0 ? 0n : bytesToBigInt(bytes))

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

/** Gas charged before execution (calldata, creation, access list, authorizations). */
export function intrinsicGas(t: TxRecord): bigint {
  return engineTx(t).getIntrinsicGas()
}

/** EIP-7623's calldata floor (0 before Prague). */
export function floorDataGas(t: TxRecord): bigint {
  return getCalldataFloorGas(engineTx(t) as never, new Address(t.from))
}

// --- received transactions ---------------------------------------------------------------------

export interface DecodeContext {
  common: Common
  keccak: Keccak
  chainId: bigint
}

/**
 * A signed transaction as eth_sendRawTransaction receives it, decoded with its sender recovered,
 * or TxRejectedError with geth's text. Its wire bytes are kept as its encoding and their hash as
 * its hash (ethereumjs would re-encode and re-hash on every call).
 */
export function decodeTransaction(ctx: DecodeContext, raw: Uint8Array): TxRecord {
  if (raw.length > MAX_TX_SIZE) throw new TxRejectedError(`oversized data: transaction size ${raw.length}, limit ${MAX_TX_SIZE}`)
  if (raw.length === 0) throw new TxRejectedError('typed transaction too short')
  let tx: TypedTransaction
  try {
    // The shared tx Common skips the per-transaction params merge (~0.4 ms of each decode).
    tx = createTxFromRLP(raw, { common: txCommon(ctx.common), freeze: false })
  } catch (error) {
    throw decodeError(ctx, raw, error as Error)
  }
  // ethereumjs lets a typed transaction's chain id carry leading zero bytes; geth refuses them,
  // and the wire bytes (kept as the transaction's encoding) would not be canonical.
  if (chainIdHasLeadingZero(raw)) {
    const [int, name] = GETH_TX_TYPES[raw[0]] ?? ['*big.Int', 'Transaction']
    throw new TxRejectedError(`rlp: non-canonical integer (leading zero bytes) for ${int}, decoding into (types.${name}).ChainID`)
  }
  const from = recoverSender(() => {
    const pub = tx.getSenderPublicKey()
    tx.cache.senderPubKey = pub // not frozen yet, so ethereumjs would not cache it
    return ctx.keccak(pub).subarray(12)
  })
  return keepEncoding(tx, raw, ctx.keccak(raw), from)
}

/** A blob transaction with its sidecar (the EIP-4844 network wrapper), proofs verified. */
export async function decodeBlobTransaction(ctx: DecodeContext, raw: Uint8Array): Promise<TxRecord> {
  if (!ctx.common.isActivatedEIP(4844)) throw new TxRejectedError('transaction type not supported')
  let tx: TypedTransaction
  try {
    tx = await decodeBlobNetworkWrapper(ctx.common, raw)
  } catch (error) {
    const message = (error as Error).message
    throw message.startsWith('oversized') ? new TxRejectedError(message) : decodeError(ctx, raw, error as Error)
  }
  const from = recoverSender(() => tx.getSenderAddress().bytes)
  return recordOf(tx, tx.serialize(), tx.hash(), from)
}

function decodeError(ctx: DecodeContext, raw: Uint8Array, error: Error): TxRejectedError {
  const message = error.message
  const chainId = txChainId(raw)
  if (chainId !== undefined && chainId !== ctx.chainId) {
    return new TxRejectedError(`invalid chain id for signer: have ${chainId} want ${ctx.chainId}`)
  }
  if (/gasLimit.*(?:cap|exceeds)|EIP-7825/i.test(message)) {
    return new TxRejectedError(`transaction gas limit too high (cap: ${2n ** 24n}, tx: ${txGasLimit(raw) ?? '?'})`)
  }
  if (/maxFeePerGas cannot be less than maxPriorityFeePerGas/.test(message)) {
    return new TxRejectedError('max priority fee per gas higher than max fee per gas')
  }
  if (/signature|Invalid Signature|s-values|v value/i.test(message)) return new TxRejectedError('invalid sender')
  if (/not supported|unknown transaction type|TypedTransaction with ID/i.test(message)) {
    return new TxRejectedError('transaction type not supported')
  }
  return new TxRejectedError(`rlp: ${message.split(' (')[0]}`)
}

/** geth's integer type and struct name of each typed transaction's chain id, for its error text. */
const GETH_TX_TYPES: Record<number, [string, string]> = {
  1: ['*big.Int', 'AccessListTx'],
  2: ['*big.Int', 'DynamicFeeTx'],
  3: ['*uint256.Int', 'BlobTx'],
  4: ['*uint256.Int', 'SetCodeTx'],
}

/** The payload list of a typed envelope, or the legacy list; undefined when it is not RLP. */
function fieldsOfRaw(raw: Uint8Array): Uint8Array[] | undefined {
  try {
    const fields = RLP.decode(raw[0] >= 0xc0 ? raw : raw.subarray(1))
    return Array.isArray(fields) ? (fields as Uint8Array[]) : undefined
  } catch {
    return undefined
  }
}

/** Whether a typed transaction's first field (the chain id) is an integer with leading zeros. */
function chainIdHasLeadingZero(raw: Uint8Array): boolean {
  if (raw[0] >= 0x80) return false // legacy: the chain id is in v, whose encoding ethereumjs checks
  const chainId = fieldsOfRaw(raw)?.[0]
  return chainId instanceof Uint8Array && chainId.length > 0 && chainId[0] === 0
}

/** Chain id a raw transaction names, read without full decoding (for the wrong-chain message). */
function txChainId(raw: Uint8Array): bigint | undefined {
  const fields = fieldsOfRaw(raw)
  if (!fields) return undefined
  if (raw[0] >= 0xc0) {
    const v = fields[6] instanceof Uint8Array ? bigOf(fields[6]) : 0n
    return v >= 35n ? (v - 35n) / 2n : undefined
  }
  return fields[0] instanceof Uint8Array ? bigOf(fields[0]) : undefined
}

function txGasLimit(raw: Uint8Array): bigint | undefined {
  const fields = fieldsOfRaw(raw)
  const gas = fields?.[raw[0] >= 0xc0 ? 2 : raw[0] === 1 ? 3 : 4]
  return gas instanceof Uint8Array ? bigOf(gas) : undefined
}

function recoverSender(recover: () => Uint8Array): Uint8Array {
  try {
    return recover()
  } catch {
    throw new TxRejectedError('invalid sender') // geth's ErrInvalidSender
  }
}

/**
 * Freezes a decoded transaction with its wire bytes as its serialization, their hash as its hash
 * and its recovered sender: the tx root, block sizes, payloads and execution reuse them instead of
 * re-encoding and re-hashing (ethereumjs re-encodes the RLP on every serialize(), and caches
 * hash() only on frozen objects).
 */
function keepEncoding(tx: TypedTransaction, raw: Uint8Array, hash: Uint8Array, from: Uint8Array): TxRecord {
  const sender = new Address(from)
  Object.defineProperty(tx, 'serialize', { value: () => raw })
  Object.defineProperty(tx, 'getSenderAddress', { value: () => sender })
  tx.cache.hash = hash
  Object.freeze(tx)
  return recordOf(tx, raw, hash, from)
}

/**
 * A pooled transaction kept in a state file, decoded again: its sender recovered (which checks
 * the signature), or `impersonatedFrom` for an impersonated one (a placeholder signature recovers
 * nothing). Errors say which: `not a transaction (…)` or `invalid signature (…)`.
 */
export function restoreTransaction(common: Common, keccak: Keccak, raw: Uint8Array, impersonatedFrom?: Uint8Array): TxRecord {
  const short = (error: unknown) => (error as Error).message.split(' (')[0]
  let tx: TypedTransaction
  try {
    tx = createTxFromRLP(raw, { common: txCommon(common), freeze: false })
  } catch (error) {
    throw new Error(`not a transaction (${short(error)})`)
  }
  const hash = keccak(raw)
  if (impersonatedFrom) {
    const sender = new Address(impersonatedFrom)
    tx.getSenderAddress = () => sender
    return recordOf(tx, raw, hash, impersonatedFrom, true)
  }
  let from: Uint8Array
  try {
    from = tx.getSenderAddress().bytes
  } catch (error) {
    throw new Error(`invalid signature (${short(error)})`)
  }
  return keepEncoding(tx, raw, hash, from)
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
      const sender = new Address(from)
      Object.defineProperty(tx, 'serialize', { value: () => raw })
      Object.defineProperty(tx, 'getSenderAddress', { value: () => sender })
      tx.cache.hash = hash
      Object.freeze(tx)
      decoded = recordOf(tx, raw, hash, from)
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

// --- transactions the node builds ----------------------------------------------------------

/**
 * What eth_sendTransaction and eth_fillTransaction build once defaults are filled. The type follows
 * the fields as geth's TransactionArgs.ToTransaction picks it: an authorization list makes an
 * EIP-7702 transaction, a gas price a legacy one (EIP-2930 with an access list), else EIP-1559.
 */
export interface TxFields {
  nonce: bigint
  gasLimit: bigint
  to?: Uint8Array
  value: bigint
  data: Uint8Array
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  accessList?: AccessListEntry[]
  authorizationList?: Authorization[]
}

/** An EIP-7702 authorization as the list item a transaction encodes: [chainId, address, nonce, yParity, r, s]. */
export function authorizationItem(a: Authorization): Uint8Array[] {
  const n = bigIntToUnpaddedBytes
  return [n(a.chainId), a.address, n(a.nonce), n(a.yParity), n(a.r), n(a.s)]
}

/** Marks an impersonated transaction's placeholder signature: r = 2^160 + sender (unique hash per sender, as anvil's). */
const IMPERSONATION_MARK = 1n << 160n

/** `fields` as an ethereumjs transaction of the type they call for, with signature values `sig` (none: zero). */
function typedFromFields(
  fields: TxFields,
  opts: { common: Common; freeze?: boolean },
  sig: { v?: bigint; r?: bigint; s?: bigint } = {},
): TypedTransaction {
  const base = {
    nonce: fields.nonce,
    gasLimit: fields.gasLimit,
    to: fields.to ? new Address(fields.to) : undefined,
    value: fields.value,
    data: fields.data,
    ...sig,
  }
  const accessList = fields.accessList?.map((e) => [e.address, e.storageKeys]) as never
  const fees = { maxFeePerGas: fields.maxFeePerGas, maxPriorityFeePerGas: fields.maxPriorityFeePerGas, accessList }
  if (fields.authorizationList) {
    const authorizationList = fields.authorizationList.map(authorizationItem) as never
    return createEOACode7702Tx({ ...base, ...fees, authorizationList }, opts)
  }
  if (fields.gasPrice === undefined) return createFeeMarket1559Tx({ ...base, ...fees }, opts)
  return fields.accessList
    ? createAccessList2930Tx({ ...base, gasPrice: fields.gasPrice, accessList }, opts)
    : createLegacyTx({ ...base, gasPrice: fields.gasPrice }, opts)
}

/**
 * `fields` as a transaction: signed with `privateKey`, or, for an impersonated sender (no key), with
 * a placeholder signature and `from` as its sender (as anvil does).
 */
export function buildTransaction(
  ctx: DecodeContext,
  fields: TxFields,
  signer: { privateKey: Uint8Array } | { impersonated: Uint8Array },
): TxRecord {
  if ('privateKey' in signer) {
    const tx = typedFromFields(fields, { common: ctx.common, freeze: true }).sign(signer.privateKey)
    return recordOf(tx, tx.serialize(), tx.hash(), tx.getSenderAddress().bytes)
  }
  // Legacy signatures carry the chain id in v (EIP-155); typed ones a y parity of 0.
  const legacy = fields.gasPrice !== undefined && !fields.authorizationList && !fields.accessList
  const v = legacy ? ctx.common.chainId() * 2n + 35n : 0n
  const r = IMPERSONATION_MARK | bytesToBigInt(signer.impersonated)
  const tx = typedFromFields(fields, { common: ctx.common, freeze: false }, { v, r, s: 1n })
  const sender = new Address(signer.impersonated)
  tx.getSenderAddress = () => sender
  const raw = tx.serialize()
  return recordOf(tx, raw, ctx.keccak(raw), signer.impersonated, true)
}

/**
 * `fields` as an unsigned transaction with a zero signature, reporting `from` as its sender: what
 * geth's eth_fillTransaction answers (`{raw, tx}`, its hash over that encoding).
 */
export function unsignedTransaction(ctx: DecodeContext, fields: TxFields, from: Uint8Array): TxRecord {
  const tx = typedFromFields(fields, { common: ctx.common })
  const raw = tx.serialize()
  return recordOf(tx, raw, ctx.keccak(raw), from)
}

// --- calls -----------------------------------------------------------------------------------

export const ZERO_ADDRESS = new Uint8Array(20)

/** The fields of a call's transaction, whichever its type (callTransaction). */
interface CallTxData {
  type: number
  nonce: bigint
  gasLimit: bigint
  to: Address | undefined
  value: bigint
  data: Uint8Array
  accessList: never
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  maxFeePerBlobGas?: bigint
  blobVersionedHashes?: never
  authorizationList?: never
}

/**
 * The unsigned transaction a call (eth_call, eth_estimateGas, eth_simulateV1) runs as, reporting
 * `req.from` as its sender. Errors are InvalidParamsError, or ethereumjs' own (initcode size…).
 */
export function callTransaction(common: Common, req: CallRequest, gas: bigint, nonce: bigint): TypedTransaction {
  // One object, filled per type, with `type` in it from the start. Built as `{ ...base, fee fields }`
  // it cost ~4 µs a call: on Node 20, V8 adds a key to an object made by a spread ~1 µs a key.
  // ethereumjs' constructors copy it again as `{ ...txData, type }`, fast only when `type` is there.
  const fields: CallTxData = {
    type: 2,
    nonce,
    gasLimit: gas,
    to: req.to ? new Address(req.to) : undefined,
    value: req.value ?? 0n,
    data: req.data ?? new Uint8Array(),
    accessList: req.accessList?.map((e) => [e.address, e.storageKeys]) as never,
  }
  const opts = { common: txCommon(common), freeze: false }
  let tx: TypedTransaction
  if (req.authorizationList) {
    fields.type = 4
    fields.maxFeePerGas = req.maxFeePerGas ?? req.gasPrice ?? 0n
    fields.maxPriorityFeePerGas = req.maxPriorityFeePerGas ?? 0n
    fields.authorizationList = req.authorizationList.map(authorizationItem) as never
    tx = createEOACode7702Tx(fields as never, opts)
  } else if (req.blobVersionedHashes) {
    if (!req.to) throw new InvalidParamsError('blob transactions cannot create contracts: missing "to"')
    fields.type = 3
    fields.maxFeePerGas = req.maxFeePerGas ?? req.gasPrice ?? 0n
    fields.maxPriorityFeePerGas = req.maxPriorityFeePerGas ?? 0n
    fields.maxFeePerBlobGas = req.maxFeePerBlobGas ?? 0n
    fields.blobVersionedHashes = req.blobVersionedHashes as never
    tx = createBlob4844Tx(fields as never, { common: txCommon(withKzg(common)), freeze: false })
  } else if (req.gasPrice !== undefined && req.maxFeePerGas === undefined) {
    fields.gasPrice = req.gasPrice
    fields.type = req.accessList ? 1 : 0
    tx = req.accessList ? createAccessList2930Tx(fields, opts) : createLegacyTx(fields, opts)
  } else {
    const maxFeePerGas = req.maxFeePerGas ?? 0n
    const tip = req.maxPriorityFeePerGas ?? 0n
    if (tip > maxFeePerGas && req.maxFeePerGas !== undefined) {
      throw new InvalidParamsError('max priority fee per gas higher than max fee per gas')
    }
    fields.maxFeePerGas = maxFeePerGas < tip ? tip : maxFeePerGas
    fields.maxPriorityFeePerGas = tip
    tx = createFeeMarket1559Tx(fields as never, opts)
  }
  const from = new Address(req.from ?? ZERO_ADDRESS)
  tx.getSenderAddress = () => from
  return tx
}

/**
 * A simulated call as a record (eth_simulateV1 returns its hash and fields). `raw` overrides of
 * gas and nonce go past the checks ethereumjs makes when building (the EIP-7825 cap, nonce
 * 2^64-1), since geth runs and hashes such calls as given.
 */
export function callRecord(
  ctx: DecodeContext,
  req: CallRequest,
  gas: bigint,
  nonce: bigint,
  raw: { gasLimit?: bigint; nonce?: bigint } = {},
): TxRecord {
  const tx = callTransaction(ctx.common, req, gas, nonce)
  if (raw.gasLimit !== undefined) (tx as { gasLimit: bigint }).gasLimit = raw.gasLimit
  if (raw.nonce !== undefined) (tx as { nonce: bigint }).nonce = raw.nonce
  const encoded = tx.serialize()
  return recordOf(tx, encoded, ctx.keccak(encoded), req.from ?? ZERO_ADDRESS)
}

const kzgCommons = new WeakMap<Common, Common>()

/**
 * ethereumjs builds no blob transaction without a KZG backend, even one that carries only
 * versioned hashes (all a call has). A copy of the common with a stub that is never reached
 * without blobs, unless the engine already has a real one.
 */
function withKzg(common: Common): Common {
  if (common.customCrypto.kzg) return common
  let copy = kzgCommons.get(common)
  if (!copy) {
    const unavailable = () => {
      throw new Error('KZG is not available for calls')
    }
    copy = common.copy()
    ;(copy as { customCrypto: unknown }).customCrypto = { ...common.customCrypto, kzg: new Proxy({}, { get: () => unavailable }) }
    kzgCommons.set(common, copy)
  }
  return copy
}
