// The realm a JavaScript tracer runs in: its own QuickJS runtime and context (quickjs-engine.ts),
// holding the tracer's object and geth's globals (js-prelude.ts). It runs in the tracers' worker
// thread (sandbox-worker.ts), never on the node's. Nothing of the host is inside: the two host
// functions exchange strings, numbers and booleans only, and every entry point answers a string
// (what the tracer threw is turned into text inside the sandbox). Limits: time (QuickJS's
// interrupt handler stops the tracer's code at the trace's deadline, also inside getters, toString
// and regular expressions; promise jobs are never run), heap and stack (quickjs-engine.ts). A call
// that ends in a host exception (V8's stack limit reached inside the interpreter, a WebAssembly
// trap) discards the engine instance, whose state is then unknown.
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core'
import { PRELUDE } from './js-prelude.js'
import { discard, type QuickJsInstance, quickjs, release, TRACER_MEMORY_LIMIT, TRACER_STACK_LIMIT } from './quickjs-engine.js'
import { type Primitive, type SandboxSources, SandboxThrew, SandboxTimedOut, type StepScalars } from './sandbox-protocol.js'

/** What the sandbox asks the host: hex strings in, primitives out. */
export interface HostBridge {
  /** db.* and the step's stack, memory, contract and frame: (what, ...args) → a primitive, or
   * '\u0001' + the text of an error to throw in the tracer. */
  read(what: string, a?: string | number, b?: string | number): Primitive
  isPrecompiled(hexAddress: string): boolean
}

type Entry = 'load' | 'step' | 'fault' | 'enter' | 'exit' | 'result'
const ENTRIES: Entry[] = ['load', 'step', 'fault', 'enter', 'exit', 'result']

/** One tracer's realm. Dispose it when the trace ends. */
export class JsSandbox {
  private interrupted = false
  private alive = true

  private constructor(
    private readonly instance: QuickJsInstance,
    private readonly runtime: QuickJSRuntime,
    private readonly context: QuickJSContext,
    private readonly entries: Map<Entry, QuickJSHandle>,
    private readonly deadline: () => number,
  ) {}

  static async create(bridge: HostBridge, deadline: () => number, sources: SandboxSources): Promise<JsSandbox> {
    const instance = await quickjs()
    const runtime = instance.module.newRuntime({
      memoryLimitBytes: TRACER_MEMORY_LIMIT,
      maxStackSizeBytes: TRACER_STACK_LIMIT,
    })
    const context = runtime.newContext()
    const entries = new Map<Entry, QuickJSHandle>()
    const sandbox = new JsSandbox(instance, runtime, context, entries, deadline)
    runtime.setInterruptHandler(() => {
      if (performance.now() <= deadline()) return false
      sandbox.interrupted = true
      return true
    })
    try {
      const toHandle = (v: Primitive): QuickJSHandle =>
        typeof v === 'string'
          ? context.newString(v)
          : typeof v === 'number'
            ? context.newNumber(v)
            : typeof v === 'boolean'
              ? v
                ? context.true
                : context.false
              : context.undefined
      const primitive = (h: QuickJSHandle): Primitive => {
        const type = context.typeof(h)
        return type === 'string' ? context.getString(h) : type === 'number' ? context.getNumber(h) : undefined
      }
      // A host exception must not cross (quickjs-emscripten would copy its stack in): a marked string.
      const guarded = (answer: () => Primitive): QuickJSHandle => {
        try {
          return toHandle(answer())
        } catch {
          return context.newString('\u0001internal error')
        }
      }
      const read = context.newFunction('read', (w, a, b) =>
        guarded(() => bridge.read(String(primitive(w)), primitive(a) as string | number, primitive(b) as string | number)),
      )
      const isPrecompiled = context.newFunction('isPrecompiled', (a) => guarded(() => bridge.isPrecompiled(String(primitive(a)))))
      const factory = context.unwrapResult(context.evalCode(PRELUDE, 'pcnode-tracer-prelude.js'))
      const args = [read, isPrecompiled, context.newString(sources.opNames), context.newString(sources.bigInt)]
      const api = context.callFunction(factory, context.undefined, args)
      for (const h of [factory, ...args]) h.dispose()
      const handle = context.unwrapResult(api)
      for (const name of ENTRIES) entries.set(name, context.getProp(handle, name))
      handle.dispose()
      return sandbox
    } catch (error) {
      sandbox.fail()
      throw error
    }
  }

  /** Evaluates the tracer's source and runs its setup(config). */
  load(code: string, config: string): { step: boolean; frames: boolean } {
    const out = this.call('load', [code, config])
    if (out.startsWith('\u0002')) throw new SandboxThrew(out.slice(1), true)
    return { step: out.includes('s'), frames: out.includes('f') }
  }

  step(s: StepScalars, name: 'step' | 'fault' = 'step'): void {
    this.call(name, [s.pc, s.gas, s.cost, s.depth, s.refund, s.op, s.error, s.stackLength])
  }

  call0(name: 'enter' | 'exit'): void {
    this.call(name, [])
  }

  /** result(ctx, db) as JSON text; undefined when it returned undefined. */
  result(entries: Array<[string, 'bytes' | 'big' | 'plain', string | number | undefined]>): string | undefined {
    const out = this.call('result', [JSON.stringify(entries)])
    return out === '\u0004' ? undefined : out.slice(1)
  }

  dispose(): void {
    if (!this.alive) return
    this.alive = false
    try {
      for (const h of this.entries.values()) h.dispose()
      this.context.dispose()
      this.runtime.dispose()
      release(this.instance)
    } catch {
      discard(this.instance)
    }
  }

  /** An entry point's answer; what the tracer threw comes back as SandboxThrew. */
  private call(name: Entry, args: Primitive[]): string {
    if (!this.alive) throw new SandboxThrew('InternalError: the tracer is no longer running')
    const { context } = this
    const handles = args.map((v) =>
      typeof v === 'string' ? context.newString(v) : typeof v === 'number' ? context.newNumber(v) : context.undefined,
    )
    let result: ReturnType<QuickJSContext['callFunction']>
    try {
      result = context.callFunction(this.entries.get(name) as QuickJSHandle, context.undefined, handles)
    } catch (error) {
      // A host exception inside the interpreter: V8's own stack ran out, or a trap.
      this.fail()
      throw new SandboxThrew(
        error instanceof RangeError ? 'RangeError: Maximum call stack size exceeded' : 'InternalError: tracer engine failed',
      )
    } finally {
      for (const h of handles) h.dispose()
    }
    if (result.error) {
      // Uncatchable inside: the interrupt (the deadline), or a failure while describing a throw.
      result.error.dispose()
      if (this.interrupted) throw new SandboxTimedOut('execution timeout')
      throw new SandboxThrew('InternalError: out of memory')
    }
    const out = context.typeof(result.value) === 'string' ? context.getString(result.value) : ''
    result.value.dispose()
    // Also past the deadline inside a built-in that never checks (a sort of a huge array).
    if (this.interrupted || performance.now() > this.deadline()) throw new SandboxTimedOut('execution timeout')
    if (out.startsWith('\u0001')) throw new SandboxThrew(out.slice(1))
    return out
  }

  /** After a host exception the instance's state is unknown: never touch it again. */
  private fail(): void {
    this.alive = false
    discard(this.instance)
  }
}
