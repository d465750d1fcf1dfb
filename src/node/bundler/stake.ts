// An entity's stake in its EntryPoint (IStakeManager.getDepositInfo, the same struct in every version)
// and whether it meets the bundler's minimums (ERC-7562 SREP-010: a locked stake of at least
// MIN_STAKE_VALUE with an unstake delay of at least MIN_UNSTAKE_DELAY).
import { type Address, decodeFunctionResult, encodeFunctionData, hexToBytes, parseAbi, toHex } from 'viem'
import type { EntryPoint } from './entry-points.js'
import type { BundlerParts } from './parts.js'

const STAKE_MANAGER = parseAbi([
  'struct DepositInfo { uint256 deposit; bool staked; uint112 stake; uint32 unstakeDelaySec; uint48 withdrawTime; }',
  'function getDepositInfo(address account) view returns (DepositInfo info)',
])

export interface StakeMinimums {
  minStake: bigint
  minUnstakeDelay: bigint
}

/**
 * The devnet's minimums, the reference bundler's local configuration (eth-infinitism bundler
 * localconfig: minStake 1 ETH, minUnstakeDelay 0): any locked stake of 1 ETH counts, whatever its delay
 * (EntryPoint.addStake takes no zero delay). ERC-7562's own MIN_UNSTAKE_DELAY is 86400 and its
 * MIN_STAKE_VALUE is set per chain; a bundler on a public chain would use those.
 */
export const DEVNET_STAKE_MINIMUMS: StakeMinimums = { minStake: 10n ** 18n, minUnstakeDelay: 0n }

export interface StakeInfo {
  addr: Address
  /** What the entity holds in the EntryPoint to pay for ops (not the stake). */
  deposit: bigint
  stake: bigint
  unstakeDelaySec: bigint
  /** Locked: staked and not unlocked for withdrawal (unlockStake clears it). */
  locked: boolean
}

/** The entity's stake as the EntryPoint holds it on the pre-confirmed state. */
export async function readStake(parts: BundlerParts, entryPoint: EntryPoint, addr: Address): Promise<StakeInfo> {
  const output = await parts.call({
    to: hexToBytes(entryPoint.address),
    data: hexToBytes(encodeFunctionData({ abi: STAKE_MANAGER, functionName: 'getDepositInfo', args: [addr] })),
  })
  const info = decodeFunctionResult({ abi: STAKE_MANAGER, functionName: 'getDepositInfo', data: toHex(output) })
  return { addr, deposit: info.deposit, stake: info.stake, unstakeDelaySec: BigInt(info.unstakeDelaySec), locked: info.staked }
}

/** ERC-7562's "staked entity": a locked stake at or above both minimums. */
export function meetsMinimums(info: StakeInfo, minimums: StakeMinimums): boolean {
  return info.locked && info.stake >= minimums.minStake && info.unstakeDelaySec >= minimums.minUnstakeDelay
}
