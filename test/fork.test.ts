// Fork mode against a real upstream on 127.0.0.1 (a pcnode holding contracts and history, behind a
// counting proxy): the fork block, lazy reads, local writes winning, impersonation, upstream-only
// contracts, history and logs across the fork point, pre-confirmed receipts, failing upstreams.

import { type Address, decodeFunctionResult, encodeFunctionData, type Hex, parseEther, zeroHash } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { counterAbi } from './fixtures/counter.js'
import { tokenAbi } from './fixtures/token.js'
import { type RpcProxy, startProxy, startUpstream, type Upstream } from './fork-helpers.js'
import { startTestNode, type TestNode, until, waitForReceipt, waitForSealed } from './helpers.js'

const count = (node: TestNode, to: Address, block: string | Hex = 'latest') =>
  node.rpc('eth_call', [{ to, data: encodeFunctionData({ abi: counterAbi, functionName: 'count' }) }, block])
const balanceOf = async (node: TestNode, token: Address, who: Address, block = 'pending') => {
  const { result, error } = await node.rpc('eth_call', [
    { to: token, data: encodeFunctionData({ abi: tokenAbi, functionName: 'balanceOf', args: [who] }) },
    block,
  ])
  if (error) throw new Error(error.message)
  return decodeFunctionResult({ abi: tokenAbi, functionName: 'balanceOf', data: result }) as bigint
}

