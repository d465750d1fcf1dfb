// Fork mode's disk cache (a second start makes no upstream state request, counted by a proxy; an
// offline start with the chain id given), several upstream URLs, and an anvil upstream.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address, encodeFunctionData, parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { counterAbi } from './fixtures/counter.js'
import { tokenAbi } from './fixtures/token.js'
import { type RpcProxy, startProxy, startUpstream, type Upstream } from './fork-helpers.js'
import { startAnvil, startTestNode, type TestNode, waitForReceipt } from './helpers.js'

const STATE = ['eth_getAccountInfo', 'eth_getBalance', 'eth_getTransactionCount', 'eth_getCode', 'eth_getStorageAt']

/** Reads, calls, history and a sealed local transaction: what each start below repeats. */
async function workload(node: TestNode, up: Upstream): Promise<unknown[]> {
  const call = (to: Address, data: `0x${string}`) => node.rpc('eth_call', [{ to, data }, 'latest']).then((r) => r.result)
  const out = [
    await call(up.counter, encodeFunctionData({ abi: counterAbi, functionName: 'count' })),
    await call(up.token, encodeFunctionData({ abi: tokenAbi, functionName: 'balanceOf', args: [up.whale] })),
    (await node.rpc('eth_getBalance', [up.whale, 'latest'])).result,
    (await node.rpc('eth_getBlockByNumber', [`0x${up.blocks.counterDeployed.toString(16)}`, true])).result.hash,
  ]
  const hash = await node.wallet(0).sendTransaction({ to: node.accounts[1].address as Address, value: 1n, chain: node.chain })
  await waitForReceipt(node, hash)
  await node.rpc('evm_mine', [])
  return out
}

