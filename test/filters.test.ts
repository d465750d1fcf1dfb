// Polling filters over HTTP (what viem's watch* actions use without a WebSocket), their expiry,
// and eth_getLogs up to "pending" including pre-confirmed logs.
import { type Address, type Hex, toHex, zeroHash } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { PubSub } from '../src/rpc/pubsub/index.js'
import { emitterInitCode, PING, until, useTestNode, waitForReceipt, waitForSealed } from './helpers.js'

describe('filters over HTTP', () => {
  const node = useTestNode({ blockTime: 400, preconfInterval: 50 })
  let emitter: Address
  beforeAll(async () => {
    const deploy = await node.wallet(0).sendTransaction({ data: emitterInitCode(), gas: 200_000n })
    emitter = (await waitForSealed(node, deploy)).contractAddress as Address
  })

  it('block filter: each new sealed block hash once, in order', async () => {
    const { result: id } = await node.rpc('eth_newBlockFilter')
    expect(id).toMatch(/^0x[0-9a-f]{32}$/)
    const start = Number((await node.rpc('eth_blockNumber')).result)
    await until(async () => Number((await node.rpc('eth_blockNumber')).result) >= start + 2, 5000, 'two blocks')
    const first: Hex[] = (await node.rpc('eth_getFilterChanges', [id])).result
    await until(async () => Number((await node.rpc('eth_blockNumber')).result) >= start + 3, 5000, 'a third block')
    const second: Hex[] = (await node.rpc('eth_getFilterChanges', [id])).result
    const all = [...first, ...second]
    expect(all.length).toBeGreaterThanOrEqual(3)
    expect(new Set(all).size).toBe(all.length)
    const numbers: number[] = []
    for (const hash of all) numbers.push(Number((await node.rpc('eth_getBlockByHash', [hash, false])).result.number))
    for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBe(numbers[i - 1] + 1)
    expect((await node.rpc('eth_uninstallFilter', [id])).result).toBe(true)
  })

  it('pending-transaction and log filters: exactly the new items; getFilterLogs; uninstall', async () => {
    const pendingId = (await node.rpc('eth_newPendingTransactionFilter')).result
    const logId = (await node.rpc('eth_newFilter', [{ address: emitter, topics: [PING] }])).result
    const otherId = (await node.rpc('eth_newFilter', [{ address: node.accounts[5].address }])).result
    const wallet = node.wallet(1)
    const hashes: Hex[] = []
    for (let i = 0; i < 3; i++)
      hashes.push(await wallet.sendTransaction({ to: emitter, data: toHex(`filter ${i}`), gas: 60_000n }))
    expect((await node.rpc('eth_getFilterChanges', [pendingId])).result).toEqual(hashes)
    expect((await node.rpc('eth_getFilterChanges', [pendingId])).result).toEqual([])

    // Log filters see sealed blocks (as geth's), so the logs come with their real block hash.
    const sealed = await waitForSealed(node, hashes[2])
    const logs: any[] = []
    await until(
      async () => {
        logs.push(...(await node.rpc('eth_getFilterChanges', [logId])).result)
        return logs.length >= hashes.length
      },
      5000,
      'the three logs',
    )
    expect(logs.map((l: any) => l.transactionHash)).toEqual(hashes)
    expect(logs[2].blockHash).toBe(sealed.blockHash)
    expect(logs.map((l: any) => l.data)).toEqual([0, 1, 2].map((i) => toHex(`filter ${i}`)))
    expect((await node.rpc('eth_getFilterChanges', [logId])).result).toEqual([])
    expect((await node.rpc('eth_getFilterChanges', [otherId])).result).toEqual([])

    const ranged = (await node.rpc('eth_newFilter', [{ address: emitter, fromBlock: '0x0' }])).result
    const filterLogs = (await node.rpc('eth_getFilterLogs', [ranged])).result
    expect(filterLogs.map((l: any) => l.transactionHash)).toEqual(hashes)

    for (const id of [pendingId, logId, otherId, ranged]) expect((await node.rpc('eth_uninstallFilter', [id])).result).toBe(true)
    expect((await node.rpc('eth_uninstallFilter', [logId])).result).toBe(false)
    expect((await node.rpc('eth_getFilterChanges', [logId])).error).toEqual({ code: -32000, message: 'filter not found' })
    expect((await node.rpc('eth_getFilterLogs', [`0x${'12'.repeat(16)}`])).error).toEqual({
      code: -32000,
      message: 'filter not found',
    })
    const blockFilter = (await node.rpc('eth_newBlockFilter')).result
    expect((await node.rpc('eth_getFilterLogs', [blockFilter])).error.message).toBe('filter not found')
    expect((await node.rpc('eth_uninstallFilter', [blockFilter])).result).toBe(true)
  })

  it("feeds viem's polling watchEvent, watchPendingTransactions and watchBlockNumber", async () => {
    const logs: Hex[] = []
    const pending: Hex[] = []
    const blocks: bigint[] = []
    const client = node.publicClient
    // Filters attach a node listener while installed: a log filter on "block", a pending one on
    // "pendingTx" (the earlier tests uninstalled theirs).
    const events = node.node.events
    const blockListeners = events.listenerCount('block')
    const pendingListeners = events.listenerCount('pendingTx')
    const start = BigInt((await node.rpc('eth_blockNumber')).result)
    const unwatch = [
      client.watchEvent({ address: emitter, poll: true, onLogs: (l) => logs.push(...l.map((x) => x.transactionHash as Hex)) }),
      client.watchPendingTransactions({ poll: true, onTransactions: (h) => pending.push(...h) }),
      client.watchBlockNumber({ poll: true, emitMissed: true, onBlockNumber: (n) => blocks.push(n) }),
    ]
    await until(
      () => events.listenerCount('block') === blockListeners + 1 && events.listenerCount('pendingTx') === pendingListeners + 1,
      5000,
      "viem's filters to be installed",
    )
    const wallet = node.wallet(2)
    const hashes = [
      await wallet.sendTransaction({ to: emitter, data: '0x01', gas: 60_000n }),
      await wallet.sendTransaction({ to: emitter, data: '0x02', gas: 60_000n }),
    ]
    const sealed = await waitForSealed(node, hashes[1])
    await until(() => logs.length >= 2 && pending.length >= 2 && (blocks.at(-1) ?? -1n) >= sealed.blockNumber, 5000, 'watchers')
    for (const stop of unwatch) stop()
    expect(logs).toEqual(hashes)
    expect(pending).toEqual(hashes)
    // Every block number from the first poll on, once and in order, up to the transactions' block.
    expect(blocks[0]).toBeGreaterThanOrEqual(start)
    expect(blocks).toEqual(Array.from({ length: blocks.length }, (_, i) => blocks[0] + BigInt(i)))
    expect(blocks).toContain(sealed.blockNumber)
  })

  it('expires filters nobody polls (geth: 5 minutes; here shortened)', async () => {
    const pubsub = new PubSub(node.node, { filterTimeoutMs: 500 })
    const hub = pubsub.filters
    // The head and the filter in one synchronous step: no block can fall between them.
    const start = node.node.blockNumber()
    const polled = hub.newFilter('blocks')
    const idle = hub.newFilter('pendingTransactions')
    const expired = () => {
      try {
        hub.filterChanges(idle)
        return false
      } catch (error) {
        expect((error as Error).message).toBe('filter not found')
        return true
      }
    }
    // Poll one filter (every 10 ms, far inside its lifetime) until the other one has expired and
    // two blocks have been sealed meanwhile.
    const seen: unknown[] = []
    await until(
      () => {
        seen.push(...hub.filterChanges(polled))
        return node.node.blockNumber() >= start + 2n && expired()
      },
      10_000,
      'the idle filter to expire',
    )
    seen.push(...hub.filterChanges(polled))
    const end = node.node.blockNumber()
    // The polled filter lived on: it holds the hash of every block sealed since it was installed.
    const sealedMeanwhile: Hex[] = []
    for (let n = start + 1n; n <= end; n++)
      sealedMeanwhile.push((await node.rpc('eth_getBlockByNumber', [toHex(n), false])).result.hash)
    expect(seen).toEqual(sealedMeanwhile)
    expect(hub.uninstallFilter(polled)).toBe(true)
    expect(pubsub.size).toEqual({ subscriptions: 0, filters: 0, waiters: 0 })
  })
})

