// Forking Base (chain id 8453) with no profile given: the node infers Base's rules from the
// upstream's chain id and keeps the fork block's clock, as anvil does. An upstream anvil stands in
// for Base, started at a time after Denim's mainnet activation (1793901600) or before it: after,
// the fork's new blocks are Denim blocks (200 ms apart, the BaseTime deposit as tx[1], millisecond
// time); before, they follow the flashblocks rules (L1-info deposit only, flashblocks, receipts
// pre-confirmed before their block seals).
import { type Hex, zeroHash } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openSocket, poll, startAnvil, startTestNode, type TestNode } from './helpers.js'

const BASE_TIME = '0x4200000000000000000000000000000000000030'
const L1_BLOCK = '0x4200000000000000000000000000000000000015'
/** BaseTime's timestampMillisPart() selector. */
const MILLIS_PART = '0x7b2fea99'
const DENIM_MAINNET = 1793901600n

type Json = any

const hex = (n: bigint) => `0x${n.toString(16)}`

/** An anvil at Base's chain id whose clock starts at `timestamp`, with a few blocks mined. */
async function baseUpstream(timestamp: bigint) {
  const anvil = await startAnvil(['--chain-id', '8453', '--timestamp', timestamp.toString()])
  const res = await fetch(anvil.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x3'] }),
  })
  expect(((await res.json()) as { error?: unknown }).error).toBeUndefined()
  return anvil
}

/**
 * A pcnode forking (no profile given) an anvil at Base's chain id whose clock starts at `timestamp`,
 * for the enclosing describe; `forkBlock` is the upstream's head when the fork started.
 */
function useBaseFork(timestamp: bigint): { fork: TestNode; forkBlock: bigint } {
  const held = {} as { fork: TestNode; forkBlock: bigint }
  let anvil: Awaited<ReturnType<typeof startAnvil>> | undefined
  beforeAll(async () => {
    anvil = await baseUpstream(timestamp)
    held.fork = await startTestNode({ fork: { url: anvil.url } })
    held.forkBlock = BigInt((await held.fork.rpc('eth_blockNumber')).result)
  }, 60_000)
  afterAll(async () => {
    await held.fork?.stop()
    anvil?.stop()
  })
  return held
}

/** Blocks `from`..`to` in full, once the fork has sealed `to`. */
async function sealedBlocks(node: TestNode, from: bigint, to: bigint): Promise<Json[]> {
  await poll(
    async () => BigInt((await node.rpc('eth_blockNumber')).result),
    (head) => head >= to,
    { timeoutMs: 60_000, what: `block ${to} sealed`, intervalMs: 20 },
  )
  const blocks: Json[] = []
  for (let n = from; n <= to; n++) blocks.push((await node.rpc('eth_getBlockByNumber', [hex(n), true])).result)
  return blocks
}

describe('a fork of Base after Denim (upstream at 1793988000)', () => {
  const T = 1793988000n
  const forked = useBaseFork(T)

  it("runs Base's rules at Base's chain id", async () => {
    expect(forked.fork.node.options.profile).toBe('base')
    expect(forked.fork.chainId).toBe(8453)
    expect((await forked.fork.rpc('eth_chainId')).result).toBe('0x2105')
  })

  it('new blocks open with the L1-info and BaseTime deposits, 200 ms apart, on the fork block clock', async () => {
    const blocks = await sealedBlocks(forked.fork, forked.forkBlock + 1n, forked.forkBlock + 4n)
    for (const block of blocks) {
      expect(block.transactions.length).toBeGreaterThanOrEqual(2)
      expect(block.transactions[0]).toMatchObject({ type: '0x7e', to: L1_BLOCK })
      expect(block.transactions[1]).toMatchObject({ type: '0x7e', to: BASE_TIME })
      expect(block.timestampMs).toMatch(/^0x[0-9a-f]+$/)
      const seconds = BigInt(block.timestamp)
      expect(BigInt(block.timestampMs) / 1000n).toBe(seconds)
      // The fork block's time carried on, not the wall clock.
      expect(seconds).toBeGreaterThanOrEqual(T)
      expect(seconds).toBeLessThanOrEqual(T + 120n)
    }
    for (let i = 1; i < blocks.length; i++) expect(BigInt(blocks[i].timestampMs) - BigInt(blocks[i - 1].timestampMs)).toBe(200n)
  }, 90_000)

  it("timestampMillisPart() answers the latest block's millisecond part", async () => {
    const latest = (await forked.fork.rpc('eth_getBlockByNumber', ['latest', false])).result
    expect(latest.timestampMs).toBeDefined()
    // Called at that block's number: "latest" moves on every 200 ms.
    const { result, error } = await forked.fork.rpc('eth_call', [{ to: BASE_TIME, data: MILLIS_PART }, latest.number])
    expect(error).toBeUndefined()
    expect(BigInt(result)).toBe(BigInt(latest.timestampMs) % 1000n)
  })
})