describe('fork mode: the disk cache', () => {
  let up: Upstream
  let proxy: RpcProxy
  let dir: string

  beforeAll(async () => {
    up = await startUpstream()
    proxy = await startProxy(up.node.rpcUrl)
    dir = await mkdtemp(join(tmpdir(), 'pcnode-fork-cache-'))
  })
  afterAll(async () => {
    await proxy?.close()
    await up?.node.stop()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('a second start on the same fork block asks the upstream no state, and a third starts offline', async () => {
    const fork = { url: proxy.url, blockNumber: up.blocks.head, cacheDir: dir }
    const first = await startTestNode({ fork, blockTime: 3_600_000, preconfInterval: 20 })
    const answers = await workload(first, up)
    expect(proxy.count(STATE)).toBeGreaterThan(0)
    await first.stop()
    // One file under <chain id>/<block>/.
    expect(await readdir(join(dir, '4242', String(up.blocks.head)))).toHaveLength(1)

    proxy.reset()
    const second = await startTestNode({ fork, blockTime: 3_600_000, preconfInterval: 20 })
    expect(await workload(second, up)).toEqual(answers)
    expect(proxy.count(STATE)).toBe(0)
    // The only questions left: the chain id, and the fork block, to check the cache is of this chain.
    expect(proxy.counts).toEqual({ eth_chainId: 1, eth_getBlockByNumber: 1 })
    expect((await second.rpc('pcnode_forkStats', [])).result.cacheHits).toBeGreaterThan(0)
    await second.stop()

    // No upstream at all: the chain id given, the newest cached fork block taken.
    proxy.kill()
    const offline = await startTestNode({
      fork: { url: proxy.url, chainId: 4242, cacheDir: dir },
      blockTime: 3_600_000,
      preconfInterval: 20,
    })
    expect(await workload(offline, up)).toEqual(answers)
    expect(offline.node.fork?.stats().upstreamRequests).toBe(0)
    await offline.stop()
    proxy.revive()
  })

  it("drops a cache whose fork block is not the upstream's (a local upstream restarted at the same URL)", async () => {
    const fork = { url: proxy.url, blockNumber: up.blocks.head, cacheDir: dir }
    const first = await startTestNode({ fork, blockTime: 3_600_000, preconfInterval: 20 })
    await workload(first, up)
    await first.stop()
    // Another chain with the same chain id: other dev accounts, so other blocks; none of up's contracts.
    const other = await startTestNode({ chainId: 4242, accounts: 3, blockTime: 0, preconfInterval: 0 })
    await other.rpc('anvil_mine', [`0x${(up.blocks.head + 1n).toString(16)}`])
    const otherBlock = (await other.rpc('eth_getBlockByNumber', [`0x${up.blocks.head.toString(16)}`, false])).result
    const lines: string[] = []
    proxy.retarget(other.rpcUrl)
    try {
      const second = await startTestNode({
        fork,
        blockTime: 3_600_000,
        preconfInterval: 20,
        silent: false,
        logger: (l) => lines.push(l),
      })
      try {
        const forkBlock = (await second.rpc('eth_getBlockByNumber', [`0x${up.blocks.head.toString(16)}`, false])).result
        expect(forkBlock.hash).toBe(otherBlock.hash)
        expect((await second.rpc('eth_getCode', [up.counter, 'latest'])).result).toBe('0x')
        expect(lines.some((l) => l.includes(`the cached block ${up.blocks.head}`) && l.includes('its chain changed'))).toBe(true)
      } finally {
        await second.stop()
      }
    } finally {
      proxy.retarget(up.node.rpcUrl)
      await other.stop()
    }
    // The cache now holds the other chain's block: a start on the first upstream drops it again.
    const third = await startTestNode({ fork, blockTime: 3_600_000, preconfInterval: 20 })
    expect((await third.rpc('eth_getCode', [up.counter, 'latest'])).result).not.toBe('0x')
    await third.stop()
  })

  it('anvil_reset onto the same fork block keeps what was read before it in the cache file', async () => {
    const own = await mkdtemp(join(tmpdir(), 'pcnode-fork-refork-'))
    try {
      const fork = { url: up.node.rpcUrl, blockNumber: up.blocks.head, cacheDir: own }
      const node = await startTestNode({ fork, blockTime: 3_600_000, preconfInterval: 20 })
      const [a, b] = ['0x00000000000000000000000000000000000a11ce', '0x0000000000000000000000000000000000000b0b']
      await node.rpc('eth_getBalance', [a, 'latest'])
      const reset = await node.rpc('anvil_reset', [
        { forking: { jsonRpcUrl: up.node.rpcUrl, blockNumber: Number(up.blocks.head) } },
      ])
      expect(reset.error).toBeUndefined()
      await node.rpc('eth_getBalance', [b, 'latest'])
      await node.stop()
      const [file] = await readdir(join(own, '4242', String(up.blocks.head)))
      const doc = JSON.parse(await readFile(join(own, '4242', String(up.blocks.head), file), 'utf8'))
      const cached = Object.keys(doc.accounts).map((k) => k.replace(/^0x/, '').toLowerCase())
      expect(cached).toEqual(expect.arrayContaining([a.slice(2), b.slice(2)]))
    } finally {
      await rm(own, { recursive: true, force: true })
    }
  })

  it('keeps nothing on disk with cache: false (--no-fork-cache)', async () => {
    const other = await mkdtemp(join(tmpdir(), 'pcnode-fork-nocache-'))
    try {
      // The data dir keeps the state file; the fork's reads would go to <data dir>/fork-cache.
      const node = await startTestNode({ fork: { url: proxy.url, cache: false }, dataDir: other })
      await workload(node, up)
      await node.stop()
      expect(await readdir(other)).toEqual(['state.json'])
      const cached = await startTestNode({ fork: { url: proxy.url }, dataDir: other })
      expect(cached.node.fork?.cache.file).toContain(join(other, 'fork-cache', '4242'))
      await cached.stop()
      expect((await readdir(other)).sort()).toEqual(['fork-cache', 'state.json'])
    } finally {
      await rm(other, { recursive: true, force: true })
    }
  })
})

describe('fork mode: the state file', () => {
  let up: Upstream
  let dir: string

  beforeAll(async () => {
    up = await startUpstream()
    dir = await mkdtemp(join(tmpdir(), 'pcnode-fork-state-'))
  })
  afterAll(async () => {
    await up?.node.stop()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('records the fork and only local changes, and loads them back on the same fork', async () => {
    const stateFile = join(dir, 'state.json')
    const options = { fork: { url: up.node.rpcUrl, blockNumber: up.blocks.head, cache: false }, stateFile, preconfInterval: 20 }
    const me = '0x00000000000000000000000000000000000be5e5' as Address
    const first = await startTestNode(options)
    await first.rpc('anvil_setStorageAt', [up.counter, `0x${'0'.repeat(64)}`, `0x${'0'.repeat(64)}`])
    await first.rpc('anvil_impersonateAccount', [up.whale])
    const sent = await first.rpc('eth_sendTransaction', [
      { from: up.whale, to: up.token, data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [me, 1000n] }) },
    ])
    await waitForReceipt(first, sent.result)
    await first.rpc('evm_mine', [])
    await first.stop()

    const saved = JSON.parse(await readFile(stateFile, 'utf8'))
    expect(saved.fork).toEqual({ blockNumber: `0x${up.blocks.head.toString(16)}`, blockHash: expect.any(String) })
    expect(BigInt(saved.blocks[0].header.number)).toBe(up.blocks.head)
    // The counter's slot zeroed over the upstream's 12; the token's two balances; no untouched upstream account.
    expect(saved.accounts[up.counter].storage).toEqual({ [`0x${'0'.repeat(64)}`]: `0x${'0'.repeat(64)}` })
    expect(Object.keys(saved.accounts[up.token].storage)).toHaveLength(2)
    expect(Object.keys(saved.accounts).length).toBeLessThan(40)

    const second = await startTestNode(options)
    const call = (to: Address, data: `0x${string}`) =>
      second.rpc('eth_call', [{ to, data }, 'latest']).then((r) => BigInt(r.result))
    expect(await call(up.counter, encodeFunctionData({ abi: counterAbi, functionName: 'count' }))).toBe(0n)
    expect(await call(up.token, encodeFunctionData({ abi: tokenAbi, functionName: 'balanceOf', args: [me] }))).toBe(1000n)
    expect(await call(up.token, encodeFunctionData({ abi: tokenAbi, functionName: 'balanceOf', args: [up.whale] }))).toBe(
      up.supply - 1000n,
    )
    expect((await second.rpc('eth_getTransactionReceipt', [sent.result])).result.status).toBe('0x1')
    await second.stop()

    await expect(startTestNode({ ...options, fork: { ...options.fork, blockNumber: up.blocks.head - 1n } })).rejects.toThrow(
      /saved on a fork of block/,
    )
  })
})

describe('fork mode: several upstream URLs', () => {
  let up: Upstream
  let a: RpcProxy
  let b: RpcProxy
  let node: TestNode

  beforeAll(async () => {
    up = await startUpstream()
    ;[a, b] = await Promise.all([startProxy(up.node.rpcUrl), startProxy(up.node.rpcUrl)])
    // Upstreams without eth_getAccountInfo (geth's): accounts read as balance, nonce and code.
    a.refuse(['eth_getAccountInfo'])
    b.refuse(['eth_getAccountInfo'])
    node = await startTestNode({ fork: { url: [a.url, b.url], cache: false } })
  })
  afterAll(async () => {
    await node?.stop()
    await Promise.all([a?.close(), b?.close()])
    await up?.node.stop()
  })

  it('share the load, and one takes over when the other dies', async () => {
    expect(a.count(STATE)).toBeGreaterThan(0)
    expect(b.count(STATE)).toBeGreaterThan(0)
    // Asked once (the first account read), then never again.
    expect(a.count(['eth_getAccountInfo']) + b.count(['eth_getAccountInfo'])).toBe(1)
    a.kill()
    b.reset()
    const balance = (await node.rpc('eth_getBalance', [up.whale, 'latest'])).result
    expect(BigInt(balance)).toBe(parseEther('5'))
    expect(b.count(['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode'], up.whale)).toBe(3)
    expect((await node.rpc('pcnode_forkStats', [])).result.failures).toBe(0)
  })
})

describe('fork mode: an upstream that answers JSON-RPC errors with HTTP 400', () => {
  it('takes the error as the answer (eth_getAccountInfo refused: the three reads), not as a failing upstream', async () => {
    const up = await startUpstream()
    const proxy = await startProxy(up.node.rpcUrl)
    proxy.refuse(['eth_getAccountInfo'], 400)
    const node = await startTestNode({ fork: { url: proxy.url, cache: false } })
    try {
      const balance = (await node.rpc('eth_getBalance', [up.whale, 'latest'])).result
      expect(BigInt(balance)).toBe(parseEther('5'))
      expect(proxy.count(['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode'], up.whale)).toBe(3)
      expect((await node.rpc('pcnode_forkStats', [])).result.failures).toBe(0)
    } finally {
      await node.stop()
      await proxy.close()
      await up.node.stop()
    }
  })
})

describe('fork mode: an anvil upstream', () => {
  let anvil: { url: string; stop: () => void }
  let node: TestNode

  beforeAll(async () => {
    anvil = await startAnvil(['--chain-id', '777'])
    node = await startTestNode({ fork: { url: anvil.url, cache: false }, blockTime: 200, preconfInterval: 20 })
  })
  afterAll(async () => {
    await node?.stop()
    anvil?.stop()
  })

  it('forks it as an Ethereum chain (no OP-stack blocks) and runs transactions on it', async () => {
    expect(node.chainId).toBe(777)
    expect(node.node.profile.opStack).toBe(false)
    const hash = await node.wallet(0).sendTransaction({ to: node.accounts[1].address as Address, value: 5n, chain: node.chain })
    const receipt = await waitForReceipt(node, hash)
    expect(receipt.status).toBe('success')
    const block = (await node.rpc('eth_getBlockByNumber', ['pending', true])).result
    expect(block.transactions.every((t: { type: string }) => t.type !== '0x7e')).toBe(true)
    // anvil's dev accounts are the same: funded on top, at pcnode's balance.
    expect(BigInt((await node.rpc('eth_getBalance', [node.accounts[5].address, 'latest'])).result)).toBe(parseEther('10000'))
  })
})
