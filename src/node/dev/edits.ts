// Account edits (anvil_setBalance, setCode, setNonce, setStorageAt): written to the live state,
// which the pending block runs on, and to the head's state as reads at "latest" see it — a root
// kept beside the head's own (Chain.stateRootOf), as anvil serves them at once. The head's header
// keeps its real root, so its hash stays valid.
import type { NodeContext } from '../context.js'
import type { StateView } from '../engine/index.js'

/**
 * Inside the queue: applies `change` to the live state, and to the head's state as "latest" reads
 * see it: the same root when no block is open, else a root of its own beside the head (the pending
 * block's transactions are not in it).
 */
export async function editState(ctx: NodeContext, change: (state: StateView) => Promise<void>): Promise<void> {
  const { engine, chain } = ctx
  const { live } = engine
  await live.checkpoint()
  try {
    await change(live)
    await live.commit()
  } catch (error) {
    await live.revert()
    throw error
  }
  if (!chain.pending) {
    chain.setStateRootOverride(chain.head, await live.root())
  } else {
    const view = await engine.scratchAt(chain.stateRootOf(chain.head))
    await change(view)
    chain.setStateRootOverride(chain.head, await view.root())
  }
}
