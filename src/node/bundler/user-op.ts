// A user operation as the bundler holds it (viem's UserOperation: bigints and hex), and what the
// EntryPoint makes of it: the packed form handleOps takes (v0.6 unpacked, v0.7+ PackedUserOperation),
// the handleOps calldata, the hash the EntryPoint signs over, the factory and paymaster it names.
import { type Address, encodeFunctionData, type Hex, isAddressEqual, size, slice } from 'viem'
import { getUserOperationHash, toPackedUserOperation, type UserOperation } from 'viem/account-abstraction'
import type { EntryPoint } from './entry-points.js'

export type UserOp = UserOperation

/** EntryPoint v0.8's initCode marker for an EIP-7702 account (Eip7702Support.sol INITCODE_EIP7702_MARKER). */
const EIP7702_MARKER = '0x7702'
const EIP7702_MARKER_PADDED = '0x7702000000000000000000000000000000000000'

/** The op as handleOps' `ops[]` element for `entryPoint`'s version. */
export function packed(entryPoint: EntryPoint, op: UserOp) {
  if (entryPoint.version !== '0.6') return toPackedUserOperation(op)
  return {
    sender: op.sender,
    nonce: op.nonce,
    initCode: op.initCode ?? '0x',
    callData: op.callData,
    callGasLimit: op.callGasLimit,
    verificationGasLimit: op.verificationGasLimit,
    preVerificationGas: op.preVerificationGas,
    maxFeePerGas: op.maxFeePerGas,
    maxPriorityFeePerGas: op.maxPriorityFeePerGas,
    paymasterAndData: op.paymasterAndData ?? '0x',
    signature: op.signature,
  }
}

/** handleOps(ops, beneficiary) calldata. */
export function handleOpsData(entryPoint: EntryPoint, ops: UserOp[], beneficiary: Address): Hex {
  return encodeFunctionData({
    abi: entryPoint.abi,
    functionName: 'handleOps',
    args: [ops.map((op) => packed(entryPoint, op)), beneficiary],
  })
}

/** The hash the EntryPoint computes for `op` (getUserOpHash; v0.8 EIP-712, with the 7702 delegate). */
export function userOpHash(chainId: bigint, entryPoint: EntryPoint, op: UserOp): Hex {
  return getUserOperationHash({
    chainId: Number(chainId),
    entryPointAddress: entryPoint.address,
    entryPointVersion: entryPoint.version,
    userOperation: op,
  })
}

/** Whether `op` is an EIP-7702 account's op carrying the marker instead of a factory (v0.8: the marker, zero-padded to 20 bytes, opens initCode). */
export function isEip7702(op: UserOp): boolean {
  const factory = (op.factory ?? op.initCode ?? '0x').toLowerCase()
  return factory === EIP7702_MARKER || factory.startsWith(EIP7702_MARKER_PADDED)
}

/** The factory call that deploys the sender, as the SenderCreator makes it; none for a deployed or 7702 sender. */
export function factoryCall(op: UserOp): { factory: Address; data: Hex } | undefined {
  if (isEip7702(op)) return undefined
  if (op.factory) return { factory: op.factory, data: op.factoryData ?? '0x' }
  if (op.initCode && size(op.initCode) >= 20) return { factory: slice(op.initCode, 0, 20), data: slice(op.initCode, 20) }
  return undefined
}

/** The paymaster the op names, if any. */
export function paymasterOf(op: UserOp): Address | undefined {
  if (op.paymaster) return op.paymaster
  if (op.paymasterAndData && size(op.paymasterAndData) >= 20) return slice(op.paymasterAndData, 0, 20)
  return undefined
}

/** All the gas the op may use: what its prefund covers, and the bundle's gas budget for it. */
export function gasLimitSum(op: UserOp): bigint {
  return (
    op.preVerificationGas +
    op.verificationGasLimit +
    op.callGasLimit +
    (op.paymasterVerificationGasLimit ?? 0n) +
    (op.paymasterPostOpGasLimit ?? 0n)
  )
}

/**
 * The gas a bundle must carry for the op. EntryPoint v0.6 runs the op's call only if, after validation,
 * gasleft() still covers callGasLimit + verificationGasLimit (its postOp budget) + 5000, else the whole
 * bundle reverts with AA95 (EntryPoint.sol innerHandleOp); v0.7 and later have no such check.
 */
export function bundleGas(entryPoint: EntryPoint, op: UserOp): bigint {
  return gasLimitSum(op) + (entryPoint.version === '0.6' ? op.verificationGasLimit + 5_000n : 0n)
}

/** Same sender and same nonce (key and sequence): the second replaces the first. */
export function sameSlot(a: UserOp, b: UserOp): boolean {
  return isAddressEqual(a.sender, b.sender) && a.nonce === b.nonce
}

/** The op's nonce key (the upper 192 bits): ops of one sender are ordered per key. */
export function nonceKey(op: UserOp): bigint {
  return op.nonce >> 64n
}
