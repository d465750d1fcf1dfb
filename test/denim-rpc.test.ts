// What a Denim chain (--profile base) serves over JSON-RPC, as base/base's RPC does after Denim:
// `timestampMs` on blocks, headers and newHeads; `blockTimestampMs` on mined transactions and on
// logs wherever logs appear, never on pending ones or at a receipt's top level; `pending` reads
// answering the latest block and state (the pending nonce counting the pool, reth's rule); the
// flashblock subscriptions accepted and silent; sync sends answering sealed receipts; eth_simulateV1
// timing blocks on the 200 ms schedule (base/base PR #5043).
import { encodeFunctionData, type Hex, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { emitterInitCode, openSocket, PING, poll, testClient, useTestNode, waitForSealed } from './helpers.js'

const msOf = (block: any) => BigInt(block.timestampMs)

describe('Denim RPC fields (profile base)', () => {
  const node = useTestNode({ profile: 'base' })

  it('puts timestampMs on blocks, headers and newHeads, and blockTimestampMs on every log', async () => {
    const socket = await openSocket(node.wsUrl)
    const heads = await socket.subscribe(['newHeads'])
    const logsSub = await socket.subscribe(['logs', {}])
    const receiptsSub = await socket.subscribe(['transactionReceipts'])
    const wallet = node.wallet(0)
    const deployed = await waitForSealed(node, await wallet.sendTransaction({ data: emitterInitCode() }))
    const emitter = deployed.contractAddress as Hex
    const filter = (await node.rpc('eth_newFilter', [{ address: emitter }])).result
    const hash = await wallet.sendTransaction({ to: emitter, data: '0x1234' })
    const sealed = await waitForSealed(node, hash)
    const block = (await node.rpc('eth_getBlockByNumber', [toHex(sealed.blockNumber), true])).result
    const ms = block.timestampMs
    expect(BigInt(block.timestamp)).toBe(msOf(block) / 1000n)

    const header = (await node.rpc('eth_getHeaderByNumber', [block.number])).result
    expect(header.timestampMs).toBe(ms)
    expect((await node.rpc('eth_getHeaderByHash', [block.hash])).result.timestampMs).toBe(ms)
    const head = (await socket.waitFor(heads, (items) => items.some((h) => h.hash === block.hash))).find(
      (h) => h.hash === block.hash,
    )
    expect(head.timestampMs).toBe(ms)

    // Mined transactions: by hash, by block and index, nested in the block.
    const tx = (await node.rpc('eth_getTransactionByHash', [hash])).result
    expect(tx.blockTimestampMs).toBe(ms)
    expect(
      (await node.rpc('eth_getTransactionByBlockNumberAndIndex', [block.number, tx.transactionIndex])).result.blockTimestampMs,
    ).toBe(ms)
    expect(block.transactions.every((t: any) => t.blockTimestampMs === ms)).toBe(true)

    // Logs: in receipts (not at the receipt's top level), eth_getLogs, filters, block receipts, subscriptions.
    const receipt = (await node.rpc('eth_getTransactionReceipt', [hash])).result
    expect(receipt.logs[0].topics[0]).toBe(PING)
    expect(receipt.logs[0].blockTimestampMs).toBe(ms)
    expect('blockTimestampMs' in receipt).toBe(false)
    const logs = (await node.rpc('eth_getLogs', [{ address: emitter, fromBlock: block.number, toBlock: block.number }])).result
    expect(logs.map((l: any) => l.blockTimestampMs)).toEqual([ms])
    expect((await node.rpc('eth_getFilterChanges', [filter])).result.map((l: any) => l.blockTimestampMs)).toEqual([ms])
    expect((await node.rpc('eth_getFilterLogs', [filter])).result.map((l: any) => l.blockTimestampMs)).toEqual([ms])
    const blockReceipts = (await node.rpc('eth_getBlockReceipts', [block.number])).result
    expect(blockReceipts.find((r: any) => r.transactionHash === hash).logs[0].blockTimestampMs).toBe(ms)
    const pushed = await socket.waitFor(logsSub, (items) => items.some((l) => l.transactionHash === hash))
    expect(pushed.find((l) => l.transactionHash === hash).blockTimestampMs).toBe(ms)
    const lists = await socket.waitFor(receiptsSub, (items) =>
      items.some((list) => list.some((r: any) => r.transactionHash === hash)),
    )
    const pushedReceipt = lists.flat().find((r: any) => r.transactionHash === hash)
    expect(pushedReceipt.logs[0].blockTimestampMs).toBe(ms)
    // Every Denim block has its two deposits, so every block gets a receipts notification.
    const numbers = lists.map((list) => BigInt(list[0].blockNumber))
    for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBe(numbers[i - 1] + 1n)
    await socket.close()
  })

  it('leaves blockTimestampMs off pending transactions', async () => {
    const wallet = node.wallet(7)
    const nonce = await node.publicClient.getTransactionCount({ address: wallet.account.address })
    // A nonce gap: it stays queued, never mined while the gap is open.
    const queued = await wallet.sendTransaction({ to: node.accounts[1].address, value: 1n, nonce: nonce + 5 })
    const tx = (await node.rpc('eth_getTransactionByHash', [queued])).result
    expect(tx.blockHash).toBeNull()
    expect('blockTimestampMs' in tx).toBe(false)
  })

  it('accepts the flashblock subscriptions and sends them nothing', async () => {
    const socket = await openSocket(node.wsUrl)
    const silent = [
      await socket.subscribe(['newFlashblocks']),
      await socket.subscribe(['newFlashblockTransactions']),
      await socket.subscribe(['pendingLogs', {}]),
    ]
    const heads = await socket.subscribe(['newHeads'])
    const deployed = await waitForSealed(node, await node.wallet(2).sendTransaction({ data: emitterInitCode() }))
    const hash = await node.wallet(2).sendTransaction({ to: deployed.contractAddress as Hex, data: '0x01' })
    const sealed = await waitForSealed(node, hash)
    await socket.waitFor(heads, (items) => items.some((h) => BigInt(h.number) > sealed.blockNumber), 'a later head')
    await socket.request('eth_blockNumber')
    for (const id of silent) expect(socket.received(id)).toEqual([])
    await socket.close()
  })

  it('has no flashblock stream for the pre-confirmation faults to restart', async () => {
    const { error } = await node.rpc('pcnode_restartFlashblocks', [])
    expect(error).toEqual({
      code: -32000,
      message: 'no flashblock stream to restart: Denim blocks (profile base) are built whole as they seal',
    })
  })

  it('answers eth_sendRawTransactionSync with the sealed receipt', async () => {
    const wallet = node.wallet(3)
    const request = await wallet.prepareTransactionRequest({ to: node.accounts[4].address, value: 9n })
    const raw = await wallet.signTransaction(request)
    const { result } = await node.rpc('eth_sendRawTransactionSync', [raw])
    expect(result.status).toBe('0x1')
    const canonical = (await node.rpc('eth_getBlockByNumber', [result.blockNumber, false])).result
    expect(result.blockHash).toBe(canonical.hash)
    expect(result.logs).toEqual([])
  })
})

describe('pending on a Denim chain (profile base, mining off)', () => {
  const node = useTestNode({ profile: 'base', mining: false })

  it('reads the latest block and state; the pending nonce counts the pool', async () => {
    const test = testClient(node)
    await test.mine({ blocks: 2 })
    const wallet = node.wallet(1)
    const address = wallet.account.address
    await wallet.sendTransaction({ to: node.accounts[2].address, value: 10n ** 18n })
    const pending = (await node.rpc('eth_getBlockByNumber', ['pending', false])).result
    const latest = (await node.rpc('eth_getBlockByNumber', ['latest', false])).result
    expect(pending.number).toBe(latest.number)
    expect(pending.hash).toBe(latest.hash)
    expect(await node.publicClient.getBalance({ address, blockTag: 'pending' })).toBe(
      await node.publicClient.getBalance({ address, blockTag: 'latest' }),
    )
    expect(await node.publicClient.getTransactionCount({ address, blockTag: 'latest' })).toBe(0)
    expect(await node.publicClient.getTransactionCount({ address, blockTag: 'pending' })).toBe(1)
    await test.mine({ blocks: 1 })
    expect(await node.publicClient.getTransactionCount({ address, blockTag: 'pending' })).toBe(1)
    expect(await node.publicClient.getTransactionCount({ address, blockTag: 'latest' })).toBe(1)
    // A nonce used again: geth's text and the nonce to use, with no pre-confirmations to blame.
    const again = await node.rpc('eth_sendTransaction', [{ from: address, to: address, nonce: '0x0' }])
    expect(again.error).toEqual({ code: -32000, message: 'nonce too low: next nonce 1, tx nonce 0; pending nonce 1' })
  })

  it('times simulated blocks on the 200 ms schedule and accepts equal seconds', async () => {
    await testClient(node).mine({ blocks: 1 })
    const base = (await node.rpc('eth_getBlockByNumber', ['latest', false])).result
    const number = BigInt(base.number)
    const baseMs = msOf(base)
    const simulate = (blocks: unknown[]) => node.rpc('eth_simulateV1', [{ blockStateCalls: blocks }, base.number])
    const six = await simulate(Array.from({ length: 6 }, () => ({ calls: [] })))
    let prev = BigInt(base.timestamp)
    for (const [i, b] of six.result.entries()) {
      const n = number + 1n + BigInt(i)
      const scheduled = (baseMs + (n - number) * 200n) / 1000n
      const expected = scheduled > prev ? scheduled : prev
      expect([BigInt(b.number), BigInt(b.timestamp)]).toEqual([n, expected])
      prev = expected
    }
    const T = BigInt(base.timestamp)
    for (const t of [T, T + 1n]) {
      const same = await simulate([{ blockOverrides: { time: toHex(t) } }, { blockOverrides: { time: toHex(t) } }])
      expect(same.result.map((b: any) => BigInt(b.timestamp))).toEqual([t, t])
    }
    const before = await simulate([{ blockOverrides: { time: toHex(T - 1n) } }])
    expect(before.error.code).toBe(-38021)
    // A call in a simulated block sees that block's time.
    const call = await simulate([{ calls: [{ to: '0x4200000000000000000000000000000000000030', data: '0x54fd4d50' }] }])
    expect(call.result[0].calls[0].status).toBe('0x1')
  })
})

describe('no pre-confirmations to wait for (profile base)', () => {
  const node = useTestNode({ profile: 'base' })

  it('serves a receipt only once its block is sealed', async () => {
    const wallet = node.wallet(5)
    const hash = await wallet.sendTransaction({
      to: node.accounts[6].address,
      data: encodeFunctionData({ abi: [{ type: 'function', name: 'f', inputs: [], outputs: [] }], functionName: 'f' }),
    })
    const first = await poll(() => node.rpc('eth_getTransactionReceipt', [hash]).then((r) => r.result ?? undefined), undefined, {
      intervalMs: 2,
      what: 'the receipt',
    })
    const canonical = (await node.rpc('eth_getBlockByNumber', [first.blockNumber, false])).result
    expect(first.blockHash).toBe(canonical.hash)
    // pcnode's status: confirmed in its block, with no flashblock index (Denim blocks have none).
    expect((await node.rpc('pcnode_transactionStatus', [hash])).result).toEqual({
      status: 'confirmed',
      blockNumber: first.blockNumber,
      blockHash: canonical.hash,
      pooledAt: expect.any(Number),
      sealedAt: expect.any(Number),
    })
  })
})
