// Whether an op's account names a signature aggregator: the address in the low 160 bits of the
// validationData its validateUserOp returns (0 is "valid", 1 "signature failed", anything else an
// aggregator; ERC-4337 in every EntryPoint version). handleOps only says "AA24 signature error" for
// both a failed signature and an aggregator, so on AA24 the account's validation is run once more on its
// own, as the EntryPoint calls it, to tell them apart. This bundler does not aggregate (-32506).
import { type Address, getAddress, type Hex, hexToBytes, toHex } from 'viem'
import type { CallRequest } from '../types.js'
import { validateUserOpData } from './account-calls.js'
import type { EntryPoint } from './entry-points.js'
import { senderOverrides } from './estimate.js'
import type { BundlerParts } from './parts.js'
import { factoryCall, type UserOp, userOpHash } from './user-op.js'

const ADDRESS_MASK = (1n << 160n) - 1n

/** The aggregator the op's account returns from validateUserOp, if it names one. */
export async function aggregatorOf(parts: BundlerParts, entryPoint: EntryPoint, op: UserOp): Promise<Address | undefined> {
  const ep = hexToBytes(entryPoint.address)
  const calls: CallRequest[] = []
  const deploy = factoryCall(op)
  if (deploy) {
    calls.push({ from: hexToBytes(entryPoint.senderCreator), to: hexToBytes(deploy.factory), data: hexToBytes(deploy.data) })
  }
  const hash = userOpHash(parts.chainId, entryPoint, op)
  calls.push({ from: ep, to: hexToBytes(op.sender), data: hexToBytes(validateUserOpData(entryPoint, op, hash, 0n)) })
  const results = await parts.simulate(calls, senderOverrides(op))
  const validation = results.at(-1)
  if (validation?.status !== 1 || validation.returnData.length !== 32) return undefined
  const aggregator = BigInt(toHex(validation.returnData) as Hex) & ADDRESS_MASK
  return aggregator > 1n ? getAddress(toHex(aggregator, { size: 20 })) : undefined
}
