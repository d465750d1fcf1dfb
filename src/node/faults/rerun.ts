// Running the open block again, the way a sequencer rebuilds it: without some pre-confirmed
// transactions (a drop), or all of them again in a new stream (a failover). Inside the engine queue.
//
// The block keeps its number, timestamp and PREVRANDAO; its stream gets a new payload id and starts
// at flashblock 0 again, which carries the L1-info deposit and the block's deposits, as every
// flashblock 0 does (OP specs: deposits first). Base's RPC node takes an index-0 flashblock with a
// new payload id for the block it tracks as a new build of it (base/base
// crates/execution/flashblocks/src/processor.rs, preflight_update).
import { hexKey } from '../bytes.js'
import type { NodeContext } from '../context.js'
import type { BlockRecord, IncludedTx, PoolTxInfo } from '../types.js'

/** The open block's parts a re-run replaces: the chain's pending record, the live state, the deposits. */
export type RerunParts = Pick<NodeContext, 'engine' | 'chain' | 'producer' | 'opStack'>

export interface RerunPlan {
  /** Pre-confirmed transactions to leave out (never deposits: they come from L1). */
  drop: ReadonlySet<IncludedTx>
  /** Why they are left out. */
  reason: string
  /** The order the kept transactions run in (block order when absent). */
  order?: (kept: IncludedTx[]) => IncludedTx[]
  /**
   * Whether the stream shows the re-run (flashblock 0 again, then the kept transactions), or it
   * happens unseen (a drop applied as the block seals: Base's subscribers see the sealed block only).
   */
  announce: boolean
}

/** A pre-confirmed transaction the re-run left out, and why. */
export interface LeftOut {
  tx: IncludedTx
  reason: string
  /** Left out because it failed when run again (not chosen, nor waiting on one that was). */
  failed: boolean
}

export interface RerunResult {
  block: BlockRecord
  kept: number
  left: LeftOut[]
}

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`

/**
 * Discards the open block and runs it again from flashblock 0: its deposits, then its other
 * transactions except those `plan.drop` names and, since a sender's transactions run in nonce
 * order, the same sender's later ones. Those whose outcome depended on a dropped one run again
 * against the state without it; one that now fails is left out too. The pool is not touched.
 */
export async function rerunOpenBlock(ctx: RerunParts, plan: RerunPlan): Promise<RerunResult> {
  const { chain, engine, producer, opStack } = ctx
  const old = chain.pending
  if (!old) throw new Error('no open block to run again')
  const left = new Map<IncludedTx, LeftOut>()
  const blocked = new Map<string, IncludedTx>()
  for (const t of old.txs) {
    if (t.tx.deposit) continue
    const sender = hexKey(t.tx.from)
    const cause = blocked.get(sender)
    if (plan.drop.has(t)) {
      left.set(t, { tx: t, reason: plan.reason, failed: false })
      if (!cause) blocked.set(sender, t)
    } else if (cause) {
      left.set(t, {
        tx: t,
        reason: `it follows ${hex(cause.tx.hash)} (nonce ${cause.tx.nonce}) of the same sender, which was dropped`,
        failed: false,
      })
    }
  }
  let kept = old.txs.filter((t) => !t.tx.deposit && !left.has(t))
  if (plan.order) kept = plan.order(kept)
  // Their receipts disappear at once; the kept ones are served from the old record until re-run.
  chain.forget(left.keys())
  chain.pending = undefined
  await engine.live.setRoot(await chain.settledRootOf(chain.head))
  opStack?.requeueFirst(old.txs.filter((t) => t.tx.deposit).map((t) => t.tx))
  producer.resync()
  // Followers were told of these in the stream being replaced: not again (events.ts `replayed`).
  const replaying = new Set(old.txs.filter((t) => !left.has(t)).map((t) => hexKey(t.tx.hash)))
  const block = await producer.rerun({ announce: plan.announce, replaying }, async () => {
    const block = await producer.open(old.header.timestamp, { mixHash: old.header.mixHash, hidden: old.hidden })
    if (kept.length > 0) {
      const byHash = new Map(kept.map((t) => [hexKey(t.tx.hash), t]))
      const batch: PoolTxInfo[] = kept.map((t) => ({ tx: t.tx, receivedAt: t.preconfirmedAt }))
      const result = await producer.flashblock(batch)
      for (const { info, error } of result.rejected) {
        const t = byHash.get(hexKey(info.tx.hash)) as IncludedTx
        left.set(t, {
          tx: t,
          reason: `it failed when run again without the dropped transactions: ${error.message}`,
          failed: true,
        })
      }
    }
    return block
  })
  // Those that failed still point at the old record.
  chain.forget(old.txs)
  return { block, kept: kept.length - [...left.values()].filter((l) => l.failed).length, left: [...left.values()] }
}
