// Real clients on the base profile (Base after Denim: 200 ms blocks built whole, `pending` reads
// = latest, the pending nonce counting pooled transactions). Each workload here trips on the
// pending/latest split under flashblocks; on Base's rules it passes as the client ships, with no
// setting changed: ethers' approve then transferFrom, two `cast send` in a row, viem's plain
// waitForTransactionReceipt, and eth_sendRawTransactionSync.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Contract, ContractFactory, JsonRpcProvider, Wallet } from 'ethers'
import { type Hex, parseEther } from 'viem'
import { describe, expect, it } from 'vitest'
import { ROOT } from './cli.js'
import { erc20Abi, erc20Bytecode } from './fixtures/erc20.js'
import { plainClients, type TestNode, useTestNode, waitForReceipt } from './helpers.js'

const CAST = join(ROOT, 'node_modules', '@foundry-rs', 'cast-linux-amd64', 'bin', 'cast')
const exec = promisify(execFile)

async function cast(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(CAST, args, { timeout: 60_000 })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }
  }
}

/** The canonical (sealed) hash of block `number`, as eth_getBlockByNumber answers it. */
async function canonicalHash(node: TestNode, number: bigint | Hex): Promise<Hex> {
  const tag = typeof number === 'bigint' ? `0x${number.toString(16)}` : number
  const block = (await node.rpc('eth_getBlockByNumber', [tag, false])).result
  return block.hash
}

describe('real clients on the base profile (no workaround)', () => {
  const node = useTestNode({ profile: 'base' })

  it('ethers v6: approve then transferFrom on an ERC-20, each awaited with tx.wait()', async () => {
    const provider = new JsonRpcProvider(node.rpcUrl)
    const deployer = new Wallet(node.accounts[0].privateKey, provider)
    const holder = new Wallet(node.accounts[1].privateKey, provider)
    const spender = new Wallet(node.accounts[2].privateKey, provider)
    const recipient = node.accounts[3].address
    // Deployed by another key: ethers shares identical requests made within 250 ms (its
    // cacheTimeout), so one signer's two sends that close together read the same pending nonce
    // on any node that seals faster than that; the workload below is one send per signer.
    const deployed = await new ContractFactory(erc20Abi as never, erc20Bytecode, deployer).deploy(holder.address, 1_000_000n)
    await deployed.deploymentTransaction()?.wait()
    const address = await deployed.getAddress()
    const asHolder = new Contract(address, erc20Abi as never, holder)
    const asSpender = new Contract(address, erc20Abi as never, spender)

    const approve = await asHolder.getFunction('approve')(spender.address, 700n)
    const approved = await approve.wait()
    expect(approved?.status).toBe(1)
    // ethers estimates transferFrom at "latest": the allowance must be there once approve's wait() returns.
    const transfer = await asSpender.getFunction('transferFrom')(holder.address, recipient, 500n)
    const transferred = await transfer.wait()
    expect(transferred?.status).toBe(1)
    expect(transferred?.blockHash).toBe(await canonicalHash(node, BigInt(transferred!.blockNumber)))

    expect(await asHolder.getFunction('balanceOf')(recipient)).toBe(500n)
    expect(await asHolder.getFunction('balanceOf')(holder.address)).toBe(999_500n)
    expect(await asHolder.getFunction('allowance')(holder.address, spender.address)).toBe(200n)
    provider.destroy()
  }, 60_000)

  it('two cast send in a row from one key: both mined, the second nonce one past the first', async () => {
    const key = node.accounts[4].privateKey
    const to = node.accounts[5].address
    const send = (value: string) => cast(['send', to, '--value', value, '--private-key', key, '--rpc-url', node.rpcUrl, '--json'])
    const first = await send('1')
    expect(first.stderr).toBe('')
    expect(first.code).toBe(0)
    const second = await send('2')
    expect(second.stderr).toBe('')
    expect(second.code).toBe(0)
    const receipts = [JSON.parse(first.stdout), JSON.parse(second.stdout)]
    const [a, b] = await Promise.all(
      receipts.map(async (r) => (await node.rpc('eth_getTransactionByHash', [r.transactionHash])).result),
    )
    for (const r of receipts) expect(r.status).toBe('0x1')
    expect(BigInt(b.nonce)).toBe(BigInt(a.nonce) + 1n)
    expect((await node.rpc('eth_getTransactionCount', [node.accounts[4].address, 'latest'])).result).toBe(
      `0x${(BigInt(b.nonce) + 1n).toString(16)}`,
    )
  }, 60_000)

  it("viem's plain waitForTransactionReceipt (pollingInterval 50) returns a sealed receipt within 3 blocks", async () => {
    const { publicClient, wallet } = plainClients(node, 6)
    // Filled in before the head is read, so the head is observed just before the send.
    const request = await wallet.prepareTransactionRequest({ to: node.accounts[7].address, value: parseEther('0.01') })
    const head = BigInt((await node.rpc('eth_blockNumber')).result)
    const hash = await wallet.sendTransaction(request)
    const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 })
    expect(receipt.status).toBe('success')
    expect(receipt.blockHash).toBe(await canonicalHash(node, receipt.blockNumber))
    expect(receipt.blockNumber).toBeGreaterThan(head)
    expect(receipt.blockNumber).toBeLessThanOrEqual(head + 3n)
  }, 60_000)

  it('eth_sendRawTransactionSync with [raw] answers a sealed receipt, status 0x1', async () => {
    const { wallet } = plainClients(node, 8)
    const request = await wallet.prepareTransactionRequest({ to: node.accounts[9].address, value: 1n })
    const raw = await wallet.signTransaction(request)
    const { result, error } = await node.rpc('eth_sendRawTransactionSync', [raw])
    expect(error).toBeUndefined()
    expect(result.status).toBe('0x1')
    expect(result.blockHash).toBe(await canonicalHash(node, result.blockNumber))
    // The same receipt as eth_getTransactionReceipt answers afterwards.
    expect((await waitForReceipt(node, result.transactionHash)).blockHash).toBe(result.blockHash)
  }, 60_000)
})