describe('eth_getLogs up to "pending"', () => {
  // Nothing is sealed during the test: the logs exist only as pre-confirmed ones.
  const node = useTestNode({ blockTime: 60_000, preconfInterval: 50 })

  it('includes pre-confirmed logs when toBlock is "pending", and only then', async () => {
    const wallet = node.wallet(0)
    const deploy = await wallet.sendTransaction({ data: emitterInitCode(), gas: 200_000n })
    const emitter = (await waitForReceipt(node, deploy)).contractAddress as Address
    const call = await wallet.sendTransaction({ to: emitter, data: '0xc0ffee', gas: 60_000n })
    await waitForReceipt(node, call)
    const pending = (await node.rpc('eth_getLogs', [{ address: emitter, toBlock: 'pending' }])).result
    expect(pending).toHaveLength(1)
    expect(pending[0]).toMatchObject({ transactionHash: call, data: '0xc0ffee', blockHash: zeroHash, blockNumber: '0x1' })
    const fromGenesis = (await node.rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'pending', topics: [PING] }])).result
    expect(fromGenesis.map((l: any) => l.transactionHash)).toEqual([call])
    expect((await node.rpc('eth_getLogs', [{ address: emitter }])).result).toEqual([])
    expect((await node.rpc('eth_getLogs', [{ address: emitter, fromBlock: '0x0', toBlock: 'latest' }])).result).toEqual([])
    // After sealing, the same log carries the block hash.
    const sealed = await node.node.mine()
    const after = (await node.rpc('eth_getLogs', [{ address: emitter, fromBlock: '0x0', toBlock: 'pending' }])).result
    expect(after).toHaveLength(1)
    expect(after[0].blockHash).toBe(`0x${Buffer.from(sealed.hash).toString('hex')}`)
  })
})
