// eth_estimateGas with geth's algorithm (eth/gasestimator): 21000 shortcut for plain transfers,
// one run at the cap, the 64/63 optimistic guess, then bisection until within 1.5%.
import { hexKey } from '../bytes.js'
import type { BlockEnv, ExecView, RollupFees } from '../engine/index.js'
import { ExecutionError } from '../errors.js'
import type { CallRequest, StateOverrides } from '../types.js'
import { type CallOutcome, hasFee, overrideOf, refusalError, runReverted, throwFailure } from './call.js'

const TX_GAS = 21000n
const CALL_STIPEND = 2300n
const ERROR_RATIO = 0.015

export interface EstimateInput {
  view: ExecView
  env: BlockEnv
  req: CallRequest
  /** Upper bound before the sender's allowance: block gas limit, EIP-7825 cap, or req.gas. */
  cap: bigint
  overrides?: StateOverrides
  /** Code of a revert's error (the profile's: -32000 on Base, 3 on geth). */
  revertCode?: number
  /**
   * OP stack, for a request that pays fees: the L1 data and operator fees, which the sender's
   * balance must cover beside gas (the estimate itself stays L2 gas, as on Base).
   */
  rollup?: RollupFees
}

export async function estimateGas({ view, env, req, cap, overrides, revertCode, rollup }: EstimateInput): Promise<bigint> {
  const from = req.from ?? new Uint8Array(20)
  const account = await view.account(from)
  let balance = account?.balance ?? 0n
  const override = overrideOf(overrides, from)
  if (override?.balance !== undefined) balance = override.balance
  const nonce = override?.nonce ?? account?.nonce ?? 0n

  let hi = req.gas !== undefined && req.gas >= TX_GAS ? req.gas : cap
  const feeCap = req.maxFeePerGas ?? req.gasPrice ?? 0n
  const value = req.value ?? 0n
  // geth: the value must be covered whether or not the call pays for gas.
  if (value > balance) throw new ExecutionError('insufficient funds for transfer')
  if (feeCap > 0n) {
    if (value >= balance && value > 0n) throw new ExecutionError('insufficient funds for transfer')
    let available = balance - value
    let perGas = feeCap
    if (rollup) {
      // The L1 fee and the operator fee's constant come off the balance; its per-gas part adds to the price.
      available -= view.callL1Fee(req, hi, nonce, rollup) + rollup.operatorFee(0n)
      perGas += rollup.operatorFee(1n) - rollup.operatorFee(0n)
      if (available < 0n) available = 0n
    }
    const allowance = available / perGas
    if (allowance < hi) hi = allowance
  }

  const run = async (gas: bigint): Promise<{ ok: boolean; outcome?: CallOutcome }> => {
    try {
      const outcome = await runReverted(view, env, req, gas, nonce, {
        validateBalance: feeCap > 0n,
        overrides,
        rollup: feeCap > 0n ? rollup : undefined,
      })
      return { ok: outcome.failure === undefined, outcome }
    } catch (error) {
      // Below intrinsic gas: the run "fails" and the search raises the limit.
      if (/intrinsic|lower than the minimum gas limit/i.test(String(error))) return { ok: false }
      throw refusalError(error)
    }
  }

  // A plain transfer to an account without code costs exactly 21000.
  if (req.to && (!req.data || req.data.length === 0) && !req.authorizationList) {
    const code = overrideOf(overrides, req.to)?.code ?? (await view.code(req.to))
    if (code.length === 0 && hi >= TX_GAS) {
      // geth confirms it with one run at 21000; anvil answers without one. That run cannot fail
      // (the value is covered, above) unless the request pays fees (fee caps, the L1 fee), lists
      // accesses, carries blobs, or the address is a precompile (which charges its own gas).
      if (!hasFee(req) && !req.accessList?.length && !req.blobVersionedHashes && isPlainAccount(view, req.to, overrides)) {
        return TX_GAS
      }
      if ((await run(TX_GAS)).ok) return TX_GAS
    }
  }

  const first = await run(hi)
  if (!first.ok) {
    const failure = first.outcome?.failure
    if (failure && failure.kind === 'revert') throwFailure(failure, revertCode)
    if (failure && failure.message !== 'out of gas' && !/gas/.test(failure.message)) throwFailure(failure, revertCode)
    throw new ExecutionError(`gas required exceeds allowance (${hi})`)
  }
  const result = first.outcome!.result
  let lo = result.gasUsed - 1n
  const optimistic = ((result.gasUsed + result.gasRefund + CALL_STIPEND) * 64n) / 63n
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

/** Whether `address` is neither a precompile nor where a state override moves one. */
function isPlainAccount(view: ExecView, address: Uint8Array, overrides: StateOverrides | undefined): boolean {
  if (overrides?.some((o) => o.movePrecompileToAddress !== undefined)) return false
  return !view.precompiles().has(hexKey(address))
}
