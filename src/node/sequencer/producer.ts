// Builds blocks the Flashblocks way: open a block (flashblock 0), append flashblocks of executed
// transactions on the live state, seal (roots, hash, canonical head). Callers run every method
// inside the engine's serial queue.

import { randomBytes } from 'node:crypto'
import { type BerylUpgrades, crossBeryl } from '../b20/upgrades.js'
import type { Chain } from '../chain/chain.js'
import { receiptOf } from '../chain/receipt.js'
import type { BlockEnv, Engine, HeaderView, RollupFees } from '../engine/index.js'
import { encodeReceipt } from '../engine/index.js'
import type { NodeEvents } from '../events.js'
import { combineBlooms, EMPTY_TRIE_ROOT, emptyHeader } from '../header-fields.js'
import { BASE_TIME_ADDRESS, baseTimeDeposit, installBaseTime } from '../opstack/base-time.js'
import { isDenimBlock } from '../opstack/denim.js'
import type { L1BlockValues } from '../opstack/l1-block.js'
import type { OpStack } from '../opstack/opstack.js'
import { PREDEPLOYS } from '../opstack/params.js'
import type { BlockRecord, HeaderFields, IncludedTx, PoolTxInfo } from '../types.js'
import { type BlockClock, type BlockTime, BlockTiming } from './timing.js'

/** Execution time between two turns of the event loop inside a long flashblock. */
const SLICE_MS = 2

/**
 * How long one flashblock may run: its execution time; its wall time, which also counts the
 * requests answered between slices; and its wall time once other work (a read, a seal) waits
 * behind it in the serial queue.
 */
export interface FlashblockBudget {
  executionMs: number
  wallMs: number
  whileOthersWaitMs: number
}
const UNBOUNDED: FlashblockBudget = {
  executionMs: Number.POSITIVE_INFINITY,
  wallMs: Number.POSITIVE_INFINITY,
  whileOthersWaitMs: Number.POSITIVE_INFINITY,
}

export interface FlashblockResult {
  block: BlockRecord
  index: number
  included: IncludedTx[]
  rejected: Array<{ info: PoolTxInfo; error: Error }>
  /** How many of the batch were tried before the deadline (the rest stay in the pool). */
  executed: number
}

/** What a batch did to the open block, before it is published (see publish). */
interface BatchRun {
  included: IncludedTx[]
  receipts: Uint8Array[]
  rejected: FlashblockResult['rejected']
  executed: number
  gasUsed: bigint
  blobGasUsed: bigint
  logCount: number
}

/** An OP-stack block's L1 values and what it charges with them. */
interface RollupBlock {
  l1: L1BlockValues
  fees: RollupFees
}

export class BlockProducer {
  private parentHeader: HeaderView
  private env: BlockEnv | undefined
  private encodedReceipts: Uint8Array[] = []
  private logCount = 0
  /** The open block's L1 values (OP stack), read after its L1-info deposit; undefined until needed. */
  private rollup: RollupBlock | undefined
  /**
   * False while flashblocks are halted (the sequencer's): blocks opened then are hidden (nothing of
   * them is served before they seal) and announce no flashblocks.
   */
  private preconfirming = true
  /** Set around a re-run the stream must not show (a drop applied as the block seals). */
  private muted = false
  /**
   * Set around a re-run the stream shows: hashes of the transactions its followers were told of in
   * the stream it replaces, passed on with the flashblocks (events.ts `replayed`).
   */
  private replaying: ReadonlySet<string> | undefined
  /** The chain's Beryl and Cobalt times (assemble sets them): Beryl's first block gets the B20 precompiles. */
  berylUpgrades: BerylUpgrades | undefined

