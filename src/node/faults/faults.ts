// Pre-confirmation faults, injected on purpose so an app can rehearse its fallback path. Base tells
// app builders a pre-confirmation is a strong promise, not a guarantee, and to "implement fallback
// logic" (base/docs app-integration.mdx, "Reliability & Fallback"): a pre-confirmed transaction can
// be missing from the sealed block, flashblocks can stop (plain 2 s blocks go on), a failover
// restarts the stream mid-block, the cadence drifts; an unsafe block can be replaced by another at
// its height. Each of these is one call here; the re-run is rerun.ts, the replaced blocks
// replace.ts, the halt and the jittered clock the sequencer's.
import { hexKey } from '../bytes.js'
import type { NodeContext } from '../context.js'
import { NodeError } from '../errors.js'
import type { FaultKind } from '../events.js'
import type { FlashJitter } from '../sequencer/clocks.js'
import type { BlockRecord, IncludedTx, TxRecord } from '../types.js'
import { type RestartOrder, reorder } from './order.js'
import { blockDraw, dropDraw, seededRandom } from './random.js'
import { rebuildHead } from './replace.js'
import { type LeftOut, type RerunParts, rerunOpenBlock } from './rerun.js'
import { checkFaultSettings, DEFAULT_FAULT_SETTINGS, type PreconfFaultSettings } from './settings.js'

/** What fault injection drives: the sequencer's hooks, the open block's re-runs, and the fault events. */
export type FaultsParts = RerunParts & Pick<NodeContext, 'pool' | 'sequencer' | 'events'>

/** What pcnode_transactionStatus reports of a dropped pre-confirmation. */
export interface DropRecord {
  blockNumber: bigint
  flashblockIndex: number
  reason: string
  /** Back to the pool once its block seals. */
  requeued: boolean
  /** How often it was dropped (the drop rate's next draw for it is a new one). */
  times: number
}

export interface FaultCounts {
  /** Pre-confirmed transactions left out of their block (those a drop took with it included). */
  dropped: number
  halts: number
  restarts: number
  /** Blocks whose flashblock clock ticked more or fewer times than blockTime / preconfInterval (jitter). */
  irregularBlocks: number
  /** Sealed blocks replaced by the reorg fault (each reorg counts its depth). */
  reorgedBlocks: number
}

export interface FaultSummary extends PreconfFaultSettings {
  halted: boolean
  injected: FaultCounts & { total: number }
}

export interface DropOutcome {
  blockNumber: bigint
  /** The transaction, then those it took with it. */
  dropped: Uint8Array[]
  requeued: boolean
}

export interface RestartOutcome {
  blockNumber: bigint
  payloadId: Uint8Array
  transactions: number
  order: RestartOrder
}

