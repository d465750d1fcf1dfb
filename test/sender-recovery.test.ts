// Sender recovery on the worker thread: sends that arrive back to back are recovered off the main
// thread, and the answers (addresses, signature errors) are the ones inline recovery gives.
import { createCustomCommon, Mainnet } from '@ethereumjs/common'
import { createTxFromRLP } from '@ethereumjs/tx'
import { type Hex, hexToBytes, keccak256, parseGwei, serializeTransaction } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SenderRecovery } from '../src/node/sender-recovery.js'
import { startTestNode, type TestNode, waitForReceipt } from './helpers.js'

const CHAIN_ID = 31337
const KEYS: Hex[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
]

const transfer = (key: Hex, nonce: number) =>
  privateKeyToAccount(key).signTransaction({
    chainId: CHAIN_ID,
    type: 'eip1559',
    nonce,
    to: '0x000000000000000000000000000000000000dEaD',
    value: 1n,
    gas: 21000n,
    maxFeePerGas: parseGwei('10'),
    maxPriorityFeePerGas: parseGwei('1'),
  })

/** The same transfer with r = 0: it decodes, but no public key recovers from it. */
const unrecoverable = (nonce: number) =>
  serializeTransaction(
    {
      chainId: CHAIN_ID,
      type: 'eip1559',
      nonce,
      to: '0x000000000000000000000000000000000000dEaD',
      value: 1n,
      gas: 21000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: parseGwei('1'),
    },
    { r: '0x0', s: '0x1', yParity: 0 },
  )

describe('SenderRecovery', () => {
  const common = createCustomCommon({ chainId: CHAIN_ID }, Mainnet, { hardfork: 'prague' })
  const decode = (raw: Hex) => createTxFromRLP(hexToBytes(raw), { common, freeze: false })
  const keccak = (data: Uint8Array) => hexToBytes(keccak256(data))
  const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`
  let recovery: SenderRecovery
  beforeAll(() => {
    recovery = new SenderRecovery(keccak)
  })
  afterAll(() => recovery.close())

  it('recovers a burst on the worker thread with the same answers as inline recovery', async () => {
    const raws = await Promise.all(KEYS.flatMap((key) => [0, 1, 2, 3].map((nonce) => transfer(key, nonce))))
    const expected = KEYS.flatMap((key) => Array(4).fill(privateKeyToAccount(key).address.toLowerCase()))
    const txs = raws.map(decode)
    const got = await Promise.all(txs.map((tx) => recovery.sender(tx)))
    expect(got.map(hex)).toEqual(expected)
    // Back to back, so all but the first went to the worker.
    expect((recovery as unknown as { worker?: unknown }).worker).toBeDefined()
    // The public key cache is primed: execution does not recover again.
    for (const tx of txs)
      expect(hex(keccak(tx.cache.senderPubKey as Uint8Array).subarray(12))).toBe(hex(tx.getSenderAddress().bytes))
  })

  it('rejects an unrecoverable signature inside a burst and answers the others', async () => {
    const raws = [await transfer(KEYS[0], 7), unrecoverable(8), await transfer(KEYS[1], 7)]
    const results = await Promise.allSettled(raws.map((raw) => recovery.sender(decode(raw))))
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(((results[1] as PromiseRejectedResult).reason as Error).message).toMatch(/^Invalid Signature/)
    expect(hex((results[2] as PromiseFulfilledResult<Uint8Array>).value)).toBe(privateKeyToAccount(KEYS[1]).address.toLowerCase())
  })
})

describe('a burst of sends against a node', () => {
  let node: TestNode
  beforeAll(async () => {
    node = await startTestNode({ preconfInterval: 50, blockTime: 1000 })
  })
  afterAll(() => node.stop())

  it('accepts every send of a concurrent burst from several senders, and refuses the bad one', async () => {
    const raws = await Promise.all(KEYS.flatMap((key) => Array.from({ length: 20 }, (_, nonce) => transfer(key, nonce))))
    const bad = unrecoverable(0)
    const answers = await Promise.all([...raws, bad].map((raw) => node.rpc('eth_sendRawTransaction', [raw])))
    const badAnswer = answers.pop()
    expect(badAnswer?.error).toEqual({ code: -32000, message: 'invalid sender' })
    expect(answers.filter((a) => a.error)).toEqual([])
    const receipts = await Promise.all(answers.map((a) => waitForReceipt(node, a.result)))
    expect(receipts.map((r) => r.from.toLowerCase())).toEqual(
      KEYS.flatMap((key) => Array(20).fill(privateKeyToAccount(key).address.toLowerCase())),
    )
    expect(receipts.every((r) => r.status === 'success')).toBe(true)
  })
})
