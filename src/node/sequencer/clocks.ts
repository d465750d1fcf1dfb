// The sequencer's timers: one repeating timer that calls `fn`, waits for it, then asks its rule
// for the next delay. The rules: a metronome for flashblocks and pre-Denim seals, a jittered one
// for the irregular-cadence fault, and Denim's, which fires when the next block is due.

/** Irregular flashblock cadence: up to `ms` either way, `draw` giving [0, 1) (seeded). */
export interface FlashJitter {
  ms: number
  draw: () => number
}

/** Calls `fn` again and again, each time after the delay `nextDelay` gives (ms), until stopped. */
export class Ticker {
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly nextDelay: () => number,
    private readonly fn: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {
    this.schedule()
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.fn()
        .catch(this.onError)
        .finally(() => {
          if (this.timer) this.schedule()
        })
    }, this.nextDelay())
  }

  stop(): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }
}

/** At t0 + k * period, skipping boundaries it missed instead of bunching up. */
export function metronome(period: number): () => number {
  const t0 = performance.now()
  let k = 0
  return () => {
    const now = performance.now()
    k = Math.max(k + 1, Math.ceil((now - t0) / period))
    return t0 + k * period - now
  }
}

/**
 * When the next Denim block is due on the node's clock (at most `period` later, at once when
 * overdue): the chain's time follows its schedule, and a late tick is made up by the next ones
 * coming sooner instead of being skipped (Base's sequencer skips no slot).
 */
export function whenDue(period: number, due: () => number): () => number {
  return () => Math.max(0, Math.min(period, due()))
}

/**
 * After intervals drawn from [period - jitter, period + jitter] (at least 1 ms), each from the last
 * call: the cadence drifts, so a block can end with more or fewer flashblocks than blockTime /
 * period, as Base's do when the sequencer's timing drifts (Base's docs: the index can pass 10).
 */
export function jittered(period: number, jitter: FlashJitter): () => number {
  return () => Math.max(1, Math.round(period + (2 * jitter.draw() - 1) * jitter.ms))
}