/** Drop records kept for pcnode_transactionStatus (the oldest go first). */
const MAX_DROP_RECORDS = 10_000

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`

export class PreconfFaults {
  private settings: PreconfFaultSettings
  private readonly counts: FaultCounts = { dropped: 0, halts: 0, restarts: 0, irregularBlocks: 0, reorgedBlocks: 0 }
  private readonly drops = new Map<string, DropRecord>()
  /** Dropped with requeue: back to the pool once the block they were dropped from seals. */
  private held: TxRecord[] = []
  private jitterDraw: () => number

  constructor(
    private readonly ctx: FaultsParts,
    initial: Partial<PreconfFaultSettings> = {},
  ) {
    checkFaultSettings(initial)
    this.settings = { ...DEFAULT_FAULT_SETTINGS, ...initial }
    this.jitterDraw = this.jitterSequence()
    ctx.sequencer.useHooks({
      beforeSeal: (block) => this.beforeSeal(block),
      afterSeal: (block, ticks) => this.afterSeal(block, ticks),
      jitter: () => this.jitter(),
    })
  }

  summary(): FaultSummary {
    const injected = { ...this.counts, total: 0 }
    injected.total = injected.dropped + injected.halts + injected.restarts + injected.irregularBlocks + injected.reorgedBlocks
    return { ...this.settings, halted: this.ctx.sequencer.isHalted, injected }
  }

  /** pcnode_setPreconfFaults: any subset of the settings; answers them all. */
  configure(changes: Partial<PreconfFaultSettings>): FaultSummary {
    checkFaultSettings(changes)
    const before = this.settings
    this.settings = { ...before, ...changes }
    const s = this.settings
    if (s.seed !== before.seed || s.jitterMs !== before.jitterMs) {
      this.jitterDraw = this.jitterSequence()
      this.ctx.sequencer.reconfigure({}) // the flashblock clock again, with the new jitter
    }
    this.report(
      'settings',
      `settings: drop rate ${s.dropRate}, seed ${s.seed}, jitter ${s.jitterMs} ms, dropped transactions ${s.requeue ? 'back to the pool' : 'discarded'}, drop notifications ${s.notifyDropped ? 'on' : 'off'}, reorg rate ${s.reorgRate} (depth ${s.reorgDepth})`,
    )
    return this.summary()
  }

  /** What pcnode_transactionStatus says of a dropped pre-confirmation (while it is not back in the pool). */
  dropRecord(hash: Uint8Array): DropRecord | undefined {
    return this.drops.get(hexKey(hash))
  }

  // --- drop ---------------------------------------------------------------------------------

  /**
   * pcnode_dropPreconfirmed: the open block runs again at once without the transaction (and the
   * sender's later ones), its stream restarting at flashblock 0. Errors name why it can't be dropped.
   */
  dropPreconfirmed(hash: Uint8Array, requeue = this.settings.requeue): Promise<DropOutcome> {
    const { chain, pool, engine } = this.ctx
    return engine.queue.run(async () => {
      const t = chain.getTx(hash)
      if (!t || t.block.hidden) {
        if (pool.has(hash)) {
          throw new NodeError(
            `transaction ${hex(hash)} is not pre-confirmed: it waits in the pool (anvil_dropTransaction takes it out of the pool)`,
          )
        }
        throw new NodeError(`transaction ${hex(hash)} not found`)
      }
      if (t.block.sealed) {
        throw new NodeError(
          `transaction ${hex(hash)} is already sealed in block ${t.block.header.number}: only the open block's pre-confirmed transactions can be dropped`,
        )
      }
      if (t.tx.deposit) {
        throw new NodeError(
          `transaction ${hex(hash)} is a deposit: deposits come from L1 and stay in their block (OP specs), only sequenced transactions can be dropped`,
        )
      }
      const blockNumber = t.block.header.number
      const left = await this.drop([t], 'dropped by pcnode_dropPreconfirmed', requeue, true)
      return { blockNumber, dropped: left.map((l) => l.tx.tx.hash), requeued: requeue }
    })
  }

  /** Inside the queue, as a block seals: the drop rate's share of its pre-confirmations is left out. */
  private async beforeSeal(block: BlockRecord): Promise<void> {
    const { dropRate, seed, requeue } = this.settings
    // A block built while halted pre-confirmed nothing: there is nothing to take back.
    if (dropRate === 0 || block.hidden) return
    const chosen = block.txs.filter(
      (t) => !t.tx.deposit && dropDraw(seed, t.tx.hash, this.dropRecord(t.tx.hash)?.times ?? 0) < dropRate,
    )
    if (chosen.length === 0) return
    const reason = `left out as block ${block.header.number} sealed (drop rate ${dropRate}, seed ${seed})`
    // Unseen by the stream: Base's followers see the sealed block without it, nothing else.
    await this.drop(chosen, reason, requeue, false)
  }

  private async drop(targets: IncludedTx[], reason: string, requeue: boolean, announce: boolean): Promise<LeftOut[]> {
    const { left } = await rerunOpenBlock(this.ctx, { drop: new Set(targets), reason, announce })
    const { events } = this.ctx
    const notify = this.settings.notifyDropped
    for (const l of left) {
      const { tx: t } = l
      // One that failed when run again is not valid any more: discarded, as the sequencer discards those.
      const back = requeue && !l.failed
      const key = hexKey(t.tx.hash)
      const times = (this.drops.get(key)?.times ?? 0) + 1
      this.drops.delete(key)
      this.drops.set(key, {
        blockNumber: t.block.header.number,
        flashblockIndex: t.flashblockIndex,
        reason: l.reason,
        requeued: back,
        times,
      })
      if (this.drops.size > MAX_DROP_RECORDS) this.drops.delete(this.drops.keys().next().value as string)
      if (back) this.held.push(t.tx)
      this.counts.dropped++
      events.emit('preconfDropped', { tx: t, reason: l.reason, requeued: back, notify })
      const fate = back ? `back to the pool once block ${t.block.header.number} seals` : 'discarded'
      this.report(
        'drop',
        `drop ${hex(t.tx.hash)} (block ${t.block.header.number}, flashblock ${t.flashblockIndex}): ${l.reason}; ${fate}`,
        t.tx.hash,
      )
    }
    return left
  }

  /** Inside the queue, once a block sealed: requeued drops return to the pool; the cadence is checked; the reorg rate draws. */
  private async afterSeal(block: BlockRecord, ticks: number): Promise<void> {
    if (this.held.length > 0) await this.requeueHeld()
    const { reorgRate, seed } = this.settings
    if (reorgRate > 0 && blockDraw(seed, block.header.number) < reorgRate) await this.reorg(block)
    const jitter = this.jitter()
    const { blockTime, preconfInterval } = this.ctx.sequencer.configuration
    if (jitter && !block.hidden && blockTime > 0 && preconfInterval > 0) {
      const nominal = Math.floor(blockTime / preconfInterval)
      if (ticks !== nominal) {
        this.counts.irregularBlocks++
        this.report(
          'cadence',
          `cadence: block ${block.header.number} got ${ticks} flashblock intervals, not ${nominal} (jitter ${jitter.ms} ms)`,
        )
      }
    }
  }

  /**
   * The held transactions back in the pool, unless they can't run any more: included meanwhile,
   * sent again, their nonce used or taken by another of the sender's transactions.
   */
  private async requeueHeld(): Promise<void> {
    const { chain, pool, engine } = this.ctx
    const held = this.held
    this.held = []
    for (const tx of held) {
      if (chain.getTx(tx.hash) || pool.has(tx.hash) || pool.atNonce(tx.from, tx.nonce)) continue
      if (tx.nonce < (await engine.live.nonce(tx.from))) continue
      pool.add({ tx, receivedAt: performance.now() })
    }
  }

  /** The reorg fault: the blocks up to `block` (the head) are built again from their transactions, with new hashes. */
  private async reorg(block: BlockRecord): Promise<void> {
    const { chain } = this.ctx
    const depth = BigInt(this.settings.reorgDepth)
    const room = block.header.number - chain.first
    const d = depth < room ? depth : room
    if (d === 0n) return
    const old = chain.blocks.slice(chain.blocks.length - Number(d)).map((b) => hex(b.hash))
    try {
      const sealed = await rebuildHead(this.ctx, d)
      this.counts.reorgedBlocks += sealed.length
      const now = sealed.map((b) => hex(b.hash))
      this.report(
        'reorg',
        `reorg: block${d > 1n ? 's' : ''} ${block.header.number - d + 1n}..${block.header.number} replaced (${old.join(', ')} -> ${now.join(', ')}; reorg rate ${this.settings.reorgRate}, seed ${this.settings.seed})`,
      )
    } catch (error) {
      // The common block's state pruned (--state-history): no reorg, the chain goes on as sealed.
      if (!(error instanceof NodeError)) throw error
      this.report('reorg', `reorg of block ${block.header.number} skipped: ${error.message}`)
    }
  }

  // --- halt, restart, cadence ---------------------------------------------------------------

  /** pcnode_haltFlashblocks: false when they were halted already. */
  halt(): boolean {
    const changed = this.ctx.sequencer.halt()
    if (changed) {
      this.counts.halts++
      this.report('halt', 'halt: flashblocks stop; blocks go on sealing, built whole; "pending" reads "latest"')
    }
    return changed
  }

  /** pcnode_resumeFlashblocks: false when they were not halted. */
  async resume(): Promise<boolean> {
    const changed = await this.ctx.sequencer.resume()
    if (changed) this.report('resume', 'resume: flashblocks again, from flashblock 0 of the next block')
    return changed
  }

  /**
   * pcnode_restartFlashblocks: the open block's stream starts again (flashblock 0, a new payload
   * id), its transactions in the same order or another one, as after a sequencer failover.
   */
  restart(order: RestartOrder): Promise<RestartOutcome> {
    const { chain, engine, sequencer } = this.ctx
    return engine.queue.run(async () => {
      if (sequencer.isHalted) {
        throw new NodeError('flashblocks are halted: there is no stream to restart (pcnode_resumeFlashblocks starts one)')
      }
      if (!chain.pending) {
        // Mining with no open block: Denim's blocks (profile base) are built whole, with no stream.
        throw new NodeError(
          sequencer.isRunning
            ? 'no flashblock stream to restart: Denim blocks (profile base) are built whole as they seal'
            : 'no block is open: mining is off (pcnode_setBlockTime starts it)',
        )
      }
      const random = seededRandom(this.settings.seed + this.counts.restarts)
      const { block, kept } = await rerunOpenBlock(this.ctx, {
        drop: new Set(),
        reason: '',
        order: (txs) => reorder(txs, order, random),
        announce: true,
      })
      this.counts.restarts++
      const payloadId = block.payloadId as Uint8Array
      this.report(
        'restart',
        `restart: block ${block.header.number}'s flashblock stream starts again (payload ${hex(payloadId)}, ${kept} transactions, order ${order})`,
      )
      return { blockNumber: block.header.number, payloadId, transactions: kept, order }
    })
  }

  private jitter(): FlashJitter | undefined {
    const ms = this.settings.jitterMs
    return ms > 0 ? { ms, draw: this.jitterDraw } : undefined
  }

  /** The jitter's draws: their own sequence from the seed, so drops and restarts don't shift it. */
  private jitterSequence(): () => number {
    return seededRandom(this.settings.seed ^ 0x5eed_c10c)
  }

  private report(kind: FaultKind, message: string, hash?: Uint8Array): void {
    this.ctx.events.emit('fault', { kind, message, ...(hash ? { hash } : {}) })
  }
}
