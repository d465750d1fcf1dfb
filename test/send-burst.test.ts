// A concurrent burst of sends while flashblocks execute: admission reads the state cache between
// the flashblock's transactions, so every send is answered, each sender is recovered right, and a
// bad signature in the middle of the burst is refused alone.
import { type Hex, parseGwei, serializeTransaction } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestNode, type TestNode, waitForReceipt } from './helpers.js'

const transferTo = (nonce: number) =>
  ({
    chainId: 31337,
    type: 'eip1559',
    nonce,
    to: '0x000000000000000000000000000000000000dEaD',
    value: 1n,
    gas: 21000n,
    maxFeePerGas: parseGwei('10'),
    maxPriorityFeePerGas: parseGwei('1'),
  }) as const

const transfer = (key: Hex, nonce: number) => privateKeyToAccount(key).signTransaction(transferTo(nonce))

/** The same transfer with r = 0: it decodes, but no public key recovers from it. */
const unrecoverable = (nonce: number) => serializeTransaction(transferTo(nonce), { r: '0x0', s: '0x1', yParity: 0 })

describe('a burst of sends against a node', () => {
  let node: TestNode
  beforeAll(async () => {
    node = await startTestNode({ preconfInterval: 50, blockTime: 1000 })
  })
  afterAll(() => node.stop())

  it('accepts every send of a concurrent burst from several senders, and refuses the bad one', async () => {
    const keys = node.accounts.slice(0, 3).map((a) => a.privateKey)
    const raws = await Promise.all(keys.flatMap((key) => Array.from({ length: 20 }, (_, nonce) => transfer(key, nonce))))
    const bad = unrecoverable(0)
    const answers = await Promise.all([...raws, bad].map((raw) => node.rpc('eth_sendRawTransaction', [raw])))
    const badAnswer = answers.pop()
    expect(badAnswer?.error).toEqual({ code: -32000, message: 'invalid sender' })
    expect(answers.filter((a) => a.error)).toEqual([])
    const receipts = await Promise.all(answers.map((a) => waitForReceipt(node, a.result)))
    expect(receipts.map((r) => r.from.toLowerCase())).toEqual(
      keys.flatMap((key) => Array(20).fill(privateKeyToAccount(key).address.toLowerCase())),
    )
    expect(receipts.every((r) => r.status === 'success')).toBe(true)
  })
})
