// ethereumjs' EVM subscribes to its Common's `hardforkChanged` event (to reload its opcodes and
// precompiles) and never unsubscribes. The engine makes a VM for every view of an older state
// (each trace, simulation, and the call views of each block) over its one shared Common, so every
// such VM, with its state manager and caches, stayed reachable from the Common for the life of
// the process. Here a view's listeners move off the Common: the VM keeps its own listeners alive,
// and the Common reaches them only through WeakRefs, so a view nobody holds is collected.
import type { Common } from '@ethereumjs/common'

type Listener = (...args: unknown[]) => void

const EVENT = 'hardforkChanged'
/** Where a VM keeps its own listeners (the WeakRefs alone would let them go while it lives). */
const OWN_LISTENERS = Symbol('hardforkListeners')

export class WeakHardforkListeners {
  private readonly refs = new Set<WeakRef<Listener>>()
  private creating: Promise<unknown> = Promise.resolve()
  private sweepAbove = 64

  constructor(private readonly common: Common) {
    common.events.on(EVENT, (...args: unknown[]) => {
      for (const ref of this.refs) {
        const listener = ref.deref()
        if (listener) listener(...args)
        else this.refs.delete(ref)
      }
    })
  }

  /**
   * Runs `create` (one at a time, so the listeners added meanwhile are its own) and moves the
   * listeners it added to the Common onto what it returned.
   */
  adopt<T extends object>(create: () => Promise<T>): Promise<T> {
    const run = this.creating.then(async () => {
      const { events } = this.common
      const before = new Set(events.listeners(EVENT))
      const owner = await create()
      const added = (events.listeners(EVENT) as Listener[]).filter((listener) => !before.has(listener))
      for (const listener of added) {
        events.removeListener(EVENT, listener)
        this.refs.add(new WeakRef(listener))
      }
      Object.defineProperty(owner, OWN_LISTENERS, { value: added })
      this.sweep()
      return owner
    })
    this.creating = run.catch(() => {})
    return run
  }

  /** Drops the references of collected listeners once they may have piled up (amortised O(1)). */
  private sweep(): void {
    if (this.refs.size <= this.sweepAbove) return
    for (const ref of this.refs) if (!ref.deref()) this.refs.delete(ref)
    this.sweepAbove = Math.max(64, 2 * this.refs.size)
  }
}
