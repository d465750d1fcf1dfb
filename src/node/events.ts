// What the node announces; subscriptions and the CLI log read these, nothing polls.
import { EventEmitter } from 'node:events'
import type { BlockRecord, IncludedTx, PoolTxInfo } from './types.js'

export interface NodeEventMap {
  /** A flashblock was appended to the pending block (index 0 opens a block and has no user txs). */
  flashblock: [{ block: BlockRecord; index: number; txs: IncludedTx[] }]
  /** A block was sealed and is the new head. */
  block: [{ block: BlockRecord }]
  /** A transaction entered the pool. */
  pendingTx: [PoolTxInfo]
  /** A pooled transaction failed at execution and was dropped. */
  dropped: [{ info: PoolTxInfo; reason: string }]
}

export class NodeEvents extends EventEmitter<NodeEventMap> {
  constructor() {
    super()
    // Every subscription adds a listener; a devnet can have many.
    this.setMaxListeners(0)
  }
}
