// evm_snapshot / evm_revert / anvil_reset over chain/snapshots.ts, with the dev clock's state,
// and the roots they hold, which state pruning must keep.

import type { NodeContext } from '../context.js'
import { NodeError } from '../errors.js'
import { type NodeSnapshot, restoreSnapshot, takeSnapshot } from '../snapshot.js'

/** The node's parts snapshots capture and put back, with the dev clock and the mining state. */
export type SnapshotsParts = Pick<NodeContext, 'engine' | 'chain' | 'pool' | 'producer' | 'sequencer' | 'clock'>

interface DevSnapshot extends NodeSnapshot {
  offsetMs: bigint
  jumpMs: bigint
  nextTimestamp: bigint | undefined
}

export class Snapshots {
  private readonly byId = new Map<bigint, DevSnapshot>()
  private nextId = 0n
  /** The node as it started (genesis, or the loaded state file): what anvil_reset goes back to. */
  private initial: DevSnapshot | undefined

  constructor(private readonly ctx: SnapshotsParts) {}

  /** Inside the queue: the node as it stands. */
  async capture(): Promise<DevSnapshot> {
    const { clock } = this.ctx
    return {
      ...(await takeSnapshot(this.ctx)),
      offsetMs: clock.offsetMs,
      jumpMs: clock.jumpMs,
      nextTimestamp: clock.nextTimestamp,
    }
  }

  /** Inside the queue: puts `snap` back, and re-opens the pending block while mining. */
  async restore(snap: DevSnapshot): Promise<void> {
    const { clock, chain, sequencer, producer } = this.ctx
    await restoreSnapshot(this.ctx, snap)
    clock.offsetMs = snap.offsetMs
    clock.jumpMs = snap.jumpMs
    clock.nextTimestamp = snap.nextTimestamp
    if (!chain.pending && sequencer.preconfirming) await producer.open()
  }

  /** Inside the queue, once the node has started: what anvil_reset returns to. */
  async markInitial(): Promise<void> {
    this.initial = await this.capture()
  }

  /** evm_snapshot (inside the queue): ids count from 0, as anvil's do. */
  async take(): Promise<bigint> {
    const snap = await this.capture()
    const id = this.nextId++
    this.byId.set(id, snap)
    return id
  }

  /** evm_revert (inside the queue): false for an unknown id. The snapshot and later ones are used up (Hardhat's rule). */
  async revert(id: bigint): Promise<boolean> {
    const snap = this.byId.get(id)
    if (!snap) return false
    for (const key of [...this.byId.keys()]) if (key >= id) this.byId.delete(key)
    await this.restore(snap)
    return true
  }

  /** anvil_reset (inside the queue): back to the node as it started; snapshots are forgotten. */
  async reset(): Promise<void> {
    const initial = this.initial
    if (!initial) throw new NodeError('the node has not finished starting')
    await this.restore(initial)
    this.byId.clear()
  }

  /** Forgets every snapshot (the node started again elsewhere: anvil_reset onto another fork). */
  clear(): void {
    this.byId.clear()
  }

  /** State roots evm_revert and anvil_reset may go back to: state pruning keeps them. */
  heldStateRoots(): Uint8Array[] {
    const held = this.initial ? [this.initial, ...this.byId.values()] : [...this.byId.values()]
    return held.flatMap((snap) => {
      const roots = [snap.stateRoot, snap.blocks[snap.blocks.length - 1].header.stateRoot]
      if (snap.headStateRoot) roots.push(snap.headStateRoot)
      return roots
    })
  }
}
