// Beryl's precompiles in a genesis: the 0xef marker at the three singletons (as base-anvil etches
// them) and the ActivationRegistry's features on, so a fresh local chain creates tokens and
// policies at once (the admin can switch them off). The features mapping is the first field of the
// "base.activation_registry" ERC-7201 namespace (base/base activation/storage.rs).
import { encodeAbiParameters, hexToBytes, keccak256 } from 'viem'
import type { StateView } from '../engine/index.js'
import { ACTIVATION_REGISTRY_ADDRESS, B20_FACTORY_ADDRESS, B20_FEATURES, POLICY_REGISTRY_ADDRESS } from './addresses.js'

const ACTIVATION_ROOT = '0x43ee1bbe25e988521cccd8b2c8fbd38c8287ebff8e074e825a70dfd3885cce00'
const MARKER = Uint8Array.of(0xef)

/** The ActivationRegistry's storage slot of `feature`. */
export function featureSlot(feature: `0x${string}`): `0x${string}` {
  return keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [feature, BigInt(ACTIVATION_ROOT)]))
}

/** Writes the markers and the active features into `view` (inside the genesis checkpoint). */
export async function installB20(view: StateView): Promise<void> {
  for (const address of [B20_FACTORY_ADDRESS, ACTIVATION_REGISTRY_ADDRESS, POLICY_REGISTRY_ADDRESS]) {
    await view.putCode(hexToBytes(address), MARKER)
  }
  const on = new Uint8Array(32)
  on[31] = 1
  for (const feature of Object.values(B20_FEATURES)) {
    await view.putStorage(hexToBytes(ACTIVATION_REGISTRY_ADDRESS), hexToBytes(featureSlot(feature)), on)
  }
}
