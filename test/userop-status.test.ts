// A user operation's stages through pcnode_userOperationStatus and alto's pimlico_getUserOperationStatus:
// received → bundled → pre-confirmed → sealed with the time of each, a reverted call's reason, ops held
// in manual mode and replaced, refusals with their ERC-7769 code, unknown hashes; and the terminal log's
// `userop` lines for each of those steps (start-log.ts's follower, in-process).
import { Chalk } from 'chalk'
import { type Address, encodeFunctionData, type Hex, parseEther } from 'viem'
import { entryPoint07Address, getUserOperationHash } from 'viem/account-abstraction'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { followActivity } from '../src/cli/start-log.js'
import { ruleBreakerAccountAbi, ruleBreakerAccountBytecode } from './fixtures/rule-breaker.js'
import { poll, type TestNode, useTestNode, waitForReceipt } from './helpers.js'

const RECIPIENT: Address = '0x000000000000000000000000000000000000bEEF'

/** A RuleBreakerAccount (v0.7, its signature's first byte picks its validation: 0 clean, 1 reads TIMESTAMP) with 1 ETH. */
async function account(node: TestNode): Promise<Address> {
  const hash = await node
    .wallet(0)
    .deployContract({ abi: ruleBreakerAccountAbi, bytecode: ruleBreakerAccountBytecode, value: parseEther('1') })
  return (await waitForReceipt(node, hash)).contractAddress as Address
}

/** A v0.7 op in RPC form: `value` wei to RECIPIENT (more than the account holds makes its call revert). */
async function op(node: TestNode, sender: Address, o: { nonce?: bigint; value?: bigint; mode?: number; tip?: bigint } = {}) {
  const baseFee = (await node.publicClient.getBlock({ blockTag: 'pending' })).baseFeePerGas ?? 0n
  const tip = o.tip ?? 1_000_000_000n
  return {
    sender,
    nonce: `0x${(o.nonce ?? 0n).toString(16)}`,
    callData: encodeFunctionData({
      abi: ruleBreakerAccountAbi,
      functionName: 'execute',
      args: [RECIPIENT, o.value ?? 1n, '0x'],
    }),
    callGasLimit: '0x30000',
    verificationGasLimit: '0x60000',
    preVerificationGas: '0x30000',
    maxFeePerGas: `0x${(baseFee * 2n + tip * 2n).toString(16)}`,
    maxPriorityFeePerGas: `0x${tip.toString(16)}`,
    signature: `0x0${o.mode ?? 0}`,
  }
}

async function send(node: TestNode, userOp: Record<string, unknown>): Promise<Hex> {
  const { result, error } = await node.rpc('eth_sendUserOperation', [userOp, entryPoint07Address])
  if (error) throw new Error(`${error.code}: ${error.message}`)
  return result
}

const status = async (node: TestNode, hash: Hex) => (await node.rpc('pcnode_userOperationStatus', [hash])).result
const pimlico = async (node: TestNode, hash: Hex) => (await node.rpc('pimlico_getUserOperationStatus', [hash])).result

/** The terminal log's lines while the tests run (followActivity writes them to stdout). */
const lines: string[] = []
beforeAll(() => {
  const write = process.stdout.write.bind(process.stdout)
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (typeof chunk === 'string' && /^\d\d:\d\d/.test(chunk)) {
      lines.push(...chunk.trimEnd().split('\n'))
      return true
    }
    return write(chunk, ...(rest as []))
  })
})
afterAll(() => vi.restoreAllMocks())

