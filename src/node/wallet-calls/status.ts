// A bundle's EIP-5792 status code from what became of each of its transactions. The codes are the
// EIP's; 600 (partial failure) is what viem's getCallsStatus computes for non-atomic batches too.
export const PENDING = 100
export const CONFIRMED = 200
export const OFFCHAIN_FAILURE = 400
export const REVERTED = 500
export const PARTIAL_FAILURE = 600

/**
 * Where one call's transaction stands: `pooled` (waiting), `success`/`reverted` (a receipt, sealed
 * or pre-confirmed), `gone` (never sent, or dropped from the pool without a receipt).
 */
export type CallOutcome = 'pooled' | 'success' | 'reverted' | 'gone'

/**
 * 100 while any transaction waits; then 200 when every one succeeded, 400 when none reached the
 * chain, 500 when every one reverted, 600 for any mix (some succeeded, or some never ran).
 */
export function bundleStatus(outcomes: readonly CallOutcome[]): number {
  if (outcomes.some((o) => o === 'pooled')) return PENDING
  if (outcomes.every((o) => o === 'success')) return CONFIRMED
  if (outcomes.every((o) => o === 'gone')) return OFFCHAIN_FAILURE
  if (outcomes.every((o) => o === 'reverted')) return REVERTED
  return PARTIAL_FAILURE
}
