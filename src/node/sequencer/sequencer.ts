// The sequencer's clock: a flashblock every preconfInterval, a sealed block every blockTime.
// Interval 0 pre-confirms as transactions arrive (coalescing those that arrive together).

import { hexKey } from '../bytes.js'
import type { Chain } from '../chain/chain.js'
import type { Engine } from '../engine/index.js'
import type { NodeEvents } from '../events.js'
import type { TxPool } from '../pool/pool.js'
import type { BlockProducer, FlashblockBudget } from './producer.js'

/**
 * How long one flashblock may run; the rest of the batch waits for the next one. A backlog gets
 * most of each interval's execution time, and a flashblock ends by the next tick even when
 * answering requests between its slices took the rest. Once a read or a seal waits for the serial
 * queue, it ends within 50 ms. Interval 0 flashes back to back, so its budget is short anyway.
 */
function flashblockBudget(preconfInterval: number): FlashblockBudget {
  return preconfInterval > 0
    ? { executionMs: 0.8 * preconfInterval, wallMs: preconfInterval, whileOthersWaitMs: 50 }
    : { executionMs: 50, wallMs: 100, whileOthersWaitMs: 50 }
}

/** Calls `fn` at t0 + k * period, skipping boundaries it missed instead of bunching up. */
class Metronome {
  private timer: NodeJS.Timeout | undefined
  private readonly t0 = performance.now()
  private k = 0

  constructor(
    private readonly period: number,
    private readonly fn: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {
    this.schedule()
  }

  private schedule(): void {
    const now = performance.now()
    this.k = Math.max(this.k + 1, Math.ceil((now - this.t0) / this.period))
    this.timer = setTimeout(
      () => {
        this.fn()
          .catch(this.onError)
          .finally(() => {
            if (this.timer) this.schedule()
          })
      },
      this.t0 + this.k * this.period - now,
    )
  }

  stop(): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }
}

export interface SequencerConfig {
  blockTime: number
  preconfInterval: number
}

export class Sequencer {
  private flashClock: Metronome | undefined
  private sealClock: Metronome | undefined
  private immediate: NodeJS.Immediate | undefined
  private running = false
  private flashing: Promise<void> | undefined

  constructor(
    private readonly engine: Engine,
    private readonly chain: Chain,
    private readonly pool: TxPool,
    private readonly producer: BlockProducer,
    private readonly events: NodeEvents,
    private config: SequencerConfig,
    /** Where a failed tick is reported (the node's logger). */
    private readonly log: (line: string) => void,
  ) {}

  private readonly failed = (error: unknown) => this.log(`sequencer tick failed: ${(error as Error)?.stack ?? String(error)}`)

  get isRunning(): boolean {
    return this.running
  }

  async start(): Promise<void> {
    if (this.running) return
    this.running = true
    await this.engine.queue.run(() => this.producer.open())
    this.arm()
  }

  private arm(): void {
    const { blockTime, preconfInterval } = this.config
    if (preconfInterval > 0) this.flashClock = new Metronome(preconfInterval, () => this.flash(), this.failed)
    if (blockTime > 0) this.sealClock = new Metronome(blockTime, () => this.seal(), this.failed)
    if (this.pool.size > 0 || this.producer.depositsWaiting) this.notify()
  }

  private disarm(): void {
    this.flashClock?.stop()
    this.sealClock?.stop()
    if (this.immediate) clearImmediate(this.immediate)
    this.flashClock = this.sealClock = this.immediate = undefined
  }

  reconfigure(config: Partial<SequencerConfig>): void {
    this.config = { ...this.config, ...config }
    if (this.running) {
      this.disarm()
      this.arm()
    }
  }

  async stop(): Promise<void> {
    this.running = false
    this.disarm()
    await this.flashing
    await this.engine.queue.run(async () => {})
  }

  /** A transaction entered the pool: at interval 0 it is pre-confirmed right away. */
  notify(): void {
    if (!this.running || this.config.preconfInterval > 0 || this.immediate) return
    this.immediate = setImmediate(() => {
      this.immediate = undefined
      void this.flash()
    })
  }

  /** Executes ready pool transactions as the next flashblock. */
  flash(): Promise<void> {
    if (this.pool.size === 0 && !this.producer.depositsWaiting) return Promise.resolve()
    const run = this.engine.queue
      .run(() => this.flashNow(), { consistent: true })
      .then(async (more) => {
        if (this.config.blockTime === 0) await this.seal()
        if (more) this.notify()
      })
    this.flashing = run.catch(this.failed)
    return this.flashing
  }

  /** Inside the queue. Returns true when ready transactions were left for the next flashblock. */
  async flashNow(): Promise<boolean> {
    const block = this.chain.pending ?? (await this.producer.open())
    const { live } = this.engine
    const nonces = new Map<string, bigint>()
    for (const from of this.pool.senders()) nonces.set(hexKey(from), await live.nonce(from))
    const stateNonce = (from: Uint8Array) => nonces.get(hexKey(from)) ?? 0n
    const room = block.header.gasLimit - block.header.gasUsed
    const batch = this.pool.selectReady(block.header.baseFeePerGas, room, 5000, stateNonce)
    if (batch.length === 0 && !this.producer.depositsWaiting) return false
    const result = await this.producer.flashblock(batch, flashblockBudget(this.config.preconfInterval))
    for (const t of result.included) {
      this.pool.remove(this.pool.get(t.tx.hash) ?? { tx: t.tx, receivedAt: 0 })
      // A replacement accepted while its nonce was executing can no longer run.
      const stale = this.pool.removeNonce(t.tx.from, t.tx.nonce)
      if (stale) this.events.emit('dropped', { info: stale, reason: 'nonce too low' })
    }
    for (const { info, error } of result.rejected) {
      if (/block gas limit reached/.test(error.message)) continue
      this.pool.remove(info)
      this.events.emit('dropped', { info, reason: error.message })
    }
    return result.executed < batch.length
  }

  /** Seals the pending block and opens the next one. */
  seal(): Promise<void> {
    return this.engine.queue.run(async () => {
      await this.producer.seal()
      if (this.running) await this.producer.open()
    })
  }
}
