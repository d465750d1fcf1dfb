// The bundler's mempool in the state file: an op held in manual mode survives a restart with --state
// (the file's "userOps"), and the restarted node, bundling in auto mode, includes it; an edited op in
// the file stops the start with the entry named.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address, encodeFunctionData, type Hex, parseEther } from 'viem'
import { entryPoint07Address } from 'viem/account-abstraction'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeState, summarizeStateFile } from '../src/cli/start-progress.js'
import { startNode } from '../src/index.js'
import { ruleBreakerAccountAbi, ruleBreakerAccountBytecode } from './fixtures/rule-breaker.js'
import { poll, startTestNode, type TestNode, waitForSealed } from './helpers.js'

const RECIPIENT: Address = '0x000000000000000000000000000000000000bEEF'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pcnode-userops-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

/** A clean v0.7 op (RuleBreakerAccount, signature 0x00) sending 9 wei to RECIPIENT. */
async function op(node: TestNode, sender: Address) {
  const baseFee = (await node.publicClient.getBlock({ blockTag: 'pending' })).baseFeePerGas ?? 0n
  return {
    sender,
    nonce: '0x0',
    callData: encodeFunctionData({ abi: ruleBreakerAccountAbi, functionName: 'execute', args: [RECIPIENT, 9n, '0x'] }),
    callGasLimit: '0x30000',
    verificationGasLimit: '0x60000',
    preVerificationGas: '0x30000',
    maxFeePerGas: `0x${(baseFee * 4n + 2_000_000_000n).toString(16)}`,
    maxPriorityFeePerGas: '0x3b9aca00',
    signature: '0x00',
  }
}

describe("the bundler's mempool in the state file", () => {
  it('keeps an op not yet bundled across a restart, and the restarted node bundles it', async () => {
    const file = join(dir, 'restart.json')
    const first = await startTestNode({ stateFile: file })
    let hash: Hex
    try {
      const deploy = await first
        .wallet(0)
        .deployContract({ abi: ruleBreakerAccountAbi, bytecode: ruleBreakerAccountBytecode, value: parseEther('1') })
      // Sealed, so the account is in the saved state (not only in the saved pool).
      const sender = (await waitForSealed(first, deploy, 20_000)).contractAddress as Address
      expect((await first.rpc('debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok')
      const sent = await first.rpc('eth_sendUserOperation', [await op(first, sender), entryPoint07Address])
      expect(sent.error).toBeUndefined()
      hash = sent.result
      expect((await first.rpc('pcnode_userOperationStatus', [hash])).result.status).toBe('pending')
    } finally {
      await first.stop() // the state file's last write
    }

    const saved = JSON.parse(await readFile(file, 'utf8'))
    expect(saved.userOps).toHaveLength(1)
    expect(saved.userOps[0]).toMatchObject({ hash, entryPoint: entryPoint07Address, status: 'pending' })
    // What `pcnode start`'s banner says of the file it loads.
    expect(describeState((await summarizeStateFile(file))!)).toMatch(/accounts, 1 user operation$/)

    const second = await startTestNode({ stateFile: file })
    try {
      // Restored, then bundled at once (a restarted node is in auto mode) and included.
      const receipt = await poll(async () => (await second.rpc('eth_getUserOperationReceipt', [hash])).result, undefined, {
        timeoutMs: 20_000,
        what: 'the restored op included',
      })
      expect(receipt.success).toBe(true)
      expect(receipt.receipt.from.toLowerCase()).toBe(second.node.bundler.address.toLowerCase())
      const status = (await second.rpc('pcnode_userOperationStatus', [hash])).result
      expect(['preconfirmed', 'confirmed']).toContain(status.status)
      expect(status.transactionHash).toBe(receipt.receipt.transactionHash)
      expect(status.receivedAt).toBeGreaterThan(0)
      expect(status.bundledAt).toBeGreaterThanOrEqual(status.receivedAt)
      expect((await second.rpc('eth_getUserOperationByHash', [hash])).result.transactionHash).toBe(
        receipt.receipt.transactionHash,
      )
      expect((await second.rpc('debug_bundler_dumpMempool', [entryPoint07Address])).result).toEqual([])
    } finally {
      await second.stop()
    }
  }, 90_000)

  it('refuses a file whose saved op was edited, naming the entry', async () => {
    const file = join(dir, 'edited.json')
    const node = await startTestNode({ stateFile: file })
    try {
      const deploy = await node
        .wallet(0)
        .deployContract({ abi: ruleBreakerAccountAbi, bytecode: ruleBreakerAccountBytecode, value: parseEther('1') })
      const sender = (await waitForSealed(node, deploy, 20_000)).contractAddress as Address
      await node.rpc('debug_bundler_setBundlingMode', ['manual'])
      expect((await node.rpc('eth_sendUserOperation', [await op(node, sender), entryPoint07Address])).error).toBeUndefined()
    } finally {
      await node.stop()
    }
    const saved = JSON.parse(await readFile(file, 'utf8'))
    saved.userOps[0].userOperation.callGasLimit = '0x40000'
    await writeFile(file, JSON.stringify(saved))
    const error = await startNode({ port: 0, stateFile: file }).then(
      (n) => n.stop().then(() => undefined),
      (e: Error) => e,
    )
    expect(error?.message).toMatch(/userOps\[0\]: hash: the op hashes to 0x[0-9a-f]{64}, the file says/)
  }, 90_000)
})
