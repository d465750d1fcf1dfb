// eth_estimateUserOperationGas: each step the EntryPoint takes for the op (deploy through the
// SenderCreator, validateUserOp, validatePaymasterUserOp, the call, postOp) made once as its own call
// on the pre-confirmed state and measured, so a stub signature (which fails validation, as it should)
// does not stop the measure; margins cover the EntryPoint's own work around each step. The
// preVerificationGas is the bundle's calldata and fixed costs (the reference bundler's overheads)
// plus, on the OP profiles, the L1 data fee the bundle pays, in gas at the op's price.
import { type Address, concat, type Hex, hexToBytes, keccak256, toHex, zeroAddress } from 'viem'
import type { SimulatedCall } from '../execution/simulate/run.js'
import type { CallRequest, StateOverrides } from '../types.js'
import { executionData, paymasterContext, postOpData, validatePaymasterData, validateUserOpData } from './account-calls.js'
import type { EntryPoint } from './entry-points.js'
import { ExecutionRevertedError, PaymasterRejectedError, UserOpRejectedError } from './errors.js'
import type { BundlerParts } from './parts.js'
import { PER_AUTHORIZATION, simulateBundle } from './simulate-bundle.js'
import { factoryCall, handleOpsData, isEip7702, paymasterOf, type UserOp, userOpHash } from './user-op.js'

export interface GasEstimate {
  preVerificationGas: bigint
  verificationGasLimit: bigint
  callGasLimit: bigint
  paymasterVerificationGasLimit?: bigint
  paymasterPostOpGasLimit?: bigint
}

/** The reference bundler's DefaultGasOverheads (eth-infinitism sdk calcPreVerificationGas). */
const TX_BASE = 21_000n
const PER_USER_OP = 18_300n
const PER_USER_OP_WORD = 4n
/**
 * The EntryPoint's own work metered against verificationGasLimit besides the account's: copying and
 * hashing the op, the nonce, and the prefund the account pays into a new deposit (a fresh storage slot).
 */
const VERIFICATION_OVERHEAD = 50_000n
/** Tries at raising a limit the EntryPoint finds too low, each by half. */
const RAISES = 6
/** A signed EIP-1559 envelope's bytes besides its calldata (nonce, fees, gas, to, signature). */
const ENVELOPE_BYTES = 110

const hex = (b: Uint8Array) => toHex(b)
const bytes = (h: Hex) => hexToBytes(h)

/** Calldata gas (EIP-2028): 4 per zero byte, 16 per other. */
export function calldataGas(data: Hex): bigint {
  let gas = 0n
  for (const b of hexToBytes(data)) gas += b === 0 ? 4n : 16n
  return gas
}

/** What a step's call needed (before refunds), less the transaction around it that the EntryPoint's inner call does not pay. */
function stepGas(result: SimulatedCall, data: Hex): bigint {
  const needed = result.maxUsedGas - TX_BASE - calldataGas(data)
  return needed > 0n ? needed : 0n
}

/** The code the sender runs with: an op carrying a 7702 authorization runs its delegate, as the bundle will. */
export function senderOverrides(op: UserOp, overrides: StateOverrides = []): StateOverrides {
  if (!isEip7702(op) || !op.authorization) return overrides
  const sender = bytes(op.sender)
  if (overrides.some((o) => hex(o.address) === op.sender.toLowerCase())) return overrides
  return [...overrides, { address: sender, code: bytes(concat(['0xef0100', op.authorization.address])) }]
}

function revertText(result: SimulatedCall): string {
  return result.error?.message ?? 'reverted'
}

export async function estimateUserOpGas(
  parts: BundlerParts,
  entryPoint: EntryPoint,
  op: UserOp,
  bundler: Address,
  overrides?: StateOverrides,
): Promise<GasEstimate> {
  const hash = userOpHash(parts.chainId, entryPoint, op)
  const ep = bytes(entryPoint.address)
  const sender = bytes(op.sender)
  const stateOverrides = senderOverrides(op, overrides)
  const deploy = factoryCall(op)
  const paymaster = paymasterOf(op)
  const calls: CallRequest[] = []
  const steps: Array<{ name: 'deploy' | 'validate' | 'paymaster' | 'execute'; data: Hex }> = []
  if (deploy) {
    calls.push({ from: bytes(entryPoint.senderCreator), to: bytes(deploy.factory), data: bytes(deploy.data) })
    steps.push({ name: 'deploy', data: deploy.data })
  } else if (!isEip7702(op) && (await parts.code(sender)).length === 0) {
    throw new UserOpRejectedError('AA20 account not deployed')
  }
  const validate = validateUserOpData(entryPoint, op, hash, 0n)
  calls.push({ from: ep, to: sender, data: bytes(validate) })
  steps.push({ name: 'validate', data: validate })
  if (paymaster) {
    const data = validatePaymasterData(entryPoint, op, hash, 0n)
    calls.push({ from: ep, to: bytes(paymaster), data: bytes(data) })
    steps.push({ name: 'paymaster', data })
  }
  const execute = executionData(entryPoint, op, hash)
  calls.push({ from: ep, to: sender, data: bytes(execute) })
  steps.push({ name: 'execute', data: execute })

  const results = await parts.simulate(calls, stateOverrides)
  const gas = { deploy: 0n, validate: 0n, paymaster: 0n, execute: 0n, postOp: 0n }
  let context: Hex = '0x'
  for (const [i, step] of steps.entries()) {
    const result = results[i]
    if (!result) throw new UserOpRejectedError(`${step.name} step not run`)
    if (result.status !== 1) failStep(step.name, result)
    gas[step.name] = stepGas(result, step.data)
    if (step.name === 'paymaster') context = paymasterContext(hex(result.returnData))
  }
  if (paymaster && context !== '0x') {
    const data = postOpData(entryPoint, context, 10n ** 15n, parts.baseFee())
    const withPostOp = await parts.simulate([...calls, { from: ep, to: bytes(paymaster), data: bytes(data) }], stateOverrides)
    const result = withPostOp[calls.length]
    if (result && result.status === 1) gas.postOp = stepGas(result, data)
  }

  // Margins: the EntryPoint's bookkeeping and prefund transfer inside verification, the 63/64 rule
  // on the call's own sub-calls, and warm/cold differences between one call and the bundle.
  const verification = margin(gas.deploy + gas.validate, 25n) + VERIFICATION_OVERHEAD
  // Close to what alto's binary search finds (a tenth of each other), so an app sees the same limits from either.
  const callGasLimit = margin((gas.execute * 64n) / 63n, 5n) + 2_500n
  const estimate: GasEstimate = { preVerificationGas: 0n, verificationGasLimit: verification, callGasLimit }
  if (paymaster) {
    const pmVerification = margin(gas.paymaster, 25n) + 20_000n
    const postOp = gas.postOp === 0n ? 0n : margin(gas.postOp, 25n) + 10_000n
    // v0.6 has one verificationGasLimit for the account, the paymaster and postOp.
    if (entryPoint.version === '0.6') estimate.verificationGasLimit += pmVerification + postOp
    else {
      estimate.paymasterVerificationGasLimit = pmVerification
      estimate.paymasterPostOpGasLimit = postOp
    }
  }
  await holdInBundle(parts, entryPoint, op, estimate, bundler, stateOverrides)
  estimate.preVerificationGas = preVerificationGas(parts, entryPoint, {
    ...op,
    ...estimate,
    preVerificationGas: 1n << 24n,
  } as UserOp)
  return estimate
}

