// eth_sendRawTransactionSync (EIP-7966 with Base's limits) and the transaction-status methods:
// the pre-confirmed receipt comes back within a flashblock; timeouts, over-long timeouts,
// rejections and sequencer drops each get their own answer; statuses follow the transaction.
import { createPublicClient, createWalletClient, type Hex, http, parseEther, zeroHash } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { pcnodeChain } from '../src/index.js'
import { type TestNode, until, useTestNode } from './helpers.js'

const GWEI = 1_000_000_000n

/** A signed EIP-1559 transfer from dev account `from` with an explicit nonce. */
async function signTransfer(node: TestNode, from: number, nonce: number, value = 1n, key?: Hex): Promise<Hex> {
  const account = privateKeyToAccount(key ?? node.accounts[from].privateKey)
  return account.signTransaction({
    chainId: node.chainId,
    type: 'eip1559',
    nonce,
    to: node.accounts[9].address,
    value,
    gas: 21_000n,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: GWEI,
  })
}

async function nonceOf(node: TestNode, index: number): Promise<number> {
  return Number((await node.rpc('eth_getTransactionCount', [node.accounts[index].address, 'pending'])).result)
}

describe('eth_sendRawTransactionSync on a pre-confirming node', () => {
  // A long block time: the answer must be the pre-confirmed receipt, not the sealed one.
  const node = useTestNode({ blockTime: 60_000, preconfInterval: 50 })

  it('returns the pre-confirmed receipt within a flashblock (viem action, JSON number and hex timeouts)', async () => {
    const wallet = node.wallet(0)
    const t0 = performance.now()
    const receipt = await wallet.sendRawTransactionSync({ serializedTransaction: await signTransfer(node, 0, 0) })
    expect(performance.now() - t0).toBeLessThan(3000) // far from the 60 s block: the pre-confirmed receipt
    expect(receipt.status).toBe('success')
    expect(receipt.blockHash).toBe(zeroHash)
    expect(receipt.blockNumber).toBe(1n)
    // Same shape as eth_getTransactionReceipt.
    const byHash = await node.rpc('eth_getTransactionReceipt', [receipt.transactionHash])
    const direct = await node.rpc('eth_sendRawTransactionSync', [await signTransfer(node, 0, 1), 2000])
    expect(Object.keys(direct.result).sort()).toEqual(Object.keys(byHash.result).sort())
    const hex = await node.rpc('eth_sendRawTransactionSync', [await signTransfer(node, 0, 2), '0x1770'])
    expect(hex.result.status).toBe('0x1')
    expect(hex.result.blockHash).toBe(zeroHash)
  })

  it('pcnodeChain: viem defaults to "pending" and sendTransactionSync\'s default timeout fits Base\'s maximum', async () => {
    const chain = pcnodeChain({ id: node.chainId, rpcUrl: node.rpcUrl, preconfInterval: 50 })
    expect(chain.experimental_preconfirmationTime).toBe(50)
    expect(chain.rpcUrls.default.webSocket).toEqual([node.wsUrl])
    expect(pcnodeChain().rpcUrls.default).toEqual({ http: ['http://127.0.0.1:8545'], webSocket: ['ws://127.0.0.1:8545'] })
    const client = createPublicClient({ chain, transport: http() })
    expect(client.experimental_blockTag).toBe('pending')
    const wallet = createWalletClient({ chain, transport: http(), account: privateKeyToAccount(node.accounts[5].privateKey) })
    // viem's timeout: 3 block times (6000 ms at the default 2 s), Base's maximum.
    const receipt = await wallet.sendTransactionSync({ to: node.accounts[9].address, value: 1n })
    expect(receipt.status).toBe('success')
    expect(receipt.blockHash).toBe(zeroHash)
    // The pre-confirmed balance is what the pending-tag client reads by default.
    expect(await client.getBalance({ address: node.accounts[9].address })).toBe(
      await node.publicClient.getBalance({ address: node.accounts[9].address, blockTag: 'pending' }),
    )
  })

  it('works over WebSocket too', async () => {
    const ws = new WebSocket(node.wsUrl)
    await new Promise((resolve) => ws.once('open', resolve))
    const reply = new Promise<any>((resolve) => ws.once('message', (m) => resolve(JSON.parse(String(m)))))
    ws.send(
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_sendRawTransactionSync', params: [await signTransfer(node, 1, 0)] }),
    )
    const { id, result } = await reply
    ws.close()
    expect(id).toBe(7)
    expect(result.status).toBe('0x1')
  })

  it('rejects a timeout above 6000 ms with -32602 and sends nothing', async () => {
    const nonce = await nonceOf(node, 2)
    const raw = await signTransfer(node, 2, nonce)
    const { error } = await node.rpc('eth_sendRawTransactionSync', [raw, 6001])
    expect(error).toEqual({ code: -32602, message: 'time out too long, timeout: 6001 ms, max: 6000 ms' })
    const hexError = (await node.rpc('eth_sendRawTransactionSync', [raw, '0x2710'])).error
    expect(hexError.message).toBe('time out too long, timeout: 10000 ms, max: 6000 ms')
    expect(await nonceOf(node, 2)).toBe(nonce)
    expect((await node.rpc('eth_sendRawTransactionSync', [raw, 'soon'])).error.code).toBe(-32602)
  })

  it("returns eth_sendRawTransaction's rejection at once", async () => {
    const t0 = performance.now()
    const { error } = await node.rpc('eth_sendRawTransactionSync', [await signTransfer(node, 0, 0, 2n)])
    expect(performance.now() - t0).toBeLessThan(3000) // not the 6 s default timeout
    expect(error.code).toBe(-32000)
    expect(error.message).toMatch(/^nonce too low/)
  })

  it('reports pending → preconfirmed → confirmed in pcnode_transactionStatus', async () => {
    const unknown = `0x${'ab'.repeat(32)}`
    expect((await node.rpc('pcnode_transactionStatus', [unknown])).result).toEqual({ status: 'unknown' })
    expect((await node.rpc('base_transactionStatus', [unknown])).result).toEqual({ status: 'Unknown' })
    const { result: receipt } = await node.rpc('eth_sendRawTransactionSync', [await signTransfer(node, 3, 0)])
    const hash = receipt.transactionHash
    const pre = (await node.rpc('pcnode_transactionStatus', [hash])).result
    expect(pre).toEqual({
      status: 'preconfirmed',
      blockNumber: receipt.blockNumber,
      flashblockIndex: expect.stringMatching(/^0x/),
      pooledAt: expect.any(Number),
      preconfirmedAt: expect.any(Number),
    })
    expect(Number(pre.flashblockIndex)).toBeGreaterThanOrEqual(1)
    // Each stage's wall-clock time, in the order they happened.
    expect(pre.pooledAt).toBeLessThanOrEqual(pre.preconfirmedAt)
    expect(Math.abs(pre.pooledAt - Date.now())).toBeLessThan(60_000)
    // Base's method only looks at the pool: a pre-confirmed transaction has left it.
    expect((await node.rpc('base_transactionStatus', [hash])).result).toEqual({ status: 'Unknown' })
    const sealed = await node.node.mine()
    const done = (await node.rpc('pcnode_transactionStatus', [hash])).result
    expect(done).toEqual({
      status: 'confirmed',
      blockNumber: receipt.blockNumber,
      flashblockIndex: pre.flashblockIndex,
      blockHash: `0x${Buffer.from(sealed.hash).toString('hex')}`,
      pooledAt: pre.pooledAt,
      preconfirmedAt: pre.preconfirmedAt,
      sealedAt: expect.any(Number),
    })
    expect(done.sealedAt).toBeGreaterThanOrEqual(pre.preconfirmedAt)
  })
})

