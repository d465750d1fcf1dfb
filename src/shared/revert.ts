// Revert data in words: the reason inside Error(string) and Panic(uint256) revert bytes, as geth
// words them. Shared by the node (error messages) and the CLI (simulation tables).
import { decodeAbiParameters } from 'viem'

const ERROR_SELECTOR = '08c379a0'
const PANIC_SELECTOR = '4e487b71'

// Solidity panic codes, worded as geth's abi.UnpackRevert words them.
const PANICS: Record<number, string> = {
  0: 'generic panic',
  1: 'assert(false)',
  17: 'arithmetic underflow or overflow',
  18: 'division or modulo by zero',
  33: 'enum overflow',
  34: 'invalid encoded storage byte array accessed',
  49: 'out-of-bounds array access; popping on an empty array',
  50: 'out-of-bounds access of an array or bytesN',
  65: 'out of memory',
  81: 'uninitialized function',
}

/** The human reason inside revert data (Error(string) or Panic(uint256)), if it is one. */
export function decodeRevertReason(output: Uint8Array): string | undefined {
  if (output.length < 4) return undefined
  const selector = Buffer.from(output.subarray(0, 4)).toString('hex')
  const body = `0x${Buffer.from(output.subarray(4)).toString('hex')}` as const
  try {
    if (selector === ERROR_SELECTOR) return decodeAbiParameters([{ type: 'string' }], body)[0]
    if (selector === PANIC_SELECTOR) {
      const code = Number(decodeAbiParameters([{ type: 'uint256' }], body)[0])
      return PANICS[code] ?? `unknown panic code: 0x${code.toString(16)}`
    }
  } catch {
    return undefined
  }
  return undefined
}
