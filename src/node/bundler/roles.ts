// ERC-7562's local rules between waiting ops, so one op's validation cannot change what another's reads.
// STO-040: an address that is the sender of one waiting op may not be the factory or paymaster of another,
// nor the other way round; refused with -32502 in the reference bundler's words, which the spec tests
// match. STO-041: an op whose validation used storage in a contract that is the sender of another waiting
// op stays out of the bundle (and waits, as the spec tests expect) until that op has left the mempool.
import { type Address, isAddressEqual } from 'viem'
import { OpcodeViolationError } from './errors.js'
import type { OpRecord } from './mempool.js'
import { factoryCall, nonceKey, paymasterOf, type UserOp } from './user-op.js'

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

/** STO-041: the waiting ops (in bundling order) a bundle leaves out, with the later nonces of their sender and key. */
export function heldByStorage(waiting: OpRecord[]): Set<OpRecord> {
  const senders = new Set(waiting.map((r) => r.op.sender.toLowerCase()))
  const held = new Set<OpRecord>()
  const heldGroups = new Set<string>()
  for (const r of waiting) {
    const group = `${r.op.sender.toLowerCase()}:${nonceKey(r.op)}`
    if (heldGroups.has(group) || r.touched?.some((address) => senders.has(address))) {
      held.add(r)
      heldGroups.add(group)
    }
  }
  return held
}
