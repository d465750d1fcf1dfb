// Sends while flashblocks execute. Admission reads the state cache between a flashblock's
// transactions instead of waiting in the serial queue; these tests hold it to what the queue gave:
// every send of a burst answered and recovered right, a state change queued ahead of a send seen
// by it, the wire bytes canonical, and readers seeing whole flashblocks only.
import { type Hex, hexToBytes, keccak256, parseGwei, serializeTransaction, toHex, toRlp } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { useTestNode, waitForReceipt } from './helpers.js'

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

describe('sends while flashblocks execute', () => {
  const node = useTestNode({ preconfInterval: 50, blockTime: 1000 })

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

  it('checks a send that follows anvil_setBalance in one batch against the new balance', async () => {
    const key = generatePrivateKey()
    const address = privateKeyToAccount(key).address
    // Read once, so the state cache knows the account (as empty): a send that overtook the
    // queued setBalance would be refused for insufficient funds.
    expect((await node.rpc('eth_getBalance', [address, 'pending'])).result).toBe('0x0')
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [address, toHex(10n ** 18n)] },
      { jsonrpc: '2.0', id: 2, method: 'eth_sendRawTransaction', params: [await transfer(key, 0)] },
    ]
    const { status, text } = await node.raw(JSON.stringify(batch))
    expect(status).toBe(200)
    const [setBalance, send] = JSON.parse(text)
    expect(setBalance.error).toBeUndefined()
    expect(send.error).toBeUndefined()
    expect((await waitForReceipt(node, send.result)).status).toBe('success')
  })

  it("refuses a typed transaction whose chain id has a leading zero byte, with geth's text", async () => {
    // [chainId, nonce, tip, maxFee, gas, to, value, data, accessList, yParity, r, s]; chain id 0x007a69.
    const fields = [
      '0x007a69',
      '0x',
      '0x3b9aca00',
      '0x02540be400',
      '0x5208',
      '0x000000000000000000000000000000000000dEaD',
      '0x01',
      '0x',
      [],
      '0x01',
      `0x${'11'.repeat(32)}`,
      `0x${'22'.repeat(32)}`,
    ]
    const raw = `0x02${toRlp(fields as Hex[]).slice(2)}`
    const res = await node.rpc('eth_sendRawTransaction', [raw])
    expect(res.error).toEqual({
      code: -32000,
      message: 'rlp: non-canonical integer (leading zero bytes) for *big.Int, decoding into (types.DynamicFeeTx).ChainID',
    })
  })

  it('shows readers whole flashblocks only, also between the slices of a long one', async () => {
    // The test runs in the node's process: it samples the pending block on every event-loop turn,
    // from before the first send until the last transaction is pre-confirmed.
    const { chain, events, engine } = node.node
    let announced = chain.pending?.txs.length ?? 0
    events.on('flashblock', ({ block }) => {
      announced = block.txs.length
    })
    const keys = node.accounts.slice(3, 9).map((a) => a.privateKey)
    const raws = await Promise.all(keys.flatMap((key) => Array.from({ length: 60 }, (_, nonce) => transfer(key, nonce))))
    const last = hexToBytes(keccak256(raws[raws.length - 1]))
    let samples = 0
    let whileExecuting = 0
    let torn = 0
    const sampling = (async () => {
      const deadline = Date.now() + 10_000
      while (!chain.getTx(last) && Date.now() < deadline) {
        await new Promise(setImmediate)
        const pending = chain.pending
        const txs = pending?.txs ?? []
        const tail = txs[txs.length - 1]
        // Exactly what the last announcement published: no transaction, receipt or gas of a
        // flashblock that is still executing.
        if (txs.length !== announced) torn++
        if (tail && (!chain.getTx(tail.tx.hash) || tail.receipt.cumulativeGasUsed !== pending?.header.gasUsed)) torn++
        samples++
        if (engine.queue.size > 0) whileExecuting++
      }
    })()
    const answers = await Promise.all(raws.map((raw) => node.rpc('eth_sendRawTransaction', [raw])))
    expect(answers.filter((a) => a.error)).toEqual([])
    await sampling
    expect(chain.getTx(last)).toBeDefined()
    // 360 transfers take tens of milliseconds to execute, yielding every 2 ms: the sampler must
    // have run between slices, or the test proves nothing.
    expect(whileExecuting).toBeGreaterThan(3)
    expect(samples).toBeGreaterThan(whileExecuting)
    expect(torn).toBe(0)
  })
})
