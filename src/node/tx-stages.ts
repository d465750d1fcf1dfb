// The wall-clock time of each stage of a transaction's life on this node — pooled, pre-confirmed,
// sealed, dropped — as pcnode_transactionStatus reports it (milliseconds since the epoch). Read off
// the node's own events as they are emitted, so it needs nothing from the pool or the chain; the
// newest transactions are kept, the oldest forgotten first.
import { hexKey } from './bytes.js'
import type { NodeEvents } from './events.js'

export interface TxStageTimes {
  pooledAt?: number
  preconfirmedAt?: number
  sealedAt?: number
  droppedAt?: number
}

/** Transactions whose stage times are kept (as many as faults keeps drop records of). */
const MAX_TRACKED = 10_000

export class TxStages {
  private readonly times = new Map<string, TxStageTimes>()

  constructor(events: NodeEvents) {
    events.on('pendingTx', (info) => {
      // Back in the pool after a drop: pooled again, its drop kept, its next stages still to come.
      const entry = this.times.get(hexKey(info.tx.hash))
      if (entry) {
        delete entry.preconfirmedAt
        delete entry.sealedAt
      }
      this.mark(info.tx.hash, 'pooledAt')
    })
    events.on('flashblock', ({ txs, replayed }) => {
      // A restarted stream announces its transactions again; the first pre-confirmation stands.
      for (const t of txs) if (!replayed?.has(hexKey(t.tx.hash))) this.mark(t.tx.hash, 'preconfirmedAt', true)
    })
    events.on('block', ({ block }) => {
      for (const t of block.txs) if (!t.tx.deposit) this.mark(t.tx.hash, 'sealedAt')
    })
    events.on('preconfDropped', ({ tx }) => this.mark(tx.tx.hash, 'droppedAt'))
    events.on('dropped', ({ info }) => this.mark(info.tx.hash, 'droppedAt'))
  }

  /** The stages' times known for the transaction (an empty object for one never seen). */
  of(hash: Uint8Array): TxStageTimes {
    return { ...this.times.get(hexKey(hash)) }
  }

  private mark(hash: Uint8Array, stage: keyof TxStageTimes, keepFirst = false): void {
    const key = hexKey(hash)
    let entry = this.times.get(key)
    if (!entry) {
      entry = {}
      this.times.set(key, entry)
      if (this.times.size > MAX_TRACKED) {
        const oldest = this.times.keys().next().value
        if (oldest !== undefined) this.times.delete(oldest)
      }
    }
    if (keepFirst && entry[stage] !== undefined) return
    entry[stage] = Date.now()
  }
}