  constructor(
    private readonly engine: Engine,
    private readonly chain: Chain,
    private readonly events: NodeEvents,
    /** The OP-stack rules (profiles flashblocks and base); undefined on Ethereum. */
    private readonly opStack: OpStack | undefined,
    /** The time new blocks start from; dev time control (evm_increaseTime) shifts it. */
    private readonly clock: BlockClock,
  ) {
    this.parentHeader = engine.header(chain.head.header)
    this.timing = new BlockTiming(chain, opStack, clock)
    // The blocks it seals are kept encoded once old (chain/cold.ts); the engine decodes their transactions.
    chain.keepCold(engine)
  }

  /** When the next block is (blocks' times before and after Denim). */
  readonly timing: BlockTiming

  /** The sequencer's: whether blocks opened from now on are pre-confirmed (flashblocks not halted). */
  setPreconfirming(on: boolean): void {
    this.preconfirming = on
  }

  /**
   * Runs `fn` (a re-run of the open block's transactions) with the stream as `how` says: `announce`
   * false shows followers nothing of it; `replaying` names the transactions they were told of
   * already, so the re-run's flashblocks carry them as replayed.
   */
  async rerun<T>(how: { announce: boolean; replaying: ReadonlySet<string> }, fn: () => Promise<T>): Promise<T> {
    this.muted = !how.announce
    this.replaying = how.replaying
    try {
      return await fn()
    } finally {
      this.muted = false
      this.replaying = undefined
    }
  }

  /** Field defaults for a new block on top of the head (also used by calls at "pending"). */
  nextHeaderFields(timestamp?: bigint): HeaderFields {
    return this.headerAt(this.timing.next(timestamp))
  }

  private headerAt({ timestamp, millis }: BlockTime): HeaderFields {
    const head = this.chain.head
    const parent = head.header
    const { opStack } = this
    // The first Denim block: a Denim time after a block made before Denim (base/base's scaling).
    const firstDenim = millis !== undefined && !isDenimBlock(head, opStack?.denimTime)
    return emptyHeader({
      parentHash: this.chain.head.hash,
      number: parent.number + 1n,
      timestamp,
      stateRoot: parent.stateRoot,
      mixHash: randomBytes(32),
      // An OP stack's own: its fee vault as miner, Jovian's extraData and base fee, no blob market.
      ...(opStack?.headerFields(parent, firstDenim) ?? {
        gasLimit: parent.gasLimit,
        baseFeePerGas: this.parentHeader.nextBaseFee(),
        excessBlobGas: this.parentHeader.nextExcessBlobGas(),
      }),
    })
  }

  /**
   * Receipts root and logs bloom of a block as it stands: the raw flashblock payload carries them
   * for the partial block, while the pending header only gets them when sealed. The open block's
   * receipts are encoded already; another block's are encoded here.
   */
  flashblockRoots(block: BlockRecord): { receiptsRoot: Uint8Array; logsBloom: Uint8Array } {
    const open = block === this.chain.pending && this.encodedReceipts.length === block.txs.length
    const encoded = open ? this.encodedReceipts : block.txs.map((t) => encodeReceipt(t.tx.type, t.receipt))
    return {
      receiptsRoot: this.engine.orderedRoot(encoded),
      logsBloom: combineBlooms(block.txs.map((t) => t.receipt.logsBloom)),
    }
  }

  /** The base fee and blob base fee of a block after `parent` (eth_feeHistory's last entry). */
  nextFees(parent: HeaderFields): { baseFee: bigint; blobGasPrice: bigint } {
    const op = this.opStack?.headerFields(parent)
    if (op) return { baseFee: op.baseFeePerGas, blobGasPrice: 1n } // no blob market: excess blob gas stays 0
    const header = this.engine.header(parent)
    return { baseFee: header.nextBaseFee(), blobGasPrice: header.nextBlobGasPrice() }
  }

