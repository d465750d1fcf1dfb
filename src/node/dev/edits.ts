// Account edits (anvil_setBalance, setCode, setNonce, setStorageAt): written to the live state,
// which the pending block runs on, and to the head's state as reads at "latest" see it — a root
// kept beside the head's own (Chain.stateRootOf), as anvil serves them at once. The head's header
// keeps its real root, so its hash stays valid. Edits queued one after another (a batch request of
// anvil_setBalance calls) are applied together, and the head's edited state is written to the trie
// only when something reads it (HeadState), so a run of edit batches costs one new root, not one
// per batch (issue 18).

import type { LazyRoot } from '../chain/chain.js'
import type { NodeContext } from '../context.js'
import type { StateView } from '../engine/index.js'
import type { BlockRecord } from '../types.js'

type Change = (state: StateView) => Promise<void>

interface EditRun {
  /** Queue count when the run was queued: it still takes edits while nothing else was queued since. */
  ticket: number
  items: Array<{ change: Change; after?: () => void; resolve: () => void; reject: (error: unknown) => void }>
}

/**
 * The head's state with the edits made while a block was pending: edits apply to its caches, and
 * its root is computed when a reader settles it. Only edit runs (queue tasks) and settle() touch
 * the state, one at a time.
 */
class HeadState implements LazyRoot {
  dirty = false
  private lock: Promise<unknown> = Promise.resolve()

  constructor(
    readonly head: BlockRecord,
    private readonly state: StateView,
    public root: Uint8Array,
  ) {}

  apply(changes: Change[]): Promise<void> {
    return this.exclusive(async () => {
      this.dirty = true
      for (const change of changes) await change(this.state)
    })
  }

  settle(): Promise<void> {
    return this.exclusive(async () => {
      if (!this.dirty) return
      this.root = await this.state.root()
      this.dirty = false
    })
  }

  private exclusive(fn: () => Promise<void>): Promise<void> {
    const run = this.lock.then(fn)
    this.lock = run.catch(() => {})
    return run
  }
}

/** Edits queued back to back, applied as one queue task. */
export class StateEdits {
  private open: EditRun | undefined
  private headState: HeadState | undefined

  constructor(private readonly ctx: NodeContext) {}

  /** Queues `change` (and `after`, run once it is applied); joins the run of edits last in the queue. */
  apply(change: Change, after?: () => void): Promise<void> {
    const { queue } = this.ctx.engine
    return new Promise<void>((resolve, reject) => {
      const item = { change, after, resolve, reject }
      if (this.open && this.open.ticket === queue.queuedCount) {
        this.open.items.push(item)
        return
      }
      const run: EditRun = { ticket: 0, items: [item] }
      queue
        .run(async () => {
          if (this.open === run) this.open = undefined
          await this.applyRun(run)
        })
        .catch((error) => {
          for (const i of run.items) i.reject(error)
        })
      run.ticket = queue.queuedCount
      this.open = run
    })
  }

  private async applyRun(run: EditRun): Promise<void> {
    const { engine, chain } = this.ctx
    const { live } = engine
    const applied: EditRun['items'] = []
    // One outer checkpoint, so one failing edit reverts alone. The live state writes the edits to
    // the trie at its next root (state.ts), with whatever else changed by then.
    await live.checkpoint()
    for (const item of run.items) {
      await live.checkpoint()
      try {
        await item.change(live)
        await live.commit()
        applied.push(item)
      } catch (error) {
        await live.revert()
        item.reject(error)
      }
    }
    await live.commit()
    if (applied.length === 0) return
    if (!chain.pending) {
      chain.setStateRootOverride(chain.head, await live.root())
    } else {
      const state = await this.stateOfHead()
      await state.apply(applied.map((item) => item.change))
      chain.setStateRootOverride(chain.head, state)
    }
    for (const item of applied) {
      item.after?.()
      item.resolve()
    }
  }

  /**
   * The head's edited state; new when the head has moved on (the last one's edits written first)
   * or its root was set otherwise since (evm_revert, a state load).
   */
  private async stateOfHead(): Promise<HeadState> {
    const { engine, chain } = this.ctx
    const past = this.headState
    if (past?.head === chain.head && chain.usesRoot(chain.head, past)) return past
    if (past) {
      await past.settle()
      // The past head keeps its edited root; the state (every account edited there) goes.
      if (chain.usesRoot(past.head, past)) chain.setStateRootOverride(past.head, past.root)
    }
    const root = await chain.settledRootOf(chain.head)
    this.headState = new HeadState(chain.head, await engine.scratchAt(root), root)
    return this.headState
  }
}
