// What the main thread and the JS tracers' worker thread (sandbox-worker.ts) say to each other, and
// how: each message is announced by a counter in shared memory that the other side waits on with
// Atomics.wait; it is a MessagePort message (taken with receiveMessageOnPort) or, for the hot path,
// a step and its bare "done" written in the shared memory itself. So the worker answers a step
// while the main thread blocks for it (briefly: remote-sandbox.ts), and the main thread answers the
// worker's host reads while the worker blocks inside the tracer's call. Strictly one message
// outstanding at a time; only primitives cross.
import type { MessagePort } from 'node:worker_threads'

/** Int32 slots: the counters, and what the last announced message is. */
export const TO_WORKER = 0
export const TO_MAIN = 1
export const KIND_TO_WORKER = 2
export const KIND_TO_MAIN = 3
/** Message kinds: on the port, or a step / fault / "done" in the shared memory. */
export const ON_PORT = 0
export const SHARED_STEP = 1
export const SHARED_FAULT = 2
export const SHARED_DONE = 3
/** The shared memory: 4 Int32 slots, then the step's scalars as Float64 (pc, gas, cost, depth,
 * refund, op, stackLength). */
export const SHARED_BYTES = 16 + 7 * 8

/** Waits until the counter at `index` has moved past `seen` (no busy polling: on a loaded machine
 * it takes the core the other thread needs); false when `timeoutMs` ran out first. */
export function waitPast(flags: Int32Array, index: number, seen: number, timeoutMs = Number.POSITIVE_INFINITY): boolean {
  const until = performance.now() + timeoutMs
  for (;;) {
    if (Atomics.load(flags, index) !== seen) return true
    const left = until - performance.now()
    if (left <= 0) return false
    Atomics.wait(flags, index, seen, left)
  }
}

export type Primitive = string | number | boolean | undefined

/** What geth's `log` answers without a read: the step's scalars. */
export interface StepScalars {
  pc: number
  gas: number
  cost: number
  depth: number
  refund: number
  op: number
  error?: string
  stackLength: number
}

/** What the tracer's realm is built from, prepared on the main thread (which resolves packages). */
export interface SandboxSources {
  /** JSON of the 256 opcode names. */
  opNames: string
  /** The big-integer library's source (geth's bigInt). */
  bigInt: string
}

export interface WorkerSetup {
  port: MessagePort
  shared: SharedArrayBuffer
  sources: SandboxSources
}

/** Main → worker. `top`: the stack's top items, sent once the tracer has read them (saves a round trip). */
export type Request =
  | { op: 'create'; remainingMs: number }
  | { op: 'load'; code: string; config: string }
  | { op: 'step' | 'fault'; s: StepScalars; top?: string }
  | { op: 'enter' | 'exit' }
  | { op: 'result'; entries: Array<[string, 'bytes' | 'big' | 'plain', string | number | undefined]> }
  | { op: 'dispose' }
  | { op: 'answer'; value: Primitive }

/** Worker → main: an entry point's outcome, or a host read the tracer is blocked on. */
export type Reply =
  | { k: 'done'; shape?: { step: boolean; frames: boolean }; json?: string }
  | { k: 'threw'; message: string; shape: boolean }
  | { k: 'timeout' }
  | { k: 'read'; what: string; a?: string | number; b?: string | number }
  | { k: 'precompiled'; address: string }

/** The tracer threw (or was malformed): `message` is geth's text for it. */
export class SandboxThrew extends Error {
  constructor(
    message: string,
    /** A shape problem reported at load (geth's "trace object must expose ..."). */
    readonly shape = false,
  ) {
    super(message)
  }
}

/** The tracer's code ran into the deadline. */
export class SandboxTimedOut extends Error {}
