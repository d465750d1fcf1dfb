// Builds blocks the Flashblocks way: open a block (flashblock 0), append flashblocks of executed
// transactions on the live state, seal (roots, hash, canonical head). Callers run every method
// inside the engine's serial queue.

import { randomBytes } from 'node:crypto'
import type { Block, BlockHeader } from '@ethereumjs/block'
import { Capability, type TypedTransaction } from '@ethereumjs/tx'
import { bigIntToBytes, setLengthLeft } from '@ethereumjs/util'
import { encodeReceipt, runTx } from '@ethereumjs/vm'
import type { Chain } from '../chain/chain.js'
import { BEACON_ROOTS_ADDRESS, blockAt, type Engine, HISTORY_ADDRESS } from '../engine/engine.js'
import { orderedTrieRoot } from '../engine/trie.js'
import type { NodeEvents } from '../events.js'
import type { BlockRecord, HeaderFields, IncludedTx, PoolTxInfo } from '../types.js'

const EMPTY_TRIE_ROOT = Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex')
// sha256 of no execution-layer requests (EIP-7685): no 7002/7251 contracts are deployed.
const EMPTY_REQUESTS_HASH = Buffer.from('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex')

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
  private parentHeader: BlockHeader
  private ctxBlock: Block | undefined
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
    const ts = timestamp ?? (now > parent.timestamp ? now : parent.timestamp + 1n)
    return {
      parentHash: this.chain.head.hash,
      number: parent.number + 1n,
      timestamp: ts,
      gasLimit: parent.gasLimit,
      gasUsed: 0n,
      baseFeePerGas: this.parentHeader.calcNextBaseFee(),
      coinbase: new Uint8Array(20),
      stateRoot: parent.stateRoot,
      transactionsRoot: EMPTY_TRIE_ROOT,
      receiptsRoot: EMPTY_TRIE_ROOT,
      logsBloom: new Uint8Array(256),
      mixHash: randomBytes(32),
      extraData: new Uint8Array(),
      withdrawalsRoot: EMPTY_TRIE_ROOT,
      blobGasUsed: 0n,
      excessBlobGas: this.parentHeader.calcNextExcessBlobGas(this.engine.common),
      parentBeaconBlockRoot: new Uint8Array(32),
      requestsHash: EMPTY_REQUESTS_HASH,
    }
  }

  /** Opens the next block: flashblock 0, carrying only the system-contract updates. */
  async open(timestamp?: bigint): Promise<BlockRecord> {
    if (this.chain.pending) return this.chain.pending
    const header = this.nextHeaderFields(timestamp)
    this.engine.setHardforkFor?.(header.number, header.timestamp) // --genesis: the fork schedule's
    const { state, common } = this.engine
    await state.checkpoint()
    // EIP-4788 ring buffer: timestamp and beacon root.
    if ((await state.getCode(BEACON_ROOTS_ADDRESS)).length > 0) {
      const len = BigInt(common.param('historicalRootsLength'))
      const slot = header.timestamp % len
      await state.putStorage(BEACON_ROOTS_ADDRESS, setLengthLeft(bigIntToBytes(slot), 32), bigIntToBytes(header.timestamp))
      await state.putStorage(BEACON_ROOTS_ADDRESS, setLengthLeft(bigIntToBytes(slot + len), 32), header.parentBeaconBlockRoot)
    }
    // EIP-2935 ring buffer: the parent's hash, which BLOCKHASH reads.
    if ((await state.getCode(HISTORY_ADDRESS)).length > 0) {
      const window = BigInt(common.param('historyServeWindow'))
      const slot = (header.number - 1n) % window
      await state.putStorage(HISTORY_ADDRESS, setLengthLeft(bigIntToBytes(slot), 32), header.parentHash)
    }
    await state.commit()
    header.stateRoot = await state.getStateRoot()
    const block: BlockRecord = { header, hash: new Uint8Array(), sealed: false, txs: [], flashblocks: 1, size: 0n }
    this.ctxBlock = blockAt(common, header)
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
    const ctx = this.ctxBlock as Block
    const { state, queue } = this.engine
    const h = block.header
    const included: IncludedTx[] = []
    const receipts: Uint8Array[] = []
    const rejected: FlashblockResult['rejected'] = []
    const index = block.flashblocks
    let gasUsed = h.gasUsed
    let blobGasUsed = h.blobGasUsed
    let logCount = this.logCount
    await state.checkpoint()
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
        const result = await runTx(this.engine.vm, { tx, block: ctx, blockGasUsed: gasUsed, skipHardForkValidation: true })
        gasUsed += result.blockGasSpent
        const blobGas =
          tx.supports(Capability.EIP1559FeeMarket) && 'blobVersionedHashes' in tx
            ? BigInt((tx as { blobVersionedHashes: unknown[] }).blobVersionedHashes.length) *
              this.engine.common.param('blobGasPerBlob')
            : undefined
        if (blobGas) blobGasUsed += blobGas
        const logs = (result.execResult.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }))
        included.push({
          tx,
          hash: info.hash,
          from: info.from,
          index: block.txs.length + included.length,
          flashblockIndex: index,
          preconfirmedAt: 0,
          block,
          receipt: {
            status: result.execResult.exceptionError ? 0 : 1,
            gasUsed: result.totalGasSpent,
            cumulativeGasUsed: gasUsed,
            effectiveGasPrice: effectiveGasPrice(tx, h.baseFeePerGas),
            contractAddress: result.createdAddress?.bytes,
            logs,
            logsBloom: result.bloom.bitvector,
            blobGasUsed: blobGas,
            blobGasPrice: blobGas ? ctx.header.getBlobGasPrice() : undefined,
            firstLogIndex: logCount,
          },
        })
        logCount += logs.length
        receipts.push(encodeReceipt(result.receipt, tx.type))
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
    await state.commit()
    if (included.length > 0) {
      const stateRoot = await state.getStateRoot()
      // Published in one synchronous step: no reader sees part of this flashblock.
      h.gasUsed = gasUsed
      h.blobGasUsed = blobGasUsed
      h.stateRoot = stateRoot
      this.logCount = logCount
      this.encodedReceipts.push(...receipts)
      for (const t of included) {
        block.txs.push(t)
        block.size += BigInt(t.tx.serialize().length)
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
    h.stateRoot = await engine.state.getStateRoot()
    h.transactionsRoot = block.txs.length
      ? orderedTrieRoot(
          block.txs.map((t) => t.tx.serialize()),
          engine.keccak,
        )
      : EMPTY_TRIE_ROOT
    h.receiptsRoot = block.txs.length ? orderedTrieRoot(this.encodedReceipts, engine.keccak) : EMPTY_TRIE_ROOT
    const bloom = new Uint8Array(256)
    for (const t of block.txs) for (let i = 0; i < 256; i++) bloom[i] |= t.receipt.logsBloom[i]
    h.logsBloom = bloom
    const header = engine.header(h)
    block.hash = header.hash()
    block.size += BigInt(header.serialize().length) + 3n
    block.sealed = true
    this.parentHeader = header
    this.chain.pending = undefined
    this.ctxBlock = undefined
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
    const { common } = this.engine
    this.ctxBlock = block ? blockAt(common, block.header) : undefined
    this.encodedReceipts = (block?.txs ?? []).map(({ receipt: r, tx }) => {
      const logs = r.logs.map((l) => [l.address, l.topics, l.data] as [Uint8Array, Uint8Array[], Uint8Array])
      const receipt = { status: r.status, cumulativeBlockGasUsed: r.cumulativeGasUsed, bitvector: r.logsBloom, logs }
      return encodeReceipt(receipt, tx.type)
    })
    this.logCount = (block?.txs ?? []).reduce((n, t) => n + t.receipt.logs.length, 0)
  }

  /** Hash of the pending block as it stands (Base computes it from the current flashblock). */
  pendingHash(block: BlockRecord): Uint8Array {
    return this.engine.header(block.header).hash()
  }
}

export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint): bigint {
  if ('maxFeePerGas' in tx) {
    const t = tx as unknown as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
    const tip = t.maxFeePerGas - baseFee < t.maxPriorityFeePerGas ? t.maxFeePerGas - baseFee : t.maxPriorityFeePerGas
    return baseFee + (tip > 0n ? tip : 0n)
  }
  return (tx as unknown as { gasPrice: bigint }).gasPrice
}
