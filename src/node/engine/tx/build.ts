// Transactions the node builds from filled-in fields (eth_sendTransaction, eth_fillTransaction):
// signed with a known key, or impersonated with a placeholder signature as anvil does. A new
// transaction type changes this file.
import type { Common } from '@ethereumjs/common'
import {
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from '@ethereumjs/tx'
import { Address, bytesToBigInt } from '@ethereumjs/util'
import type { AccessListEntry, Authorization, TxRecord } from '../../types.js'
import { authorizationItem, type DecodeContext, recordOf } from './record.js'

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
