// Errors of eth_simulateV1 and of state overrides, each kind with its code in one table, as reth's
// EthSimulateError::error_code() keeps them (execution-apis' -380xx codes; the rest geth's).
import { NodeError } from '../errors.js'

export const SIMULATE_ERROR_CODES = {
  nonceTooLow: -38010,
  nonceTooHigh: -38011,
  feeCapTooLow: -38012,
  intrinsicGasTooLow: -38013,
  insufficientFunds: -38014,
  blockGasLimitReached: -38015,
  blockNumberOrder: -38020,
  timestampOrder: -38021,
  movePrecompileToSelf: -38022,
  movePrecompileTwice: -38023,
  initcodeTooLarge: -38025,
  clientLimit: -38026,
  /** A request no transaction can carry (fee fields that contradict each other). */
  invalidParams: -32602,
  /** geth answers these with its internal-error code (nonce 2^64-1, unknown refusals). */
  internal: -32603,
  /** movePrecompileToAddress of an account that is not a precompile (geth: a plain error). */
  notPrecompile: -32000,
} as const

export type SimulateErrorKind = keyof typeof SIMULATE_ERROR_CODES

export class SimulateError extends NodeError {
  override readonly code: number
  constructor(
    readonly kind: SimulateErrorKind,
    message: string,
  ) {
    super(message)
    this.code = SIMULATE_ERROR_CODES[kind]
  }
}
