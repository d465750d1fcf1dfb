// Sender recovery for eth_sendRawTransaction. secp256k1 recovery is the largest single cost of
// accepting a transaction (~0.1 ms of native code), so when sends arrive back to back it runs on a
// worker thread, the machine's other core, while the main thread answers HTTP and executes
// flashblocks. A send that arrives alone is recovered inline: a thread hop would only add latency.
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { Capability, type TypedTransaction } from '@ethereumjs/tx'
import { bigIntToBytes, calculateSigRecovery, setLengthLeft } from '@ethereumjs/util'

/** A send this soon (ms) after the previous one counts as back to back. */
const BACK_TO_BACK_MS = 1
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n

interface Waiter {
  tx: TypedTransaction
  recid: number
  resolve: (pub: Uint8Array) => void
  reject: (e: Error) => void
}

// Jobs travel packed in one transferred buffer per batch (structured-cloning an object per job
// costs as much as the recovery): message hash (32), r (32), s (32), recovery id (1). Replies: a
// status byte (1 = ok) and the 64-byte public key, in job order.
const JOB = 97
const REPLY = 65

// CommonJS, evaluated in the worker: it needs nothing but the native secp256k1 binding.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const secp = require(workerData.secp256k1)
parentPort.on('message', (jobs) => {
  const n = jobs.length / ${JOB}
  const out = new Uint8Array(n * ${REPLY})
  for (let i = 0; i < n; i++) {
    const job = jobs.subarray(i * ${JOB}, (i + 1) * ${JOB})
    try {
      out.set(secp.ecdsaRecover(job.subarray(32, 96), job[96], job.subarray(0, 32), false).subarray(1), i * ${REPLY} + 1)
      out[i * ${REPLY}] = 1
    } catch {}
  }
  parentPort.postMessage(out, [out.buffer])
})
`

function nativeSecp256k1Path(): string | undefined {
  try {
    const require = createRequire(import.meta.url)
    // Only the native binding: without it the package falls back to pure JS, and the main
    // thread's fallback (crypto.ts) is as good as a worker's.
    const path = require.resolve('secp256k1/bindings')
    require(path)
    return path
  } catch {
    return undefined
  }
}

export class SenderRecovery {
  private worker: Worker | undefined
  private secp256k1 = nativeSecp256k1Path()
  /** Batches posted to the worker, oldest first; it answers them in order. */
  private readonly inFlight: Waiter[][] = []
  private batch: Waiter[] = []
  /** When the last recovery finished (inline) or was handed over (worker). */
  private lastSeen = Number.NEGATIVE_INFINITY

  constructor(private readonly keccak: (data: Uint8Array) => Uint8Array) {}

  /**
   * The sender's address; primes the transaction's public-key cache so execution does not recover
   * it again. Throws the signature errors ethereumjs throws.
   */
  async sender(tx: TypedTransaction): Promise<Uint8Array> {
    const busy = this.batch.length > 0 || this.inFlight.length > 0
    const backToBack = busy || performance.now() - this.lastSeen < BACK_TO_BACK_MS
    let pub: Uint8Array
    if (backToBack && this.secp256k1) {
      pub = await this.offload(tx)
    } else {
      pub = tx.getSenderPublicKey()
    }
    this.lastSeen = performance.now()
    tx.cache.senderPubKey = pub
    return this.keccak(pub).subarray(12)
  }

  /** Stops the worker thread, if one was started. */
  async close(): Promise<void> {
    const worker = this.worker
    this.worker = undefined
    await worker?.terminate()
  }

  private offload(tx: TypedTransaction): Promise<Uint8Array> {
    // The same checks ethereumjs' getSenderPublicKey makes before recovering.
    if (tx.s === undefined || tx.r === undefined || tx.v === undefined) throw new Error('Invalid Signature')
    if (tx.s > SECP256K1_HALF_N) {
      throw new Error('Invalid Signature: s-values greater than secp256k1n/2 are considered invalid')
    }
    const chainId = tx.supports(Capability.EIP155ReplayProtection) ? tx.common.chainId() : undefined
    let recid: number
    try {
      recid = Number(calculateSigRecovery(tx.v, chainId))
    } catch {
      throw new Error('Invalid Signature')
    }
    if (this.batch.length === 0) setImmediate(() => this.flush())
    return new Promise((resolve, reject) => this.batch.push({ tx, recid, resolve, reject }))
  }

  /** One message per turn of the event loop carries every recovery asked for in it. */
  private flush(): void {
    const batch = this.batch
    this.batch = []
    const jobs = new Uint8Array(batch.length * JOB)
    batch.forEach(({ tx, recid }, i) => {
      const at = i * JOB
      jobs.set(tx.getMessageToVerifySignature(), at)
      jobs.set(setLengthLeft(bigIntToBytes(tx.r as bigint), 32), at + 32)
      jobs.set(setLengthLeft(bigIntToBytes(tx.s as bigint), 32), at + 64)
      jobs[at + 96] = recid
    })
    this.inFlight.push(batch)
    try {
      this.thread().postMessage(jobs, [jobs.buffer])
    } catch {
      this.fail()
    }
  }

  private thread(): Worker {
    if (this.worker) return this.worker
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { secp256k1: this.secp256k1 } })
    worker.unref() // never what keeps the process alive
    worker.on('message', (replies: Uint8Array) => {
      const batch = this.inFlight.shift() ?? []
      batch.forEach(({ resolve, reject }, i) => {
        if (replies[i * REPLY] === 1) resolve(replies.subarray(i * REPLY + 1, (i + 1) * REPLY))
        else reject(new Error('Invalid Signature'))
      })
    })
    worker.on('error', () => this.fail())
    worker.on('exit', () => this.fail())
    this.worker = worker
    return worker
  }

  /** The worker is gone (or never started): recover inline, now and from now on. */
  private fail(): void {
    if (this.worker) void this.worker.terminate()
    this.worker = undefined
    this.secp256k1 = undefined
    const waiting = [...this.inFlight.flat(), ...this.batch]
    this.inFlight.length = 0
    this.batch = []
    for (const { tx, resolve, reject } of waiting) {
      try {
        resolve(tx.getSenderPublicKey())
      } catch (error) {
        reject(error as Error)
      }
    }
  }
}
