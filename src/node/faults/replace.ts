// Replacing the last sealed blocks with new ones at the same heights (new hashes): the reorg fault
// (faults.ts) and anvil_reorg (dev/reorg.ts). Inside the engine queue.
import type { Chain } from '../chain/chain.js'
import type { NodeContext } from '../context.js'
import { InvalidParamsError } from '../errors.js'
import { blockMillis } from '../opstack/denim.js'
import type { BlockRecord, TxRecord } from '../types.js'

/** The node's parts a reorg replaces blocks with. */
export type ReorgParts = Pick<NodeContext, 'engine' | 'chain' | 'pool' | 'producer' | 'sequencer' | 'opStack'>

/** One replacement block: its transactions; the replaced block's timestamp and deposits when re-run. */
export interface NewBlock {
  txs: TxRecord[]
  timestamp?: bigint
  /** Denim: the replaced block's milliseconds past its timestamp, kept exactly. */
  millis?: number
  /** OP stack: user deposits, run at the block's start after its L1-info deposit (made anew). */
  deposits?: TxRecord[]
}

/** The sealed block the new ones build on; anvil's -32602 text for a depth past the chain's height. */
export function commonBlock(chain: Chain, depth: bigint): BlockRecord {
  const height = chain.head.header.number
  if (depth < 0n || depth > height) {
    throw new InvalidParamsError(`Reorg depth must not exceed current chain height: current height ${height}, depth ${depth}`)
  }
  const common = chain.byNumber(height - depth)
  if (!common) {
    throw new InvalidParamsError(
      `Reorg depth ${depth} reaches below block ${chain.first}, the fork block: the upstream's history cannot be replaced`,
    )
  }
  return common
}

/**
 * Inside the queue: the last `blocks.length` sealed blocks are replaced by new ones holding `txs`
 * (a transaction that fails is left out). The open block is discarded, its transactions back in the
 * pool and, with `openAfter` while mining, pre-confirmed again on the new head. Answers the new blocks.
 */
export async function replaceBlocks(ctx: ReorgParts, blocks: NewBlock[], openAfter = true): Promise<BlockRecord[]> {
  const { chain, engine, producer, pool, sequencer, opStack } = ctx
  const depth = BigInt(blocks.length)
  const common = commonBlock(chain, depth)
  // Read first: a common block whose state was pruned refuses the reorg before anything changes.
  const root = await chain.settledRootOf(common)
  const pending = chain.pending
  if (pending) {
    chain.dropPreconfirmed(pending)
    chain.pending = undefined
    for (const t of pending.txs) {
      if (t.tx.deposit) opStack?.requeue(t.tx)
      else pool.add({ tx: t.tx, receivedAt: t.preconfirmedAt }, 'restored')
    }
  }
  // Deposits waiting for a block wait for the one after the new blocks: those get only their own.
  const waiting = opStack?.takeDeposits() ?? []
  const kept = chain.blocks.length - blocks.length
  for (const dropped of chain.blocks.slice(kept)) chain.setStateRootOverride(dropped, undefined)
  chain.replaceBlocks(chain.blocks.slice(0, kept))
  await engine.live.setRoot(root)
  producer.resync()
  const sealed: BlockRecord[] = []
  for (const { txs, timestamp, millis, deposits } of blocks) {
    if (deposits?.length) opStack?.requeueFirst(deposits)
    // A fresh PREVRANDAO (producer.nextHeaderFields): even an empty block at the same time gets a new hash.
    await producer.open(timestamp !== undefined && millis !== undefined ? { timestamp, millis } : timestamp)
    if (txs.length > 0) await producer.flashblock(txs.map((tx) => ({ tx, receivedAt: performance.now() })))
    const block = await producer.seal()
    for (const t of block.txs) {
      const pooled = pool.get(t.tx.hash)
      if (pooled) pool.remove(pooled)
    }
    sealed.push(block)
  }
  opStack?.requeueFirst(waiting)
  if (openAfter && sequencer.preconfirming) {
    await producer.open()
    await sequencer.flashAllReady({ deposits: false })
  }
  return sealed
}

/**
 * The reorg fault: the last `depth` blocks are built again at their heights and times from their
 * own transactions (deposits first, the L1-info deposit made anew), so followers see blocks with
 * new hashes replace ones they had, as when Base's sequencer replaces an unsafe block. Inside a
 * seal (the fault hook): the sequencer opens the next block itself.
 */
export async function rebuildHead(ctx: ReorgParts, depth: bigint): Promise<BlockRecord[]> {
  const { chain } = ctx
  commonBlock(chain, depth)
  const old = chain.blocks.slice(chain.blocks.length - Number(depth))
  return replaceBlocks(
    ctx,
    old.map((b) => ({
      txs: b.txs.filter((t) => !t.tx.deposit).map((t) => t.tx),
      deposits: b.txs.filter((t) => t.tx.deposit).map((t) => t.tx),
      timestamp: b.header.timestamp,
      millis: blockMillis(b),
    })),
    false,
  )
}
