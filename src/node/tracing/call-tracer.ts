// geth's callTracer (eth/tracers/native/call.go): the tree of call frames. The top frame's gas is
// the transaction's gas limit and its gasUsed the receipt's (intrinsic gas included); a failed
// frame keeps its error, a revert its output and decoded reason, a failed CREATE loses its `to`;
// withLog adds each frame's logs with their index in the block (geth's statedb log counter, which
// a reverted frame rolls back) and position among the frame's calls, and drops the logs of failed
// frames at the end.
import type { FrameType, TraceFrame, TraceFrameEnd } from '../engine/index.js'
import type { LogEntry } from '../types.js'
import { endFrame, type FrameLog, FrameStack, frameLog } from './call-frame.js'
import { hex, quantity } from './format.js'
import type { Tracer, TxContext, TxEnd } from './tracer.js'

export interface CallTracerConfig {
  onlyTopCall: boolean
  withLog: boolean
}

/** A frame, keys in geth's order (gen_callframe_json.go); undefined fields are left out. */
interface CallFrame {
  from: string
  gas: string
  gasUsed: string
  to?: string
  input: string
  output?: string
  error?: string
  revertReason?: string
  calls?: CallFrame[]
  logs?: FrameLog[]
  value?: string
  type: FrameType
}

interface Open {
  json: CallFrame
  failed: boolean
  calls: Open[]
}

export class CallTracer implements Tracer {
  private readonly frames = new FrameStack<Open>()
  private gasLimit = 0n

  constructor(private readonly cfg: CallTracerConfig) {}

  readonly hooks = {
    enter: (frame: TraceFrame) => this.enter(frame),
    exit: (end: TraceFrameEnd) => this.exit(end),
    log: (log: LogEntry) => this.log(log),
  }

  txStart(ctx: TxContext): void {
    this.gasLimit = ctx.gasLimit
    this.frames.start(ctx.firstLogIndex)
  }

  private enter(frame: TraceFrame): void {
    // onlyTopCall: the inner frames are traced (their logs count, their failures roll the counter
    // back) but not recorded.
    if (this.cfg.onlyTopCall && frame.depth > 0) {
      this.frames.enter(undefined, frame.depth)
      return
    }
    const json: CallFrame = {
      from: hex(frame.from),
      gas: quantity(frame.depth === 0 ? this.gasLimit : frame.gas),
      gasUsed: '0x0',
      to: hex(frame.to),
      input: hex(frame.input),
      output: undefined,
      error: undefined,
      revertReason: undefined,
      calls: undefined,
      logs: undefined,
      value: frame.value === undefined ? undefined : quantity(frame.value),
      type: frame.type,
    }
    this.frames.enter({ json, failed: false, calls: [] }, frame.depth)
  }

  private exit(end: TraceFrameEnd): void {
    const open = this.frames.exit(end.error !== undefined)
    if (!open) return
    if (end.depth > 0) open.json.gasUsed = quantity(end.gasUsed)
    endFrame(open.json, open.json.type, end)
    open.failed = end.error !== undefined
  }

  private log(log: LogEntry): void {
    const index = this.frames.nextLogIndex()
    if (!this.cfg.withLog) return
    const open = this.frames.current()
    if (!open) return
    open.json.logs ??= []
    open.json.logs.push(frameLog(log, index, open.calls.length))
  }

  txEnd(end: TxEnd): void {
    const top = this.frames.root()
    if (top) top.json.gasUsed = quantity(end.gasUsed)
  }

  result(): unknown {
    const top = this.frames.root()
    if (!top) throw new Error('incorrect number of top-level calls')
    const build = (open: Open, parentFailed: boolean): CallFrame => {
      const failed = open.failed || parentFailed
      // Logs are not emitted when the call fails (clearFailedLogs).
      if (this.cfg.withLog && failed) open.json.logs = undefined
      if (open.calls.length > 0) open.json.calls = open.calls.map((c) => build(c, failed))
      return open.json
    }
    return build(top, false)
  }
}
