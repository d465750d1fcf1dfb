// Account edits (anvil_setBalance, setCode, setNonce, setStorageAt): written to the live state,
// which the pending block runs on, and to the head's state as reads at "latest" see it — a root
// kept beside the head's own (Chain.stateRootOf), as anvil serves them at once. The head's header
// keeps its real root, so its hash stays valid. Edits queued one after another (a batch request of
// anvil_setBalance calls) are applied together: one new head root per run of edits, not one per
// edit, so they do not leave a trie version each behind (issue 18).
import type { NodeContext } from '../context.js'
import type { StateView } from '../engine/index.js'

type Change = (state: StateView) => Promise<void>

interface EditRun {
  /** Queue count when the run was queued: it still takes edits while nothing else was queued since. */
  ticket: number
  items: Array<{ change: Change; after?: () => void; resolve: () => void; reject: (error: unknown) => void }>
}

/** Edits queued back to back, applied as one queue task. */
export class StateEdits {
  private open: EditRun | undefined

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
          await applyRun(this.ctx, run)
        })
        .catch((error) => {
          for (const i of run.items) i.reject(error)
        })
      run.ticket = queue.queuedCount
      this.open = run
    })
  }
}

async function applyRun(ctx: NodeContext, run: EditRun): Promise<void> {
  const { engine, chain } = ctx
  const { live } = engine
  const applied: EditRun['items'] = []
  // One outer checkpoint: the state manager writes its caches to the trie when its last checkpoint
  // closes, so the run's edits reach the trie in one flush rather than one flush each.
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
    const view = await engine.scratchAt(chain.stateRootOf(chain.head))
    for (const item of applied) await item.change(view)
    chain.setStateRootOverride(chain.head, await view.root())
  }
  for (const item of applied) {
    item.after?.()
    item.resolve()
  }
}
