// eth_estimateGas with geth's algorithm (eth/gasestimator): 21000 shortcut for plain transfers,
// one run at the cap, the 64/63 optimistic guess, then bisection until within 1.5%.
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { ExecutionError } from '../errors.js'
import type { CallRequest, StateOverrides } from '../types.js'
import { type CallOutcome, callTransaction, mapRunTxError, runReverted, throwFailure } from './call.js'

const TX_GAS = 21000n
const CALL_STIPEND = 2300n
const ERROR_RATIO = 0.015

export interface EstimateInput {
  vm: VM
  common: Common
  block: Block
  req: CallRequest
  /** Upper bound before the sender's allowance: block gas limit, EIP-7825 cap, or req.gas. */
  cap: bigint
  overrides?: StateOverrides
}

export async function estimateGas({ vm, common, block, req, cap, overrides }: EstimateInput): Promise<bigint> {
  const from = new Address(req.from ?? new Uint8Array(20))
  const account = await vm.stateManager.getAccount(from)
  let balance = account?.balance ?? 0n
  const override = overrides?.get(from.toString())
  if (override?.balance !== undefined) balance = override.balance
  const nonce = override?.nonce ?? account?.nonce ?? 0n

  let hi = req.gas !== undefined && req.gas >= TX_GAS ? req.gas : cap
  const feeCap = req.maxFeePerGas ?? req.gasPrice ?? 0n
  const value = req.value ?? 0n
  // geth: the value must be covered whether or not the call pays for gas.
  if (value > balance) throw new ExecutionError('insufficient funds for transfer')
  if (feeCap > 0n) {
    if (value >= balance && value > 0n) throw new ExecutionError('insufficient funds for transfer')
    const allowance = (balance - value) / feeCap
    if (allowance < hi) hi = allowance
  }

  const run = async (gas: bigint): Promise<{ ok: boolean; outcome?: CallOutcome }> => {
    try {
      const tx = callTransaction(common, req, gas, nonce)
      const outcome = await runReverted(vm, block, tx, { validateBalance: feeCap > 0n, overrides })
      return { ok: outcome.failure === undefined, outcome }
    } catch (error) {
      // Below intrinsic gas: the run "fails" and the search raises the limit.
      if (/intrinsic|lower than the minimum gas limit/i.test(String(error))) return { ok: false }
      throw mapRunTxError(error)
    }
  }

  // A plain transfer to an account without code costs exactly 21000.
  if (req.to && (!req.data || req.data.length === 0) && !req.authorizationList) {
    const code = override?.code ?? (await vm.stateManager.getCode(new Address(req.to)))
    const toOverride = overrides?.get(new Address(req.to).toString())
    if ((toOverride?.code ?? code).length === 0 && hi >= TX_GAS) {
      if ((await run(TX_GAS)).ok) return TX_GAS
    }
  }

  const first = await run(hi)
  if (!first.ok) {
    const failure = first.outcome?.failure
    if (failure && failure.kind === 'revert') throwFailure(failure)
    if (failure && failure.message !== 'out of gas' && !/gas/.test(failure.message)) throwFailure(failure)
    throw new ExecutionError(`gas required exceeds allowance (${hi})`)
  }
  const result = first.outcome!.result
  let lo = result.totalGasSpent - 1n
  const optimistic = ((result.totalGasSpent + result.gasRefund + CALL_STIPEND) * 64n) / 63n
  if (optimistic < hi) {
    if ((await run(optimistic)).ok) hi = optimistic
    else lo = optimistic
  }
  while (lo + 1n < hi) {
    if (Number(hi - lo) / Number(hi) < ERROR_RATIO) break
    let mid = lo + (hi - lo) / 2n
    if (mid > lo * 2n) mid = lo * 2n
    if ((await run(mid)).ok) hi = mid
    else lo = mid
  }
  return hi
}
