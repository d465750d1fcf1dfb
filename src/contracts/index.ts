// Typed helpers for pcnode's smart-wallet contracts (contracts/*.sol, compiled into ./artifacts.ts).
// The wire formats match Coinbase Smart Wallet / Base Account: owners as `bytes`, the replay-safe EIP-712
// hash, SignatureWrapper and WebAuthnAuth, and `createAccount(owners, nonce)` as the ERC-6492 factory call.
// Plain viem, no Node built-ins: usable from the browser page too.
import {
  type Address,
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  hashTypedData,
  keccak256,
  stringToHex,
} from 'viem'
import { PcnodeSmartWallet, PcnodeWalletFactory } from './artifacts.js'

export { PcnodeSmartWallet, PcnodeWalletFactory, solcVersion } from './artifacts.js'

export const walletFactoryAbi = PcnodeWalletFactory.abi
export const smartWalletAbi = PcnodeSmartWallet.abi

/** ERC-1271 magic value returned by `isValidSignature` for a valid signature. */
export const ERC1271_MAGIC_VALUE = '0x1626ba7e' as const
/** Returned by `isValidSignature` for an invalid signature. */
export const ERC1271_INVALID_VALUE = '0xffffffff' as const
/** EIP-7951 / RIP-7212 P256VERIFY precompile. */
export const P256_VERIFY_ADDRESS = '0x0000000000000000000000000000000000000100' as const
/**
 * Genesis predeploys (src/node/predeploys.ts): every pcnode chain runs the factory's creation code at genesis
 * from this deployer (no known key) at nonce 0, so the factory is CREATE(deployer, 0) and the implementation
 * its constructor deploys is CREATE(factory, 1), the same on every chain id.
 */
export const PREDEPLOY_DEPLOYER_ADDRESS = '0x000000000000000000000000000000000000c0de' as const
/** PcnodeWalletFactory, predeployed in every pcnode genesis. */
export const WALLET_FACTORY_ADDRESS = '0x8bBC3514477d75EC797BBe4e19d7961660Bb849c' as const
/** The PcnodeSmartWallet implementation every wallet proxies to, predeployed by the factory's constructor. */
export const WALLET_IMPLEMENTATION_ADDRESS = '0xB19164d9c96c8C83f3aA4bDB1e1D14fA1F7124cA' as const
/** Order of the P-256 group. */
export const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n

/** ABI parameters of `abi.encode(SignatureWrapper)`. */
export const signatureWrapperParameters = [
  {
    type: 'tuple',
    components: [
      { name: 'ownerIndex', type: 'uint256' },
      { name: 'signatureData', type: 'bytes' },
    ],
  },
] as const

/** ABI parameters of `abi.encode(WebAuthnAuth)` (clientDataJSON is a `string`, ABI-identical to `bytes`). */
export const webAuthnAuthParameters = [
  {
    type: 'tuple',
    components: [
      { name: 'authenticatorData', type: 'bytes' },
      { name: 'clientDataJSON', type: 'string' },
      { name: 'challengeIndex', type: 'uint256' },
      { name: 'typeIndex', type: 'uint256' },
      { name: 'r', type: 'uint256' },
      { name: 's', type: 'uint256' },
    ],
  },
] as const

/** Owner bytes for an address (EOA or ERC-1271 contract): `abi.encode(address)`, 32 bytes. */
export function encodeAddressOwner(address: Address): Hex {
  return encodeAbiParameters([{ type: 'address' }], [address])
}

/** Owner bytes for a P-256 public key (passkey): `abi.encode(x, y)`, 64 bytes. */
export function encodePasskeyOwner(x: bigint | Hex, y: bigint | Hex): Hex {
  return encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [BigInt(x), BigInt(y)])
}

/** `abi.encode(SignatureWrapper{ownerIndex, signatureData})`, the `signature` argument of `isValidSignature`. */
export function wrapSignature({ ownerIndex, signatureData }: { ownerIndex: number | bigint; signatureData: Hex }): Hex {
  return encodeAbiParameters(signatureWrapperParameters, [{ ownerIndex: BigInt(ownerIndex), signatureData }])
}

