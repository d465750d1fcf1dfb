// ERC-7562 checks of an op at eth_sendUserOperation (skipped with --bundler-unsafe, as alto's and
// rundler's unsafe modes skip them): handleOps traced once with the node's native erc7562Tracer, which
// gives both the EntryPoint's verdict (its FailedOp) and what the validation did; the rules are then
// checked over it (rules-check.ts) and the first one broken is refused with -32502 naming it.
import { type Address, hexToBytes } from 'viem'
import type { Erc7562Frame } from '../tracing/erc7562-tracer.js'
import type { CallRequest } from '../types.js'
import type { EntryPoint } from './entry-points.js'
import { OpcodeViolationError } from './errors.js'
import type { TraceCall } from './parts.js'
import { decodeFailedOp, type FailedOp } from './revert.js'
import { Associations } from './rules-associations.js'
import { findViolation } from './rules-check.js'
import type { StakedEntities, Violation } from './rules-types.js'
import { authorizationsOf } from './simulate-bundle.js'
import { storageTouched } from './storage-touched.js'
import { factoryCall, handleOpsData, paymasterOf, type UserOp } from './user-op.js'

export type { StakedEntities, Violation } from './rules-types.js'

/**
 * handleOps traced: the op the EntryPoint refused (FailedOp), else the first rule broken, and the
 * contracts whose storage the op's validation touched (STO-041, checked at bundling).
 */
export async function checkRules(
  trace: TraceCall,
  entryPoint: EntryPoint,
  ops: UserOp[],
  bundler: Address,
  staked?: StakedEntities,
): Promise<{ failure?: FailedOp; violation?: Violation; touched?: string[] }> {
  const op = ops.at(-1)
  if (!op) return {}
  const authorizationList = authorizationsOf(ops)
  const req: CallRequest = {
    from: hexToBytes(bundler),
    to: hexToBytes(entryPoint.address),
    data: hexToBytes(handleOpsData(entryPoint, ops, bundler)),
    ...(authorizationList.length > 0 ? { authorizationList } : {}),
  }
  // withLog: the BeforeExecution event's position among the EntryPoint's calls ends the validation.
  const top = (await trace(req, 'erc7562Tracer', { withLog: true })) as Erc7562Frame
  if (top.error !== undefined) {
    const failure = decodeFailedOp(entryPoint, (top.output ?? '0x') as `0x${string}`) ?? {
      index: -1,
      reason: `handleOps reverted: ${top.output ?? top.error}`,
    }
    return { failure }
  }
  const factory = factoryCall(op)?.factory
  const touched = storageTouched(top, {
    entryPoint: entryPoint.address.toLowerCase(),
    sender: op.sender.toLowerCase(),
    senderCreator: entryPoint.senderCreator.toLowerCase(),
    paymaster: paymasterOf(op)?.toLowerCase(),
  })
  const violation = findViolation(top, {
    entryPoint: entryPoint.address.toLowerCase(),
    senderCreator: entryPoint.senderCreator.toLowerCase(),
    sender: op.sender.toLowerCase(),
    factory: factory?.toLowerCase(),
    paymaster: paymasterOf(op)?.toLowerCase(),
    creating: factory !== undefined,
    staked: staked ?? {},
    associations: new Associations(top.keccak ?? []),
  })
  return { violation, touched }
}

/** The -32502 refusal of a broken rule. */
export function violationError(v: Violation): OpcodeViolationError {
  return new OpcodeViolationError(`${v.entity} validation breaks ERC-7562 ${v.rule}: ${v.what}`)
}
