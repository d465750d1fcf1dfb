// eth_call-style execution: an unsigned transaction from any sender, run on a state inside a
// checkpoint that is always reverted. Shared by eth_call, eth_estimateGas and eth_simulateV1.
import { getAddress } from 'viem'
import { decodeRevertReason } from '../../shared/revert.js'
import { hexKey } from '../bytes.js'
import {
  type BlockEnv,
  type CallOutput,
  type Engine,
  type ExecResult,
  type ExecView,
  type RollupFees,
  refusalOf,
  type TraceHooks,
} from '../engine/index.js'
import { ExecutionError, InvalidParamsError, RevertError } from '../errors.js'
import type { AccountOverride, BlockOverrides, CallRequest, HeaderFields, StateOverrides } from '../types.js'
import { SimulateError } from './errors.js'

/** Gas a call may use when it names none: the block's limit, capped by EIP-7825 where active. */
export function callGasCap(engine: Engine, blockGasLimit: bigint): bigint {
  const cap = engine.txGasCap()
  return cap !== undefined && cap < blockGasLimit ? cap : blockGasLimit
}

export function hasFee(req: CallRequest): boolean {
  return (req.gasPrice ?? 0n) > 0n || (req.maxFeePerGas ?? 0n) > 0n || (req.maxPriorityFeePerGas ?? 0n) > 0n
}

/**
 * The block environments calls without block overrides run in, per header record: building one
 * (an ethereumjs block, its header validated) costs about a tenth of a millisecond, per call.
 * What a call reads of a block (number, time, base fee, coinbase…) does not change while it is
 * open, so the pending block's records serve all its calls too.
 */
const callEnvs = new WeakMap<HeaderFields, { paying?: BlockEnv; free?: BlockEnv }>()

/** The block a call executes in: the block's, with overrides; base fee 0 when the call pays none (geth's NoBaseFee). */
export function callEnv(engine: Engine, header: HeaderFields, overrides: BlockOverrides | undefined, payFees: boolean): BlockEnv {
  const build = () => {
    const fields = applyBlockOverrides(header, overrides)
    if (!payFees && overrides?.baseFeePerGas === undefined) fields.baseFeePerGas = 0n
    return engine.blockEnv(fields)
  }
  if (overrides) return build()
  let cached = callEnvs.get(header)
  if (!cached) callEnvs.set(header, (cached = {}))
  const key = payFees ? 'paying' : 'free'
  cached[key] ??= build()
  return cached[key]
}

/** A copy of `header` with the block overrides eth_call and eth_simulateV1 share applied. */
export function applyBlockOverrides(header: HeaderFields, overrides: BlockOverrides | undefined): HeaderFields {
  const fields = { ...header }
  if (!overrides) return fields
  if (overrides.number !== undefined) fields.number = overrides.number
  if (overrides.time !== undefined) fields.timestamp = overrides.time
  if (overrides.gasLimit !== undefined) fields.gasLimit = overrides.gasLimit
  if (overrides.feeRecipient !== undefined) fields.coinbase = overrides.feeRecipient
  if (overrides.prevRandao !== undefined) fields.mixHash = overrides.prevRandao
  if (overrides.baseFeePerGas !== undefined) fields.baseFeePerGas = overrides.baseFeePerGas
  if (overrides.beaconRoot !== undefined) fields.parentBeaconBlockRoot = overrides.beaconRoot
  return fields
}

/** The override of `address`, if the request has one. */
export function overrideOf(overrides: StateOverrides | undefined, address: Uint8Array): AccountOverride | undefined {
  if (!overrides) return undefined
  const key = hexKey(address)
  return overrides.find((o) => hexKey(o.address) === key)
}

/** geth prints addresses in errors checksummed (EIP-55). */
export const checksummed = (hex: string): string => getAddress(`0x${hex.replace(/^0x/, '')}`)

/**
 * Applies eth_call / eth_simulateV1 state overrides to `view` (inside the caller's checkpoint).
 * Precompile moves last for the call or simulated block: call the returned function afterwards.
 * `oneMovePerTarget` refuses two precompiles moved to one address (-38023, as the spec names it);
 * false lets the last move win, as geth does (the profile's choice).
 */
export async function applyStateOverrides(
  view: ExecView,
  overrides: StateOverrides | undefined,
  oneMovePerTarget = true,
): Promise<() => void> {
  if (!overrides || overrides.length === 0) return () => {}
  const restore = movePrecompiles(view, overrides, oneMovePerTarget)
  try {
    for (const o of overrides) await applyAccountOverride(view, o)
  } catch (error) {
    restore()
    throw error
  }
  return restore
}

/**
 * movePrecompileToAddress: the precompile keeps working at its new address and its old one becomes
 * an ordinary account (so `code` can be put there). An account whose code is overridden loses its
 * precompile too, so the code runs. Errors as the spec numbers them: -38022 / -38023.
 */
