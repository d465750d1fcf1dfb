// Base's Beryl precompile addresses and ids (base-std StdPrecompiles.sol, base/docs b20 constants):
// the B20Factory, the ActivationRegistry, the PolicyRegistry, the features the registry switches
// and the token address derivation, as viem values for the node and for users.
import { type Address, encodeAbiParameters, getAddress, type Hex, keccak256, toBytes } from 'viem'

export const B20_FACTORY_ADDRESS: Address = '0xB20f000000000000000000000000000000000000'
export const ACTIVATION_REGISTRY_ADDRESS: Address = '0x8453000000000000000000000000000000000001'
export const POLICY_REGISTRY_ADDRESS: Address = '0x8453000000000000000000000000000000000002'
/** EIP-8130's system precompiles, from Cobalt (base-std StdPrecompiles.sol). */
export const NONCE_MANAGER_ADDRESS: Address = '0x813000000000000000000000000000000000aa01'
export const TX_CONTEXT_ADDRESS: Address = '0x813000000000000000000000000000000000aa02'

/** The features the ActivationRegistry gates: keccak256 of their names. */
export const B20_FEATURES = {
  asset: keccak256(toBytes('base.b20_asset')),
  stablecoin: keccak256(toBytes('base.b20_stablecoin')),
  policyRegistry: keccak256(toBytes('base.policy_registry')),
} as const

/** The activation admin of a local chain (anvil's account 5), as base-anvil and Base's dev config set it. */
export const DEV_ACTIVATION_ADMIN: Address = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc'

export const B20_VARIANT = { ASSET: 0, STABLECOIN: 1 } as const

/** A token's address: [0xB2][9 zero bytes][variant][keccak256(abi.encode(sender, salt))[0:9]]. */
export function b20Address(variant: number, sender: Address, salt: Hex): Address {
  const hash = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [sender, salt]))
  const variantByte = variant.toString(16).padStart(2, '0')
  return getAddress(`0xb2${'00'.repeat(9)}${variantByte}${hash.slice(2, 20)}`)
}
