// JavaScript tracers with geth's object API (eth/tracers/js/goja.go): `result(ctx, db)` and
// `fault(log, db)` required, `step(log, db)`, `enter(frame)`/`exit(frameResult)` and
// `setup(config)` optional; `log`, `db`, `frame`, `ctx` and the globals as goja exposes them. The
// tracer's code runs in js-sandbox.ts; this side answers its reads from the step being traced and
// the state. geth's call order: step for every opcode (with getError() set when the opcode fails
// before running: out of gas, stack), fault after an opcode that failed while running (REVERT
// included), enter/exit for every frame but the transaction's, whose values go into ctx. The
// tracer's code runs in a worker thread (remote-sandbox.ts): a call answered at once keeps the
// trace synchronous; one that takes longer is awaited, and the serial queue is lent meanwhile
// (ctx.lendQueue: block production, reads and calls go on). While the traced code runs, the event loop gets a turn every
// few tens of milliseconds, so other clients are answered during a long trace.
import type { StepInfo, TraceFrame, TraceFrameEnd } from '../engine/index.js'
import { NodeError } from '../errors.js'
import { contractAddress, create2Address } from './addresses.js'
import { hex } from './format.js'
import { type Answer, andThen, RemoteSandbox } from './remote-sandbox.js'
import { SandboxThrew, SandboxTimedOut, type StepScalars } from './sandbox-protocol.js'
import type { Tracer, TxContext, TxEnd } from './tracer.js'

/** A tracer call ran past the trace's timeout (geth's text). */
export class TracerTimeout extends NodeError {}

/** A tracer function threw: geth's wording (wrapError), -32000. */
export class TracerFailure extends NodeError {}

interface Scope {
  caller: Uint8Array
  value: bigint
  input: Uint8Array
  /** Has the frame's code run (a fault needs a step to point at). */
  last?: StepInfo
}

const bytesOf = (h: string) => Buffer.from(h.replace(/^0x/, ''), 'hex')

/** How long step() calls run back to back before the event loop gets a turn. */
const YIELD_EVERY_MS = 25

/** The stack's top items (the prelude's peek caches them), as one read. */
function stackTop(stack: bigint[]): string {
  const top: string[] = []
  for (let i = stack.length - 1; i >= 0 && top.length < 8; i--) top.push(`0x${stack[i].toString(16)}`)
  return top.join(',')
}

const scalars = (step: StepInfo, error: string | undefined): StepScalars => ({
  pc: step.pc,
  gas: Number(step.gas),
  cost: Number(step.cost),
  depth: step.depth,
  refund: Number(step.refund),
  op: step.op,
  error,
  stackLength: step.stack.length,
})

export class JsTracer implements Tracer {
  private sandbox: RemoteSandbox | undefined
  /** The tracer reads the stack: its top goes with each step. */
  private readsStack = false
  private shape = { step: false, frames: false }
  private disposed = false
  private lastYield = performance.now()
  private ctx!: TxContext
  private readonly scopes: Scope[] = []
  private failure: Error | undefined
  /** What `log` reads (the current step) and `frame`/`frameResult` read. */
  private cur: StepInfo | undefined
  private frame: TraceFrame | undefined
  private frameEnd: TraceFrameEnd | undefined
  private readonly values: Array<[string, 'bytes' | 'big' | 'plain', string | number | undefined]> = []

  constructor(
    private readonly code: string,
    private readonly config: string,
    private readonly deadline: () => number,
  ) {}

  readonly hooks = {
    enter: (frame: TraceFrame) => this.enter(frame),
    exit: (end: TraceFrameEnd) => this.exit(end),
    step: (step: StepInfo) => this.step(step),
  }

