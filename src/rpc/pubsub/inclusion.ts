// The waits behind eth_sendRawTransactionSync and eth_sendTransactionSync: a transaction's
// pre-confirmation, its sealed block while flashblocks are halted (Base's races the flashblock
// stream against the canonical chain), or the sequencer dropping it, from the node's events.
import { hexKey } from '../../node/bytes.js'
import type { DevNode } from '../../node/node.js'
import type { IncludedTx, PoolTxInfo } from '../../node/types.js'
import { EventDemand } from './demand.js'

const WAIT_EVENTS = ['flashblock', 'block', 'dropped'] as const

/** How an eth_sendRawTransactionSync wait ended. */
export type InclusionResult = { tx: IncludedTx } | { dropped: string } | { timeout: true }

interface Waiter {
  done(result: InclusionResult): void
}

export class InclusionWaiters {
  private readonly waiters = new Map<string, Set<Waiter>>()
  private readonly demand: EventDemand

  constructor(private readonly node: DevNode) {
    this.demand = new EventDemand(node.events, {
      flashblock: (e) => this.onIncluded(e.txs),
      block: (e) => this.onIncluded(e.block.txs),
      dropped: (e) => this.onDropped(e.info, e.reason),
    })
  }

  get size(): number {
    let n = 0
    for (const set of this.waiters.values()) n += set.size
    return n
  }

  /**
   * Resolves when the transaction is pre-confirmed (at once if it already is), when the sequencer
   * drops it, or after `timeoutMs`. The check and the registration happen in one synchronous step,
   * and the node indexes a flashblock's receipts before it announces it, so no inclusion is missed.
   */
  waitForInclusion(hash: Uint8Array, timeoutMs: number): Promise<InclusionResult> {
    const included = this.node.getReceipt(hash)
    if (included) return Promise.resolve({ tx: included })
    return new Promise((resolve) => {
      const k = hexKey(hash)
      let set = this.waiters.get(k)
      if (!set) this.waiters.set(k, (set = new Set()))
      for (const event of WAIT_EVENTS) this.demand.acquire(event)
      const waiter: Waiter = {
        done: (result) => {
          clearTimeout(timer)
          const current = this.waiters.get(k)
          if (!current?.delete(waiter)) return
          if (current.size === 0) this.waiters.delete(k)
          for (const event of WAIT_EVENTS) this.demand.release(event)
          resolve(result)
        },
      }
      set.add(waiter)
      const timer = setTimeout(() => waiter.done({ timeout: true }), timeoutMs)
      timer.unref?.()
    })
  }

  private onIncluded(txs: IncludedTx[]): void {
    if (this.waiters.size === 0) return
    for (const t of txs) {
      const waiting = this.waiters.get(hexKey(t.tx.hash))
      if (waiting) for (const w of [...waiting]) w.done({ tx: t })
    }
  }

  private onDropped(info: PoolTxInfo, reason: string): void {
    const waiting = this.waiters.get(hexKey(info.tx.hash))
    if (waiting) for (const w of [...waiting]) w.done({ dropped: reason })
  }
}
