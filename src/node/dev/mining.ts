// Mining modes (anvil's eth/miner.rs): automine, interval mining, pcnode's block time and
// pre-confirmation interval. Outside the serial queue: stopping the sequencer waits for it.
import type { NodeContext } from '../context.js'
import type { SequencerConfig } from '../sequencer/sequencer.js'

/** The node's parts mining modes configure and start. */
export type MiningParts = Pick<NodeContext, 'options' | 'engine' | 'chain' | 'producer' | 'sequencer' | 'clock'>

export class Mining {
  private config: SequencerConfig

  constructor(
    private readonly ctx: MiningParts,
    /** Seals the pending block now (evm_mine), for automine switched on with transactions waiting. */
    private readonly mineNow: () => Promise<void>,
  ) {
    this.config = { blockTime: ctx.options.blockTime, preconfInterval: ctx.options.preconfInterval }
  }

  get automine(): boolean {
    return this.ctx.sequencer.isRunning && this.config.blockTime === 0 && this.config.preconfInterval === 0
  }

  get miningConfig(): SequencerConfig & { mining: boolean } {
    return { ...this.config, mining: this.ctx.sequencer.isRunning }
  }

  /** anvil_setAutomine: on = a block per transaction (interval 0, block time 0); off stops automine only. */
  async setAutomine(on: boolean): Promise<void> {
    if (on) {
      await this.startMining({ blockTime: 0, preconfInterval: 0 })
      if (this.ctx.chain.pending?.txs.length) await this.mineNow()
    } else if (this.automine) {
      await this.ctx.sequencer.stop()
    }
  }

  /** evm_setIntervalMining: a sealed block every `ms`; 0 stops mining (anvil's rule). */
  async setIntervalMining(ms: number): Promise<void> {
    if (ms === 0) await this.ctx.sequencer.stop()
    else await this.startMining({ blockTime: ms })
  }

  /** pcnode_setBlockTime: like --block-time (0 seals every flashblock); starts mining if stopped. */
  async setBlockTime(ms: number): Promise<void> {
    await this.startMining({ blockTime: ms })
  }

  /** pcnode_setPreconfInterval: like --preconf-interval (0 pre-confirms on arrival). */
  setPreconfInterval(ms: number): void {
    this.reconfigure({ preconfInterval: ms })
  }

  private reconfigure(change: Partial<SequencerConfig>): void {
    this.config = { ...this.config, ...change }
    this.ctx.sequencer.reconfigure(this.config)
  }

  private async startMining(change: Partial<SequencerConfig>): Promise<void> {
    const { sequencer, engine, chain, producer, clock } = this.ctx
    this.reconfigure(change)
    if (sequencer.isRunning) return
    await engine.queue.run(async () => {
      // Before Denim the block at that time opens now; a Denim block takes it as it opens at its slot.
      const at = clock.nextTimestamp
      if (!chain.pending && at !== undefined && producer.timing.next(at).millis === undefined) await producer.open(at)
    })
    await sequencer.start()
  }
}
