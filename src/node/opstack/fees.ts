// OP-stack fee formulas, exact (op-geth core/types/rollup_cost.go; OP specs fjord/exec-engine.md,
// isthmus/exec-engine.md, jovian/exec-engine.md): the L1 data fee from the FastLZ-compressed size,
// the operator fee, the DA footprint, and the Jovian base fee from the parent header.
import { LibZip } from 'solady'
import type { HeaderFields } from '../types.js'
import type { Eip1559Params, L1FeeParams } from './params.js'

/** Bytes of `data` compressed with FastLZ (solady's implementation, the one GasPriceOracle runs). */
export function fastLzSize(data: Uint8Array): number {
  if (data.length === 0) return 0
  return (LibZip.flzCompress(`0x${Buffer.from(data).toString('hex')}`).length - 2) / 2
}

const COST_INTERCEPT = -42_585_600n
const COST_FASTLZ_COEF = 836_500n
const MIN_TRANSACTION_SIZE_SCALED = 100n * 1_000_000n

/** Fjord's estimate of a transaction's compressed size, scaled by 1e6 (at least 100 bytes). */
export function estimatedSizeScaled(flzSize: number): bigint {
  const size = COST_INTERCEPT + COST_FASTLZ_COEF * BigInt(flzSize)
  return size < MIN_TRANSACTION_SIZE_SCALED ? MIN_TRANSACTION_SIZE_SCALED : size
}

/** The Fjord L1 fee of a transaction whose signed bytes compress to `flzSize`, and its L1 gas. */
export function l1Cost(p: L1FeeParams, flzSize: number): { fee: bigint; gasUsed: bigint } {
  const size = estimatedSizeScaled(flzSize)
  const feeScaled = p.baseFeeScalar * p.baseFee * 16n + p.blobBaseFeeScalar * p.blobBaseFee
  return { fee: (size * feeScaled) / 1_000_000_000_000n, gasUsed: (size * 16n) / 1_000_000n }
}

/** Jovian's operator fee for `gas` gas. */
export function operatorFee(p: L1FeeParams, gas: bigint): bigint {
  return gas * p.operatorFeeScalar * 100n + p.operatorFeeConstant
}

/** Jovian's DA footprint of a transaction (what the header's blobGasUsed sums). */
export function daFootprint(p: L1FeeParams, flzSize: number): bigint {
  const scalar = p.daFootprintGasScalar === 0n ? 400n : p.daFootprintGasScalar
  return (estimatedSizeScaled(flzSize) / 1_000_000n) * scalar
}

/**
 * The base fee of the block after `parent` (Holocene/Jovian): EIP-1559 with the parent's extraData
 * parameters, on the larger of its gas used and its DA footprint, never below the minimum.
 */
export function nextBaseFee(parent: HeaderFields, p: Eip1559Params): bigint {
  const used = parent.gasUsed > parent.blobGasUsed ? parent.gasUsed : parent.blobGasUsed
  const target = parent.gasLimit / p.elasticity
  const base = parent.baseFeePerGas
  let next = base
  if (used > target) {
    const delta = (base * (used - target)) / target / p.denominator
    next = base + (delta > 0n ? delta : 1n)
  } else if (used < target) {
    next = base - (base * (target - used)) / target / p.denominator
  }
  return next < p.minBaseFee ? p.minBaseFee : next
}
