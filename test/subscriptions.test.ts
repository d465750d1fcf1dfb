// eth_subscribe over WebSocket with viem's webSocket transport: every kind delivers exactly the new
// items, once each and in order, across several sealed blocks; unsubscribe and disconnects clean up.
import { type Address, createPublicClient, type Hex, keccak256, numberToHex, type PublicClient, toHex, webSocket } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { emitterInitCode, PING, until, useTestNode, waitForSealed } from './helpers.js'

/** The ids of the subscriptions the node has confirmed to viem's WebSocket client. */
async function confirmedSubscriptions(client: PublicClient): Promise<Map<string, unknown>> {
  const socket = await (
    client.transport as unknown as { getRpcClient(): Promise<{ subscriptions: Map<string, unknown> }> }
  ).getRpcClient()
  return socket.subscriptions
}

describe('eth_subscribe over WebSocket', () => {
  const node = useTestNode({ blockTime: 400, preconfInterval: 50 })
  let client: PublicClient
  let emitter: Address
  let nodeListeners: number

  beforeAll(async () => {
    const events = node.node.events
    nodeListeners = events.listenerCount('flashblock') + events.listenerCount('block') + events.listenerCount('pendingTx')
    client = createPublicClient({ chain: node.chain, transport: webSocket(node.wsUrl, { retryCount: 0 }) }) as PublicClient
    const deploy = await node.wallet(0).sendTransaction({ data: emitterInitCode() })
    // Sealed, not just pre-confirmed: viem estimates gas at "latest" (it sends no block tag).
    const receipt = await waitForSealed(node, deploy)
    emitter = receipt.contractAddress as Address
  })

  it('delivers exactly the new items once, in order, across sealed blocks', async () => {
    const got: Record<string, any[]> = {}
    const errors: Error[] = []
    const subscribe = async (name: string, params: unknown[]) => {
      got[name] = []
      return (client.transport as any).subscribe({
        params,
        onData: (data: { result: unknown }) => got[name].push(data.result),
        onError: (error: Error) => errors.push(error),
      })
    }
    const subs = await Promise.all([
      subscribe('heads', ['newHeads']),
      subscribe('logs', ['logs', { address: emitter }]),
      subscribe('pendingHashes', ['newPendingTransactions']),
      subscribe('pendingFull', ['newPendingTransactions', true]),
      subscribe('flashBlocks', ['newFlashblocks']),
      subscribe('flashPayloads', ['newFlashblocks', { format: 'payload' }]),
      subscribe('flashHashes', ['newFlashblockTransactions']),
      subscribe('flashFull', ['newFlashblockTransactions', true]),
      subscribe('pendingLogs', ['pendingLogs', { address: emitter, topics: [PING] }]),
      subscribe('otherLogs', ['pendingLogs', { topics: [PING, numberToHex(1, { size: 32 })] }]),
    ])
    for (const s of subs) expect(s.subscriptionId).toMatch(/^0x[0-9a-f]{32}$/)
    expect(errors).toEqual([])

    // Three rounds, each waiting for its block to be sealed: the items span at least three blocks.
    const wallet = node.wallet(2)
    const hashes: Hex[] = []
    const payloads: Hex[] = []
    const blocks = new Set<bigint>()
    for (let round = 0; round < 3; round++) {
      const roundHashes: Hex[] = []
      for (let i = 0; i < 3; i++) {
        const data = toHex(`round ${round} tx ${i}`)
        payloads.push(data)
        roundHashes.push(await wallet.sendTransaction({ to: emitter, data }))
      }
      hashes.push(...roundHashes)
      blocks.add((await waitForSealed(node, roundHashes[roundHashes.length - 1])).blockNumber)
    }
    expect(blocks.size).toBeGreaterThanOrEqual(2)
    const lastBlock = [...blocks].sort((a, b) => Number(a - b)).at(-1) as bigint
    await until(() => got.heads.some((h) => BigInt(h.number) >= lastBlock) && got.logs.length >= hashes.length, 10_000, 'heads')

    // Pool entries and pre-confirmations: exactly our transactions, once, in order.
    expect(got.pendingHashes).toEqual(hashes)
    expect(got.pendingFull.map((t) => t.hash)).toEqual(hashes)
    expect(got.pendingFull[0].input).toBe(payloads[0])
    // Each block's flashblock 0 brings its L1-info deposit (index 0, as on Base); then ours.
    const deposits = got.flashFull.filter((t) => t.type === '0x7e')
    expect(deposits.length).toBeGreaterThanOrEqual(blocks.size)
    for (const d of deposits) {
      expect(d).toMatchObject({
        transactionIndex: '0x0',
        from: '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001',
        depositNonce: d.nonce,
      })
    }
    const depositHashes = new Set(deposits.map((d) => d.hash))
    expect(got.flashHashes.filter((h: Hex) => !depositHashes.has(h))).toEqual(hashes)
    const ours = got.flashFull.filter((t) => t.type !== '0x7e')
    expect(ours.map((t) => t.hash)).toEqual(hashes)
    for (const t of ours) {
      expect(t.blockHash).toBeNull()
      expect(t.status).toBe('0x1')
      expect(BigInt(t.transactionIndex)).toBeGreaterThan(0n)
      expect(t.logs).toHaveLength(1)
      expect(t.logs[0].transactionHash).toBe(t.hash)
      expect(BigInt(t.gasUsed)).toBeGreaterThan(21_000n)
      expect(BigInt(t.l1Fee)).toBeGreaterThan(0n) // the L1 data fee, on pre-confirmations too
      expect(t.cumulativeGasUsed).toMatch(/^0x/)
      expect(t.logsBloom).toMatch(/^0x[0-9a-f]{512}$/)
    }

    // Logs: one per notification; pre-confirmed ones with the zero block hash, sealed ones with the real one.
    expect(got.pendingLogs.map((l) => l.transactionHash)).toEqual(hashes)
    expect(got.pendingLogs.map((l) => l.data)).toEqual(payloads)
    for (const l of got.pendingLogs) expect(l.blockHash).toBe(`0x${'0'.repeat(64)}`)
    expect(got.otherLogs).toEqual([])
    expect(got.logs.map((l) => l.transactionHash)).toEqual(hashes)
    const headHash = new Map(got.heads.map((h) => [h.number, h.hash]))
    for (const l of got.logs) {
      expect(l.topics).toEqual([PING, `0x${'0'.repeat(24)}${wallet.account.address.slice(2).toLowerCase()}`])
      expect(l.blockHash).toBe(headHash.get(l.blockNumber))
    }

    // newHeads: consecutive, each once, geth's header shape, matching eth_getBlockByNumber.
    const numbers = got.heads.map((h) => Number(h.number))
    for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBe(numbers[i - 1] + 1)
    for (const h of got.heads.slice(0, 4)) {
      expect(h.transactions).toBeUndefined()
      const block = await node.rpc('eth_getBlockByNumber', [h.number, false])
      expect(block.result.hash).toBe(h.hash)
      expect(block.result.stateRoot).toBe(h.stateRoot)
    }

    // newFlashblocks (block objects): per block, indexes count up by one and the transactions grow
    // by exactly the new ones; together they are our transactions.
    const fromBlocks: Hex[] = []
    let previous: any
    for (const b of got.flashBlocks) {
      if (previous && previous.number === b.number) {
        expect(b.transactions.slice(0, previous.transactions.length)).toEqual(previous.transactions)
        fromBlocks.push(...b.transactions.slice(previous.transactions.length).map((t: any) => t.hash))
      } else {
        // A new block opens at flashblock 0 with its L1-info deposit only (the first one seen may be mid-block).
        if (previous) expect(b.transactions.map((t: any) => t.type)).toEqual(['0x7e'])
        fromBlocks.push(...b.transactions.map((t: any) => t.hash))
      }
      previous = b
    }
    expect(fromBlocks.filter((h) => hashes.includes(h))).toEqual(hashes)

    // newFlashblocks (payloads): base on index 0 only, the new transactions' raw bytes, and the
    // cumulative roots, which on the last flashblock of a block equal the sealed block's.
    const fromPayloads: Hex[] = []
    const lastPayload = new Map<number, any>()
    let prevPayload: any
    for (const p of got.flashPayloads) {
      expect(p.payload_id).toMatch(/^0x[0-9a-f]{16}$/)
      expect(Object.keys(p.diff).sort()).toEqual(
        [
          'blob_gas_used',
          'block_hash',
          'gas_used',
          'logs_bloom',
          'receipts_root',
          'state_root',
          'transactions',
          'withdrawals',
          'withdrawals_root',
        ].sort(),
      )
      if (p.index === 0) {
        expect(p.base.block_number).toBe(numberToHex(p.metadata.block_number))
        expect(p.diff.transactions.map((raw: Hex) => raw.slice(0, 4))).toEqual(['0x7e'])
      } else {
        expect(p.base).toBeUndefined()
        // The first payload seen may be mid-block; after that each block's indexes count up by one.
        if (prevPayload) {
          expect(p.index).toBe(prevPayload.index + 1)
          expect(p.payload_id).toBe(prevPayload.payload_id)
        }
      }
      const txHashes = p.diff.transactions.map((raw: Hex) => keccak256(raw))
      expect(Object.keys(p.metadata.receipts)).toEqual(txHashes)
      fromPayloads.push(...txHashes)
      lastPayload.set(p.metadata.block_number, p)
      prevPayload = p
    }
    expect(fromPayloads.filter((h) => hashes.includes(h))).toEqual(hashes)
    for (const n of blocks) {
      const sealed = (await node.rpc('eth_getBlockByNumber', [numberToHex(n), false])).result
      const p = lastPayload.get(Number(n))
      expect(p.diff.receipts_root).toBe(sealed.receiptsRoot)
      expect(p.diff.logs_bloom).toBe(sealed.logsBloom)
      expect(p.diff.state_root).toBe(sealed.stateRoot)
      expect(p.diff.gas_used).toBe(sealed.gasUsed)
    }

    // Unsubscribing stops a subscription; a second time answers false.
    for (const s of subs) expect((await s.unsubscribe()).result).toBe(true)
    const again = await (client.transport as any).subscribe({ params: ['newHeads'], onData: () => {} })
    expect((await again.unsubscribe()).result).toBe(true)
    expect((await again.unsubscribe()).result).toBe(false)
    const counts = Object.fromEntries(Object.entries(got).map(([k, v]) => [k, v.length]))
    // Once the block holding a new transaction is sealed, the node has announced it in every
    // form; a request answered afterwards on the same connection comes after any notification
    // the node would have sent.
    await waitForSealed(node, await wallet.sendTransaction({ to: emitter, data: '0x01' }))
    await client.getBlockNumber({ cacheTime: 0 })
    expect(Object.fromEntries(Object.entries(got).map(([k, v]) => [k, v.length]))).toEqual(counts)
  })

  it("feeds viem's watchBlocks and watchEvent", async () => {
    const blockListeners = node.node.events.listenerCount('block')
    const subscriptions = await confirmedSubscriptions(client)
    const before = subscriptions.size
    const blocks: bigint[] = []
    const logs: Hex[] = []
    const unwatchBlocks = client.watchBlocks({ onBlock: (b) => blocks.push(b.number as bigint) })
    const unwatchEvent = client.watchEvent({ address: emitter, onLogs: (l) => logs.push(...l.map((x) => x.transactionHash)) })
    // The node has answered both eth_subscribe calls with their ids: it has registered them. Both
    // kinds (newHeads, logs) feed on the node's "block" event, through one listener.
    await until(() => subscriptions.size === before + 2, 5000, 'both subscriptions')
    expect(node.node.events.listenerCount('block')).toBe(blockListeners + 1)
    const wallet = node.wallet(3)
    const sent = [
      await wallet.sendTransaction({ to: emitter, data: '0xaa' }),
      await wallet.sendTransaction({ to: emitter, data: '0xbb' }),
    ]
    const sealed = await waitForSealed(node, sent[1])
    await until(() => logs.length >= 2 && blocks.some((n) => n >= sealed.blockNumber), 5000, 'watchers')
    unwatchBlocks()
    unwatchEvent()
    expect(logs).toEqual(sent)
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]).toBe(blocks[i - 1] + 1n)
  })

  it('refuses subscriptions over HTTP and unknown kinds', async () => {
    const http = await node.rpc('eth_subscribe', ['newHeads'])
    expect(http.error).toEqual({ code: -32601, message: 'notifications not supported' })
    expect((await node.rpc('eth_unsubscribe', ['0x01'])).error.code).toBe(-32601)
    await expect((client.transport as any).subscribe({ params: ['bogus'], onData: () => {} })).rejects.toMatchObject({
      code: -32601,
      message: 'no "bogus" subscription in eth namespace',
    })
    await expect(
      (client.transport as any).subscribe({ params: ['newFlashblocks', { format: 'xml' }], onData: () => {} }),
    ).rejects.toMatchObject({ code: -32602 })
  })

  it('drops a closed connection and its subscriptions; idle connections cost no listener', async () => {
    const events = node.node.events
    const total = () => events.listenerCount('flashblock') + events.listenerCount('block') + events.listenerCount('pendingTx')
    // The earlier tests unsubscribed everything (viem's unwatch sends eth_unsubscribe on its own
    // time); what remains are the node's own listeners, counted before any subscription.
    await until(() => total() === nodeListeners, 5000, 'earlier subscriptions to end')
    const before = total()
    const flashBefore = events.listenerCount('flashblock')
    const ws = new WebSocket(node.wsUrl)
    await new Promise((resolve) => ws.once('open', resolve))
    const replies: any[] = []
    ws.on('message', (m) => replies.push(JSON.parse(String(m))))
    // A request with no subscription adds nothing.
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }))
    await until(() => replies.length === 1)
    expect(total()).toBe(before)
    for (const [i, kind] of ['newHeads', 'newFlashblocks', 'pendingLogs', 'newPendingTransactions'].entries()) {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 10 + i, method: 'eth_subscribe', params: [kind] }))
    }
    await until(() => replies.filter((r) => r.id >= 10).length === 4)
    // Each kind adds at most one node listener however many subscribe.
    expect(events.listenerCount('flashblock')).toBe(flashBefore + 1)
    // The first notification for an id always comes after the reply that carries it.
    const ids = new Set(replies.filter((r) => r.id >= 10).map((r) => r.result))
    await until(() => replies.some((r) => r.method === 'eth_subscription'), 5000, 'a notification')
    const firstNotification = replies.findIndex((r) => r.method === 'eth_subscription')
    const lastReply = replies.findLastIndex((r) => r.id >= 10)
    expect(firstNotification).toBeGreaterThan(lastReply)
    expect(ids.has(replies[firstNotification].params.subscription)).toBe(true)
    ws.terminate()
    await until(() => total() === before, 5000, 'listeners to be removed')
  })
})
