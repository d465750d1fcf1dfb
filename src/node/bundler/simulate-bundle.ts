// A bundle checked before it is sent, and an op checked before it is accepted: handleOps run as an
// eth_call from the bundler's account on the pre-confirmed state, the simplest route that is exactly
// what the bundle will do. The EntryPoint names the op it refuses and why (FailedOp, AA codes).
import { type Address, type Hex, hexToBytes } from 'viem'
import { RevertError } from '../errors.js'
import type { Authorization, StateOverrides } from '../types.js'
import type { EntryPoint } from './entry-points.js'
import type { BundlerParts } from './parts.js'
import { decodeFailedOp, type FailedOp } from './revert.js'
import { bundleGas, handleOpsData, type UserOp } from './user-op.js'

/** The EIP-7702 authorizations the ops carry, as the bundle transaction's authorizationList. */
export function authorizationsOf(ops: UserOp[]): Authorization[] {
  return ops.flatMap((op) => {
    const a = op.authorization
    if (!a) return []
    return [
      {
        chainId: BigInt(a.chainId),
        address: hexToBytes(a.address),
        nonce: BigInt(a.nonce),
        yParity: BigInt(a.yParity ?? (a.v !== undefined ? Number(a.v) - 27 : 0)),
        r: BigInt(a.r),
        s: BigInt(a.s),
      },
    ]
  })
}

/** Gas the bundle transaction carries beyond its ops' limits: the transaction, the loop, the beneficiary. */
const BUNDLE_OVERHEAD = 100_000n
/** EIP-7702: what a transaction pays per authorization it carries (PER_EMPTY_ACCOUNT_COST). */
export const PER_AUTHORIZATION = 25_000n

/** The bundle transaction's gas limit: its overhead and authorizations, and each op's limits, at most `cap`. */
export function bundleGasLimit(entryPoint: EntryPoint, ops: UserOp[], cap: bigint): bigint {
  let gas = BUNDLE_OVERHEAD + PER_AUTHORIZATION * BigInt(authorizationsOf(ops).length)
  for (const op of ops) gas += bundleGas(entryPoint, op)
  return gas > cap ? cap : gas
}

/**
 * handleOps(ops) as the bundler would send it (with `gas`, the bundle's own limit, so an op that
 * would run out in the bundle fails here): undefined when it runs, else the op it fails on (-1: not
 * an op's fault).
 */
export async function simulateBundle(
  parts: BundlerParts,
  entryPoint: EntryPoint,
  ops: UserOp[],
  bundler: Address,
  overrides?: StateOverrides,
  gas?: bigint,
): Promise<FailedOp | undefined> {
  const data: Hex = handleOpsData(entryPoint, ops, bundler)
  const authorizationList = authorizationsOf(ops)
  try {
    await parts.call(
      {
        from: hexToBytes(bundler),
        to: hexToBytes(entryPoint.address),
        data: hexToBytes(data),
        ...(gas !== undefined ? { gas } : {}),
        ...(authorizationList.length > 0 ? { authorizationList } : {}),
      },
      overrides,
    )
    return undefined
  } catch (error) {
    if (error instanceof RevertError) {
      return decodeFailedOp(entryPoint, error.output) ?? { index: -1, reason: `handleOps reverted: ${error.message}` }
    }
    return { index: -1, reason: `handleOps failed: ${(error as Error).message}` }
  }
}
