// A JS tracer's realm seen from the node's thread: js-sandbox.ts runs in a worker thread
// (sandbox-worker.ts), so a tracer's call that never returns holds that thread, not the one every
// client and the block clock share. Each call is posted to the worker and waited for briefly in
// place (Atomics.wait: a step answers in microseconds, as when the realm ran here); one that takes
// longer is awaited (the caller lends the serial queue meanwhile), and the main thread answers the
// tracer's host reads while it waits either way. The worker stops the tracer's code at the trace's
// deadline (QuickJS's interrupt); a worker still busy a grace period later (inside a C built-in
// such as sort, which never checks) is terminated and its call answers geth's "execution timeout".
// A worker that dies fails only its call. Workers start on the first JS tracer, are reused (one
// kept idle) and unref'd, so they never keep the process alive.
import { readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { MessageChannel, type MessagePort, receiveMessageOnPort, threadId, Worker } from 'node:worker_threads'
import { opName } from '../engine/index.js'
import type { HostBridge } from './js-sandbox.js'
import {
  KIND_TO_MAIN,
  KIND_TO_WORKER,
  ON_PORT,
  type Reply,
  type Request,
  type SandboxSources,
  SandboxThrew,
  SandboxTimedOut,
  SHARED_BYTES,
  SHARED_DONE,
  SHARED_FAULT,
  SHARED_STEP,
  type StepScalars,
  TO_MAIN,
  TO_WORKER,
  type WorkerSetup,
  waitPast,
} from './sandbox-protocol.js'

/** How long a call may hold the node's thread waiting in place before it is awaited instead. */
const WAIT_IN_PLACE_MS = 10
/** How long past the deadline a worker may stay busy before it is terminated. */
const GRACE_MS = 500
/** Idle workers kept for the next tracers. */
const KEEP_IDLE = 1
/** The worker's own V8 heap (the tracer's heap is QuickJS's, in WebAssembly memory): room for a
 * result as large as that heap, in transit. */
const WORKER_HEAP_MB = 512

type WaitAsync = (
  array: Int32Array,
  index: number,
  value: number,
  timeout: number,
) => { async: false; value: string } | { async: true; value: Promise<string> }
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync

let sources: SandboxSources | undefined
function sandboxSources(): SandboxSources {
  sources ??= {
    opNames: JSON.stringify(Array.from({ length: 256 }, (_, op) => opName(op))),
    bigInt: readFileSync(createRequire(import.meta.url).resolve('big-integer/BigInteger.js'), 'utf8'),
  }
  return sources
}

let entry: Promise<URL> | undefined
/** The worker's module: beside this one when built (tsc's output, and the bundle's entry of that name). */
function workerEntry(): Promise<URL> {
  entry ??= (async () => {
    const here = import.meta.url
    if (!here.endsWith('.ts')) return new URL('./sandbox-worker.js', here)
    // Run from the TypeScript sources (the tests): a worker cannot load them, so esbuild (a
    // development dependency) bundles the entry into a file of this process's own.
    const name = 'esbuild'
    const { build } = (await import(name)) as typeof import('esbuild')
    const out = join(tmpdir(), `pcnode-sandbox-worker-${process.pid}-${threadId}.mjs`)
    await build({
      entryPoints: [fileURLToPath(new URL('./sandbox-worker.ts', here))],
      outfile: out,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
    })
    process.once('exit', () => rmSync(out, { force: true }))
    return pathToFileURL(out)
  })()
  entry.catch(() => {
    entry = undefined
  })
  return entry
}

/** One worker thread and its end of the channel. */
class SandboxThread {
  private readonly shared = new SharedArrayBuffer(SHARED_BYTES)
  readonly flags = new Int32Array(this.shared, 0, 4)
  private readonly scalars = new Float64Array(this.shared, 16, 7)
  /** The worker's messages taken so far. */
  seen = 0
  dead = false
  readonly ended: Promise<void>
  private readonly worker: Worker
  private readonly port: MessagePort

  constructor(url: URL) {
    const { port1, port2 } = new MessageChannel()
    this.port = port1
    const setup: WorkerSetup = { port: port2, shared: this.shared, sources: sandboxSources() }
    this.worker = new Worker(url, {
      workerData: setup,
      transferList: [port2],
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    })
    this.worker.unref()
    // An error ends the worker ('exit' follows); unlistened, it would be the process's.
    this.worker.on('error', () => {})
    this.ended = new Promise((resolve) =>
      this.worker.once('exit', () => {
        this.dead = true
        threads.delete(this)
        resolve()
      }),
    )
    threads.add(this)
    started++
  }

  post(request: Request): void {
    if ((request.op === 'step' || request.op === 'fault') && request.top === undefined && request.s.error === undefined) {
      const { s } = request
      const v = this.scalars
      v[0] = s.pc
      v[1] = s.gas
      v[2] = s.cost
      v[3] = s.depth
      v[4] = s.refund
      v[5] = s.op
      v[6] = s.stackLength
      Atomics.store(this.flags, KIND_TO_WORKER, request.op === 'step' ? SHARED_STEP : SHARED_FAULT)
    } else {
      Atomics.store(this.flags, KIND_TO_WORKER, ON_PORT)
      this.port.postMessage(request)
    }
    Atomics.add(this.flags, TO_WORKER, 1)
    Atomics.notify(this.flags, TO_WORKER)
  }

  /** The worker's next message, if it has sent one. */
  take(): Reply | undefined {
    if (Atomics.load(this.flags, TO_MAIN) === this.seen) return undefined
    this.seen++
    if (Atomics.load(this.flags, KIND_TO_MAIN) === SHARED_DONE) return DONE
    return receiveMessageOnPort(this.port)?.message as Reply | undefined
  }

  kill(): void {
    this.dead = true
    threads.delete(this)
    void this.worker.terminate()
  }
}

const threads = new Set<SandboxThread>()
const idle: SandboxThread[] = []
let started = 0

/** How many tracer workers this process has started. */
export function sandboxWorkersStarted(): number {
  return started
}

/** Terminates every tracer worker (a tracer running in one fails as its worker's crash would). */
export function stopSandboxWorkers(): void {
  idle.length = 0
  for (const thread of [...threads]) thread.kill()
}

/** One tracer's realm in a worker thread; the same operations as JsSandbox, answered now or later. */
export class RemoteSandbox {
  private busy = false

  private constructor(
    private readonly thread: SandboxThread,
    private readonly bridge: HostBridge,
    private readonly deadline: () => number,
  ) {}

  static async create(bridge: HostBridge, deadline: () => number): Promise<RemoteSandbox> {
    let thread = idle.pop()
    while (thread?.dead) thread = idle.pop()
    thread ??= new SandboxThread(await workerEntry())
    const sandbox = new RemoteSandbox(thread, bridge, deadline)
    try {
      await sandbox.call({ op: 'create', remainingMs: deadline() - performance.now() })
    } catch (error) {
      sandbox.dispose()
      throw error
    }
    return sandbox
  }

  /** Evaluates the tracer's source and runs its setup(config). */
  load(code: string, config: string): Answer<{ step: boolean; frames: boolean }> {
    return andThen(this.call({ op: 'load', code, config }), (r) => r.shape ?? { step: false, frames: false })
  }

  /** `top`: the stack's top items as the `stackTop` read answers them, when the tracer reads them. */
  step(s: StepScalars, name: 'step' | 'fault', top?: string): Answer<void> {
    return andThen(this.call({ op: name, s, top }), () => undefined)
  }

  call0(name: 'enter' | 'exit'): Answer<void> {
    return andThen(this.call({ op: name }), () => undefined)
  }

  /** result(ctx, db) as JSON text; undefined when it returned undefined. */
  result(entries: Array<[string, 'bytes' | 'big' | 'plain', string | number | undefined]>): Answer<string | undefined> {
    return andThen(this.call({ op: 'result', entries }), (r) => r.json)
  }

  dispose(): void {
    const { thread } = this
    if (thread.dead) return
    // A worker still inside a call (the trace ended without awaiting it) is not reused.
    if (this.busy || idle.length >= KEEP_IDLE) {
      thread.kill()
      return
    }
    thread.post({ op: 'dispose' })
    idle.push(thread)
  }

  /** The call's outcome: what the tracer threw or timing out become SandboxThrew / SandboxTimedOut. */
  private call(request: Request): Answer<Reply & { k: 'done' }> {
    if (this.thread.dead || this.busy) throw new SandboxThrew('InternalError: the tracer is no longer running')
    this.busy = true
    this.thread.post(request)
    const until = performance.now() + WAIT_IN_PLACE_MS
    for (;;) {
      const reply = this.thread.take()
      if (reply && !this.answer(reply)) {
        this.busy = false
        return outcome(reply)
      }
      if (reply) continue
      const left = until - performance.now()
      if (left <= 0 || !waitPast(this.thread.flags, TO_MAIN, this.thread.seen, left)) return this.awaitReply().then(outcome)
    }
  }

  /** The rest of a call that outlasted the wait in place: awaited, within the deadline and its grace. */
  private async awaitReply(): Promise<Reply> {
    const { thread } = this
    try {
      for (;;) {
        const reply = thread.take()
        if (reply && !this.answer(reply)) return reply
        if (reply) continue
        if (thread.dead) throw new SandboxThrew('InternalError: tracer engine failed')
        const left = this.deadline() + GRACE_MS - performance.now()
        if (left <= 0) {
          thread.kill()
          throw new SandboxTimedOut('execution timeout')
        }
        const waiting = waitAsync(thread.flags, TO_MAIN, thread.seen, left)
        if (waiting.async) await Promise.race([waiting.value, thread.ended])
      }
    } finally {
      this.busy = false
    }
  }

  /** Answers a host read the worker is blocked on; false for a call's outcome. */
  private answer(reply: Reply): boolean {
    if (reply.k === 'read') this.thread.post({ op: 'answer', value: this.bridge.read(reply.what, reply.a, reply.b) })
    else if (reply.k === 'precompiled') this.thread.post({ op: 'answer', value: this.bridge.isPrecompiled(reply.address) })
    else return false
    return true
  }
}

const DONE: Reply = { k: 'done' }

/** Answered at once, or later. */
export type Answer<T> = T | Promise<T>

/** `f` of the answer, at once when it is there. */
export function andThen<T, U>(answer: Answer<T>, f: (value: T) => Answer<U>): Answer<U> {
  return answer instanceof Promise ? answer.then(f) : f(answer)
}

function outcome(reply: Reply): Reply & { k: 'done' } {
  if (reply.k === 'timeout') throw new SandboxTimedOut('execution timeout')
  if (reply.k === 'threw') throw new SandboxThrew(reply.message, reply.shape)
  if (reply.k !== 'done') throw new SandboxThrew('InternalError: tracer engine failed')
  return reply
}
