// eth_subscribe("transactionReceipts") (execution-apis, geth's eth/filters TransactionReceipts) over a
// raw `ws` client, in both profiles: one array per sealed block with transactions, equal to
// eth_getBlockReceipts; with {transactionHashes}, only those receipts; geth's refusals; cleanup.
import { type Hex, keccak256 } from 'viem'
import { describe, expect, it } from 'vitest'
import { openSocket, until, useTestNode, waitForSealed } from './helpers.js'

const OTHER = `0x${'ab'.repeat(32)}`

describe.each(['flashblocks', 'base', 'ethereum'])('transactionReceipts subscription (profile %s)', (profile) => {
  const node = useTestNode({ profile, blockTime: 400, preconfInterval: 100 })

  it('sends each sealed block its receipts, or the filtered ones', async () => {
    const events = node.node.events
    const blockListeners = events.listenerCount('block')
    const socket = await openSocket(node.wsUrl)
    const wallet = node.wallet(1)
    // Signed before subscribing, so the filter can name a transaction that is not sent yet.
    const request = await wallet.prepareTransactionRequest({ to: node.accounts[2].address, value: 5n })
    const signed = await wallet.signTransaction(request)
    const target = keccak256(signed)

    const all = await socket.subscribe(['transactionReceipts'])
    const empty = await socket.subscribe(['transactionReceipts', { transactionHashes: [] }])
    const filtered = await socket.subscribe(['transactionReceipts', { transactionHashes: [target, OTHER] }])
    const none = await socket.subscribe(['transactionReceipts', { transactionHashes: [OTHER] }])
    expect(all).toMatch(/^0x[0-9a-f]{32}$/)
    // One node listener for every subscription on the "block" event.
    expect(events.listenerCount('block')).toBe(blockListeners + 1)

    const sent: Hex[] = [await node.wallet(5).sendTransaction({ to: node.accounts[3].address, value: 1n })]
    sent.push(await node.publicClient.sendRawTransaction({ serializedTransaction: signed }))
    sent.push(await node.wallet(4).sendTransaction({ to: node.accounts[3].address, value: 2n }))
    expect(sent[1]).toBe(target)
    const last = await waitForSealed(node, sent[2])
    const covered = (items: any[]) =>
      sent.every((h) => items.some((list) => list.some((r: any) => r.transactionHash === h))) &&
      items.some((list) => BigInt(list[0].blockNumber) >= last.blockNumber)
    const got = [...(await socket.waitFor(all, covered, 'receipts of every sent transaction'))]

    for (const list of got) {
      expect(list.length).toBeGreaterThan(0)
      const { result } = await node.rpc('eth_getBlockReceipts', [list[0].blockNumber])
      expect(list).toEqual(result)
      expect(list.every((r: any) => r.blockHash === list[0].blockHash)).toBe(true)
    }
    const numbers = got.map((list) => BigInt(list[0].blockNumber))
    for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBeGreaterThan(numbers[i - 1])
    if (profile !== 'ethereum') {
      // Every OP block opens with its L1-info deposit: a notification per block, none skipped.
      for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBe(numbers[i - 1] + 1n)
      expect(got.every((list) => list[0].type === '0x7e')).toBe(true)
    }
    await socket.waitFor(empty, (items) => items.length >= got.length, 'the empty filter')
    expect(socket.received(empty).slice(0, got.length)).toEqual(got)

    // The filter: only the named transaction's receipt, once, as eth_getTransactionReceipt has it.
    const mine = await socket.waitFor(filtered, (items) => items.length > 0, 'the filtered receipt')
    expect(mine).toEqual([[(await node.rpc('eth_getTransactionReceipt', [target])).result]])

    // A request answered after the last block's notifications: nothing more arrived for the filters.
    await waitForSealed(node, await wallet.sendTransaction({ to: node.accounts[3].address, value: 3n }))
    await socket.waitFor(all, (items) => items.length > got.length, 'a later block')
    await socket.request('eth_blockNumber')
    expect(socket.received(filtered)).toHaveLength(1)
    expect(socket.received(none)).toEqual([])

    expect((await socket.request('eth_unsubscribe', [all])).result).toBe(true)
    expect((await socket.request('eth_unsubscribe', [all])).result).toBe(false)
    // Closing the connection drops its other subscriptions and the node listener.
    await socket.close()
    await until(() => events.listenerCount('block') === blockListeners, 5000, 'listener released')
  })

  it("refuses bad filters with geth's codes and texts", async () => {
    const socket = await openSocket(node.wsUrl)
    const bad = await socket.request('eth_subscribe', ['transactionReceipts', { transactionHashes: ['0x1234'] }])
    expect(bad.error).toEqual({
      code: -32602,
      message: 'invalid argument 1.transactionHashes[0]: hex string has length 4, want 64',
    })
    const notList = await socket.request('eth_subscribe', ['transactionReceipts', { transactionHashes: OTHER }])
    expect(notList.error.code).toBe(-32602)
    expect((await socket.request('eth_subscribe', ['transactionReceipts', 7])).error.code).toBe(-32602)
    const many = Array.from({ length: 201 }, (_, i) => `0x${i.toString(16).padStart(64, '0')}`)
    expect((await socket.request('eth_subscribe', ['transactionReceipts', { transactionHashes: many }])).error).toEqual({
      code: -32000,
      message: 'exceed max number of transaction hashes allowed per transactionReceipts subscription',
    })
    // geth's limit is inclusive; null means no filter.
    expect((await socket.request('eth_subscribe', ['transactionReceipts', { transactionHashes: many.slice(1) }])).result).toMatch(
      /^0x/,
    )
    expect((await socket.request('eth_subscribe', ['transactionReceipts', null])).result).toMatch(/^0x/)
    await socket.close()
    expect((await node.rpc('eth_subscribe', ['transactionReceipts'])).error).toEqual({
      code: -32601,
      message: 'notifications not supported',
    })
  })
})
