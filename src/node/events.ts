// What the node announces; subscriptions and the CLI log read these, nothing polls.
import { EventEmitter } from 'node:events'
import type { BlockRecord, IncludedTx, PoolTxInfo } from './types.js'

export interface NodeEventMap {
  /**
   * A flashblock was appended to the pending block (index 0 opens a block and has no user txs).
   * A restarted stream (faults/rerun.ts) carries again the transactions it had announced before:
   * `replayed` holds their hashes (hex keys), so followers of single transactions and logs skip them.
   */
  flashblock: [{ block: BlockRecord; index: number; txs: IncludedTx[]; replayed?: ReadonlySet<string> }]
  /** A block was sealed and is the new head. */
  block: [{ block: BlockRecord }]
  /** A transaction entered the pool. */
  pendingTx: [PoolTxInfo]
  /** A send was refused (eth_sendRawTransaction, eth_sendTransaction): why, and what is known of it. */
  refused: [{ reason: string; hash?: Uint8Array; from?: Uint8Array }]
  /** A pooled transaction failed at execution and was dropped. */
  dropped: [{ info: PoolTxInfo; reason: string }]
  /**
   * A pre-confirmed transaction was taken out of its block by an injected fault (faults/): its
   * receipt is gone. `notify`: subscribers get pcnode's explicit notification (opt-in).
   */
  preconfDropped: [{ tx: IncludedTx; reason: string; requeued: boolean; notify: boolean }]
  /** An injected pre-confirmation fault or a change of the fault settings, as a log line. */
  fault: [{ kind: FaultKind; message: string }]
}

export type FaultKind = 'drop' | 'halt' | 'resume' | 'restart' | 'cadence' | 'reorg' | 'settings'

export class NodeEvents extends EventEmitter<NodeEventMap> {
  constructor() {
    super()
    // Every subscription adds a listener; a devnet can have many.
    this.setMaxListeners(0)
  }
}