  /**
   * Opens the next block: flashblock 0, carrying the system-contract updates and, on an OP stack,
   * the L1-info deposit, on Denim the BaseTime deposit, and the user deposits waiting (Base's
   * flashblock 0 holds only those). A Denim block is not served before it seals (no pre-confirmations).
   */
  async open(given?: bigint | BlockTime, again?: { mixHash: Uint8Array; hidden?: boolean }): Promise<BlockRecord> {
    if (this.chain.pending) return this.chain.pending
    // evm_setNextBlockTimestamp's time, when the block it was set for is opened here (a Denim
    // block opens as it seals, so the sequencer opens it without one).
    const at = given ?? this.clock.nextTimestamp
    this.clock.nextTimestamp = undefined
    // A block built again at a Denim block's height keeps its time to the millisecond.
    const exact = typeof at === 'object' && at.millis !== undefined && this.opStack?.isDenim(at.timestamp)
    const time: BlockTime = exact ? at : this.timing.next(typeof at === 'object' ? at.timestamp : at)
    this.clock.jumpMs = 0n
    const header = this.headerAt(time)
    // The same block opened again (a re-run): the same PREVRANDAO, so its transactions run alike.
    if (again) header.mixHash = again.mixHash
    const { engine, opStack } = this
    engine.setHardforkFor(header.number, header.timestamp) // --genesis: the fork schedule's
    const { live } = engine
    const block: BlockRecord = {
      header,
      hash: new Uint8Array(),
      sealed: false,
      txs: [],
      flashblocks: 0,
      size: 0n,
      // Each start of a stream gets its own payload id, as a new build job gets one from the engine API.
      payloadId: randomBytes(8),
      hidden: again?.hidden ?? (!this.preconfirming || time.millis !== undefined),
    }
    if (time.millis !== undefined) block.millis = time.millis
    const env = engine.blockEnv(header)
    this.env = env
    this.encodedReceipts = []
    this.logCount = 0
    this.rollup = undefined
    await live.checkpoint()
    await engine.applySystemWrites(live, header)
    await crossBeryl(live, header.timestamp, this.berylUpgrades)
    let run: BatchRun | undefined
    if (opStack) {
      const system = [engine.buildDeposit(await opStack.l1InfoDeposit(live, header.timestamp))]
      if (time.millis !== undefined) {
        // Denim's activation links the BaseTime predeploy on a chain that started before it.
        if ((await live.code(BASE_TIME_ADDRESS)).length === 0) await installBaseTime(live)
        system.push(engine.buildDeposit(baseTimeDeposit(header.number, time.millis)))
      }
      run = await this.execute(
        block,
        env,
        [...system, ...opStack.takeDeposits()].map((tx) => ({ tx, receivedAt: 0 })),
      )
      // Deposit receipts report the block's L1 values too (Base's do), known once the first ran.
      const { l1 } = (await this.rollupOf()) as RollupBlock
      for (const t of run.included) t.receipt.l1 = opStack.receiptFields(l1, t.tx, undefined)
      this.serveReceipts(run)
    }
    await live.commit()
    header.stateRoot = await live.root()
    if (run) this.publish(block, run)
    block.flashblocks = 1
    this.chain.pending = block
    if (this.announces(block)) {
      this.events.emit('flashblock', { block, index: 0, txs: run?.included ?? [], replayed: this.replaying })
    }
    return block
  }

  /** Whether the block's flashblocks are announced: not while halted (hidden) or muted. */
  private announces(block: BlockRecord): boolean {
    return !block.hidden && !this.muted
  }

  /** Whether user deposits wait for a block to start (they run before any other transaction). */
  get depositsWaiting(): boolean {
    return (this.opStack?.depositsWaiting ?? 0) > 0
  }

  /** The L1 values and fees of the open block (OP stack), read from its L1Block once per block. */
  private async rollupOf(): Promise<RollupBlock | undefined> {
    const { opStack } = this
    if (!opStack) return undefined
    if (!this.rollup) {
      const l1 = await opStack.readL1Fees(this.engine.live)
      this.rollup = { l1, fees: opStack.fees(l1) }
      opStack.current = l1
    }
    return this.rollup
  }

