// Atomic bundles through ERC-7821 (minimal batch executor): when the sender's account runs code that
// answers `supportsExecutionMode` for the plain batch mode (an EOA that delegated, by EIP-7702, to an
// ERC-7821 implementation of its own choosing), the calls go out as one transaction from the account
// to itself, `execute(mode, abi.encode(calls))`, which runs them all or reverts them all. The node
// brings no contract of its own: an account without such code gets the calls one transaction each.
import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from 'viem'
import { encodeExecuteData } from 'viem/experimental/erc7821'
import type { CallRequest } from '../types.js'

/** ERC-7579's mode for a single batch that reverts on any failure, with no `opData` (ERC-7821). */
const BATCH_MODE = `0x01${'00'.repeat(31)}` as Hex
const abi = parseAbi(['function supportsExecutionMode(bytes32 mode) view returns (bool)'])

const hex = (bytes: Uint8Array | undefined): Hex => `0x${Buffer.from(bytes ?? []).toString('hex')}`
const bytes = (value: Hex) => Uint8Array.from(Buffer.from(value.slice(2), 'hex'))

/** The eth_call asking `account` whether it runs ERC-7821 batches. */
export function supportsBatchRequest(account: Uint8Array): CallRequest {
  const data = encodeFunctionData({ abi, functionName: 'supportsExecutionMode', args: [BATCH_MODE] })
  return { from: account, to: account, data: bytes(data) }
}

/** Whether that eth_call's output says yes; anything else (no code, another answer) is no. */
export function saysSupported(output: Uint8Array): boolean {
  try {
    return decodeFunctionResult({ abi, functionName: 'supportsExecutionMode', data: hex(output) }) === true
  } catch {
    return false
  }
}

/** Whether ERC-7821 can carry `calls`: each needs a `to` (it has no creation). */
export function batchable(calls: CallRequest[]): boolean {
  return calls.every((c) => c.to !== undefined)
}

/** The one transaction that runs `calls` atomically: the account calls its own `execute`. */
export function executeRequest(account: Uint8Array, calls: CallRequest[]): CallRequest {
  const data = encodeExecuteData({
    calls: calls.map((c) => ({ to: hex(c.to), value: c.value ?? 0n, data: hex(c.data) })),
  })
  return { from: account, to: account, data: bytes(data) }
}
