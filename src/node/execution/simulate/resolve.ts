// One eth_simulateV1 call made a transaction before it runs (reth's resolve_transaction with geth's
// checks): its defaults (sender, nonce, gas from the block's remainder and the request's budget),
// then the checks geth makes of an invalid transaction, which abort the whole request with geth's
// texts and the spec's -380xx codes: nonce (with validation), fees, blob fees, balance, intrinsic
// and floor gas.

import { type BlockEnv, type Engine, type ExecView, refusalOf, ZERO_ADDRESS } from '../../engine/index.js'
import { InvalidParamsError } from '../../errors.js'
import type { CallRequest, HeaderFields, TxRecord } from '../../types.js'
import { checksummed } from '../call.js'
import { SimulateError, type SimulateErrorKind } from '../errors.js'
import { SIMULATE_LIMITS } from './plan.js'

export const MAX_NONCE = 2n ** 64n - 1n

/** geth's message shape for an invalid transaction, which aborts the whole request. */
export type Invalid = (kind: SimulateErrorKind, message: string) => SimulateError

/** What the call runs with, and what running it needs from the checks. */
export interface ResolvedCall {
  tx: TxRecord
  from: Uint8Array
  /** The nonce as given (2^64-1 allowed without validation; the transaction carries one below it). */
  nonce: bigint
  /** The blob gas price of the block (0 without blobs): what ethereumjs charges. */
  blobPrice: bigint
  /** A call with zero fee cap and tip: fee checks and rollup fees skip it without validation. */
  paysNothing: boolean
  intrinsic: bigint
  invalid: Invalid
}

export interface ResolveInput {
  engine: Engine
  view: ExecView
  validation: boolean
  /** The block so far (its gas used) and its environment (blob gas price). */
  header: HeaderFields
  env: BlockEnv
  /** The request's gas budget left (geth's RPC gas cap, shared by all its calls). */
  budget: bigint
  /** An overridden blob base fee, which BLOBBASEFEE shows and blob fee caps are checked against. */
  shownBlobBaseFee: bigint | undefined
}

