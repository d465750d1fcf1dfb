// The sequencer's clock: a flashblock every preconfInterval, a sealed block every blockTime.
// Interval 0 pre-confirms as transactions arrive (coalescing those that arrive together). Halted
// (pcnode_haltFlashblocks), it makes no flashblocks: each block is built whole when it seals, as a
// chain whose flashblocks stopped falls back to plain blocks (Base's docs, "Reliability & Fallback").
// Denim blocks (profile base) are built whole too, each when its 200 ms slot comes due.

import { hexKey } from '../bytes.js'
import type { Chain } from '../chain/chain.js'
import type { Engine } from '../engine/index.js'
import type { NodeEvents } from '../events.js'
import { DENIM_BLOCK_MS, DENIM_MAX_LAG_MS } from '../opstack/denim.js'
import type { TxPool } from '../pool/pool.js'
import { FLASHBLOCKS_PROFILE } from '../profile.js'
import type { BlockRecord } from '../types.js'
import { type FlashJitter, jittered, metronome, Ticker, whenDue } from './clocks.js'
import type { BlockProducer, FlashblockBudget } from './producer.js'

/** The block clock's tasks go before queued requests: a seal waits at most for the running task. */
const URGENT = { urgent: true }

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

export interface SequencerConfig {
  blockTime: number
  preconfInterval: number
}

/** Before Denim, a profile-base chain runs as Base did: the flashblocks profile's cadence. */
const PRE_DENIM: SequencerConfig = {
  blockTime: FLASHBLOCKS_PROFILE.blockTime,
  preconfInterval: FLASHBLOCKS_PROFILE.preconfInterval,
}

/** What the fault injector (faults/) adds to sealing and to the flashblock clock. */
export interface SequencerHooks {
  /** Inside the queue, before the pending block seals: drops applied as it seals. */
  beforeSeal(block: BlockRecord): Promise<void>
  /** Inside the queue, once it sealed, with the ticks the flashblock clock had while it was open. */
  afterSeal(block: BlockRecord, ticks: number): Promise<void>
  /** The flashblock clock's jitter; undefined for a regular clock. */
  jitter(): FlashJitter | undefined
}

export class Sequencer {
  private flashClock: Ticker | undefined
  private sealClock: Ticker | undefined
  /** Whether the clocks armed are Denim's (the next block was a Denim block when they were). */
  private armedDenim = false
  private immediate: NodeJS.Immediate | undefined
  private running = false
  private halted = false
  private flashing: Promise<void> | undefined
  private hooks: SequencerHooks | undefined
  /** Ticks of the flashblock clock since the last seal. */
  private ticks = 0

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

  get configuration(): Readonly<SequencerConfig> {
    return this.config
  }

  /** Whether flashblocks are halted (pcnode_haltFlashblocks). */
  get isHalted(): boolean {
    return this.halted
  }

  /** Whether blocks are open between seals (mining, flashblocks not halted, before Denim): `pending` is pre-confirmed. */
  get preconfirming(): boolean {
    return this.running && this.flashblocks
  }

  /** Whether blocks are built flashblock by flashblock: not while halted, not on Denim blocks. */
  private get flashblocks(): boolean {
    return !this.halted && !this.producer.timing.nextIsDenim
  }

  /**
   * The clocks' settings for the next block: Denim's run the configured block time; before
   * Denim, a chain that will cross it runs Base's old cadence (until the dev methods set one).
   */
  private get effective(): SequencerConfig {
    return this.crossing && !this.producer.timing.nextIsDenim ? PRE_DENIM : this.config
  }

  /** Set while a profile-base chain runs before its Denim time with the profile's own cadence. */
  private crossing = false

  useHooks(hooks: SequencerHooks): void {
    this.hooks = hooks
  }

  async start(): Promise<void> {
    if (this.running) return
    this.running = true
    if (this.flashblocks) await this.engine.queue.run(() => this.producer.open(), URGENT)
    this.arm()
  }

  /**
   * A chain of profile base that starts before its Denim time (a fork of an older Base block)
   * runs Base's old cadence until then; the configured block time is Denim's.
   */
  crossesDenim(): void {
    this.crossing = !this.producer.timing.nextIsDenim
  }

  private arm(): void {
    const { blockTime, preconfInterval } = this.effective
    const denim = this.producer.timing.nextIsDenim
    this.armedDenim = denim
    // Dev-mined Denim blocks (no block clock) keep up with the node's clock; the block clock's follow the schedule.
    const slot = Number(DENIM_BLOCK_MS)
    const step = BigInt(Math.max(slot, Math.ceil(blockTime / slot) * slot))
    this.producer.timing.setSchedule({ stepMs: step, maxLagMs: this.running && blockTime > 0 ? DENIM_MAX_LAG_MS : 0n })
    if (denim) {
      const due = () => this.producer.timing.msUntilNext()
      if (blockTime > 0) this.sealClock = new Ticker(whenDue(blockTime, due), () => this.seal(), this.failed)
      if (this.pool.size > 0 || this.producer.depositsWaiting) this.notify()
      return
    }
    if (preconfInterval > 0 && !this.halted) {
      const tick = () => {
        this.ticks++
        return this.flash()
      }
      const jitter = this.hooks?.jitter()
      const delay = jitter ? jittered(preconfInterval, jitter) : metronome(preconfInterval)
      this.flashClock = new Ticker(delay, tick, this.failed)
    }
    if (blockTime > 0) this.sealClock = new Ticker(metronome(blockTime), () => this.seal(), this.failed)
    if (this.pool.size > 0 || this.producer.depositsWaiting) this.notify()
  }

