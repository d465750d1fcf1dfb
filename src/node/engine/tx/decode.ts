// Raw transactions decoded with their sender recovered: as eth_sendRawTransaction receives them,
// refused with geth's error texts (core/types, core/txpool), or as a state file keeps the pool's.
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { TxGasCapError, TxRejectedError } from '../../errors.js'
import type { TxRecord } from '../../types.js'
import { txCommon } from '../vm/commons.js'
import { decodeBlobNetworkWrapper } from './blob-wrapper.js'
import { bigOf, type DecodeContext, type Keccak, keepEncoding, recordOf } from './record.js'

/** Largest transaction eth_sendRawTransaction takes (geth's txMaxSize, 128 KiB). */
export const MAX_TX_SIZE = 128 * 1024

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
    // The shared tx Common skips the params merge ethereumjs makes per transaction (vm/commons.ts).
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
    return new TxGasCapError(2n ** 24n, txGasLimit(raw))
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
