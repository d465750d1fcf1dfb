// eth_simulateV1's request-level checks and block plan: limits, then every block's number and
// timestamp (gaps in numbers filled with empty blocks), before any state is touched (geth's order).
import { InvalidParamsError } from '../../errors.js'
import type { BlockOverrides, CallRequest, HeaderFields, StateOverrides } from '../../types.js'
import { SimulateError } from '../errors.js'

/** geth's and reth's limits; each is a -38026 "client adjustable limit" when exceeded. */
export const SIMULATE_LIMITS = { blocks: 256, callsPerBlock: 5_000, totalCalls: 10_000, gas: 50_000_000n }

export interface SimulateBlockInput {
  blockOverrides?: BlockOverrides
  stateOverrides?: StateOverrides
  calls: CallRequest[]
}

export interface SimulateInput {
  blocks: SimulateBlockInput[]
  traceTransfers?: boolean
  validation?: boolean
}

/** Checks the request-level limits before any state is touched (geth's order). */
export function checkSimulateInput(input: SimulateInput): void {
  if (input.blocks.length === 0) throw new InvalidParamsError('empty input')
  if (input.blocks.length > SIMULATE_LIMITS.blocks) throw new SimulateError('clientLimit', 'too many blocks')
  let total = 0
  for (const [i, b] of input.blocks.entries()) {
    if (b.calls.length > SIMULATE_LIMITS.callsPerBlock) {
      throw new SimulateError('clientLimit', `too many calls in block ${i}: ${b.calls.length} > ${SIMULATE_LIMITS.callsPerBlock}`)
    }
    total += b.calls.length
    if (total > SIMULATE_LIMITS.totalCalls) {
      throw new SimulateError('clientLimit', `too many calls: more than ${SIMULATE_LIMITS.totalCalls} in total`)
    }
  }
}

export interface PlannedBlock {
  number: bigint
  time: bigint
  /** undefined for the empty blocks that fill a gap in numbers. */
  input?: SimulateBlockInput
}

/** Numbers and timestamps of every block, gap fillers included; both must strictly increase. */
export function planBlocks(base: HeaderFields, blocks: SimulateBlockInput[], step: bigint): PlannedBlock[] {
  const out: PlannedBlock[] = []
  let prevNumber = base.number
  let prevTime = base.timestamp
  for (const input of blocks) {
    const number = input.blockOverrides?.number ?? prevNumber + 1n
    if (number <= prevNumber)
      throw new SimulateError('blockNumberOrder', `block numbers must be in order: ${number} <= ${prevNumber}`)
    if (number - base.number > BigInt(SIMULATE_LIMITS.blocks)) throw new SimulateError('clientLimit', 'too many blocks')
    for (let n = prevNumber + 1n; n < number; n++) {
      prevTime += step
      out.push({ number: n, time: prevTime })
    }
    prevNumber = number
    let time = input.blockOverrides?.time
    if (time === undefined) time = prevTime + step
    else if (time <= prevTime)
      throw new SimulateError('timestampOrder', `block timestamps must be in order: ${time} <= ${prevTime}`)
    prevTime = time
    out.push({ number, time, input })
  }
  return out
}
