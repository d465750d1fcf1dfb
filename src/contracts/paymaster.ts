// pcnode's development paymaster (contracts/PcnodePaymaster.sol): one per EntryPoint it serves, deployed
// at genesis on the OP profiles (where the EntryPoints are) from a fixed deployer, so the addresses are the
// same on every chain id; node/genesis/paymasters.ts checks them. The signer's key is public on purpose:
// this is a devnet's paymaster, sponsoring what the node signs for, with ETH that exists only here.
import { type Address, type Hex, keccak256, stringToHex } from 'viem'

export { PcnodePaymaster, PcnodePaymasterV06 } from './artifacts.js'

/** The key the node signs paymasterData with (keccak256 of a fixed phrase; public, as dev keys are). */
export const PAYMASTER_SIGNER_KEY: Hex = keccak256(stringToHex('pcnode development paymaster signer'))
export const PAYMASTER_SIGNER_ADDRESS: Address = '0x2bd23EB6265b1E0f887DFD6C0ee779962D66A817'
/** Deploys the paymasters at genesis (no known key), at nonces 0 (v0.7), 1 (v0.8) and 2 (v0.6). */
export const PAYMASTER_DEPLOYER_ADDRESS: Address = '0x0000000000000000000000000000000000004337'
/** Each paymaster's deposit in its EntryPoint at genesis. */
export const PAYMASTER_DEPOSIT = 1_000n * 10n ** 18n

/** The paymaster of each EntryPoint version it serves, in deployment order (PcnodePaymasterV06 for v0.6). */
export const DEV_PAYMASTERS = [
  {
    version: '0.7',
    entryPoint: '0x0000000071727De22E5E9d8BAf0edAc6f37da032',
    address: '0xFbe400a5bD9424988a7954982A1e7d3c3Ddb2d3A',
  },
  {
    version: '0.8',
    entryPoint: '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108',
    address: '0x454525582E3ec31BA387d4944E252b77FeDE33Ee',
  },
  {
    version: '0.6',
    entryPoint: '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789',
    address: '0xdc353dDd45D8a7a0BDff8E72652Cf59E250db160',
  },
] as const satisfies ReadonlyArray<{ version: string; entryPoint: Address; address: Address }>
