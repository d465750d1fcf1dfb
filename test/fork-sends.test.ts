// Fork mode as a Base builder tries it: a local anvil upstream at Base Sepolia's chain id holding an
// ERC-20, behind a proxy adding 50 ms to every request, and impersonated transfers from the token's
// whale sent with viem at random moments 0–400 ms apart. Each send takes the nonce after the one
// before it (geth's per-sender lock: filling it waits on the upstream), the fork runs as Base
// (pre-confirmed, the L1-info deposit first), and every transfer gets a receipt.
import { createWalletClient, encodeDeployData, encodeFunctionData, type Hex, http, parseEther, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tokenAbi, tokenBytecode } from './fixtures/token.js'
import { type RpcProxy, startProxy, WHALE } from './fork-helpers.js'
import { poll, seededRandom, sleep, startAnvil, startTestNode, type TestNode, testSeed } from './helpers.js'

type Json = any

/** BaseFeeVault, L1FeeVault, OperatorFeeVault. */
const FEE_VAULTS = ['19', '1a', '1b'].map((n) => `0x42000000000000000000000000000000000000${n}`)

async function rpcAt(url: string, method: string, params: unknown[]): Promise<Json> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return ((await res.json()) as Json).result
}

describe('fork of a local anvil behind a 50 ms proxy: impersonated transfers at random moments', () => {
  let anvil: { url: string; stop: () => void }
  let proxy: RpcProxy
  let node: TestNode
  let token: Hex

  beforeAll(async () => {
    anvil = await startAnvil(['--chain-id', '84532'])
    const deployer = createWalletClient({
      transport: http(anvil.url),
      account: privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'),
    })
    const hash = await deployer.sendTransaction({
      chain: null,
      data: encodeDeployData({ abi: tokenAbi, bytecode: tokenBytecode, args: [WHALE, parseEther('1000000')] }),
    })
    token = (await poll(() => rpcAt(anvil.url, 'eth_getTransactionReceipt', [hash]))).contractAddress
    await rpcAt(anvil.url, 'anvil_setBalance', [WHALE, toHex(parseEther('100'))])
    await rpcAt(anvil.url, 'evm_mine', [])
    proxy = await startProxy(anvil.url, { latencyMs: 50 })
    // Default block time and flashblock interval: the profile follows the upstream.
    node = await startTestNode({ fork: { url: proxy.url, cache: false } })
    // The fee vaults every block pays into were read at the start, with the dev accounts.
    for (const vault of FEE_VAULTS) expect(proxy.count(['eth_getAccountInfo'], vault)).toBe(1)
    proxy.reset()
  }, 60_000)
  afterAll(async () => {
    await node?.stop()
    await proxy?.close()
    anvil?.stop()
  })

  it("forks Base Sepolia's chain id as Base after Denim: its blocks open with the L1-info and BaseTime deposits", async () => {
    expect(node.chainId).toBe(84532)
    expect(node.node.profile.name).toBe('base')
    const forkNumber = node.node.fork?.number ?? 0n
    const local = await poll(async () => {
      const latest = (await node.rpc('eth_getBlockByNumber', ['latest', true])).result
      return BigInt(latest.number) > forkNumber ? latest : undefined
    })
    expect(local.transactions[0].type).toBe('0x7e')
    expect(local.transactions[1].to).toBe('0x4200000000000000000000000000000000000030')
  })

  it('two sends at once from one dev account (filled while the upstream answers): nonces n and n + 1', async () => {
    const from = node.accounts[3].address
    const before = Number((await node.rpc('eth_getTransactionCount', [from, 'pending'])).result)
    // Fresh recipients: estimating each reads its account from the upstream, 50 ms away.
    const sends = ['0x00000000000000000000000000000000000c0de1', '0x00000000000000000000000000000000000c0de2'].map((to) =>
      node.rpc('eth_sendTransaction', [{ from, to, value: '0x1' }]),
    )
    const answers = await Promise.all(sends)
    expect(answers.map((a) => a.error)).toEqual([undefined, undefined])
    const txs = await Promise.all(answers.map(async (a) => (await node.rpc('eth_getTransactionByHash', [a.result])).result))
    expect(txs.map((t) => Number(t.nonce)).sort()).toEqual([before, before + 1])
  })

  it('five transfers sent 0–400 ms apart: none refused, nonces 0 to 4, every one with a receipt', async () => {
    const random = seededRandom(testSeed('fork transfers'))
    expect((await node.rpc('anvil_impersonateAccount', [WHALE])).error).toBeUndefined()
    const wallet = createWalletClient({ transport: http(node.rpcUrl, { retryCount: 0 }) })
    const holders = [1, 2, 3, 4, 5].map((i) => `0x${(0xb0b0 + i).toString(16).padStart(40, '0')}` as Hex)
    let at = 0
    const moments = holders.map(() => (at += random() * 400))
    const start = Date.now()
    const hashes = await Promise.all(
      holders.map(async (to, i) => {
        // Each at its moment, measured from the start (timers, not waits on the node).
        await sleep(Math.max(0, moments[i] - (Date.now() - start)))
        const data = encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [to, 7n] })
        return wallet.sendTransaction({ account: WHALE, to: token, data, chain: null })
      }),
    )
    expect(new Set(hashes).size).toBe(5)
    const nonces = await Promise.all(
      hashes.map(async (hash) => (await node.rpc('eth_getTransactionByHash', [hash])).result.nonce),
    )
    expect(nonces.map(Number).sort()).toEqual([0, 1, 2, 3, 4])
    // A generous bound: the receipts are awaited by polling, their timing is not the assertion.
    const receipts = await Promise.all(
      hashes.map((hash) =>
        poll(async () => (await node.rpc('eth_getTransactionReceipt', [hash])).result, undefined, {
          timeoutMs: 30_000,
          what: `the receipt of ${hash}`,
        }),
      ),
    )
    expect(receipts.map((r) => r.status)).toEqual(['0x1', '0x1', '0x1', '0x1', '0x1'])
    // No flashblock waited on the upstream for a fee vault.
    for (const vault of FEE_VAULTS) expect(proxy.count(['eth_getAccountInfo'], vault)).toBe(0)
    for (const to of holders) {
      const data = encodeFunctionData({ abi: tokenAbi, functionName: 'balanceOf', args: [to] })
      expect(BigInt((await node.rpc('eth_call', [{ to: token, data }, 'pending'])).result)).toBe(7n)
    }
  }, 60_000)
})