function movePrecompiles(view: ExecView, overrides: StateOverrides, oneMovePerTarget: boolean): () => void {
  const precompiles = view.precompiles()
  const overridden = new Set(overrides.map((o) => hexKey(o.address)))
  const moves: Array<[string, string]> = []
  const removed: string[] = []
  for (const o of overrides) {
    const key = hexKey(o.address)
    if (o.movePrecompileToAddress !== undefined) {
      if (!precompiles.has(key)) throw new SimulateError('notPrecompile', `account ${checksummed(key)} is not a precompile`)
      const target = hexKey(o.movePrecompileToAddress)
      if (target === key) throw new SimulateError('movePrecompileToSelf', `cannot move precompile ${checksummed(key)} to itself`)
      if (oneMovePerTarget && moves.some(([, t]) => t === target)) {
        throw new SimulateError('movePrecompileTwice', `multiple precompiles moved to ${checksummed(target)}`)
      }
      if (overridden.has(target))
        throw new SimulateError('movePrecompileTwice', `account ${checksummed(target)} is already overridden`)
      moves.push([key, target])
    } else if (o.code !== undefined && precompiles.has(key)) {
      removed.push(key)
    }
  }
  if (moves.length === 0 && removed.length === 0) return () => {}
  return view.movePrecompiles(removed, moves)
}

async function applyAccountOverride(view: ExecView, o: AccountOverride): Promise<void> {
  if (o.state && o.stateDiff) throw new InvalidParamsError(`account 0x${hexKey(o.address)} has both 'state' and 'stateDiff'`)
  // Only a precompile move: geth touches no account (an empty one would change the state root).
  if (o.balance === undefined && o.nonce === undefined && o.code === undefined && !o.state && !o.stateDiff) return
  await view.putAccount(o.address, { balance: o.balance, nonce: o.nonce })
  if (o.code !== undefined) await view.putCode(o.address, o.code)
  if (o.state) {
    await view.clearStorage(o.address)
    for (const [slot, value] of o.state) await view.putStorage(o.address, slot, value)
  }
  if (o.stateDiff) {
    for (const [slot, value] of o.stateDiff) await view.putStorage(o.address, slot, value)
  }
}

export interface CallFailure {
  kind: 'revert' | 'vm'
  message: string
  output: Uint8Array
}

export interface CallOutcome {
  result: ExecResult
  /** undefined on success */
  failure?: CallFailure
}

/**
 * Runs the call `req` once on `view` and reverts everything it did. Throws for a transaction the
 * protocol refuses (funds, fee cap: refusalError gives geth's text).
 */
export function runReverted(
  view: ExecView,
  env: BlockEnv,
  req: CallRequest,
  gas: bigint,
  nonce: bigint,
  options: { validateBalance: boolean; overrides?: StateOverrides; trace?: TraceHooks; console?: boolean; rollup?: RollupFees },
): Promise<CallOutcome> {
  return reverted(view, options.overrides, async () => {
    const result = await view.call(req, gas, nonce, env, {
      skipNonce: true,
      skipBalance: !options.validateBalance,
      skipBlockGasLimit: true,
      trace: options.trace,
      console: options.console,
      rollup: options.rollup,
    })
    return { result, failure: describeFailure(result) }
  })
}

/**
 * eth_call's run: as runReverted, for the output only (ExecView.callOutput), which lets a call
 * that pays no fee skip the transaction's bookkeeping.
 */
export function outputReverted(
  view: ExecView,
  env: BlockEnv,
  req: CallRequest,
  gas: bigint,
  nonce: bigint,
  options: { validateBalance: boolean; overrides?: StateOverrides; console?: boolean; rollup?: RollupFees },
): Promise<{ output: Uint8Array; failure?: CallFailure }> {
  return reverted(view, options.overrides, async () => {
    const result = await view.callOutput(req, gas, nonce, env, {
      skipBalance: !options.validateBalance,
      console: options.console,
      rollup: options.rollup,
    })
    return { output: result.returnValue, failure: describeFailure(result) }
  })
}

/** Runs `fn` on `view` with `overrides` applied, then reverts everything it did. */
async function reverted<T>(view: ExecView, overrides: StateOverrides | undefined, fn: () => Promise<T>): Promise<T> {
  await view.checkpoint()
  let restore = () => {}
  try {
    restore = await applyStateOverrides(view, overrides)
    return await fn()
  } finally {
    restore()
    await view.revert()
  }
}

export function describeFailure(result: CallOutput): CallFailure | undefined {
  const error = result.error
  if (!error) return undefined
  const output = result.returnValue
  if (error === 'revert') {
    const reason = decodeRevertReason(output)
    return { kind: 'revert', message: reason ? `execution reverted: ${reason}` : 'execution reverted', output }
  }
  return { kind: 'vm', message: error, output }
}

/** Throws the RPC-facing error for a failed call (reverts carry their data, with `revertCode`). */
export function throwFailure(failure: CallFailure, revertCode?: number): never {
  if (failure.kind === 'revert') throw new RevertError(decodeRevertReason(failure.output), failure.output, revertCode)
  throw new ExecutionError(failure.message)
}

/** A protocol refusal of a call's transaction as geth words it (-32000); anything else unchanged. */
export function refusalError(error: unknown): unknown {
  const refusal = refusalOf(error)
  return refusal ? new ExecutionError(refusal.message) : error
}