/**
 * Runs handleOps with the estimated limits (the stub signature fails, but the EntryPoint checks it only after
 * every limit of validation): a limit it finds too low (AA26, AA36; v0.6's AA40; an out-of-gas deploy or validation,
 * AA13, AA23, AA33) is raised by half, and run again.
 */
async function holdInBundle(
  parts: BundlerParts,
  entryPoint: EntryPoint,
  op: UserOp,
  estimate: GasEstimate,
  bundler: Address,
  overrides: StateOverrides,
): Promise<void> {
  // The authorization is stubbed in an estimate: the sender's delegation comes from the overrides instead.
  const { authorization: _, ...withoutAuthorization } = op
  for (let i = 0; i < RAISES; i++) {
    const trial = { ...withoutAuthorization, ...estimate, preVerificationGas: 1n << 20n } as UserOp
    const failure = await simulateBundle(parts, entryPoint, [trial], bundler, overrides)
    const code = failure?.reason.slice(0, 4)
    if (code === 'AA26' || code === 'AA40' || code === 'AA13' || code === 'AA23')
      estimate.verificationGasLimit += estimate.verificationGasLimit / 2n
    else if ((code === 'AA36' || code === 'AA33') && estimate.paymasterVerificationGasLimit !== undefined)
      estimate.paymasterVerificationGasLimit += estimate.paymasterVerificationGasLimit / 2n
    else return
  }
}

function failStep(step: 'deploy' | 'validate' | 'paymaster' | 'execute', result: SimulatedCall): never {
  const why = revertText(result)
  const data = result.error?.data
  if (step === 'deploy') throw new UserOpRejectedError(`AA13 initCode failed or OOG: ${why}`, data)
  if (step === 'validate') throw new UserOpRejectedError(`AA23 reverted: ${why}`, data)
  if (step === 'paymaster') throw new PaymasterRejectedError(`AA33 reverted: ${why}`, data)
  throw new ExecutionRevertedError(`UserOperation reverted during execution: ${why}`, data)
}

function margin(gas: bigint, percent: bigint): bigint {
  return gas + (gas * percent) / 100n
}

/**
 * The gas the bundle spends on the op outside its metered steps: the calldata of a one-op handleOps, the
 * transaction's base cost and the EntryPoint's per-op overhead, the authorization it carries, and on the OP
 * profiles the L1 data fee in gas at the price the op pays (with a fifth more, as the L1 fee moves).
 */
export function preVerificationGas(parts: BundlerParts, entryPoint: EntryPoint, op: UserOp): bigint {
  const data = handleOpsData(entryPoint, [op], zeroAddress)
  const words = BigInt(Math.ceil((data.length - 2) / 64))
  // A twentieth more: the signed op's calldata differs from the estimated one's (signature, gas values).
  let gas = (calldataGas(data) * 21n) / 20n + TX_BASE + PER_USER_OP + PER_USER_OP_WORD * words
  if (op.authorization) gas += PER_AUTHORIZATION
  // The signed envelope's other bytes are as incompressible as a signature: pseudo-random filler.
  const envelope = keccak256(data)
  const filler = concat(Array.from({ length: Math.ceil(ENVELOPE_BYTES / 32) }, () => envelope))
  const l1Fee = parts.l1Fee(hexToBytes(concat([data, filler])))
  if (l1Fee > 0n) {
    const price = opGasPrice(parts, op)
    gas += (l1Fee * 6n) / 5n / price + 1n
  }
  return gas
}

/** The price per gas the op pays at the current base fee (the node's suggestion when it names none). */
export function opGasPrice(parts: BundlerParts, op: UserOp): bigint {
  const base = parts.baseFee()
  if (op.maxFeePerGas === 0n) return base + parts.tip()
  const price = base + op.maxPriorityFeePerGas
  const capped = price < op.maxFeePerGas ? price : op.maxFeePerGas
  return capped > 0n ? capped : 1n
}
