// What geth's callTracer and erc7562Tracer do alike with call frames (eth/tracers/native/call.go, whose
// frame stack, processOutput and log record erc7562.go repeats): the tree of frames as they open and
// close with the block's log counter, how a frame's end sets its output, error and revert reason, and a
// log as written under withLog.
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
  // geth: revertReason is omitempty, so an Error("") names none.
  frame.revertReason = decodeRevertReason(end.output) || undefined
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

/**
 * The frames of a transaction as they open and close: the top one, each later one in its parent's
 * calls, and geth's statedb log counter, which a failed frame rolls back to where it stood when the
 * frame opened (later logs reuse the indexes of the frame's dropped ones).
 */
export class FrameStack<T extends { calls: T[] }> {
  private top: T | undefined
  private readonly open: { frame: T | undefined; logMark: number }[] = []
  private logSize = 0

  /** The transaction's first log is the block's `firstLogIndex`th. */
  start(firstLogIndex: number): void {
    this.logSize = firstLogIndex
  }

  /** A frame opens at `depth` (0: the transaction's); undefined for one traced but not recorded. */
  enter(frame: T | undefined, depth: number): void {
    if (frame && depth === 0) this.top = frame
    else if (frame) this.open.at(-1)?.frame?.calls.push(frame)
    this.open.push({ frame, logMark: this.logSize })
  }

  /** The innermost frame closes; its record, if it has one. */
  exit(failed: boolean): T | undefined {
    const open = this.open.pop()
    if (open && failed) this.logSize = open.logMark
    return open?.frame
  }

  /** The innermost open frame's record. */
  current(): T | undefined {
    return this.open.at(-1)?.frame
  }

  /** A log's index in the block. */
  nextLogIndex(): number {
    return this.logSize++
  }

  /** The transaction's frame, once it has been entered. */
  root(): T | undefined {
    return this.top
  }
}
