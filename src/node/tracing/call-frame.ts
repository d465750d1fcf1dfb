// What geth's callTracer and erc7562Tracer record alike for a call frame (eth/tracers/native/call.go,
// whose processOutput and log record erc7562.go repeats): how a frame's end sets its output, error and
// revert reason, and a log as written under withLog.
import { decodeRevertReason } from '../../shared/revert.js'
import type { FrameType, TraceFrameEnd } from '../engine/index.js'
import type { LogEntry } from '../types.js'
import { hex, quantity } from './format.js'

/** A frame's log: `index` its index in the block, `position` how many of the frame's calls came before it. */
export interface FrameLog {
  address: string
  topics: string[]
  data: string
  index: string
  position: string
}

/** The fields of a frame its end sets. */
export interface FrameOutcome {
  to?: string
  output?: string
  error?: string
  revertReason?: string
}

/**
 * geth's processOutput: a successful frame keeps its output; a failed one its error, a failed CREATE
 * loses its `to`, and a revert keeps its output and decoded reason.
 */
export function endFrame(frame: FrameOutcome, type: FrameType, end: TraceFrameEnd): void {
  if (end.error === undefined) {
    if (end.output.length > 0) frame.output = hex(end.output)
    return
  }
  frame.error = end.error
  if (type === 'CREATE' || type === 'CREATE2') frame.to = undefined
  if (end.error !== 'execution reverted' || end.output.length === 0) return
  frame.output = hex(end.output)
  frame.revertReason = end.output.length >= 4 ? decodeRevertReason(end.output) : undefined
}

export function frameLog(log: LogEntry, index: number, position: number): FrameLog {
  return {
    address: hex(log.address),
    topics: log.topics.map(hex),
    data: hex(log.data),
    index: quantity(index),
    position: quantity(position),
  }
}
