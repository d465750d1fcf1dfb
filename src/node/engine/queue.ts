// The serial queue every access to the engine's state goes through. Block building, calls,
// estimates and simulations share one VM and its journal, so interleaving them would corrupt state
// (DESIGN "Engine notes").

/** Serial execution queue: each task starts when the previous one has settled. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()
  private depth = 0
  private consistentRunning = false
  private queued = 0

  /** How many tasks were ever queued: a task still last in the queue is the one at this count. */
  get queuedCount(): number {
    return this.queued
  }

  /**
   * Queues `task`. `consistent`: the task hands the event loop back only where the state is
   * whole (a flashblock, between two transactions), so others may read the state cache meanwhile.
   */
  run<T>(task: () => Promise<T>, { consistent = false } = {}): Promise<T> {
    this.depth++
    this.queued++
    const result = this.tail.then(() => {
      this.consistentRunning = consistent
      return task()
    })
    const done = () => {
      this.depth--
      this.consistentRunning = false
    }
    this.tail = result.then(done, done)
    return result
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
