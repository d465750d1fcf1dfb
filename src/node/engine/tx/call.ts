// The unsigned transactions calls run as (eth_call, eth_estimateGas, eth_simulateV1), reporting the
// request's sender, built without the checks a sent transaction gets.
import type { Common } from '@ethereumjs/common'
import {
  createAccessList2930Tx,
  createBlob4844Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { InvalidParamsError } from '../../errors.js'
import type { CallRequest, TxRecord } from '../../types.js'
import { txCommon } from '../vm/commons.js'
import { authorizationItem, type DecodeContext, recordOf } from './record.js'

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
  // One object, filled per type, with `type` in it from the start: on Node 20, V8 adds keys slowly to
  // an object made by a spread, and ethereumjs' constructors copy it again as `{ ...txData, type }`,
  // fast only when `type` is there.
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
    tx = createBlob4844Tx(fields as never, { common: txCommon(common), freeze: false })
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