  async txStart(ctx: TxContext): Promise<void> {
    this.ctx = ctx
    // The engine loads once, asynchronously; the tracer's code is evaluated before execution, as
    // geth's newJsTracer does.
    const sandbox = await this.lend(
      RemoteSandbox.create(
        { read: (w, a, b) => this.safeRead(w, a, b), isPrecompiled: (a) => this.isPrecompiled(a) },
        this.deadline,
      ).catch((error) => this.failSetup(error)),
    )
    if (this.disposed) return sandbox.dispose()
    this.sandbox = sandbox
    this.shape = await this.lend(this.guard('setup', () => sandbox.load(this.code, this.config), true))
    if (ctx.blockHash) {
      this.values.push(['blockHash', 'bytes', hex(ctx.blockHash)])
      if (ctx.txHash) {
        this.values.push(['txIndex', 'plain', ctx.txIndex])
        this.values.push(['txHash', 'bytes', hex(ctx.txHash)])
      }
    }
    this.values.push(['block', 'plain', Number(ctx.blockNumber)])
    this.values.push(['gas', 'plain', Number(ctx.gasLimit)])
    this.values.push(['gasPrice', 'big', `0x${ctx.gasTip.toString(16)}`])
    this.values.push(['coinbase', 'bytes', hex(ctx.coinbase)])
  }

  txEnd(end: TxEnd): void {
    this.values.push(['gasUsed', 'plain', Number(end.gasUsed)])
  }

  /** While the tracer's call runs on: the queue goes to the block producer. */
  private lend<T>(answer: Promise<T>): Promise<T>
  private lend<T>(answer: Answer<T>): Answer<T>
  private lend<T>(answer: Answer<T>): Answer<T> {
    return answer instanceof Promise && this.ctx?.lendQueue ? this.ctx.lendQueue(answer) : answer
  }

  private enter(frame: TraceFrame): void | Promise<void> {
    const parent = this.scopes.at(-1)
    const scope: Scope =
      frame.type === 'DELEGATECALL' && parent
        ? { caller: parent.caller, value: parent.value, input: frame.input }
        : {
            caller: frame.from,
            value: frame.value ?? 0n,
            input: frame.type.startsWith('CREATE') ? new Uint8Array() : frame.input,
          }
    this.scopes.push(scope)
    if (frame.depth === 0) {
      this.values.push(['type', 'plain', frame.type === 'CREATE' ? 'CREATE' : 'CALL'])
      this.values.push(['from', 'bytes', hex(frame.from)])
      this.values.push(['to', 'bytes', hex(frame.to)])
      this.values.push(['input', 'bytes', hex(frame.input)])
      this.values.push(['value', 'big', `0x${(frame.value ?? 0n).toString(16)}`])
      return
    }
    if (!this.shape.frames || this.failure) return
    this.frame = frame
    return this.lend(this.guard('enter', () => this.sandbox?.call0('enter')))
  }

  private exit(end: TraceFrameEnd): void | Promise<void> {
    const scope = this.scopes.pop()
    const last = scope?.last
    if (end.error !== undefined && last && last.error === undefined && !this.failure) {
      // geth's OnFault: the opcode that was running when the frame failed.
      this.cur = last
      const fault = this.lend(this.guard('fault', () => this.sandbox?.step(scalars(last, end.error), 'fault', this.top(last))))
      return andThen(fault, () => this.exitFrame(end))
    }
    return this.exitFrame(end)
  }

  private exitFrame(end: TraceFrameEnd): void | Promise<void> {
    if (end.depth === 0) {
      if (end.error !== undefined) this.values.push(['error', 'plain', end.error])
      this.values.push(['output', 'bytes', hex(end.output)])
      return
    }
    if (!this.shape.frames || this.failure) return
    this.frameEnd = end
    return this.lend(this.guard('exit', () => this.sandbox?.call0('exit')))
  }

  private step(step: StepInfo): void | Promise<void> {
    const scope = this.scopes.at(-1)
    if (scope) scope.last = step
    const traced = this.shape.step && !this.failure
    const warm = traced ? this.prefetch(step) : undefined
    // Also without a step() to call: a long execution is promise turns that never reach the event loop.
    const now = performance.now()
    if (now - this.lastYield > YIELD_EVERY_MS) {
      this.lastYield = now
      const turn = this.lend(new Promise<void>((resolve) => setImmediate(resolve)))
      return (warm ? Promise.all([warm, turn]) : turn).then(() => (traced ? this.runStep(step) : undefined))
    }
    if (!traced) return
    if (warm) return warm.then(() => this.runStep(step))
    return this.runStep(step)
  }