  /**
   * Executes transactions as the next flashblock of the pending block, within `budget`. Every
   * SLICE_MS of execution it lets the event loop run, so sends are answered while a long
   * flashblock executes (they only read the state cache, which is consistent between
   * transactions). Receipts are served once the transactions have executed; the pending block and
   * the announcement change in one step after the state is committed: readers see whole
   * flashblocks only. User deposits waiting run first while the block holds only deposits.
   */
  async flashblock(batch: PoolTxInfo[], budget: FlashblockBudget = UNBOUNDED): Promise<FlashblockResult> {
    const block = this.chain.pending ?? (await this.open())
    const env = this.env as BlockEnv
    const index = block.flashblocks
    if (this.depositsWaiting && block.txs.every((t) => t.tx.deposit)) {
      const deposits = (this.opStack as OpStack).takeDeposits().map((tx) => ({ tx, receivedAt: 0 }))
      batch = [...deposits, ...batch]
    }
    const { live } = this.engine
    await live.checkpoint()
    const run = await this.execute(block, env, batch, budget)
    if (run.included.length > 0) {
      // Receipts are served from here on, and waiting requests (a client polling for one) get in
      // before the state commits to the trie, the slowest step of a small flashblock. The pending
      // block, its logs and the announcement follow in one step once the root is known.
      this.serveReceipts(run)
      await new Promise(setImmediate)
    }
    await live.commit()
    if (run.included.length > 0) {
      block.header.stateRoot = await live.root()
      // Published in one synchronous step: no reader sees part of this flashblock.
      this.publish(block, run)
      block.flashblocks++
      if (this.announces(block)) this.events.emit('flashblock', { block, index, txs: run.included, replayed: this.replaying })
    }
    const { included, rejected, executed } = run
    return { block, index, included, rejected, executed }
  }

  /** Serves the receipts of an executed batch (pre-confirmed) before its block is published. */
  private serveReceipts(run: BatchRun): void {
    const now = performance.now()
    for (const t of run.included) {
      t.preconfirmedAt = now
      this.chain.addPreconfirmed(t)
    }
  }

  /** Runs `batch` on the live state (inside the caller's checkpoint) as the block's next transactions, within `budget`. */
  private async execute(
    block: BlockRecord,
    env: BlockEnv,
    batch: PoolTxInfo[],
    budget: FlashblockBudget = UNBOUNDED,
  ): Promise<BatchRun> {
    const { live, queue } = this.engine
    const { opStack } = this
    const h = block.header
    const rollup = await this.rollupOfBatch(batch)
    const run: BatchRun = {
      included: [],
      receipts: [],
      rejected: [],
      executed: 0,
      gasUsed: h.gasUsed,
      blobGasUsed: h.blobGasUsed,
      logCount: this.logCount,
    }
    const index = block.flashblocks
    const start = performance.now()
    let spent = 0
    let sliceStart = start
    for (const info of batch) {
      const t = performance.now()
      const over =
        spent + t - sliceStart > budget.executionMs ||
        t - start > budget.wallMs ||
        (t - start > budget.whileOthersWaitMs && queue.size > 1)
      if (run.executed > 0 && over) break
      if (t - sliceStart > SLICE_MS) {
        spent += t - sliceStart
        await new Promise(setImmediate)
        sliceStart = performance.now()
      }
      run.executed++
      const { tx } = info
      if (tx.gasLimit > h.gasLimit - run.gasUsed) {
        run.rejected.push({ info, error: new Error('block gas limit reached') })
        continue
      }
      // Jovian: the block's DA footprint (its blobGasUsed) stays within its gas limit.
      const da = rollup && opStack ? opStack.daFootprint(rollup.l1, tx) : 0n
      if (da > h.gasLimit - run.blobGasUsed) {
        run.rejected.push({ info, error: new Error('block gas limit reached (DA footprint)') })
        continue
      }
      try {
        // Deposits pay no fees (and the L1-info deposit runs before the block's L1 values exist).
        const fees = tx.deposit ? undefined : rollup?.fees
        const result = await live.execute(tx, env, { blockGasUsed: run.gasUsed, receipt: true, rollup: fees, console: true })
        run.gasUsed += result.blockGasSpent
        if (result.blobGasUsed) run.blobGasUsed += result.blobGasUsed
        run.blobGasUsed += da
        const l1 = rollup?.l1
        const included: IncludedTx = {
          tx,
          index: block.txs.length + run.included.length,
          flashblockIndex: index,
          preconfirmedAt: 0,
          block,
          receipt: receiptOf(tx, result, {
            baseFee: h.baseFeePerGas,
            cumulativeGasUsed: run.gasUsed,
            blobGasPrice: () => env.blobGasPrice(),
            firstLogIndex: run.logCount,
            l1: l1 && opStack?.receiptFields(l1, tx, result.rollup?.l1Fee),
          }),
        }
        run.included.push(included)
        run.logCount += result.logs.length
        run.receipts.push(result.receipt as Uint8Array)
      } catch (error) {
        run.rejected.push({ info, error: error as Error })
      }
    }
    return run
  }

