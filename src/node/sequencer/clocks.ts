// The sequencer's timers: a metronome for flashblocks and pre-Denim seals, a jittered one for the
// irregular-cadence fault, and Denim's, which fires when the next block is due on the schedule.

/** Irregular flashblock cadence: up to `ms` either way, `draw` giving [0, 1) (seeded). */
export interface FlashJitter {
  ms: number
  draw: () => number
}

/** Calls `fn` at t0 + k * period, skipping boundaries it missed instead of bunching up. */
export class Metronome {
  private timer: NodeJS.Timeout | undefined
  private readonly t0 = performance.now()
  private k = 0

  constructor(
    private readonly period: number,
    private readonly fn: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {
    this.schedule()
  }

  private schedule(): void {
    const now = performance.now()
    this.k = Math.max(this.k + 1, Math.ceil((now - this.t0) / this.period))
    this.timer = setTimeout(
      () => {
        this.fn()
          .catch(this.onError)
          .finally(() => {
            if (this.timer) this.schedule()
          })
      },
      this.t0 + this.k * this.period - now,
    )
  }

  stop(): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }
}

/**
 * Calls `fn` when the next Denim block is due on the node's clock (at most `period` later, at once
 * when overdue): the chain's time follows its schedule, and a late tick is made up by the next
 * ones coming sooner instead of being skipped (Base's sequencer skips no slot).
 */
export class DueClock {
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly period: number,
    private readonly due: () => number,
    private readonly fn: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {
    this.schedule()
  }

  private schedule(): void {
    const delay = Math.max(0, Math.min(this.period, this.due()))
    this.timer = setTimeout(() => {
      this.fn()
        .catch(this.onError)
        .finally(() => {
          if (this.timer) this.schedule()
        })
    }, delay)
  }

  stop(): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }
}

/**
 * Calls `fn` after intervals drawn from [period - jitter, period + jitter] (at least 1 ms), each
 * from the last call: the cadence drifts, so a block can end with more or fewer flashblocks than
 * blockTime / period, as Base's do when the sequencer's timing drifts (Base's docs: the index can
 * pass 10).
 */
export class JitteredClock {
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly period: number,
    private readonly jitter: FlashJitter,
    private readonly fn: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {
    this.schedule()
  }

  private schedule(): void {
    const delay = Math.max(1, Math.round(this.period + (2 * this.jitter.draw() - 1) * this.jitter.ms))
    this.timer = setTimeout(() => {
      this.fn()
        .catch(this.onError)
        .finally(() => {
          if (this.timer) this.schedule()
        })
    }, delay)
  }

  stop(): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }
}
