// The pending block under dev control: sealing now (evm_mine / anvil_mine), re-opening it at
// another time, and taking transactions out of it. Every function runs inside the serial queue.
import { hexKey } from '../bytes.js'
import type { NodeContext } from '../context.js'
import { InvalidParamsError, NodeError } from '../errors.js'
import type { IncludedTx } from '../types.js'

/** The node's parts the pending block's dev controls read and drive. */
export type BlockParts = Pick<
  NodeContext,
  'engine' | 'chain' | 'pool' | 'producer' | 'sequencer' | 'opStack' | 'clock' | 'events'
>

/** Most blocks one anvil_mine may produce: each costs a header and a few trie nodes. */
export const MAX_MINE_BLOCKS = 100_000n

/**
 * Discards the pending block and opens it again (at `timestamp`), its transactions back in the
 * pool, except those `drop` names. They are pre-confirmed again at once while mining, so receipts
 * disappear only for this call.
 */
export async function reopen(ctx: BlockParts, timestamp?: bigint, drop?: (t: IncludedTx) => boolean): Promise<void> {
  const { chain, pool, engine, producer, sequencer } = ctx
  const pending = chain.pending
  let requeued = 0
  if (pending) {
    chain.dropPreconfirmed(pending)
    chain.pending = undefined
    // The head's state as reads see it: the pending block's base, dev setters included.
    await engine.live.setRoot(await chain.settledRootOf(chain.head))
    for (const t of pending.txs) {
      if (drop?.(t)) continue
      // Deposits run at the start of the block again (opstack/opstack.ts).
      if (t.tx.deposit) ctx.opStack?.requeue(t.tx)
      else {
        pool.add({ tx: t.tx, receivedAt: t.preconfirmedAt }, 'restored')
        requeued++
      }
    }
  }
  producer.resync()
  // Followers were told of these already: the re-run does not announce them again (events.ts `replayed`).
  const replaying = new Set((pending?.txs ?? []).filter((t) => !drop?.(t)).map((t) => hexKey(t.tx.hash)))
  await producer.rerun({ announce: true, replaying }, async () => {
    // A Denim block is built whole when its slot comes (the sequencer opens it as it seals): opened
    // now, its time would fall behind the clock while it waits. It takes `timestamp` then.
    if (sequencer.isRunning && producer.timing.next(timestamp).millis !== undefined) {
      if (timestamp !== undefined) ctx.clock.nextTimestamp = timestamp
      return
    }
    await producer.open(timestamp)
    if (requeued > 0 && sequencer.isRunning) await sequencer.flashAllReady({ deposits: false })
  })
}

/** A header's timestamp is a uint64; anvil refuses 2^64-1 and above with this text (-32602). */
const MAX_TIMESTAMP = 2n ** 64n - 1n

export function checkTimestampRange(timestamp: bigint): void {
  if (timestamp >= MAX_TIMESTAMP) throw new InvalidParamsError('The timestamp is too big')
}

/** hardhat's rule: a new block's timestamp must pass the head's (and fit a header). */
export function checkTimestamp(ctx: Pick<NodeContext, 'chain'>, timestamp: bigint): void {
  checkTimestampRange(timestamp)
  const head = ctx.chain.head.header.timestamp
  if (timestamp <= head) {
    throw new NodeError(`Timestamp ${timestamp} is lower than or equal to previous block's timestamp ${head}`)
  }
}

/**
 * evm_mine / anvil_mine: seals `blocks` blocks now, the first with the pending block's
 * transactions and every ready pool transaction. `interval` seconds apart when given; the first
 * at `timestamp` (or the one evm_setNextBlockTimestamp set) when given.
 */
export async function mine(ctx: BlockParts, blocks: bigint, interval: bigint, timestamp?: bigint): Promise<void> {
  if (blocks > MAX_MINE_BLOCKS) throw new InvalidParamsError(`at most ${MAX_MINE_BLOCKS} blocks per call`)
  const { chain, producer, clock, sequencer } = ctx
  if (timestamp !== undefined) checkTimestamp(ctx, timestamp)
  // The last block's timestamp must fit a header too.
  const first = timestamp ?? clock.nextTimestamp ?? producer.nextHeaderFields().timestamp
  checkTimestampRange(first + (blocks - 1n) * (interval > 0n ? interval : 1n))
  let ts = timestamp ?? clock.nextTimestamp
  clock.nextTimestamp = undefined
  // This task holds the serial queue until the last block: state pruning runs in it (pruning.ts).
  const pruning = chain.pruning
  if (pruning) pruning.sealingInTask = true
  try {
    for (let i = 0n; i < blocks; i++) {
      if (ts === undefined && interval > 0n) ts = chain.pending?.header.timestamp ?? producer.nextHeaderFields().timestamp
      if (ts !== undefined && chain.pending && chain.pending.header.timestamp !== ts) await reopen(ctx, ts)
      else if (!chain.pending) await producer.open(ts)
      await sequencer.flashAllReady({ deposits: false })
      const block = await sequencer.sealPending()
      if (ts !== undefined) clock.rebase(block.header.timestamp)
      ts = interval > 0n ? block.header.timestamp + interval : undefined
      await pruning?.sweepInTask()
    }
  } finally {
    if (pruning) pruning.sealingInTask = false
  }
  if (sequencer.preconfirming) await producer.open()
}

/** anvil_dropTransaction: out of the pool, or out of the pending block (the rest re-run). */
export async function dropTransaction(ctx: BlockParts, hash: Uint8Array): Promise<boolean> {
  const { pool, chain, events } = ctx
  const reason = 'dropped by anvil_dropTransaction'
  const info = pool.get(hash)
  if (info) {
    pool.remove(info)
    events.emit('dropped', { info, reason })
    return true
  }
  const pending = chain.pending
  const t = pending?.txs.find((x) => Buffer.compare(x.tx.hash, hash) === 0)
  if (!pending || !t) return false
  await reopen(ctx, pending.header.timestamp, (x) => x === t)
  events.emit('dropped', { info: { tx: t.tx, receivedAt: t.preconfirmedAt }, reason })
  return true
}
