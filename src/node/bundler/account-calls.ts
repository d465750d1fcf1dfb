// The calls the EntryPoint makes to an op's account and paymaster (IAccount, IPaymaster, IAccountExecute
// of ERC-4337 v0.6 and v0.7+), encoded so the estimator can make them itself, one at a time.
import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi, size, slice } from 'viem'
import type { EntryPoint } from './entry-points.js'
import { packed, type UserOp } from './user-op.js'

const PACKED =
  'struct Op { address sender; uint256 nonce; bytes initCode; bytes callData; bytes32 accountGasLimits; uint256 preVerificationGas; bytes32 gasFees; bytes paymasterAndData; bytes signature; }'
const UNPACKED =
  'struct Op { address sender; uint256 nonce; bytes initCode; bytes callData; uint256 callGasLimit; uint256 verificationGasLimit; uint256 preVerificationGas; uint256 maxFeePerGas; uint256 maxPriorityFeePerGas; bytes paymasterAndData; bytes signature; }'

const v07 = parseAbi([
  PACKED,
  'function validateUserOp(Op userOp, bytes32 userOpHash, uint256 missingAccountFunds) returns (uint256)',
  'function validatePaymasterUserOp(Op userOp, bytes32 userOpHash, uint256 maxCost) returns (bytes context, uint256 validationData)',
  'function postOp(uint8 mode, bytes context, uint256 actualGasCost, uint256 actualUserOpFeePerGas)',
  'function executeUserOp(Op userOp, bytes32 userOpHash)',
])
const v06 = parseAbi([
  UNPACKED,
  'function validateUserOp(Op userOp, bytes32 userOpHash, uint256 missingAccountFunds) returns (uint256)',
  'function validatePaymasterUserOp(Op userOp, bytes32 userOpHash, uint256 maxCost) returns (bytes context, uint256 validationData)',
  'function postOp(uint8 mode, bytes context, uint256 actualGasCost)',
])

/** IAccountExecute.executeUserOp's selector: callData opening with it gets the whole op (v0.7+). */
const EXECUTE_USER_OP = '0x8dd7712f'

type AnyOp = Parameters<typeof encodeFunctionData<typeof v07, 'validateUserOp'>>[0]['args'][0]

export function validateUserOpData(entryPoint: EntryPoint, op: UserOp, hash: Hex, missingFunds: bigint): Hex {
  const abi = entryPoint.version === '0.6' ? v06 : v07
  return encodeFunctionData({ abi, functionName: 'validateUserOp', args: [packed(entryPoint, op) as AnyOp, hash, missingFunds] })
}

export function validatePaymasterData(entryPoint: EntryPoint, op: UserOp, hash: Hex, maxCost: bigint): Hex {
  const abi = entryPoint.version === '0.6' ? v06 : v07
  return encodeFunctionData({
    abi,
    functionName: 'validatePaymasterUserOp',
    args: [packed(entryPoint, op) as AnyOp, hash, maxCost],
  })
}

/** postOp(opSucceeded, context, …): what the EntryPoint calls after the op's call when the paymaster returned a context. */
export function postOpData(entryPoint: EntryPoint, context: Hex, actualGasCost: bigint, feePerGas: bigint): Hex {
  if (entryPoint.version === '0.6')
    return encodeFunctionData({ abi: v06, functionName: 'postOp', args: [0, context, actualGasCost] })
  return encodeFunctionData({ abi: v07, functionName: 'postOp', args: [0, context, actualGasCost, feePerGas] })
}

/** The data the EntryPoint calls the account with to run the op's callData. */
export function executionData(entryPoint: EntryPoint, op: UserOp, hash: Hex): Hex {
  if (entryPoint.version !== '0.6' && size(op.callData) >= 4 && slice(op.callData, 0, 4) === EXECUTE_USER_OP) {
    return encodeFunctionData({ abi: v07, functionName: 'executeUserOp', args: [packed(entryPoint, op) as AnyOp, hash] })
  }
  return op.callData
}

/** The paymaster's context out of validatePaymasterUserOp's return data ('0x' when it is not that). */
export function paymasterContext(returnData: Hex): Hex {
  try {
    const [context] = decodeFunctionResult({ abi: v07, functionName: 'validatePaymasterUserOp', data: returnData })
    return context
  } catch {
    return '0x'
  }
}