describe('fork mode', () => {
  let up: Upstream
  let proxy: RpcProxy
  let fork: TestNode
  let forkBlock: bigint

  beforeAll(async () => {
    up = await startUpstream()
    proxy = await startProxy(up.node.rpcUrl)
    fork = await startTestNode({ fork: { url: proxy.url, cache: false }, blockTime: 500, preconfInterval: 50 })
    forkBlock = up.blocks.head
  })
  afterAll(async () => {
    await fork?.stop()
    await proxy?.close()
    await up?.node.stop()
  })

  it('starts at the upstream block with its chain id, hash and fee rules, and goes on from it', async () => {
    expect(fork.chainId).toBe(4242)
    const upstreamBlock = (await up.node.rpc('eth_getBlockByNumber', [`0x${forkBlock.toString(16)}`, false])).result
    const local = (await fork.rpc('eth_getBlockByNumber', [`0x${forkBlock.toString(16)}`, false])).result
    expect(local.hash).toBe(upstreamBlock.hash)
    const pending = (await fork.rpc('eth_getBlockByNumber', ['pending', false])).result
    expect(BigInt(pending.number)).toBe(forkBlock + 1n)
    expect(pending.parentHash).toBe(upstreamBlock.hash)
    // Base's Jovian header carried on from the fork block's extraData.
    expect(pending.extraData).toBe(upstreamBlock.extraData)
    // The dev accounts are funded on top of the fork, their upstream nonce kept.
    const nonce = (await up.node.rpc('eth_getTransactionCount', [fork.accounts[0].address, 'latest'])).result
    expect(BigInt(nonce)).toBeGreaterThan(0n)
    expect((await fork.rpc('eth_getTransactionCount', [fork.accounts[0].address, 'latest'])).result).toBe(nonce)
    expect(BigInt((await fork.rpc('eth_getBalance', [fork.accounts[0].address, 'latest'])).result)).toBe(parseEther('10000'))
  })

  it('reads an upstream contract lazily, once per key, pinned to the fork block', async () => {
    proxy.reset()
    const first = await count(fork, up.counter)
    expect(BigInt(first.result)).toBe(12n)
    // Its account (balance, nonce and code in one eth_getAccountInfo) and the one slot count() reads.
    expect(proxy.count(['eth_getAccountInfo'], up.counter)).toBe(1)
    expect(proxy.count(['eth_getStorageAt'], up.counter)).toBe(1)
    const pinned = proxy.calls.find((c) => c.method === 'eth_getStorageAt')
    expect(pinned?.params[2]).toEqual({
      blockHash: (await up.node.rpc('eth_getBlockByNumber', [`0x${forkBlock.toString(16)}`, false])).result.hash,
    })
    proxy.reset()
    await count(fork, up.counter)
    expect(proxy.count()).toBe(0)
    // Concurrent first reads of one slot share one request.
    const slot = `0x${'0'.repeat(63)}7`
    await Promise.all([1, 2, 3, 4, 5].map(() => fork.rpc('eth_getStorageAt', [up.counter, slot, 'latest'])))
    expect(proxy.counts.eth_getStorageAt).toBe(1)
    // The upstream moves on; the fork does not see it.
    const wallet = up.node.wallet(0)
    const hash = await wallet.sendTransaction({
      to: up.counter,
      data: encodeFunctionData({ abi: counterAbi, functionName: 'increase', args: [100n] }),
      chain: up.node.chain,
    })
    await waitForSealed(up.node, hash)
    expect(BigInt((await count(up.node, up.counter)).result)).toBe(112n)
    expect(BigInt((await count(fork, up.counter, 'pending')).result)).toBe(12n)
  })

  it('lets local writes win over the upstream, a slot set to zero included', async () => {
    const test = (method: string, params: unknown[]) => fork.rpc(method, params)
    expect((await test('anvil_setStorageAt', [up.counter, zeroHash, `0x${'0'.repeat(62)}63`])).error).toBeUndefined()
    expect(BigInt((await count(fork, up.counter)).result)).toBe(99n)
    await test('anvil_setStorageAt', [up.counter, zeroHash, zeroHash])
    expect(BigInt((await count(fork, up.counter)).result)).toBe(0n)
    await test('anvil_setBalance', [up.whale, '0x1234'])
    expect((await test('eth_getBalance', [up.whale, 'pending'])).result).toBe('0x1234')
    await test('anvil_setBalance', [up.whale, `0x${parseEther('5').toString(16)}`])
    // Put back for the tests after this one.
    await test('anvil_setStorageAt', [up.counter, zeroHash, `0x${'0'.repeat(63)}c`])
    expect(BigInt((await count(fork, up.counter)).result)).toBe(12n)
  })

  it('sends from an impersonated upstream holder, pre-confirmed and then sealed', async () => {
    const me = fork.accounts[1].address as Address
    expect(await balanceOf(fork, up.token, up.whale)).toBe(up.supply)
    expect((await fork.rpc('anvil_impersonateAccount', [up.whale])).error).toBeUndefined()
    const sent = await fork.rpc('eth_sendTransaction', [
      {
        from: up.whale,
        to: up.token,
        data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [me, 1000n] }),
      },
    ])
    expect(sent.error).toBeUndefined()
    const receipt = await waitForReceipt(fork, sent.result)
    expect(receipt.status).toBe('success')
    expect(await balanceOf(fork, up.token, me)).toBe(1000n)
    expect(await balanceOf(fork, up.token, up.whale)).toBe(up.supply - 1000n)
    const sealed = await waitForSealed(fork, sent.result)
    expect(sealed.blockNumber).toBeGreaterThan(forkBlock)
    expect(await balanceOf(fork, up.token, me, 'latest')).toBe(1000n)
    // The upstream is unchanged.
    expect(await balanceOf(up.node, up.token, me, 'latest')).toBe(0n)
  })

  it('pre-confirms transactions on the fork before their block is sealed', async () => {
    const wallet = fork.wallet(4)
    const raw = await wallet.signTransaction(
      await wallet.prepareTransactionRequest({
        to: up.counter,
        data: encodeFunctionData({ abi: counterAbi, functionName: 'increase', args: [1n] }),
      }),
    )
    const { result: receipt, error } = await fork.rpc('eth_sendRawTransactionSync', [raw])
    expect(error).toBeUndefined()
    expect(receipt.status).toBe('0x1')
    expect(receipt.blockHash).toBe(zeroHash) // pre-confirmed: its block is still open
    expect(BigInt(receipt.blockNumber)).toBeGreaterThan(forkBlock)
    expect(BigInt((await count(fork, up.counter, 'pending')).result)).toBe(13n)
    const sealed = await waitForSealed(fork, receipt.transactionHash)
    expect(sealed.blockHash).not.toBe(zeroHash)
    // Put back for the tests after this one.
    await fork.rpc('anvil_setStorageAt', [up.counter, zeroHash, `0x${'0'.repeat(63)}c`])
  })

  it('keeps a slot a transaction zeroed at zero, and evm_revert brings the value back', async () => {
    const me = fork.accounts[3].address as Address
    const snapshot = (await fork.rpc('evm_snapshot', [])).result
    const all = await balanceOf(fork, up.token, up.whale)
    const sent = await fork.rpc('eth_sendTransaction', [
      { from: up.whale, to: up.token, data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [me, all] }) },
    ])
    await waitForSealed(fork, sent.result)
    expect(await balanceOf(fork, up.token, up.whale, 'latest')).toBe(0n)
    expect(await balanceOf(fork, up.token, me, 'latest')).toBe(all)
    expect((await fork.rpc('evm_revert', [snapshot])).result).toBe(true)
    expect(await balanceOf(fork, up.token, up.whale)).toBe(all)
    expect(await balanceOf(fork, up.token, me)).toBe(0n)
  })

  it('serves history at and before the fork block from the upstream, deposits as served', async () => {
    const n = `0x${up.blocks.counterDeployed.toString(16)}`
    const mine = (await fork.rpc('eth_getBlockByNumber', [n, true])).result
    const theirs = (await up.node.rpc('eth_getBlockByNumber', [n, true])).result
    expect(mine).toEqual(theirs)
    // Every pcnode (Base-profile) block opens with the L1-info deposit, type 0x7e.
    expect(mine.transactions[0].type).toBe('0x7e')
    const deposit = (await fork.rpc('eth_getTransactionByHash', [mine.transactions[0].hash])).result
    expect(deposit).toEqual(mine.transactions[0])
    expect((await fork.rpc('eth_getTransactionReceipt', [up.txs.counterDeploy])).result).toEqual(
      (await up.node.rpc('eth_getTransactionReceipt', [up.txs.counterDeploy])).result,
    )
    expect((await fork.rpc('eth_getBlockByHash', [mine.hash, false])).result.number).toBe(n)
    // Calls and reads at blocks before the fork block: the upstream's state then.
    expect(BigInt((await count(fork, up.counter, n)).result)).toBe(7n)
    const beforeFunding = `0x${(up.blocks.whaleFunded - 1n).toString(16)}`
    expect((await fork.rpc('eth_getBalance', [up.whale, beforeFunding])).result).toBe('0x0')
    // A transaction the upstream made after the fork block is no part of this chain.
    const later = (await up.node.rpc('eth_getBlockByNumber', ['latest', false])).result
    expect(BigInt(later.number)).toBeGreaterThan(forkBlock)
    expect((await fork.rpc('eth_getBlockByHash', [later.hash, false])).result).toBeNull()
    expect((await fork.rpc('eth_getTransactionByHash', [later.transactions.at(-1)])).result).toBeNull()
  })

  it('merges logs across the fork point and answers BLOCKHASH of upstream blocks', async () => {
    const transfer = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
    const logs = (await fork.rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: up.token, topics: [transfer] }]))
      .result
    const numbers = logs.map((l: { blockNumber: Hex }) => BigInt(l.blockNumber))
    expect(numbers.filter((b: bigint) => b <= forkBlock)).toHaveLength(1) // the mint, upstream
    expect(numbers.filter((b: bigint) => b > forkBlock)).toHaveLength(1) // the impersonated transfer, local
    // BLOCKHASH(n) for an upstream block: PUSH n BLOCKHASH, returned, as an account's code (a state
    // override). As init code it failed 1 run in 256: EIP-3541 refuses returned code that begins 0xef.
    const n = up.blocks.counterDeployed
    const code = `0x61${n.toString(16).padStart(4, '0')}4060005260206000f3`
    const at = '0x00000000000000000000000000000000000b10c4'
    const reply = await fork.rpc('eth_call', [{ to: at }, 'latest', { [at]: { code } }])
    const hash = (await up.node.rpc('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).result.hash
    // The whole reply, so a failure shows the error the node answered with.
    expect(reply).toMatchObject({ result: hash })
  })

  it('keeps serving when the upstream fails: retries 429s, names the upstream when it is gone', async () => {
    const fresh: Address = '0x00000000000000000000000000000000000b0b00'
    proxy.failNext(3)
    proxy.reset()
    expect((await fork.rpc('eth_getBalance', [fresh, 'latest'])).result).toBe('0x0')
    expect((await fork.rpc('pcnode_forkStats', [])).result.retries).toBeGreaterThanOrEqual(3)
    proxy.kill()
    const gone: Address = '0x00000000000000000000000000000000000c0c00'
    const failed = await fork.rpc('eth_getBalance', [gone, 'latest'])
    expect(failed.error.code).toBe(-32000)
    expect(failed.error.message).toContain(`upstream ${proxy.url}`)
    expect(failed.error.message).toMatch(/eth_getAccountInfo\(0x0+c0c00\) at block \d+ failed/)
    // A batch of edits, one of them on an account only the gone upstream knows: it fails alone.
    const unread: Address = '0x00000000000000000000000000000000000d0d00'
    const edits = [fork.accounts[3].address, unread, fresh].map((address, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'anvil_setBalance',
      params: [address, `0x${(i + 1) * 1111}`],
    }))
    const replies = JSON.parse((await fork.raw(JSON.stringify(edits))).text)
    expect(replies.map((r: { result?: null; error?: { code: number } }) => r.error?.code ?? r.result)).toEqual([
      null,
      -32000,
      null,
    ])
    expect((await fork.rpc('eth_getBalance', [fork.accounts[3].address, 'pending'])).result).toBe('0x1111')
    expect((await fork.rpc('eth_getBalance', [fresh, 'pending'])).result).toBe('0x3333')
    // Everything already read, and local, still works.
    const sent = await fork.wallet(2).sendTransaction({ to: fork.accounts[1].address as Address, value: 1n, chain: fork.chain })
    expect((await waitForReceipt(fork, sent)).status).toBe('success')
    expect(BigInt((await count(fork, up.counter)).result)).toBe(12n)
    proxy.revive()
    expect((await fork.rpc('eth_getBalance', [gone, 'latest'])).result).toBe('0x0')
  })

  it('reports what it asked the upstream', async () => {
    const stats = (await fork.rpc('pcnode_forkStats', [])).result
    expect(stats.forkBlockNumber).toBe(`0x${forkBlock.toString(16)}`)
    expect(stats.upstream).toEqual([proxy.url])
    expect(stats.upstreamRequests).toBeGreaterThan(0)
    expect(stats.cacheHits).toBeGreaterThan(0)
    expect(stats.bytesRead).toBeGreaterThan(0)
    await until(async () => (await fork.rpc('eth_blockNumber', [])).result !== undefined)
  })

  it('forks another block in place with anvil_reset, and goes back to it with a plain anvil_reset', async () => {
    const k = up.blocks.counterDeployed // count() is 7 there, the token not deployed yet
    const hex = `0x${k.toString(16)}`
    const reset = await fork.rpc('hardhat_reset', [{ forking: { jsonRpcUrl: proxy.url, blockNumber: hex } }])
    expect(reset.error).toBeUndefined()
    expect(BigInt((await count(fork, up.counter)).result)).toBe(7n)
    expect((await fork.rpc('eth_getCode', [up.token, 'pending'])).result).toBe('0x')
    expect((await fork.rpc('eth_getBlockByNumber', [hex, false])).result.hash).toBe(
      (await up.node.rpc('eth_getBlockByNumber', [hex, false])).result.hash,
    )
    expect((await fork.rpc('pcnode_forkStats', [])).result.forkBlockNumber).toBe(hex)
    await until(async () => BigInt((await fork.rpc('eth_blockNumber', [])).result) > k, 5000, 'a block on the new fork')
    await fork.rpc('anvil_setStorageAt', [up.counter, zeroHash, `0x${'0'.repeat(62)}63`])
    expect(BigInt((await count(fork, up.counter)).result)).toBe(99n)
    expect((await fork.rpc('anvil_reset', [])).error).toBeUndefined()
    expect(BigInt((await count(fork, up.counter)).result)).toBe(7n)
    expect(BigInt((await fork.rpc('eth_getBalance', [fork.accounts[0].address, 'latest'])).result)).toBe(parseEther('10000'))
  })

  it('forked at block 0: "earliest" is the local fork block, as "0x0" is (the dev accounts funded)', async () => {
    const zero = await startTestNode({
      fork: { url: up.node.rpcUrl, blockNumber: 0n, cache: false },
      balance: parseEther('5'),
      blockTime: 3_600_000,
    })
    try {
      const dev = zero.accounts[0].address
      const atZero = (await zero.rpc('eth_getBalance', [dev, '0x0'])).result
      expect((await zero.rpc('eth_getBalance', [dev, 'earliest'])).result).toBe(atZero)
      expect(BigInt(atZero)).toBe(parseEther('5'))
    } finally {
      await zero.stop()
    }
  })
})
