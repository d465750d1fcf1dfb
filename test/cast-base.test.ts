// Foundry's cast 1.7.1 on the base profile, where every block opens with the type-0x7e L1-info
// deposit: `cast run` replays a transaction (it decodes the block's deposit with op-alloy's
// TxDeposit, which reads isSystemTx only as a quantity), `cast tx` shows the deposit and `cast
// block --full` the block. cast picks OP-stack decoding from the chain id (Base's, Base Sepolia's),
// or from FOUNDRY_NETWORK=optimism at any other id (31337 is anvil's, decoded as Ethereum).
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { encodeFunctionData, getContractAddress, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from './cli.js'
import { counterAbi, counterBytecode } from './fixtures/counter.js'
import { startTestNode, type TestNode, waitForReceipt, waitForSealed } from './helpers.js'

const CAST = join(ROOT, 'node_modules', '@foundry-rs', 'cast-linux-amd64', 'bin', 'cast')
const exec = promisify(execFile)

type Json = any

async function cast(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(CAST, args, { timeout: 60_000, env: { ...process.env, ...env } })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }
  }
}

/** A counter deployed, then increase(3) sent; both sealed. Returns the call's hash and block. */
async function sealedCall(node: TestNode): Promise<{ hash: Hex; block: bigint; counter: Hex; gasUsed: bigint }> {
  const wallet = node.wallet(0)
  const deploy = await wallet.deployContract({ abi: counterAbi, bytecode: counterBytecode, args: [5n] })
  await waitForReceipt(node, deploy)
  const counter = getContractAddress({ from: wallet.account.address, nonce: 0n })
  const data = encodeFunctionData({ abi: counterAbi, functionName: 'increase', args: [3n] })
  const hash = await wallet.sendTransaction({ to: counter, data })
  const receipt = await waitForSealed(node, hash, 30_000)
  expect(receipt.status).toBe('success')
  return { hash, block: receipt.blockNumber, counter, gasUsed: receipt.gasUsed }
}

describe('cast on the base profile (blocks open with the L1-info deposit)', () => {
  let node: TestNode
  let call: Awaited<ReturnType<typeof sealedCall>>
  beforeAll(async () => {
    node = await startTestNode({ blockTime: 500, preconfInterval: 50 })
    call = await sealedCall(node)
  }, 60_000)
  afterAll(() => node?.stop())

  it('the deposit as reth serves it: zero signature with yParity, isSystemTx left out when false, no chainId', async () => {
    const block = (await node.rpc('eth_getBlockByNumber', [`0x${call.block.toString(16)}`, true])).result
    const deposit = block.transactions[0]
    expect(deposit).toMatchObject({ type: '0x7e', v: '0x0', r: '0x0', s: '0x0', yParity: '0x0', mint: '0x0', gasPrice: '0x0' })
    expect(deposit).not.toHaveProperty('isSystemTx')
    expect(deposit).not.toHaveProperty('chainId')
    expect((await node.rpc('eth_getTransactionByHash', [deposit.hash])).result).toEqual(deposit)
  })

  it('cast run replays a transaction of a base-profile block (FOUNDRY_NETWORK=optimism at chain id 31337)', async () => {
    const run = await cast(['run', call.hash, '--rpc-url', node.rpcUrl], { FOUNDRY_NETWORK: 'optimism' })
    expect(run.stderr).not.toContain('deserialization error')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Transaction successfully executed.')
    // The call tree (selectors undecoded: cast has no ABI for the counter), with its event and gas.
    expect(run.stdout).toContain(`${call.counter}::30f3f0db(`)
    expect(run.stdout).toMatch(/emit topic 0: 0x[0-9a-f]{64}/)
    expect(run.stdout).toContain(`Gas used: ${call.gasUsed}`)
  })

  it('cast tx shows the deposit, cast block --full the block with it', async () => {
    const block = (await node.rpc('eth_getBlockByNumber', [`0x${call.block.toString(16)}`, false])).result
    const tx = await cast(['tx', block.transactions[0], '--rpc-url', node.rpcUrl, '--json'])
    expect(tx.code).toBe(0)
    const shown: Json = JSON.parse(tx.stdout)
    expect(shown).toMatchObject({
      type: '0x7e',
      from: '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001',
      depositReceiptVersion: '0x1',
    })
    const full = await cast(['block', call.block.toString(), '--full', '--rpc-url', node.rpcUrl, '--json'])
    expect(full.code).toBe(0)
    expect(JSON.parse(full.stdout).transactions.map((t: Json) => t.hash)).toEqual(block.transactions)
  })
})

describe('cast run at an OP-stack chain id (84532, Base Sepolia): no setting needed', () => {
  let node: TestNode
  beforeAll(async () => {
    node = await startTestNode({ chainId: 84532, blockTime: 500, preconfInterval: 50 })
  })
  afterAll(() => node?.stop())

  it('cast run replays it, the deposit decoded as an OP deposit', async () => {
    const call = await sealedCall(node)
    const run = await cast(['run', call.hash, '--rpc-url', node.rpcUrl])
    expect(run.stderr).not.toContain('deserialization error')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Transaction successfully executed.')
    expect(run.stdout).toContain(`${call.counter}::30f3f0db(`)
    expect(run.stdout).toContain(`Gas used: ${call.gasUsed}`)
  }, 60_000)
})
