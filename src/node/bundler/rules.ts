// ERC-7562 checks of an op at eth_sendUserOperation (skipped with --bundler-unsafe, as alto's and
// rundler's unsafe modes skip them): handleOps traced once with RULES_TRACER, which gives both the
// EntryPoint's verdict (its FailedOp) and the first rule broken (refused with -32502 naming it).
import { type Address, type Hex, hexToBytes } from 'viem'
import type { CallRequest } from '../types.js'
import type { EntryPoint } from './entry-points.js'
import { OpcodeViolationError } from './errors.js'
import type { TraceCall } from './parts.js'
import { decodeFailedOp, type FailedOp } from './revert.js'
import { RULES_TRACER } from './rules-tracer.js'
import { authorizationsOf } from './simulate-bundle.js'
import { handleOpsData, paymasterOf, type UserOp } from './user-op.js'

/** Which of the op's entities meet the bundler's stake minimums (ERC-7562 grants staked entities exemptions). */
export interface StakedEntities {
  account?: boolean
  paymaster?: boolean
  factory?: boolean
}

export interface Violation {
  entity: 'account' | 'paymaster' | 'factory'
  rule: string
  what: string
}

/** handleOps traced: the op the EntryPoint refused (FailedOp), else the first rule broken, else nothing. */
export async function checkRules(
  trace: TraceCall,
  entryPoint: EntryPoint,
  ops: UserOp[],
  bundler: Address,
  _staked?: StakedEntities,
): Promise<{ failure?: FailedOp; violation?: Violation }> {
  const op = ops.at(-1)
  if (!op) return {}
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
  const result = (await trace(req, RULES_TRACER, config)) as { violations?: Violation[]; output?: Hex; failed?: boolean }
  if (result.failed) {
    const failure = decodeFailedOp(entryPoint, result.output ?? '0x') ?? {
      index: -1,
      reason: `handleOps reverted: ${result.output}`,
    }
    return { failure }
  }
  return { violation: result.violations?.[0] }
}

/** The -32502 refusal of a broken rule. */
export function violationError(v: Violation): OpcodeViolationError {
  return new OpcodeViolationError(`${v.entity} validation breaks ERC-7562 ${v.rule}: ${v.what}`)
}
