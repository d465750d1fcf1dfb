// Gas for a bundle's calls, from simulating them in order on the pre-confirmed state (eth_simulateV1's
// engine): each call is measured after the ones before it, so a call that needs an earlier one
// (approve, then spend) gets its gas although the earlier one has not run yet. A call that fails in
// that simulation fails the request before anything is sent.
import type { CallRequest } from '../types.js'
import { CallWouldFailError } from './errors.js'

/** One call's outcome in a simulation (execution/simulate's SimulatedCall, the fields used here). */
export interface SimulatedOutcome {
  status: 0 | 1
  /** Gas used before refunds. */
  maxUsedGas: bigint
  error?: { code: number; message: string; data?: Uint8Array }
}

/** Runs `calls` in order in one block on the pre-confirmed state; nothing reaches the node's state. */
export type SimulateCalls = (calls: CallRequest[]) => Promise<SimulatedOutcome[]>

/**
 * Each call's gas limit: geth's estimator's first guess, (gas before refunds + the 2300 call
 * stipend) × 64/63 (EIP-150 keeps 1/64 back at each call), checked by simulating again with those
 * limits. A call that then fails gets no limit: its send estimates it as eth_sendTransaction does.
 */
export async function planGas(simulate: SimulateCalls, calls: CallRequest[]): Promise<(bigint | undefined)[]> {
  const measured = await simulate(calls)
  for (const [i, outcome] of measured.entries()) {
    if (outcome.status !== 1) throw new CallWouldFailError(i, outcome.error ?? { code: 3, message: 'execution reverted' })
  }
  const gas = measured.map((outcome) => ((outcome.maxUsedGas + 2300n) * 64n) / 63n)
  const checked = await simulate(calls.map((call, i) => ({ ...call, gas: gas[i] })))
  return gas.map((g, i) => (checked[i]?.status === 1 ? g : undefined))
}