export async function resolveCall(req: CallRequest, input: ResolveInput): Promise<ResolvedCall> {
  const { engine, view, validation, header, env, budget } = input
  const from = req.from ?? ZERO_ADDRESS
  const account = await view.account(from)
  const stateNonce = account?.nonce ?? 0n
  const nonce = req.nonce ?? stateNonce

  // Gas: the block's remainder unless given, then capped by the request's budget and EIP-7825.
  const remaining = header.gasLimit - header.gasUsed
  let gas = req.gas ?? remaining
  if (gas > remaining) {
    throw new SimulateError('blockGasLimitReached', `block gas limit reached: remaining: ${remaining}, required: ${gas}`)
  }
  const budgetCapped = gas > budget
  if (budgetCapped) gas = budget
  const uncapped = gas
  const cap = engine.txGasCap()
  if (cap !== undefined && gas > cap) gas = cap
  const invalid: Invalid = (kind, message) => new SimulateError(kind, `err: ${message} (supplied gas ${gas})`)
  const sender = () => checksummed(Buffer.from(from).toString('hex'))
  const budgetSpent = () =>
    new SimulateError('clientLimit', `client adjustable limit reached: gas budget of ${SIMULATE_LIMITS.gas} exhausted`)

  if (validation) {
    if (stateNonce < nonce)
      throw invalid('nonceTooHigh', `nonce too high: address ${sender()}, tx: ${nonce} state: ${stateNonce}`)
    if (stateNonce > nonce) throw invalid('nonceTooLow', `nonce too low: address ${sender()}, tx: ${nonce} state: ${stateNonce}`)
    if (stateNonce >= MAX_NONCE) throw invalid('internal', `nonce has max value: address ${sender()}, nonce: ${stateNonce}`)
  }

  // Without validation a call may name no blob fee; ethereumjs still wants one >= the blob price.
  const blobPrice = req.blobVersionedHashes ? env.blobGasPrice() : 0n
  const blobFeeCap = req.maxFeePerBlobGas ?? 0n
  const txReq = !validation && req.blobVersionedHashes && blobFeeCap < blobPrice ? { ...req, maxFeePerBlobGas: blobPrice } : req
  let tx: TxRecord
  try {
    // geth runs (and hashes) simulated calls without the EIP-7825 cap, and with nonce 2^64-1
    // as given (without validation); ethereumjs checks both only when building a transaction.
    tx = engine.callRecord(txReq, gas, nonce >= MAX_NONCE ? MAX_NONCE - 1n : nonce, {
      gasLimit: uncapped > gas ? uncapped : undefined,
      nonce: nonce >= MAX_NONCE ? nonce : undefined,
    })
    if (uncapped > gas) gas = uncapped
  } catch (error) {
    if (refusalOf(error)?.kind === 'initcode') {
      throw invalid('initcodeTooLarge', `max initcode size exceeded: code size ${req.data?.length ?? 0}`)
    }
    if (error instanceof InvalidParamsError) throw error
    throw new InvalidParamsError(`invalid call: ${(error as Error).message.split(' (')[0]}`)
  }

  // Fees: geth skips these checks only for a call that pays nothing when validation is off.
  const feeCap = tx.maxFeePerGas ?? tx.gasPrice ?? 0n
  const tip = tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0n
  const paysNothing = feeCap === 0n && tip === 0n
  if (validation || !paysNothing) {
    if (tip > feeCap) {
      throw invalid(
        'invalidParams',
        `max priority fee per gas higher than max fee per gas: address ${sender()}, maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${feeCap}`,
      )
    }
    if (feeCap < header.baseFeePerGas) {
      throw invalid(
        'feeCapTooLow',
        `max fee per gas less than block base fee: address ${sender()}, maxFeePerGas: ${feeCap}, baseFee: ${header.baseFeePerGas}`,
      )
    }
  }
  const blobCount = tx.type === 3 ? BigInt(tx.blobVersionedHashes?.length ?? 0) : 0n
  if (blobCount > 0n) {
    const blobBaseFee = input.shownBlobBaseFee ?? blobPrice
    if ((validation || blobFeeCap > 0n) && blobFeeCap < blobBaseFee) {
      throw invalid(
        'feeCapTooLow',
        `max fee per blob gas less than block blob gas fee: address ${sender()}, blobGasFeeCap: ${blobFeeCap}, blobBaseFee: ${blobBaseFee}`,
      )
    }
  }
  // Balance: checked with or without validation, as geth does (gas at the fee cap, plus value).
  const blobGas = blobCount * engine.blobGasPerBlob()
  const want = gas * feeCap + tx.value + blobGas * blobFeeCap
  const have = account?.balance ?? 0n
  if (have < want)
    throw invalid(
      'insufficientFunds',
      `insufficient funds for gas * price + value: address ${sender()} have ${have} want ${want}`,
    )
  const intrinsic = engine.intrinsicGas(tx)
  if (gas < intrinsic) {
    if (budgetCapped) throw budgetSpent()
    throw invalid('intrinsicGasTooLow', `intrinsic gas too low: have ${gas}, want ${intrinsic}`)
  }
  const floor = engine.floorDataGas(tx)
  if (gas < floor) {
    if (budgetCapped) throw budgetSpent()
    throw invalid('intrinsicGasTooLow', `insufficient gas for floor data gas cost: have ${gas}, want ${floor}`)
  }
  return { tx, from, nonce, blobPrice, paysNothing, intrinsic, invalid }
}

/** ethereumjs' runTx refusals, should one slip past the checks above, as the spec's codes. */
export function refusalAsSimulateError(error: unknown, invalid: Invalid): Error {
  const refusal = refusalOf(error)
  const detail =
    refusal?.detail ?? (error instanceof Error ? error.message : String(error)).split(' -> ')[0].split(' (block number')[0]
  switch (refusal?.kind) {
    case 'funds':
      return invalid('insufficientFunds', `insufficient funds for gas * price + value: ${detail}`)
    case 'feeCap':
      return invalid('feeCapTooLow', detail)
    case 'intrinsicGas':
      return invalid('intrinsicGasTooLow', `intrinsic gas too low: ${detail}`)
    case 'initcode':
      return invalid('initcodeTooLarge', 'max initcode size exceeded')
    case 'nonce':
      return invalid('nonceTooLow', detail)
    default:
      return invalid('internal', detail)
  }
}