  /** Loads what the opcode's `db` reads are likely to ask into the state cache (db answers synchronously). */
  private prefetch(step: StepInfo): Promise<unknown> | undefined {
    const { stack, op } = step
    const n = stack.length
    const state = this.ctx.state
    const address = (v: bigint) => bytesOf(v.toString(16).padStart(64, '0').slice(24))
    const account = (a: Uint8Array) => state.account(a).then((found) => (found ? state.code(a) : undefined))
    if ((op === 0x54 || op === 0x55) && n >= 1)
      return state.storage(step.address, bytesOf(stack[n - 1].toString(16).padStart(64, '0')))
    if ([0x31, 0x3b, 0x3c, 0x3f, 0xff].includes(op) && n >= 1) return account(address(stack[n - 1]))
    if ([0xf1, 0xf2, 0xf4, 0xfa].includes(op) && n >= 2) return account(address(stack[n - 2]))
    return undefined
  }

  private runStep(step: StepInfo): void | Promise<void> {
    if (this.failure) return
    this.cur = step
    return this.lend(this.guard('step', () => this.sandbox?.step(scalars(step, step.error), 'step', this.top(step))))
  }

  /** The `stackTop` read's answer, sent with the step once the tracer has read the stack. */
  private top(step: StepInfo): string | undefined {
    return this.readsStack ? stackTop(step.stack) : undefined
  }

  /** Runs a sandbox call; a timeout stops the trace, a throw becomes the result's error (geth's onError). */
  private guard<T>(name: string, fn: () => Answer<T>, rethrow = false): Answer<T> {
    let answer: Answer<T>
    try {
      answer = fn()
    } catch (error) {
      return (rethrow ? this.failSetup(error) : this.caught(name, error)) as T
    }
    if (!(answer instanceof Promise)) return answer
    return answer.catch((error) => (rethrow ? this.failSetup(error) : this.caught(name, error)) as T)
  }

  private caught(name: string, error: unknown): undefined {
    if (error instanceof SandboxTimedOut) throw new TracerTimeout('execution timeout')
    if (!(error instanceof SandboxThrew)) throw error
    this.failure ??= new TracerFailure(`${error.message}    in server-side tracer function '${name}'`)
    return undefined
  }

  /** At load, geth answers the evaluation's error or its shape check as is. */
  private failSetup(error: unknown): never {
    if (error instanceof SandboxTimedOut) throw new TracerTimeout('execution timeout')
    if (!(error instanceof SandboxThrew)) throw error
    throw new TracerFailure(error.shape ? error.message : error.message.replace(/^Error: /, ''))
  }

  /** Frees the tracer's realm (the trace is over, answered or not). */
  dispose(): void {
    this.disposed = true
    this.sandbox?.dispose()
  }

  private isPrecompiled(address: string): boolean {
    return this.ctx.precompiles.has(address.slice(2))
  }

  private safeRead(what: string, a?: string | number, b?: string | number): string | number | boolean | undefined {
    if (what === 'stackTop') this.readsStack = true
    try {
      return this.read(what, a, b)
    } catch (error) {
      return `\u0001${(error as Error).message}`
    }
  }