  /** The block's L1 values when `batch` holds more than deposits (the first deposit writes them). */
  private async rollupOfBatch(batch: PoolTxInfo[]): Promise<RollupBlock | undefined> {
    if (!this.opStack || batch.every((i) => i.tx.deposit)) return this.rollup
    return this.rollupOf()
  }

  /** Puts an executed batch into the block (the caller has committed the state and set its root). */
  private publish(block: BlockRecord, run: BatchRun): void {
    const h = block.header
    h.gasUsed = run.gasUsed
    h.blobGasUsed = run.blobGasUsed
    this.logCount = run.logCount
    this.encodedReceipts.push(...run.receipts)
    for (const t of run.included) {
      block.txs.push(t)
      block.size += BigInt(t.tx.raw.length)
    }
  }

  /** Seals the pending block: roots, bloom, hash; it becomes the head. */
  async seal(): Promise<BlockRecord> {
    const block = this.chain.pending ?? (await this.open())
    const { engine } = this
    const h = block.header
    h.stateRoot = await engine.live.root()
    h.transactionsRoot = block.txs.length ? engine.orderedRoot(block.txs.map((t) => t.tx.raw)) : EMPTY_TRIE_ROOT
    h.receiptsRoot = block.txs.length ? engine.orderedRoot(this.encodedReceipts) : EMPTY_TRIE_ROOT
    h.logsBloom = combineBlooms(block.txs.map((t) => t.receipt.logsBloom))
    // Isthmus: the withdrawals root is the L2ToL1MessagePasser's storage root.
    if (this.opStack)
      h.withdrawalsRoot = (await engine.live.account(PREDEPLOYS.L2ToL1MessagePasser))?.storageRoot ?? EMPTY_TRIE_ROOT
    const header = engine.header(h)
    block.hash = header.hash()
    block.size += BigInt(header.size()) + 3n
    block.sealed = true
    this.parentHeader = header
    this.chain.pending = undefined
    this.env = undefined
    this.rollup = undefined
    this.opStack?.sealed()
    this.chain.addSealed(block)
    this.events.emit('block', { block })
    return block
  }

  /**
   * Re-reads the head and the pending block from the chain after they were replaced under it
   * (evm_revert, anvil_reset, state loads): the parent header, and the open block's execution
   * context, encoded receipts, log count and L1 values.
   */
  resync(): void {
    this.parentHeader = this.engine.header(this.chain.head.header)
    const block = this.chain.pending
    this.env = block ? this.engine.blockEnv(block.header) : undefined
    this.encodedReceipts = (block?.txs ?? []).map(({ receipt, tx }) => encodeReceipt(tx.type, receipt))
    this.logCount = (block?.txs ?? []).reduce((n, t) => n + t.receipt.logs.length, 0)
    this.rollup = undefined
  }

  /** Hash of the pending block as it stands (Base computes it from the current flashblock). */
  pendingHash(block: BlockRecord): Uint8Array {
    return this.engine.header(block.header).hash()
  }
}
