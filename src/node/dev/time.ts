// Block time under dev control (anvil's backend/time.rs): an offset from the wall clock that
// evm_increaseTime and evm_setNextBlockTimestamp move, and an exact timestamp for the next block.
// Kept in milliseconds: Denim blocks (profile base) are 200 ms apart.

export class DevClock {
  /** Milliseconds added to the wall clock for new blocks' times. */
  offsetMs = 0n
  /** Exact timestamp for the next block opened by a dev method (evm_setNextBlockTimestamp while no block is open). */
  nextTimestamp: bigint | undefined
  /**
   * Milliseconds evm_increaseTime moved the clock by since the last block opened: a Denim block
   * adds them to its parent's time plus 200 ms (its schedule ignores the wall clock otherwise).
   */
  jumpMs = 0n

  /** Seconds added to the wall clock (what evm_increaseTime answers). */
  get offset(): bigint {
    return this.offsetMs / 1000n
  }

  set offset(seconds: bigint) {
    this.offsetMs = seconds * 1000n
  }

  /** Seconds a new block's timestamp starts from. */
  now(): bigint {
    return this.nowMs() / 1000n
  }

  /** Milliseconds a new block's time starts from. */
  nowMs(): bigint {
    return BigInt(Date.now()) + this.offsetMs
  }

  /** Later blocks' timestamps continue from `timestamp` (anvil and Hardhat move their clock likewise). */
  rebase(timestamp: bigint): void {
    this.rebaseMs(timestamp * 1000n)
  }

  rebaseMs(ms: bigint): void {
    this.offsetMs = ms - BigInt(Date.now())
  }
}
