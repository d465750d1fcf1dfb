// The checks of an op's fields that the EntryPoint does not make but a bundler must before it simulates
// anything (ERC-7769 -32602): fee order, the base fee, preVerificationGas against the bundle's cost, and
// the gas limits against what one transaction may carry.
import type { EntryPoint } from './entry-points.js'
import { InvalidUserOpError } from './errors.js'
import { preVerificationGas } from './estimate.js'
import type { BundlerParts } from './parts.js'
import { bundleGas, type UserOp } from './user-op.js'

/** Throws InvalidUserOpError (-32602) for the first field out of bounds. */
export function checkFields(parts: BundlerParts, entryPoint: EntryPoint, op: UserOp): void {
  if (op.maxPriorityFeePerGas > op.maxFeePerGas) {
    throw new InvalidUserOpError('maxPriorityFeePerGas must not exceed maxFeePerGas')
  }
  const baseFee = parts.baseFee()
  if (op.maxFeePerGas < baseFee) {
    throw new InvalidUserOpError(`maxFeePerGas ${op.maxFeePerGas} is below the base fee ${baseFee}`)
  }
  // The calldata and fixed costs must be paid; the L1 part is left to the estimate (the L1 fee moves),
  // and a tenth of slack for calldata that changed after the estimate (the signature, the gas values).
  const minimum = (preVerificationGas({ ...parts, l1Fee: () => 0n }, entryPoint, op) * 9n) / 10n
  if (op.preVerificationGas < minimum) {
    throw new InvalidUserOpError(`preVerificationGas ${op.preVerificationGas} is below ${minimum}, the bundle's cost for this op`)
  }
  const needed = bundleGas(entryPoint, op)
  if (needed > parts.txGasCap()) {
    throw new InvalidUserOpError(
      `the op's gas limits need ${needed} in its bundle, more than a transaction may carry (${parts.txGasCap()})`,
    )
  }
}
