// The worker thread JS tracers run in (remote-sandbox.ts starts it): one tracer's realm
// (js-sandbox.ts) at a time, driven over sandbox-protocol.ts. Its thread does nothing but wait for
// the next request and run it, so a tracer's call that never returns holds this thread, not the
// node's; the tracer's host reads block here until the main thread answers them.
import { receiveMessageOnPort, workerData } from 'node:worker_threads'
import { type HostBridge, JsSandbox } from './js-sandbox.js'
import {
  type Primitive,
  type Reply,
  type Request,
  SandboxThrew,
  SandboxTimedOut,
  TO_MAIN,
  TO_WORKER,
  type WorkerSetup,
} from './sandbox-protocol.js'

const { port, flags, sources } = workerData as WorkerSetup
/** Blocks until the main thread's next message. (The counter is read before the port: a message
 * posted after the look finds the counter moved, and a stale wake-up finds no message.) */
function next(): Request {
  for (;;) {
    const count = Atomics.load(flags, TO_WORKER)
    const received = receiveMessageOnPort(port)
    if (received) return received.message as Request
    Atomics.wait(flags, TO_WORKER, count)
  }
}

function send(reply: Reply): void {
  port.postMessage(reply)
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
