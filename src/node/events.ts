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
  fault: [{ kind: FaultKind; message: string; hash?: Uint8Array }]
  /** What the built-in bundler did with a user operation, and where its bundle went (bundler/op-stages.ts). */
  userOp: [UserOpEvent]
}

type HexText = `0x${string}`

/**
 * A user operation's step: received (accepted into the mempool, or restored from the state file),
 * refused at eth_sendUserOperation (its ERC-7769 code), replaced by a higher-fee op, bundled into a
 * handleOps transaction, dropped from the mempool, and its bundle pre-confirmed or sealed.
 */
export type UserOpEvent =
  | { kind: 'received'; hash: HexText; sender: HexText; entryPoint: HexText; version: string; restored?: boolean }
  | { kind: 'refused'; hash?: HexText; sender?: HexText; code: number; reason: string }
  | { kind: 'replaced'; hash: HexText; by: HexText }
  | { kind: 'bundled'; hashes: HexText[]; txHash: Uint8Array; version: string }
  | { kind: 'dropped'; hash: HexText; reason: string }
  | {
      kind: 'preconfirmed' | 'sealed'
      hash: HexText
      txHash: Uint8Array
      blockNumber: bigint
      flashblockIndex: number
      success: boolean
      /** The op's call reverted: its revert data decoded where it can be. */
      reason?: string
    }

export type FaultKind = 'drop' | 'halt' | 'resume' | 'restart' | 'cadence' | 'reorg' | 'settings'

export class NodeEvents extends EventEmitter<NodeEventMap> {
  constructor() {
    super()
    // Every subscription adds a listener; a devnet can have many.
    this.setMaxListeners(0)
  }
}
