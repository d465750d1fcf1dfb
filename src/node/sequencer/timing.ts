// When the next block is: before Denim, on the node's clock (a whole second, after its parent's);
// on Denim (profile base), its parent's time plus 200 ms on the schedule (base/base
// l2_block_timestamp_millis), the first Denim block on a whole second.
import type { Chain } from '../chain/chain.js'
import { blockTimeMs, DENIM_BLOCK_MS, denimNextMs, isDenimBlock } from '../opstack/denim.js'
import type { OpStack } from '../opstack/opstack.js'

/** A new block's time: its timestamp and, on a Denim block, the milliseconds past it. */
export interface BlockTime {
  timestamp: bigint
  millis?: number
}

/**
 * How Denim blocks follow one another: `stepMs` apart, unless the node's clock is more than
 * `maxLagMs` ahead of the schedule (then the next block is at the clock's time).
 */
export interface DenimSchedule {
  stepMs: bigint
  maxLagMs: bigint
}

/** The time new blocks start from (dev/time.ts DevClock: the wall clock moved by the dev methods). */
export interface BlockClock {
  now(): bigint
  nowMs(): bigint
  /** Milliseconds evm_increaseTime moved it by since the last block opened. */
  jumpMs: bigint
  /** evm_setNextBlockTimestamp's, for the next block opened. */
  nextTimestamp: bigint | undefined
}

export class BlockTiming {
  constructor(
    private readonly chain: Chain,
    private readonly opStack: OpStack | undefined,
    private readonly clock: BlockClock,
  ) {}

  /** Denim's cadence as the block clock runs it (the sequencer's); dev-mined blocks follow the clock. */
  private schedule: DenimSchedule = { stepMs: DENIM_BLOCK_MS, maxLagMs: 0n }

  setSchedule(schedule: DenimSchedule): void {
    this.schedule = schedule
  }

  /**
   * The time of the block after the head (`explicit`: evm_setNextBlockTimestamp's). Before Denim:
   * the clock's second, or the parent's plus one. A Denim block: its parent's time plus the step
   * (base/base l2_block_timestamp_millis), or the clock's once that is further ahead than allowed;
   * the first one sits on a whole second.
   */
  next(explicit?: bigint): BlockTime {
    const parent = this.chain.head
    const { opStack, clock } = this
    if (isDenimBlock(parent, opStack?.denimTime)) {
      let ms = denimNextMs(blockTimeMs(parent), this.schedule.stepMs + (explicit === undefined ? clock.jumpMs : 0n), explicit)
      const now = clock.nowMs()
      const slot = now - (now % DENIM_BLOCK_MS)
      if (explicit === undefined && slot - ms > this.schedule.maxLagMs) ms = slot
      return { timestamp: ms / 1000n, millis: Number(ms % 1000n) }
    }
    const now = clock.now()
    const timestamp = explicit ?? (now > parent.header.timestamp ? now : parent.header.timestamp + 1n)
    return opStack?.isDenim(timestamp) ? { timestamp, millis: 0 } : { timestamp }
  }

  /** Whether the next block is a Denim block: sealed whole, no flashblocks. */
  get nextIsDenim(): boolean {
    return this.next().millis !== undefined
  }

  /** Milliseconds until the next Denim block is due on the node's clock (negative: overdue). */
  msUntilNext(): number {
    const { timestamp, millis = 0 } = this.next()
    return Number(timestamp * 1000n + BigInt(millis) - this.clock.nowMs())
  }
}
