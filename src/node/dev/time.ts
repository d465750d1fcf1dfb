// Block time under dev control (anvil's backend/time.rs): an offset from the wall clock that
// evm_increaseTime and evm_setNextBlockTimestamp move, and an exact timestamp for the next block.

const wallClock = () => BigInt(Math.floor(Date.now() / 1000))

export class DevClock {
  /** Seconds added to the wall clock for new blocks' timestamps. */
  offset = 0n
  /** Exact timestamp for the next block opened by a dev method (evm_setNextBlockTimestamp while no block is open). */
  nextTimestamp: bigint | undefined

  /** Seconds a new block's timestamp starts from. */
  now(): bigint {
    return wallClock() + this.offset
  }

  /** Later blocks' timestamps continue from `timestamp` (anvil and Hardhat move their clock likewise). */
  rebase(timestamp: bigint): void {
    this.offset = timestamp - wallClock()
  }
}