describe('user operation status', () => {
  const node = useTestNode({}, { timeoutMs: 30_000 })
  let sender: Address

  beforeAll(async () => {
    followActivity(new Chalk({ level: 0 }), node, 0)
    sender = await account(node)
  }, 30_000)

  const logged = (pattern: RegExp) =>
    poll(() => lines.find((l) => pattern.test(l)), undefined, { timeoutMs: 20_000, what: `a log line matching ${pattern}` })

  it('follows an op from received to sealed, with the time of each stage', async () => {
    const hash = await send(node, await op(node, sender))
    const sealed = await poll(
      () => status(node, hash),
      (s) => s.status === 'confirmed',
      { timeoutMs: 20_000, what: 'the op sealed' },
    )
    const { result: receipt } = await node.rpc('eth_getUserOperationReceipt', [hash])
    expect(sealed).toMatchObject({
      entryPoint: entryPoint07Address,
      transactionHash: receipt.receipt.transactionHash,
      blockNumber: receipt.receipt.blockNumber,
      blockHash: receipt.receipt.blockHash,
      success: true,
    })
    expect(sealed.sender.toLowerCase()).toBe(sender.toLowerCase())
    expect(sealed.flashblockIndex).toMatch(/^0x[0-9a-f]+$/)
    const { receivedAt, bundledAt, preconfirmedAt, sealedAt } = sealed
    expect(receivedAt).toBeGreaterThan(Date.now() - 60_000)
    expect(bundledAt).toBeGreaterThanOrEqual(receivedAt)
    expect(preconfirmedAt).toBeGreaterThanOrEqual(bundledAt)
    expect(sealedAt).toBeGreaterThanOrEqual(preconfirmedAt)
    expect(sealed.droppedAt).toBeUndefined()
    expect(await pimlico(node, hash)).toEqual({ status: 'included', transactionHash: receipt.receipt.transactionHash })

    const tx = receipt.receipt.transactionHash
    await logged(new RegExp(`userop ${hash} from 0x[0-9a-fA-F]{40} received \\(EntryPoint v0\\.7\\)`))
    await logged(new RegExp(`userop ${hash} bundled into tx ${tx}`))
    await logged(new RegExp(`userop ${hash} pre-confirmed in block #${BigInt(receipt.receipt.blockNumber)}, flashblock \\d+`))
    await logged(new RegExp(`userop ${hash} sealed in block #${BigInt(receipt.receipt.blockNumber)}: ok`))
  }, 60_000)

  it("reports a reverted call's reason once included", async () => {
    const hash = await send(node, await op(node, sender, { nonce: 1n, value: parseEther('10') }))
    const sealed = await poll(
      () => status(node, hash),
      (s) => s.status === 'confirmed',
      { timeoutMs: 20_000, what: 'the op sealed' },
    )
    expect(sealed).toMatchObject({ success: false, revertReason: 'call failed' })
    // The op was included (its bundle ran it): alto says included whether its call reverted or not.
    expect((await pimlico(node, hash)).status).toBe('included')
    await logged(new RegExp(`userop ${hash} sealed in block #\\d+: failed: call failed`))
  }, 60_000)

  it('holds ops in manual mode (not_submitted), marks a replaced one, and follows the bundle sent on demand', async () => {
    expect((await node.rpc('debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok')
    try {
      const first = await send(node, await op(node, sender, { nonce: 2n }))
      expect(await status(node, first)).toMatchObject({ status: 'pending', entryPoint: entryPoint07Address })
      expect((await status(node, first)).bundledAt).toBeUndefined()
      expect(await pimlico(node, first)).toEqual({ status: 'not_submitted', transactionHash: null })

      const second = await send(node, await op(node, sender, { nonce: 2n, value: 2n, tip: 2_000_000_000n }))
      expect(await status(node, first)).toMatchObject({ status: 'replaced', replacedBy: second })
      expect(await pimlico(node, first)).toEqual({ status: 'rejected', transactionHash: null })
      await logged(new RegExp(`userop ${first} replaced by ${second}`))

      const { result: bundle } = await node.rpc('debug_bundler_sendBundleNow')
      expect(bundle).toMatch(/^0x[0-9a-f]{64}$/)
      const included = await poll(
        () => status(node, second),
        (s) => s.status === 'preconfirmed' || s.status === 'confirmed',
        { timeoutMs: 20_000, what: 'the op included' },
      )
      expect(included.transactionHash).toBe(bundle)
      expect(await pimlico(node, second)).toEqual({ status: 'included', transactionHash: bundle })
    } finally {
      await node.rpc('debug_bundler_setBundlingMode', ['auto'])
    }
  }, 60_000)

  it('records a refused op with its ERC-7769 code and reason', async () => {
    const userOp = await op(node, sender, { nonce: 3n, mode: 1 })
    const { error } = await node.rpc('eth_sendUserOperation', [userOp, entryPoint07Address])
    expect(error.code).toBe(-32502)
    const hash = getUserOperationHash({
      chainId: node.chainId,
      entryPointAddress: entryPoint07Address,
      entryPointVersion: '0.7',
      userOperation: {
        sender: userOp.sender,
        nonce: BigInt(userOp.nonce),
        callData: userOp.callData,
        callGasLimit: BigInt(userOp.callGasLimit),
        verificationGasLimit: BigInt(userOp.verificationGasLimit),
        preVerificationGas: BigInt(userOp.preVerificationGas),
        maxFeePerGas: BigInt(userOp.maxFeePerGas),
        maxPriorityFeePerGas: BigInt(userOp.maxPriorityFeePerGas),
        signature: userOp.signature as Hex,
      },
    })
    const refused = await status(node, hash)
    expect(refused).toMatchObject({ status: 'refused', code: -32502 })
    expect(refused.reason).toBe(error.message)
    expect(refused.droppedAt).toBeGreaterThan(0)
    expect(await pimlico(node, hash)).toEqual({ status: 'rejected', transactionHash: null })
    await logged(new RegExp(`refused userop ${hash} \\(-32502\\): `))
  }, 60_000)

  it('answers unknown / not_found for a hash it never saw, and -32602 for a malformed one', async () => {
    const hash = `0x${'ab'.repeat(32)}` as Hex
    expect(await status(node, hash)).toEqual({ status: 'unknown' })
    expect(await pimlico(node, hash)).toEqual({ status: 'not_found', transactionHash: null })
    const { error } = await node.rpc('pcnode_userOperationStatus', ['0x1234'])
    expect(error.code).toBe(-32602)
    expect((await node.rpc('pimlico_getUserOperationStatus', [])).error.code).toBe(-32602)
  })
})

describe('user operation status with --block-time 0 (each send sealed before it returns)', () => {
  const node = useTestNode({ blockTime: 0 }, { timeoutMs: 30_000 })

  it('still records the bundle and its sealing, and logs them', async () => {
    followActivity(new Chalk({ level: 0 }), node, 0)
    const sender = await account(node)
    const hash = await send(node, await op(node, sender))
    const sealed = await poll(
      () => status(node, hash),
      (s) => s.status === 'confirmed',
      { timeoutMs: 20_000, what: 'the op sealed' },
    )
    expect(sealed.success).toBe(true)
    expect(sealed.bundledAt).toBeGreaterThanOrEqual(sealed.receivedAt)
    expect(sealed.sealedAt).toBeGreaterThanOrEqual(sealed.bundledAt)
    await poll(
      () => lines.find((l) => l.includes(`userop ${hash} sealed in block #${BigInt(sealed.blockNumber)}: ok`)),
      undefined,
      { timeoutMs: 20_000, what: 'the sealed line' },
    )
  }, 60_000)
})
