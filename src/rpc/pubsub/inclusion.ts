// The waits behind eth_sendRawTransactionSync: a transaction's pre-confirmation (or the sequencer
// dropping it), from the node's events.
import { hexKey } from '../../node/bytes.js'
import type { DevNode } from '../../node/node.js'
import type { IncludedTx, PoolTxInfo } from '../../node/types.js'
import { EventDemand } from './demand.js'

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
      flashblock: (e) => this.onFlashblock(e.txs),
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
      this.demand.acquire('flashblock')
      this.demand.acquire('dropped')
      const waiter: Waiter = {
        done: (result) => {
          clearTimeout(timer)
          const current = this.waiters.get(k)
          if (!current?.delete(waiter)) return
          if (current.size === 0) this.waiters.delete(k)
          this.demand.release('flashblock')
          this.demand.release('dropped')
          resolve(result)
        },
      }
      set.add(waiter)
      const timer = setTimeout(() => waiter.done({ timeout: true }), timeoutMs)
      timer.unref?.()
    })
  }

  private onFlashblock(txs: IncludedTx[]): void {
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
