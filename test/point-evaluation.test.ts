// The point-evaluation precompile (0x0a, EIP-4844) with the engine's real KZG: a valid opening
// answers FIELD_ELEMENTS_PER_BLOB and the BLS modulus, a bad one fails that call only (an error for
// eth_call, a failed receipt for a transaction), and the node serves on.
import { concat, type Hex, pad, sha256, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { useTestNode, waitForReceipt } from './helpers.js'

const PRECOMPILE = '0x000000000000000000000000000000000000000a'
/** The commitment and proof of the zero polynomial: the point at infinity, compressed. */
const INFINITY: Hex = `0xc0${'00'.repeat(47)}`
const versionedHash = (commitment: Hex): Hex => concat(['0x01', `0x${sha256(commitment).slice(4)}`])
/** versioned hash ‖ z ‖ y ‖ commitment ‖ proof: p(z) = 0 for the zero polynomial. */
const OPENING = concat([versionedHash(INFINITY), pad('0x2a'), pad('0x00'), INFINITY, INFINITY])
const EXPECTED = concat([
  pad(toHex(4096)),
  pad(toHex(52435875175126190479447740508185965837690552500527637822603658699938581184513n)),
])

describe('the point-evaluation precompile', () => {
  const node = useTestNode()

  it('verifies an opening in eth_call and in a transaction', async () => {
    const { result, error } = await node.rpc('eth_call', [{ to: PRECOMPILE, data: OPENING }, 'latest'])
    expect(error).toBeUndefined()
    expect(result).toBe(EXPECTED)
    const hash = await node.wallet(0).sendTransaction({ to: PRECOMPILE, data: OPENING, gas: 100_000n })
    expect((await waitForReceipt(node, hash)).status).toBe('success')
  })

  it('fails a wrong opening without an internal error, and keeps serving', async () => {
    const wrong = concat([versionedHash(INFINITY), pad('0x2a'), pad('0x01'), INFINITY, INFINITY])
    const { error } = await node.rpc('eth_call', [{ to: PRECOMPILE, data: wrong }, 'latest'])
    expect(error.code).toBe(-32000)
    const hash = await node.wallet(0).sendTransaction({ to: PRECOMPILE, data: wrong, gas: 100_000n })
    expect((await waitForReceipt(node, hash)).status).toBe('reverted')
    expect((await node.rpc('eth_blockNumber')).result).toMatch(/^0x/)
  })
})
