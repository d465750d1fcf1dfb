// One lock per sender for the sends the node fills (geth's internal/ethapi AddrLocker): from reading
// the pending nonce until the transaction is pooled, a second send from the same account waits, so
// the two never take the same nonce. Filling reads state (the nonce, an estimate), which on a fork
// can wait on the upstream for a while: without the lock, sends a few milliseconds apart collide.

export class SenderLocks {
  private readonly tails = new Map<string, Promise<void>>()

  /** Runs `task` once the tasks queued before it for `sender` have settled. */
  async with<T>(sender: string, task: () => Promise<T>): Promise<T> {
    const before = this.tails.get(sender)
    let release = () => {}
    const tail = new Promise<void>((resolve) => {
      release = resolve
    })
    this.tails.set(sender, tail)
    try {
      if (before) await before
      return await task()
    } finally {
      release()
      // The last in line leaves no entry behind.
      if (this.tails.get(sender) === tail) this.tails.delete(sender)
    }
  }
}