describe('a fork of Base before Denim (upstream at 1793815200)', () => {
  const T = 1793815200n
  const forked = useBaseFork(T)

  it('new blocks keep the fork block clock (before Denim) and carry the L1-info deposit only, no timestampMs', async () => {
    expect(forked.fork.chainId).toBe(8453)
    const blocks = await sealedBlocks(forked.fork, forked.forkBlock + 1n, forked.forkBlock + 2n)
    for (const block of blocks) {
      const seconds = BigInt(block.timestamp)
      expect(seconds).toBeLessThan(DENIM_MAINNET)
      expect(seconds).toBeGreaterThanOrEqual(T)
      expect(seconds).toBeLessThanOrEqual(T + 120n)
      expect(block.transactions[0]).toMatchObject({ type: '0x7e', to: L1_BLOCK })
      expect(block.transactions.filter((t: Json) => t.to === BASE_TIME)).toEqual([])
      expect(block).not.toHaveProperty('timestampMs')
    }
  }, 90_000)

  it('sends newFlashblocks notifications', async () => {
    const socket = await openSocket(forked.fork.wsUrl)
    try {
      const id = await socket.subscribe(['newFlashblocks'])
      const items = await socket.waitFor(id, (got) => got.length > 0, 'a newFlashblocks notification')
      expect(items[0]).toBeTypeOf('object')
    } finally {
      await socket.close()
    }
  }, 60_000)

  it("a sent transaction's receipt is pre-confirmed (zero blockHash) before its block seals", async () => {
    // Sent just after a block seals, so a flashblock of the next block takes it first.
    const head = BigInt((await forked.fork.rpc('eth_blockNumber')).result)
    await poll(
      async () => BigInt((await forked.fork.rpc('eth_blockNumber')).result),
      (n) => n > head,
      { timeoutMs: 60_000, what: 'a new block', intervalMs: 10 },
    )
    const hash = await forked.fork.wallet(0).sendTransaction({ to: forked.fork.accounts[1].address, value: 1n })
    const first = await poll(async () => (await forked.fork.rpc('eth_getTransactionReceipt', [hash])).result as Json, undefined, {
      timeoutMs: 60_000,
      what: `the receipt of ${hash}`,
      intervalMs: 5,
    })
    expect(first.blockHash).toBe(zeroHash)
    expect(first.status).toBe('0x1')
    const sealed = await poll(
      async () => (await forked.fork.rpc('eth_getTransactionReceipt', [hash])).result as Json,
      (r) => r?.blockHash !== undefined && r.blockHash !== zeroHash,
      { timeoutMs: 60_000, what: `${hash} sealed`, intervalMs: 20 },
    )
    const block = (await forked.fork.rpc('eth_getBlockByNumber', [sealed.blockNumber as Hex, false])).result
    expect(sealed.blockHash).toBe(block.hash)
    expect(BigInt(block.timestamp)).toBeLessThan(DENIM_MAINNET)
  }, 90_000)
})
