// Account edits (anvil_setBalance, setCode, setNonce, setStorageAt): written to the live state,
// which the pending block runs on, and to the head's state as reads at "latest" see it — a root
// kept beside the head's own (Chain.stateRootOf), as anvil serves them at once. The head's header
// keeps its real root, so its hash stays valid. Edits queued one after another (a batch request of
// anvil_setBalance calls) are applied together, and the head's edited state is built only when
// something reads it (HeadState), so a run of edit batches costs the head one new root, or none.

import type { LazyRoot } from '../chain/chain.js'
import type { NodeContext } from '../context.js'
import type { StateView } from '../engine/index.js'
import type { BlockRecord } from '../types.js'

/** The node's parts account edits write to: the live state and the head's edited root. */
export type EditsParts = Pick<NodeContext, 'engine' | 'chain'>

type Change = (state: StateView) => Promise<void>

interface EditRun {
  /** Queue count when the run was queued: it still takes edits while nothing else was queued since. */
  ticket: number
  items: Array<{ change: Change; after?: () => void; resolve: () => void; reject: (error: unknown) => void }>
}

/**
 * The head's state with the edits made while a block was pending. The edits are kept and written
 * to a state at the head's root only when a reader settles it (a read at "latest", a trace of the
 * block after it): a run of edits nobody reads at "latest" before the next block costs nothing
 * here, since the live state has them already. Only settle() touches the state.
 */
class HeadState implements LazyRoot {
  private changes: Change[] = []
  private state: StateView | undefined
  /** Set once the chain's head has moved on: no more edits come, so once settled its state goes. */
  private past = false
  private lock: Promise<unknown> = Promise.resolve()
  root: Uint8Array

  constructor(
    readonly head: BlockRecord,
    private readonly open: (root: Uint8Array) => Promise<StateView>,
    /** The head's root the edits apply to. */
    private readonly base: Uint8Array,
  ) {
    this.root = base
  }

  get dirty(): boolean {
    return this.changes.length > 0
  }

  get reads(): Uint8Array[] {
    return [this.base, this.root]
  }

  /** Edits the live state took; written here when a reader settles. */
  record(changes: Change[]): void {
    this.changes.push(...changes)
  }

  /** The head has moved on (StateEdits.stateOfHead). */
  retire(): void {
    this.past = true
    if (!this.dirty) this.state = undefined
  }

  settle(): Promise<void> {
    return this.exclusive(async () => {
      while (this.changes.length > 0) {
        const todo = this.changes
        this.changes = []
        this.state ??= await this.open(this.base)
        for (const change of todo) await change(this.state)
        this.root = await this.state.root()
      }
      if (this.past) this.state = undefined
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

  constructor(private readonly ctx: EditsParts) {}

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
    let applied: EditRun['items'] = run.items
    // The live state writes the edits to the trie at its next root (state.ts), with whatever else
    // changed by then. They go in under one checkpoint; a checkpoint each (a tenth of a batch of
    // anvil_setBalance) is taken only when one fails, so that it reverts alone: the run is undone
    // and made again, edit by edit (a change is a write of values it holds: it can run twice).
    await live.checkpoint()
    try {
      for (const item of run.items) await item.change(live)
    } catch {
      await live.revert()
      await live.checkpoint()
      applied = []
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
    }
    await live.commit()
    if (applied.length === 0) return
    if (!chain.pending) {
      chain.setStateRootOverride(chain.head, await live.root())
    } else {
      const state = await this.stateOfHead()
      state.record(applied.map((item) => item.change))
      chain.setStateRootOverride(chain.head, state)
    }
    for (const item of applied) {
      item.after?.()
      item.resolve()
    }
  }

  /**
   * The head's edited state; new when the head has moved on or its root was set otherwise since
   * (evm_revert, a state load). A past head's edits stay unwritten until a reader asks for its
   * state (pruning drops them with the block's state); written already, only its root stays.
   */
  private async stateOfHead(): Promise<HeadState> {
    const { engine, chain } = this.ctx
    const past = this.headState
    if (past?.head === chain.head && chain.usesRoot(chain.head, past)) return past
    if (past) {
      past.retire()
      if (!past.dirty && chain.usesRoot(past.head, past)) chain.setStateRootOverride(past.head, past.root)
    }
    const root = await chain.settledRootOf(chain.head)
    this.headState = new HeadState(chain.head, (at) => engine.scratchAt(at), root)
    return this.headState
  }
}
