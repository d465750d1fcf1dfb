// Builds blocks the Flashblocks way: open a block (flashblock 0), append flashblocks of executed
// transactions on the live state, seal (roots, hash, canonical head). Callers run every method
// inside the engine's serial queue.

import { randomBytes } from 'node:crypto'
import type { Chain } from '../chain/chain.js'
import { combineBlooms, EMPTY_TRIE_ROOT, emptyHeader } from '../chain/header.js'
import { receiptOf } from '../chain/receipt.js'
import type { BlockEnv, Engine, HeaderView } from '../engine/index.js'
import { encodeReceipt } from '../engine/index.js'
import type { NodeEvents } from '../events.js'
import type { BlockRecord, HeaderFields, IncludedTx, PoolTxInfo } from '../types.js'

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

export class BlockProducer {
  private parentHeader: HeaderView
  private env: BlockEnv | undefined
  private encodedReceipts: Uint8Array[] = []
  private logCount = 0

  constructor(
    private readonly engine: Engine,
    private readonly chain: Chain,
    private readonly events: NodeEvents,
  ) {
    this.parentHeader = engine.header(chain.head.header)
  }

  /** Seconds a new block's timestamp starts from; dev time control (evm_increaseTime) shifts it. */
  clock: () => bigint = () => BigInt(Math.floor(Date.now() / 1000))

  /** Field defaults for a new block on top of the head (also used by calls at "pending"). */
  nextHeaderFields(timestamp?: bigint): HeaderFields {
    const parent = this.chain.head.header
    const now = this.clock()
    return emptyHeader({
      parentHash: this.chain.head.hash,
      number: parent.number + 1n,
      timestamp: timestamp ?? (now > parent.timestamp ? now : parent.timestamp + 1n),
      gasLimit: parent.gasLimit,
      baseFeePerGas: this.parentHeader.nextBaseFee(),
      stateRoot: parent.stateRoot,
      mixHash: randomBytes(32),
      excessBlobGas: this.parentHeader.nextExcessBlobGas(),
    })
  }

  /** Opens the next block: flashblock 0, carrying only the system-contract updates. */
  async open(timestamp?: bigint): Promise<BlockRecord> {
    if (this.chain.pending) return this.chain.pending
    const header = this.nextHeaderFields(timestamp)
    const { engine } = this
    engine.setHardforkFor(header.number, header.timestamp) // --genesis: the fork schedule's
    const { live } = engine
    await live.checkpoint()
    await engine.applySystemWrites(live, header)
    await live.commit()
    header.stateRoot = await live.root()
    const block: BlockRecord = { header, hash: new Uint8Array(), sealed: false, txs: [], flashblocks: 1, size: 0n }
    this.env = engine.blockEnv(header)
    this.encodedReceipts = []
    this.logCount = 0
    this.chain.pending = block
    this.events.emit('flashblock', { block, index: 0, txs: [] })
    return block
  }

  /**
   * Executes transactions as the next flashblock of the pending block, within `budget`. Every
   * SLICE_MS of execution it lets the event loop run, so sends are answered while a long
   * flashblock executes (they only read the state cache, which is consistent between
   * transactions). Receipts are served once the transactions have executed; the pending block and
   * the announcement change in one step after the state is committed: readers see whole
   * flashblocks only.
   */
  async flashblock(batch: PoolTxInfo[], budget: FlashblockBudget = UNBOUNDED): Promise<FlashblockResult> {
    const block = this.chain.pending ?? (await this.open())
    const env = this.env as BlockEnv
    const { live, queue } = this.engine
    const h = block.header
    const included: IncludedTx[] = []
    const receipts: Uint8Array[] = []
    const rejected: FlashblockResult['rejected'] = []
    const index = block.flashblocks
    let gasUsed = h.gasUsed
    let blobGasUsed = h.blobGasUsed
    let logCount = this.logCount
    await live.checkpoint()
    const start = performance.now()
    let executed = 0
    let spent = 0
    let sliceStart = start
    for (const info of batch) {
      const t = performance.now()
      const over =
        spent + t - sliceStart > budget.executionMs ||
        t - start > budget.wallMs ||
        (t - start > budget.whileOthersWaitMs && queue.size > 1)
      if (executed > 0 && over) break
      if (t - sliceStart > SLICE_MS) {
        spent += t - sliceStart
        await new Promise(setImmediate)
        sliceStart = performance.now()
      }
      executed++
      const { tx } = info
      if (tx.gasLimit > h.gasLimit - gasUsed) {
        rejected.push({ info, error: new Error('block gas limit reached') })
        continue
      }
      try {
        const result = await live.execute(tx, env, { blockGasUsed: gasUsed, receipt: true, console: true })
        gasUsed += result.blockGasSpent
        if (result.blobGasUsed) blobGasUsed += result.blobGasUsed
        included.push({
          tx,
          index: block.txs.length + included.length,
          flashblockIndex: index,
          preconfirmedAt: 0,
          block,
          receipt: receiptOf(tx, result, {
            baseFee: h.baseFeePerGas,
            cumulativeGasUsed: gasUsed,
            blobGasPrice: () => env.blobGasPrice(),
            firstLogIndex: logCount,
          }),
        })
        logCount += result.logs.length
        receipts.push(result.receipt as Uint8Array)
      } catch (error) {
        rejected.push({ info, error: error as Error })
      }
    }
    if (included.length > 0) {
      // Receipts are served from here on, and waiting requests (a client polling for one) get in
      // before the state commits to the trie, the slowest step of a small flashblock. The pending
      // block, its logs and the announcement follow in one step once the root is known.
      const now = performance.now()
      for (const t of included) {
        t.preconfirmedAt = now
        this.chain.addPreconfirmed(t)
      }
      await new Promise(setImmediate)
    }
    await live.commit()
    if (included.length > 0) {
      const stateRoot = await live.root()
      // Published in one synchronous step: no reader sees part of this flashblock.
      h.gasUsed = gasUsed
      h.blobGasUsed = blobGasUsed
      h.stateRoot = stateRoot
      this.logCount = logCount
      this.encodedReceipts.push(...receipts)
      for (const t of included) {
        block.txs.push(t)
        block.size += BigInt(t.tx.raw.length)
      }
      block.flashblocks++
      this.events.emit('flashblock', { block, index, txs: included })
    }
    return { block, index, included, rejected, executed }
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
    const header = engine.header(h)
    block.hash = header.hash()
    block.size += BigInt(header.size()) + 3n
    block.sealed = true
    this.parentHeader = header
    this.chain.pending = undefined
    this.env = undefined
    this.chain.addSealed(block)
    this.events.emit('block', { block })
    return block
  }

  /**
   * Re-reads the head and the pending block from the chain after they were replaced under it
   * (evm_revert, anvil_reset, state loads): the parent header, and the open block's execution
   * context, encoded receipts and log count.
   */
  resync(): void {
    this.parentHeader = this.engine.header(this.chain.head.header)
    const block = this.chain.pending
    this.env = block ? this.engine.blockEnv(block.header) : undefined
    this.encodedReceipts = (block?.txs ?? []).map(({ receipt, tx }) => encodeReceipt(tx.type, receipt))
    this.logCount = (block?.txs ?? []).reduce((n, t) => n + t.receipt.logs.length, 0)
  }

  /** Hash of the pending block as it stands (Base computes it from the current flashblock). */
  pendingHash(block: BlockRecord): Uint8Array {
    return this.engine.header(block.header).hash()
  }
}
