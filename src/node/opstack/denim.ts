// Base's Denim upgrade (base/docs upgrades/denim, base/base RollupConfig::l2_block_timestamp_millis):
// from its activation time every block is 200 ms after its parent, its header timestamp the whole
// second (five blocks share one), the part past it set in the BaseTime predeploy by the block's
// second deposit. The first Denim block sits at .000 and divides the gas limit by ten while
// multiplying the EIP-1559 denominator by ten (base/base derive/attributes/stateful.rs).
import type { BlockRecord } from '../types.js'
import { BASE_TIME_STEP_MS, baseTimeMillisOf } from './base-time.js'

/** NATIVE_SUBSECOND_BLOCK_INTERVAL_MILLIS: BaseTime's step (base-time.ts), as a bigint for block times. */
export const DENIM_BLOCK_MS = BigInt(BASE_TIME_STEP_MS)

/** DENIM_GAS_PARAMETER_SCALING_FACTOR: the first Denim block's gas limit ÷ it, its EIP-1559 denominator × it. */
export const DENIM_SCALING = 10n

/**
 * How far a block's schedule may fall behind the node's clock before the next block catches up
 * at once (a suspended laptop, an idle dev-mined chain); below it the schedule holds exactly and
 * the block clock catches up by sealing sooner.
 */
export const DENIM_MAX_LAG_MS = 2000n

/** The part of a block's time past its second: its BaseTime deposit's (tx[1]), once Denim is active. */
export function blockMillis(block: BlockRecord): number | undefined {
  return block.millis ?? (block.txs[1] ? baseTimeMillisOf(block.txs[1].tx) : undefined)
}

/**
 * Whether `block` is a Denim block: it carries the BaseTime deposit, or it is the genesis of a
 * chain Denim from its start (activation block 0). A chain's blocks made before Denim (a state
 * file or fork of an older chain) are not, so the block after them is the first Denim block.
 */
export function isDenimBlock(block: BlockRecord, activation: bigint | undefined): boolean {
  if (activation === undefined) return false
  return blockMillis(block) !== undefined || (block.header.number === 0n && block.header.timestamp >= activation)
}

/** A block's full time in milliseconds (its timestamp's second before Denim). */
export function blockTimeMs(block: BlockRecord): bigint {
  return block.header.timestamp * 1000n + BigInt(blockMillis(block) ?? 0)
}

/** The time of the block after `parent` on Denim's schedule: `step` ms later, or `explicit` (seconds) when later still. */
export function denimNextMs(parentMs: bigint, step: bigint, explicit?: bigint): bigint {
  const scheduled = parentMs + step
  return explicit !== undefined && explicit * 1000n > scheduled ? explicit * 1000n : scheduled
}
