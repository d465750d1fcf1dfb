// When Base's Beryl and Cobalt upgrades apply on a chain, and Beryl's arrival on one that starts
// before it. Base's node has the B20 precompiles from the Beryl block on, with no state written
// there (base/base precompiles provider.rs installs them for the block's upgrade; a singleton
// writes its 0xef marker on its first write); pcnode runs its code for accounts holding the marker,
// so the first block at or after Beryl's time writes the markers and the local default features
// that a chain Beryl from genesis holds in its genesis (genesis.ts). Cobalt's changes are code
// only: the registries run the block's logic version (engine hooks/b20-forks.ts).
import { hexToBytes } from 'viem'
import type { StateView } from '../engine/index.js'
import type { ChainProfile } from '../profile.js'
import { ACTIVATION_REGISTRY_ADDRESS } from './addresses.js'
import { installB20 } from './genesis.js'

/** A chain's Beryl and Cobalt times, in unix seconds. */
export interface BerylUpgrades {
  beryl: bigint
  cobalt: bigint
}

/**
 * The times a profile with Beryl gives the chain: Base's order Beryl, Cobalt, Denim holds, so
 * Cobalt never precedes Beryl and neither follows Denim. Undefined: the profile has no Beryl.
 */
export function berylUpgrades(
  profile: ChainProfile,
  times: { berylTime: bigint; cobaltTime: bigint; denimTime: bigint | undefined },
): BerylUpgrades | undefined {
  if (!profile.beryl) return undefined
  const { denimTime } = times
  const capped = (t: bigint) => (denimTime !== undefined && t > denimTime ? denimTime : t)
  const beryl = capped(times.berylTime)
  const cobalt = capped(times.cobaltTime > beryl ? times.cobaltTime : beryl)
  return { beryl, cobalt }
}

const ACTIVATION_REGISTRY = hexToBytes(ACTIVATION_REGISTRY_ADDRESS)

/**
 * In the block at `timestamp` (its opening, before any transaction): on the first block at or after
 * Beryl, the markers and the local default features, unless the registry holds its marker already.
 */
export async function crossBeryl(view: StateView, timestamp: bigint, upgrades: BerylUpgrades | undefined): Promise<void> {
  if (upgrades === undefined || timestamp < upgrades.beryl) return
  if ((await view.code(ACTIVATION_REGISTRY)).length > 0) return
  await installB20(view)
}