export interface WebAuthnSignatureParts {
  /** Raw authenticator data: rpIdHash(32) ‖ flags(1) ‖ signCount(4) ‖ extensions. */
  authenticatorData: Hex
  /** The exact clientDataJSON string the authenticator signed. */
  clientDataJSON: string
  /** Index of `"challenge":"` in clientDataJSON (see `webAuthnIndices`). */
  challengeIndex: number | bigint
  /** Index of `"type":"webauthn.get"` in clientDataJSON. */
  typeIndex: number | bigint
  r: bigint
  s: bigint
}

/**
 * `abi.encode(WebAuthnAuth)`, the signatureData of a passkey owner. `s` is normalised to the low-s form
 * (the wallet rejects high s; (r, n − s) is the same signature).
 */
export function encodeWebAuthnSignature(parts: WebAuthnSignatureParts): Hex {
  const s = parts.s > P256_N / 2n ? P256_N - parts.s : parts.s
  return encodeAbiParameters(webAuthnAuthParameters, [
    {
      authenticatorData: parts.authenticatorData,
      clientDataJSON: parts.clientDataJSON,
      challengeIndex: BigInt(parts.challengeIndex),
      typeIndex: BigInt(parts.typeIndex),
      r: parts.r,
      s,
    },
  ])
}

/** Positions of `"challenge":` and `"type":` in a clientDataJSON string, as the wallet expects them. */
export function webAuthnIndices(clientDataJSON: string): { challengeIndex: number; typeIndex: number } {
  // Byte offsets: clientDataJSON is ASCII in practice, but count UTF-8 bytes to be exact.
  const byteIndex = (needle: string) => {
    const i = clientDataJSON.indexOf(needle)
    if (i < 0) throw new Error(`clientDataJSON has no ${needle}`)
    return (stringToHex(clientDataJSON.slice(0, i)).length - 2) / 2
  }
  return { challengeIndex: byteIndex('"challenge":'), typeIndex: byteIndex('"type":') }
}

/** The EIP-712 typed data behind a wallet's replay-safe hash (same as Coinbase Smart Wallet's). */
export function replaySafeTypedData({ address, chainId, hash }: { address: Address; chainId: number; hash: Hex }) {
  return {
    domain: { name: 'Coinbase Smart Wallet', version: '1', chainId, verifyingContract: address },
    types: { CoinbaseSmartWalletMessage: [{ name: 'hash', type: 'bytes32' }] },
    primaryType: 'CoinbaseSmartWalletMessage',
    message: { hash },
  } as const
}

/** The hash an owner signs so that wallet `address` on `chainId` accepts `hash` (`replaySafeHash(hash)`). */
export function replaySafeHash(parameters: { address: Address; chainId: number; hash: Hex }): Hex {
  return hashTypedData(replaySafeTypedData(parameters))
}

/** Calldata of `createAccount(owners, nonce)`: the factory data of an ERC-6492 wrapped signature. */
export function factoryData(owners: readonly Hex[], nonce: bigint | number = 0n): Hex {
  return encodeFunctionData({ abi: walletFactoryAbi, functionName: 'createAccount', args: [owners, BigInt(nonce)] })
}

/**
 * Counterfactual wallet address computed off-chain, the same as the factory's `getAddress(owners, nonce)`.
 * The factory's implementation is its first CREATE (account nonce 1), unless `implementation` is given.
 */
export function predictAccountAddress({
  factory,
  owners,
  nonce = 0n,
  implementation,
}: {
  factory: Address
  owners: readonly Hex[]
  nonce?: bigint | number
  implementation?: Address
}): Address {
  const impl = implementation ?? getContractAddress({ from: factory, nonce: 1n })
  const salt = keccak256(encodeAbiParameters([{ type: 'bytes[]' }, { type: 'uint256' }], [owners, BigInt(nonce)]))
  const bytecode = concat(['0x3d602d80600a3d3981f3363d3d373d3d3d363d73', impl, '0x5af43d82803e903d91602b57fd5bf3'])
  return getContractAddress({ opcode: 'CREATE2', from: factory, salt, bytecode })
}
