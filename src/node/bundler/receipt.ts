// A user operation's outcome read from its bundle's receipt (ERC-4337 eth_getUserOperationReceipt):
// the EntryPoint's UserOperationEvent for its hash, the revert reason event, and the logs the op made
// (those after the previous op's event, or after BeforeExecution, up to its own event).
import { decodeEventLog, type Hex, isAddressEqual, toHex } from 'viem'
import type { IncludedTx } from '../types.js'
import type { EntryPoint } from './entry-points.js'

export interface UserOpOutcome {
  included: IncludedTx
  sender: Hex
  nonce: bigint
  paymaster: Hex
  actualGasCost: bigint
  actualGasUsed: bigint
  success: boolean
  /** The call's revert data (UserOperationRevertReason), when it reverted. */
  reason?: Hex
  /** Indexes into the receipt's logs of the logs this op made. */
  logIndexes: number[]
}

interface Decoded {
  eventName: string
  args: Record<string, unknown>
}

function decode(entryPoint: EntryPoint, topics: Uint8Array[], data: Uint8Array): Decoded | undefined {
  try {
    const [first, ...rest] = topics.map((t) => toHex(t))
    if (!first) return undefined
    return decodeEventLog({ abi: entryPoint.abi, topics: [first, ...rest], data: toHex(data) }) as unknown as Decoded
  } catch {
    return undefined
  }
}

/** The op `hash`'s outcome in the bundle `included`, if its event is there. */
export function outcomeIn(entryPoint: EntryPoint, hash: Hex, included: IncludedTx): UserOpOutcome | undefined {
  const logs = included.receipt.logs
  let start = 0
  let reason: Hex | undefined
  for (const [i, log] of logs.entries()) {
    if (!isAddressEqual(toHex(log.address), entryPoint.address)) continue
    const event = decode(entryPoint, log.topics, log.data)
    if (!event) continue
    if (event.eventName === 'BeforeExecution') start = i + 1
    if (event.eventName === 'UserOperationRevertReason' && event.args.userOpHash === hash) reason = event.args.revertReason as Hex
    if (event.eventName !== 'UserOperationEvent') continue
    if (event.args.userOpHash !== hash) {
      start = i + 1
      continue
    }
    const mine = logs
      .map((l, j) => ({ l, j }))
      .filter(
        ({ l, j }) =>
          j >= start &&
          j < i &&
          !(
            isAddressEqual(toHex(l.address), entryPoint.address) &&
            decode(entryPoint, l.topics, l.data)?.eventName === 'UserOperationRevertReason'
          ),
      )
      .map(({ j }) => j)
    return {
      included,
      sender: event.args.sender as Hex,
      nonce: event.args.nonce as bigint,
      paymaster: event.args.paymaster as Hex,
      actualGasCost: event.args.actualGasCost as bigint,
      actualGasUsed: event.args.actualGasUsed as bigint,
      success: event.args.success as boolean,
      reason,
      logIndexes: mine,
    }
  }
  return undefined
}
