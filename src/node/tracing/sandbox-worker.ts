// The worker thread JS tracers run in (remote-sandbox.ts starts it): one tracer's realm
// (js-sandbox.ts) at a time, driven over sandbox-protocol.ts. Its thread does nothing but wait for
// the next request and run it, so a tracer's call that never returns holds this thread, not the
// node's; the tracer's host reads block here until the main thread answers them.
import { receiveMessageOnPort, workerData } from 'node:worker_threads'
import { type HostBridge, JsSandbox } from './js-sandbox.js'
import {
  KIND_TO_MAIN,
  KIND_TO_WORKER,
  ON_PORT,
  type Primitive,
  type Reply,
  type Request,
  SandboxThrew,
  SandboxTimedOut,
  SHARED_DONE,
  SHARED_STEP,
  TO_MAIN,
  TO_WORKER,
  type WorkerSetup,
  waitPast,
} from './sandbox-protocol.js'

const { port, shared, sources } = workerData as WorkerSetup
const flags = new Int32Array(shared, 0, 4)
const scalars = new Float64Array(shared, 16, 7)
/** Messages taken so far. */
let seen = 0

/** Blocks until the main thread's next message. */
function next(): Request {
  waitPast(flags, TO_WORKER, seen)
  seen++
  const kind = Atomics.load(flags, KIND_TO_WORKER)
  if (kind === ON_PORT) return receiveMessageOnPort(port)?.message as Request
  const [pc, gas, cost, depth, refund, op, stackLength] = scalars
  return { op: kind === SHARED_STEP ? 'step' : 'fault', s: { pc, gas, cost, depth, refund, op, stackLength } }
}

function send(reply: Reply): void {
  if (reply.k === 'done' && reply.shape === undefined && reply.json === undefined) {
    Atomics.store(flags, KIND_TO_MAIN, SHARED_DONE)
  } else {
    Atomics.store(flags, KIND_TO_MAIN, ON_PORT)
    port.postMessage(reply)
  }
  Atomics.add(flags, TO_MAIN, 1)
  Atomics.notify(flags, TO_MAIN)
}

/** Asks the main thread and blocks for its answer. */
function ask(question: Reply): Primitive {
  send(question)
  const answer = next()
  return answer.op === 'answer' ? answer.value : undefined
}

let sandbox: JsSandbox | undefined
/** The current step's stack top, when the main thread sent it along. */
let top: string | undefined
const bridge: HostBridge = {
  read: (what, a, b) => (what === 'stackTop' && top !== undefined ? top : ask({ k: 'read', what, a, b })),
  isPrecompiled: (address) => ask({ k: 'precompiled', address }) === true,
}

async function handle(request: Request): Promise<Reply | undefined> {
  switch (request.op) {
    case 'create': {
      sandbox?.dispose()
      // Each thread has its own clock origin: the deadline crosses as the time left.
      const deadline = performance.now() + request.remainingMs
      sandbox = await JsSandbox.create(bridge, () => deadline, sources)
      return { k: 'done' }
    }
    case 'dispose':
      sandbox?.dispose()
      sandbox = undefined
      return undefined
    case 'answer':
      return undefined
  }
  if (!sandbox) throw new SandboxThrew('InternalError: the tracer is no longer running')
  switch (request.op) {
    case 'load':
      return { k: 'done', shape: sandbox.load(request.code, request.config) }
    case 'step':
    case 'fault':
      top = request.top
      try {
        sandbox.step(request.s, request.op)
      } finally {
        top = undefined
      }
      return { k: 'done' }
    case 'enter':
    case 'exit':
      sandbox.call0(request.op)
      return { k: 'done' }
    case 'result':
      return { k: 'done', json: sandbox.result(request.entries) }
  }
}

for (;;) {
  let reply: Reply | undefined
  try {
    reply = await handle(next())
  } catch (error) {
    reply =
      error instanceof SandboxTimedOut
        ? { k: 'timeout' }
        : error instanceof SandboxThrew
          ? { k: 'threw', message: error.message, shape: error.shape }
          : { k: 'threw', message: 'InternalError: tracer engine failed', shape: false }
  }
  if (reply) send(reply)
}
