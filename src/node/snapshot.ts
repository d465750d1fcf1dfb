// What evm_snapshot keeps and evm_revert / anvil_reset put back: the live state root, the sealed
// history, a copy of the pending block, the pool. Pruning keeps the roots snapshots hold
// (storage/pruning.ts), so one root brings back every balance, nonce, code and storage slot as it was. Both run inside the engine
// queue, between blocks' checkpoints.

import type { Chain } from './chain/chain.js'
import type { Engine } from './engine/index.js'
import type { TxPool } from './pool/pool.js'
import type { BlockProducer } from './sequencer/producer.js'
import type { BlockRecord, PoolTxInfo } from './types.js'

/** The node's parts a snapshot reads and writes. */
export interface SnapshotParts {
  engine: Engine
  chain: Chain
  pool: TxPool
  producer: BlockProducer
}

export interface NodeSnapshot {
  /** The live (pre-confirmed) state: the pending block's transactions and dev setters included. */
  stateRoot: Uint8Array
  /** The head's state root override (dev setters while a block was open), if any. */
  headStateRoot: Uint8Array | undefined
  stateFrom: bigint
  /** The sealed history: a copy of the array; sealed records never change. */
  blocks: BlockRecord[]
  /** A copy: the live pending record keeps growing and is sealed in place. */
  pending: BlockRecord | undefined
  pool: PoolTxInfo[]
}

/** A pending block and its transactions, detached from the live record. */
export function copyPending(block: BlockRecord): BlockRecord {
  const copy: BlockRecord = { ...block, header: { ...block.header }, txs: [] }
  copy.txs = block.txs.map((t) => ({ ...t, block: copy }))
  return copy
}

export async function takeSnapshot({ engine, chain, pool }: SnapshotParts): Promise<NodeSnapshot> {
  await chain.settle(chain.head)
  return {
    stateRoot: await engine.live.root(),
    headStateRoot: chain.stateRootOverride(chain.head),
    stateFrom: chain.stateFrom,
    blocks: chain.blocks.slice(),
    pending: chain.pending && copyPending(chain.pending),
    pool: pool.all(),
  }
}

export async function restoreSnapshot({ engine, chain, pool, producer }: SnapshotParts, snap: NodeSnapshot): Promise<void> {
  if (chain.pending) chain.dropPreconfirmed(chain.pending)
  chain.pending = undefined
  chain.replaceBlocks(snap.blocks)
  chain.setStateRootOverride(chain.head, snap.headStateRoot)
  chain.stateFrom = snap.stateFrom
  await engine.live.setRoot(snap.stateRoot)
  // Copied again: the same snapshot can be restored more than once (anvil_reset).
  chain.pending = snap.pending && copyPending(snap.pending)
  for (const t of chain.pending?.txs ?? []) chain.addPreconfirmed(t)
  producer.resync()
  pool.replaceAll(snap.pool)
}
