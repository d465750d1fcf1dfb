// ERC-7562 checks of an op at eth_sendUserOperation (skipped with --bundler-unsafe, as alto's and
// rundler's unsafe modes skip them): handleOps traced with RULES_TRACER, the first violation refused
// with -32502 naming the rule, the entity and what it did.
import { type Address, hexToBytes } from 'viem'
import type { CallRequest } from '../types.js'
import type { EntryPoint } from './entry-points.js'
import { OpcodeViolationError } from './errors.js'
import type { TraceCall } from './parts.js'
import { RULES_TRACER } from './rules-tracer.js'
import { authorizationsOf } from './simulate-bundle.js'
import { handleOpsData, paymasterOf, type UserOp } from './user-op.js'

export interface Violation {
  entity: 'account' | 'paymaster' | 'factory'
  rule: string
  what: string
}

export async function checkRules(trace: TraceCall, entryPoint: EntryPoint, ops: UserOp[], bundler: Address): Promise<void> {
  const op = ops.at(-1)
  if (!op) return
  const authorizationList = authorizationsOf(ops)
  const req: CallRequest = {
    from: hexToBytes(bundler),
    to: hexToBytes(entryPoint.address),
    data: hexToBytes(handleOpsData(entryPoint, ops, bundler)),
    ...(authorizationList.length > 0 ? { authorizationList } : {}),
  }
  const config = {
    entryPoint: entryPoint.address.toLowerCase(),
    sender: op.sender.toLowerCase(),
    paymaster: (paymasterOf(op) ?? '0x').toLowerCase(),
    senderCreator: entryPoint.senderCreator.toLowerCase(),
  }
  const result = (await trace(req, RULES_TRACER, config)) as { violations?: Violation[] }
  const first = result.violations?.[0]
  if (first) throw new OpcodeViolationError(`${first.entity} validation breaks ERC-7562 ${first.rule}: ${first.what}`)
}