  private read(what: string, a?: string | number, b?: string | number): string | number | boolean | undefined {
    const step = this.cur
    const scope = this.scopes.at(-1)
    switch (what) {
      case 'stackTop':
        return stackTop(step?.stack ?? [])
      case 'peek': {
        const stack = step?.stack ?? []
        const i = Number(a)
        if (i < 0 || i >= stack.length) throw new Error(`tracer accessed out of bound stack: size ${stack.length}, index ${i}`)
        return `0x${stack[stack.length - 1 - i].toString(16)}`
      }
      case 'memLength':
        return step?.memory.length ?? 0
      case 'memSlice': {
        const memory = step?.memory ?? new Uint8Array()
        const [begin, end] = [Number(a), Number(b)]
        if (end === begin) return '0x'
        if (end < begin || begin < 0) throw new Error(`tracer accessed out of bound memory: offset ${begin}, end ${end}`)
        const out = new Uint8Array(end - begin)
        out.set(memory.subarray(begin, Math.min(end, memory.length)))
        return hex(out)
      }
      case 'memUint': {
        const memory = step?.memory ?? new Uint8Array()
        const at = Number(a)
        if (memory.length < at + 32 || at < 0) {
          throw new Error(`tracer accessed out of bound memory: available ${memory.length}, offset ${at}, size 32`)
        }
        return hex(memory.subarray(at, at + 32))
      }
      case 'caller':
        return hex(scope?.caller ?? new Uint8Array(20))
      case 'address':
        return hex(step?.address ?? new Uint8Array(20))
      case 'value':
        return `0x${(scope?.value ?? 0n).toString(16)}`
      case 'input':
        return hex(scope?.input ?? new Uint8Array())
      case 'frameType':
        return this.frame?.type
      case 'frameFrom':
        return hex(this.frame?.from ?? new Uint8Array(20))
      case 'frameTo':
        return hex(this.frame?.to ?? new Uint8Array(20))
      case 'frameInput':
        return hex(this.frame?.input ?? new Uint8Array())
      case 'frameGas':
        return Number(this.frame?.gas ?? 0n)
      case 'frameValue':
        return this.frame?.value === undefined ? undefined : `0x${this.frame.value.toString(16)}`
      case 'gasUsed':
        return Number(this.frameEnd?.gasUsed ?? 0n)
      case 'output':
        return hex(this.frameEnd?.output ?? new Uint8Array())
      case 'frameError':
        return this.frameEnd?.error
      case 'create':
        return hex(contractAddress(bytesOf(String(a)), BigInt(b ?? 0)))
      case 'create2': {
        const [salt, code] = String(b).split(':')
        return hex(create2Address(bytesOf(String(a)), BigInt(salt.startsWith('0x') ? salt : `0x${salt || '0'}`), bytesOf(code)))
      }
      default:
        return this.dbRead(what, String(a), b === undefined ? undefined : String(b))
    }
  }

  /** db.*: synchronous, so from the state cache (what execution has loaded; prefetched per step). */
  private dbRead(what: string, address: string, slot?: string): string | number | boolean {
    const peek = this.ctx.state.peek()
    const addr = bytesOf(address)
    const account = peek.account(addr)
    if (account === undefined)
      throw new Error(
        `db.${what}: ${address} is not loaded by this transaction (pcnode serves db reads from the state it touched)`,
      )
    switch (what) {
      case 'balance':
        return `0x${(account?.balance ?? 0n).toString(16)}`
      case 'nonce':
        return Number(account?.nonce ?? 0n)
      case 'exists':
        return account !== null
      case 'code': {
        if (!account) return '0x'
        const code = peek.code(addr)
        if (code === undefined) throw new Error(`db.getCode: the code of ${address} is not loaded by this transaction`)
        return hex(code)
      }
      case 'state': {
        if (!account) return `0x${'0'.repeat(64)}`
        const value = peek.storage(addr, bytesOf(slot ?? '0x'))
        if (value === undefined) throw new Error(`db.getState: ${address} slot ${slot} is not loaded by this transaction`)
        return hex(value)
      }
      default:
        throw new Error(`unknown read ${what}`)
    }
  }

  async result(): Promise<unknown> {
    if (this.failure) throw this.failure
    const json = await this.lend(this.guard('result', () => this.sandbox?.result(this.values)))
    if (this.failure) throw this.failure
    return json === undefined ? null : JSON.parse(json)
  }
}
