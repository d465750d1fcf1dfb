// The serial queue every access to the engine's state goes through. Block building, calls,
// estimates and simulations share one VM and its journal, so interleaving them would corrupt state.
//
// Two lanes: the block producer's tasks (flashblocks, seals) go before any queued request, so a
// seal waits at most for the task that is running, as a geth or anvil miner does not wait on RPC
// work. And the queue hands the event loop back between tasks once it has worked a few
// milliseconds without a turn: engine work is promise continuations that never reach the event
// loop on their own, and requests read in one I/O phase would otherwise run back to back in it,
// holding off timers (the block clock) and every other client until they drained.
// A task whose state is its own (a trace on its throwaway view) may lend the queue while it waits on
// something else (its tracer's worker thread): the producer's tasks and the reads and reverted
// calls at the head of the ordinary lane run meanwhile (lend()), one at a time as ever.

/** Queue work without a turn of the event loop after which the next task waits for one. */
const SLICE_MS = 5

interface Entry {
  task: () => Promise<unknown>
  consistent: boolean
  lendable: boolean
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

export interface RunOptions {
  /**
   * The task hands the event loop back only where the state is whole (a flashblock, between two
   * transactions), so others may read the state cache meanwhile.
   */
  consistent?: boolean
  /** The block producer's: runs before every task of the ordinary lane that waits. */
  urgent?: boolean
  /**
   * Reads (admission too: it reads the live state and fills the pool), and work on a state of its
   * own that it reverts (calls, estimates, simulations): may also run while the running task
   * lends the queue.
   */
  lendable?: boolean
}

/** Serial execution queue: each task starts when the previous one has settled. */
export class SerialQueue {
  private readonly urgent: Entry[] = []
  private readonly ordinary: Entry[] = []
  private pumping = false
  private depth = 0
  private consistentRunning = false
  private queued = 0
  /** When the queue started working since the event loop last turned; undefined once it has turned. */
  private busySince: number | undefined
  /** Wakes the running task's lend() when an urgent task is queued. */
  private lender: (() => void) | undefined

  /** How many tasks were ever queued: a task still last in the queue is the one at this count. */
  get queuedCount(): number {
    return this.queued
  }

  /** Queues `task`; it starts once the running task and those ahead of it in its lane have settled. */
  run<T>(task: () => Promise<T>, { consistent = false, urgent = false, lendable = false }: RunOptions = {}): Promise<T> {
    this.depth++
    this.queued++
    return new Promise<T>((resolve, reject) => {
      const entry: Entry = { task, consistent, lendable, resolve: resolve as (value: unknown) => void, reject }
      ;(urgent ? this.urgent : this.ordinary).push(entry)
      if (urgent || lendable) this.lender?.()
      if (!this.pumping) {
        this.pumping = true
        if (this.owesTurn) setImmediate(() => void this.pump())
        else queueMicrotask(() => void this.pump())
      }
    })
  }

  private async pump(): Promise<void> {
    for (;;) {
      if (this.owesTurn) await new Promise(setImmediate)
      const entry = this.urgent.shift() ?? this.ordinary.shift()
      if (!entry) break
      await this.runEntry(entry)
    }
    this.pumping = false
  }

  private async runEntry(entry: Entry): Promise<void> {
    this.markBusy()
    this.consistentRunning = entry.consistent
    let failed = false
    let outcome: unknown
    try {
      outcome = await entry.task()
    } catch (error) {
      failed = true
      outcome = error
    }
    this.depth--
    this.consistentRunning = false
    if (failed) entry.reject(outcome)
    else entry.resolve(outcome)
    // A caller awaiting run() resumes before the next task starts (two promise turns).
    await null
    await null
  }

  /**
   * For the running task, while it waits on `wait` and touches no shared state: the producer's
   * tasks, and lendable ones at the head of the ordinary lane (never past a task that is not, so no
   * state change is overtaken), run meanwhile, one after another as ever. Settles as `wait`, once
   * no lent task is running.
   */
  async lend<T>(wait: Promise<T>): Promise<T> {
    let settled = false
    const done = wait.then(
      () => {
        settled = true
      },
      () => {
        settled = true
      },
    )
    for (;;) {
      const entry = this.urgent.shift() ?? (this.ordinary[0]?.lendable ? this.ordinary.shift() : undefined)
      if (entry) {
        await this.runEntry(entry)
        continue
      }
      if (settled) return wait
      await Promise.race([done, new Promise<void>((resolve) => (this.lender = resolve))])
      this.lender = undefined
    }
  }

  /** Whether the queue has worked SLICE_MS since the event loop last turned. */
  private get owesTurn(): boolean {
    return this.busySince !== undefined && performance.now() - this.busySince > SLICE_MS
  }

  /** Notes queue work; an immediate marks the next turn of the event loop (immediates run in order). */
  private markBusy(): void {
    if (this.busySince !== undefined) return
    this.busySince = performance.now()
    setImmediate(() => {
      this.busySince = undefined
    })
  }

  get size(): number {
    return this.depth
  }

  /**
   * True when a synchronous read of the state cache sees what a task queued now would: nothing
   * waits in the queue (a queued state change must not be overtaken) and the running task, if
   * any, is a consistent one.
   */
  get readableNow(): boolean {
    return this.depth === 0 || (this.depth === 1 && this.consistentRunning)
  }
}