describe('eth_sendRawTransactionSync without mining', () => {
  const node = useTestNode({ mining: false })

  it('times out with code 4, the hash in data and reth’s message; the transaction stays pending', async () => {
    const raw = await signTransfer(node, 0, 0)
    const t0 = performance.now()
    const { error } = await node.rpc('eth_sendRawTransactionSync', [raw, 300])
    const elapsed = performance.now() - t0
    expect(elapsed).toBeGreaterThanOrEqual(295)
    expect(elapsed).toBeLessThan(3000)
    expect(error.code).toBe(4)
    expect(error.data).toMatch(/^0x[0-9a-f]{64}$/)
    expect(error.message).toBe(`Transaction ${error.data} was added to the mempool but wasn't confirmed within 300ms.`)
    expect((await node.rpc('base_transactionStatus', [error.data])).result).toEqual({ status: 'Known' })
    expect((await node.rpc('pcnode_transactionStatus', [error.data])).result).toEqual({
      status: 'pending',
      pooledAt: expect.any(Number),
    })
    // Seconds are printed the way Rust's Duration Debug prints them.
    const second = (await node.rpc('eth_sendRawTransactionSync', [await signTransfer(node, 0, 1), 1500])).error
    expect(second.message).toBe(`Transaction ${second.data} was added to the mempool but wasn't confirmed within 1.5s.`)

    await node.node.mine()
    const status = (await node.rpc('pcnode_transactionStatus', [error.data])).result
    expect(status.status).toBe('confirmed')
    expect(status.blockNumber).toBe('0x1')
    expect((await node.rpc('base_transactionStatus', [error.data])).result).toEqual({ status: 'Unknown' })
  })

  it('fails at once when the sequencer drops the transaction', async () => {
    // A fresh account with 1 ETH; two transfers of 0.9 ETH each pass the pool's checks, the
    // second fails at execution and is dropped.
    const key = generatePrivateKey()
    const fresh = privateKeyToAccount(key)
    await node.wallet(1).sendTransaction({ to: fresh.address, value: parseEther('1') })
    await node.node.mine()
    const first = await signTransfer(node, 0, 0, parseEther('0.9'), key)
    const second = await signTransfer(node, 0, 1, parseEther('0.9'), key)
    expect((await node.rpc('eth_sendRawTransaction', [first])).result).toMatch(/^0x/)
    // The sync call waits on the node's "dropped" event: mine only once its waiter listens.
    const events = node.node.events
    const droppedListeners = events.listenerCount('dropped')
    const answer = node.rpc('eth_sendRawTransactionSync', [second, 5000])
    await until(() => events.listenerCount('dropped') === droppedListeners + 1, 5000, 'the sync waiter')
    const t0 = performance.now()
    await node.node.mine()
    const { error } = await answer
    expect(performance.now() - t0).toBeLessThan(3000) // not the 5 s timeout
    expect(error.code).toBe(-32000)
    expect(error.message).toMatch(/^transaction dropped by the sequencer: /)
    expect(error.data).toMatch(/^0x[0-9a-f]{64}$/)
  })
})