  /**
   * pcnode_haltFlashblocks: no more flashblocks. The open block keeps its pre-confirmations and
   * seals on time; after it, blocks are built whole as they seal and `pending` reads `latest`.
   */
  halt(): boolean {
    if (this.halted) return false
    this.halted = true
    this.producer.setPreconfirming(false)
    if (this.running) {
      this.disarm()
      this.arm()
    }
    return true
  }

  /** pcnode_resumeFlashblocks: a block opens now (flashblock 0) and the flashblock clock runs again. */
  async resume(): Promise<boolean> {
    if (!this.halted) return false
    this.halted = false
    this.producer.setPreconfirming(true)
    if (this.running) {
      this.disarm()
      // A Denim block is built whole when its slot comes: nothing opens before it.
      if (this.flashblocks) await this.engine.queue.run(() => this.producer.open(), URGENT)
      this.arm()
    }
    return true
  }

  private disarm(): void {
    this.flashClock?.stop()
    this.sealClock?.stop()
    if (this.immediate) clearImmediate(this.immediate)
    this.flashClock = this.sealClock = this.immediate = undefined
  }

  reconfigure(config: Partial<SequencerConfig>): void {
    this.config = { ...this.config, ...config }
    // The dev methods set the cadence from now on, before Denim too.
    if (Object.keys(config).length > 0) this.crossing = false
    if (this.running) {
      this.disarm()
      this.arm()
    }
  }

  async stop(): Promise<void> {
    this.running = false
    this.disarm()
    this.producer.timing.setSchedule({ stepMs: DENIM_BLOCK_MS, maxLagMs: 0n })
    await this.flashing
    await this.engine.queue.run(async () => {})
  }

  /**
   * A transaction entered the pool: at interval 0 it is pre-confirmed right away (halted, with
   * block time 0, it is sealed right away).
   */
  notify(): void {
    if (!this.running || this.immediate) return
    const { blockTime, preconfInterval } = this.effective
    const onArrival = this.flashblocks ? preconfInterval === 0 : blockTime === 0
    if (!onArrival) return
    this.immediate = setImmediate(() => {
      this.immediate = undefined
      void this.flash()
    })
  }

  /** Executes ready pool transactions as the next flashblock (halted with block time 0: seals them). */
  flash(): Promise<void> {
    if (this.pool.size === 0 && !this.producer.depositsWaiting) return Promise.resolve()
    const { blockTime } = this.effective
    if (!this.flashblocks) {
      this.flashing = (blockTime === 0 ? this.seal() : Promise.resolve()).catch(this.failed)
      return this.flashing
    }
    const run = this.engine.queue
      .run(() => this.flashNow(), { consistent: true, urgent: true })
      .then(async (more) => {
        if (blockTime === 0) await this.seal()
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
    for (const from of this.pool.senders()) {
      const nonce = await live.nonce(from)
      nonces.set(hexKey(from), nonce)
      // A nonce moved by something other than the sender's pooled transactions (a deposit from the
      // same address, an EIP-7702 authorization) strands those below it; geth's pool drops them too.
      for (const info of this.pool.prune(from, nonce)) this.events.emit('dropped', { info, reason: 'nonce too low' })
    }
    const stateNonce = (from: Uint8Array) => nonces.get(hexKey(from)) ?? 0n
    const room = block.header.gasLimit - block.header.gasUsed
    const batch = this.pool.selectReady(block.header.baseFeePerGas, room, 5000, stateNonce)
    if (batch.length === 0 && !this.producer.depositsWaiting) return false
    const result = await this.producer.flashblock(batch, flashblockBudget(this.effective.preconfInterval))
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

  /**
   * Inside the queue: flashblocks until nothing ready is left (flashNow stops at its deadline).
   * With `deposits`, user deposits waiting with nothing pooled get a flashblock too (sealing a
   * halted block builds it whole here); without, only pooled transactions start one (the dev
   * controls: evm_mine, re-opening the pending block), and deposits alone wait for the next block's
   * opening, which runs them first.
   */
  async flashAllReady({ deposits }: { deposits: boolean }): Promise<void> {
    while ((this.pool.size > 0 || (deposits && this.producer.depositsWaiting)) && (await this.flashNow())) {
      // go on until flashNow reports nothing ready left
    }
  }

  /**
   * Seals the pending block and opens the next one (while pre-confirming). A chain crossing into
   * Denim switches to Denim's clock at the first Denim block.
   */
  seal(): Promise<void> {
    return this.engine.queue.run(async () => {
      await this.sealPending()
      if (this.running && this.armedDenim !== this.producer.timing.nextIsDenim) {
        this.disarm()
        this.arm()
      }
      if (this.preconfirming) await this.producer.open()
    }, URGENT)
  }

  /**
   * Inside the queue: seals the pending block, with the fault hooks around the seal. Halted, with no
   * block open, the block is built from the pool now (there were no flashblocks to fill it); a block
   * opened before the halt seals with what its flashblocks pre-confirmed.
   */
  async sealPending(): Promise<BlockRecord> {
    // A Denim block opened early (a dev method) still takes what the pool holds as it seals.
    const open = this.chain.pending
    if (!this.flashblocks && (!open || open.millis !== undefined)) {
      await this.producer.open()
      await this.flashAllReady({ deposits: true })
    }
    const pending = this.chain.pending
    if (pending) await this.hooks?.beforeSeal(pending)
    const block = await this.producer.seal()
    const ticks = this.ticks
    this.ticks = 0
    await this.hooks?.afterSeal(block, ticks)
    return block
  }
}
