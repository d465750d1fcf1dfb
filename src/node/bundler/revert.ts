// What the EntryPoint's revert data says of an op: FailedOp(opIndex, reason) and
// FailedOpWithRevert(opIndex, reason, inner) (v0.7+), as the error class ERC-7769 gives the AA code.
import { decodeErrorResult, type Hex, toHex } from 'viem'
import type { EntryPoint } from './entry-points.js'
import { PaymasterRejectedError, SignatureRejectedError, UserOpRejectedError } from './errors.js'

export interface FailedOp {
  index: number
  /** "AA23 reverted", "AA24 signature error", …; with the inner revert's reason after it when decodable. */
  reason: string
}

/** The FailedOp in `data` (handleOps' revert), or undefined when the revert is something else. */
export function decodeFailedOp(entryPoint: EntryPoint, data: Uint8Array | Hex): FailedOp | undefined {
  try {
    const { errorName, args } = decodeErrorResult({ abi: entryPoint.abi, data: typeof data === 'string' ? data : toHex(data) })
    if (errorName !== 'FailedOp' && errorName !== 'FailedOpWithRevert') return undefined
    const [index, reason, inner] = args as readonly [bigint, string, Hex?]
    return { index: Number(index), reason: inner && inner !== '0x' ? `${reason}: ${innerReason(inner)}` : reason }
  } catch {
    return undefined
  }
}

/** The inner revert's Error(string) text, or its raw bytes. */
function innerReason(data: Hex): string {
  try {
    const { errorName, args } = decodeErrorResult({ data })
    return errorName === 'Error' ? String(args?.[0]) : `${errorName}(${(args ?? []).join(', ')})`
  } catch {
    return data
  }
}

/** The error an op refused with `reason` gets: the signature codes, the paymaster's, or the account's. */
export function refusal(reason: string): Error {
  const code = reason.slice(0, 4)
  if (code === 'AA24' || code === 'AA34') return new SignatureRejectedError(reason)
  if (code.startsWith('AA3')) return new PaymasterRejectedError(reason)
  return new UserOpRejectedError(reason)
}
