// eth_simulateV1's request-level checks and block plan: limits, then every block's number and
// timestamp (gaps in numbers filled with empty blocks), before any state is touched (geth's order).
import { InvalidParamsError } from '../../errors.js'
import { DENIM_BLOCK_MS } from '../../opstack/denim.js'
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

/**
 * How simulated blocks are timed on a chain with Denim (base/base PR #5043, sanitize_base_chain):
 * a block without a time takes its 200 ms slot's second on the schedule, or the previous block's
 * when that is later; once Denim is active, a block may share its second with the previous one.
 * Before Denim, blocks step by the flashblocks block time (2 s); the first one at or past the
 * activation starts the schedule.
 */
export interface DenimTiming {
  /** The base block's time in milliseconds, and whether it is a Denim block. */
  baseMs: bigint
  baseIsDenim: boolean
  /** Denim's activation time, in seconds. */
  activation: bigint
}

/** Base before Denim: a block every 2 s. */
const PRE_DENIM_STEP = 2n

/** Numbers and timestamps of every block, gap fillers included; numbers strictly increase, times too before Denim. */
export function planBlocks(base: HeaderFields, blocks: SimulateBlockInput[], step: bigint, denim?: DenimTiming): PlannedBlock[] {
  const out: PlannedBlock[] = []
  let prevNumber = base.number
  let prevTime = base.timestamp
  const denimAt = (time: bigint) => denim !== undefined && time >= denim.activation
  // Where the 200 ms schedule counts from: the base block if it is a Denim block, else the first
  // simulated block at or past the activation.
  let anchor = denim?.baseIsDenim ? { number: base.number, ms: denim.baseMs } : undefined
  const nextTime = (n: bigint): bigint => {
    if (!denim) return prevTime + step
    if (!anchor) return prevTime + PRE_DENIM_STEP
    const scheduled = (anchor.ms + (n - anchor.number) * DENIM_BLOCK_MS) / 1000n
    return scheduled > prevTime ? scheduled : prevTime
  }
  const placed = (n: bigint, time: bigint) => {
    if (denim && !anchor && denimAt(time)) anchor = { number: n, ms: time * 1000n }
  }
  for (const input of blocks) {
    const number = input.blockOverrides?.number ?? prevNumber + 1n
    if (number <= prevNumber)
      throw new SimulateError('blockNumberOrder', `block numbers must be in order: ${number} <= ${prevNumber}`)
    if (number - base.number > BigInt(SIMULATE_LIMITS.blocks)) throw new SimulateError('clientLimit', 'too many blocks')
    for (let n = prevNumber + 1n; n < number; n++) {
      prevTime = nextTime(n)
      placed(n, prevTime)
      out.push({ number: n, time: prevTime })
    }
    prevNumber = number
    let time = input.blockOverrides?.time
    if (time === undefined) time = nextTime(number)
    else if (time < prevTime || (time === prevTime && !(denimAt(prevTime) && denimAt(time))))
      throw new SimulateError('timestampOrder', `block timestamps must be in order: ${time} <= ${prevTime}`)
    prevTime = time
    placed(number, time)
    out.push({ number, time, input })
  }
  return out
}
