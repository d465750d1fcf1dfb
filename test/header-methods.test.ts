// eth_getHeaderByNumber / eth_getHeaderByHash (geth's and reth's) through viem's request, in both
// profiles: the block object without its body (reth, Base's node, keeps `size`), every block tag
// eth_getBlockByNumber takes, null for an unknown block.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { poll, startTestNode, type TestNode, useTestNode, waitForSealed } from './helpers.js'

describe.each(['flashblocks', 'base', 'ethereum'])('header methods (profile %s)', (profile) => {
  const node = useTestNode({ profile, blockTime: 400, preconfInterval: 100 })
  const request = (method: string, params: unknown[]) => (node.publicClient.request as any)({ method, params })

  it('answers the block object without its body, by number, tag and hash', async () => {
    const sent = await node.wallet(0).sendTransaction({ to: node.accounts[1].address, value: 1n })
    const receipt = await waitForSealed(node, sent)
    const number = `0x${receipt.blockNumber.toString(16)}`
    const block = await request('eth_getBlockByNumber', [number, false])
    expect(block.transactions).toContain(sent)
    const { transactions: _t, uncles: _u, withdrawals: _w, size, ...fields } = block
    const expected = profile !== 'ethereum' ? { ...fields, size } : fields

    const header = await request('eth_getHeaderByNumber', [number])
    expect(header).toEqual(expected)
    for (const absent of ['transactions', 'uncles', 'withdrawals', 'totalDifficulty']) expect(header).not.toHaveProperty(absent)
    expect('size' in header).toBe(profile !== 'ethereum')
    expect(await request('eth_getHeaderByHash', [receipt.blockHash])).toEqual(expected)

    // Tags as eth_getBlockByNumber takes them: each header is that block's.
    // A block may seal between the two reads: read again until both name the same block.
    for (const tag of ['earliest', 'latest', 'safe', 'finalized', 'pending']) {
      const [h, b] = await poll(
        () => Promise.all([request('eth_getHeaderByNumber', [tag]), request('eth_getBlockByNumber', [tag, false])]),
        ([h, b]) => h.number === b.number && h.hash === b.hash,
        { what: `${tag} header` },
      )
      const { transactions: _bt, uncles: _bu, withdrawals: _bw, size: bsize, ...bfields } = b
      expect(h).toEqual(profile !== 'ethereum' ? { ...bfields, size: bsize } : bfields)
    }
    expect((await request('eth_getHeaderByNumber', ['earliest'])).number).toBe('0x0')
  })

  it('answers null for an unknown block and -32602 for a bad parameter', async () => {
    expect(await request('eth_getHeaderByNumber', ['0xffffff'])).toBeNull()
    expect(await request('eth_getHeaderByHash', [`0x${'ab'.repeat(32)}`])).toBeNull()
    const hash = (await request('eth_getHeaderByNumber', ['latest'])).hash
    const byHashAsNumber = await node.rpc('eth_getHeaderByNumber', [hash])
    expect(byHashAsNumber.error.code).toBe(-32602)
    expect((await node.rpc('eth_getHeaderByHash', ['0x12'])).error).toEqual({
      code: -32602,
      message: 'invalid argument blockHash: hex string has length 2, want 64',
    })
    expect((await node.rpc('eth_getHeaderByNumber', [])).error.code).toBe(-32602)
  })
})

describe('header methods on a fork', () => {
  let upstream: TestNode
  let fork: TestNode
  beforeAll(async () => {
    upstream = await startTestNode({ chainId: 4242, blockTime: 0, preconfInterval: 0 })
    await waitForSealed(upstream, await upstream.wallet(0).sendTransaction({ to: upstream.accounts[1].address, value: 1n }))
    fork = await startTestNode({ fork: { url: upstream.rpcUrl, cache: false }, blockTime: 400, preconfInterval: 100 })
  }, 60_000)
  afterAll(async () => {
    await fork?.stop()
    await upstream?.stop()
  })

  it("answers the upstream's headers up to the fork block, from its block objects", async () => {
    const before = (await upstream.rpc('eth_getHeaderByNumber', ['0x1'])).result
    expect(before.number).toBe('0x1')
    expect((await fork.rpc('eth_getHeaderByNumber', ['0x1'])).result).toEqual(before)
    expect((await fork.rpc('eth_getHeaderByHash', [before.hash])).result).toEqual(before)
    expect((await fork.rpc('eth_getHeaderByNumber', [before.hash])).error.code).toBe(-32602)
    // Later blocks are the fork's own.
    const head = await poll(
      async () => (await fork.rpc('eth_getHeaderByNumber', ['latest'])).result,
      (h) => BigInt(h.number) > BigInt(before.number) + 1n,
      { what: 'a local block' },
    )
    const block = (await fork.rpc('eth_getBlockByNumber', [head.number, false])).result
    expect(head.hash).toBe(block.hash)
  })
})
