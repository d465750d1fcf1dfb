// ERC-7562 STO-040, a local rule of the mempool: an address that is the sender of one waiting op may not
// be the factory or paymaster of another, nor the other way round (so one op's validation cannot change
// what another's reads). Refused with -32502 in the reference bundler's words, which the spec tests match.
import { type Address, isAddressEqual } from 'viem'
import { OpcodeViolationError } from './errors.js'
import type { OpRecord } from './mempool.js'
import { factoryCall, paymasterOf, type UserOp } from './user-op.js'

function others(op: UserOp): Array<{ role: 'factory' | 'paymaster'; address: Address }> {
  const out: Array<{ role: 'factory' | 'paymaster'; address: Address }> = []
  const factory = factoryCall(op)?.factory
  if (factory) out.push({ role: 'factory', address: factory })
  const paymaster = paymasterOf(op)
  if (paymaster) out.push({ role: 'paymaster', address: paymaster })
  return out
}

/** Throws when `op` and a waiting op give one address both roles. */
export function checkRoles(op: UserOp, waiting: OpRecord[]): void {
  if (waiting.some((r) => others(r.op).some((e) => isAddressEqual(e.address, op.sender)))) {
    throw new OpcodeViolationError(
      `ERC-7562 STO-040: the sender address ${op.sender} is used as a different entity in another UserOperation currently in mempool`,
    )
  }
  for (const { role, address } of others(op)) {
    if (waiting.some((r) => isAddressEqual(r.op.sender, address))) {
      throw new OpcodeViolationError(
        `ERC-7562 STO-040: the ${role} ${address} in this UserOperation is used as a sender entity in another UserOperation currently in mempool`,
      )
    }
  }
}
