// The built-in bundler's ERC-7562 limits that need more than one op or one block: sends arriving at once
// held to an unstaked sender's share (UREP-010), a throttled entity's op dropped after
// THROTTLED_ENTITY_LIVE_BLOCKS (GREP-020, reported in pcnode_userOperationStatus), an unstaked paymaster
// returning a context (EREP-050, -32505), a v0.6 account naming a signature aggregator (-32506), and the
// entity blamed for a bundle that passed its second validation but reverted on-chain banned (GREP-040),
// and an op that read storage in another waiting op's sender held out of the bundle (STO-041).
import { type Address, encodeFunctionData, getAddress, type Hex, parseEther, parseGwei } from 'viem'
import { entryPoint06Address } from 'viem/account-abstraction'
import { beforeEach, describe, expect, it } from 'vitest'
import { aggregating06Abi, aggregating06Bytecode } from './fixtures/aggregating06.js'
import {
  reputationAccountAbi,
  reputationContextPaymasterAbi,
  reputationContextPaymasterBytecode,
  reputationPaymasterAbi,
  reputationPaymasterBytecode,
  reputationTokenAccountAbi,
  reputationTokenAccountBytecode,
} from './fixtures/reputation.js'
import { poll, useTestNode, waitForReceipt } from './helpers.js'
import { account, call, deploy, EP, ONE_ETH_HEX, op, RECIPIENT, reputationOf, stake } from './reputation-helpers.js'

const AGGREGATOR = getAddress('0x00000000000000000000000000000000000aa06a')
const HASH = /^0x[0-9a-f]{64}$/

describe("the bundler's ERC-7562 limits across sends and blocks", () => {
  const node = useTestNode({}, { timeoutMs: 30_000 })

  beforeEach(async () => {
    expect((await node.rpc('debug_bundler_clearState')).result).toBe('ok')
    expect((await node.rpc('debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok')
  })

  it('takes exactly 4 of 8 sends from one unstaked sender arriving at once (UREP-010)', async () => {
    const sender = await account(node)
    const ops = await Promise.all([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n].map((key) => op(node, sender, key)))
    const answers = await Promise.all(ops.map((o) => node.rpc('eth_sendUserOperation', [o, EP])))
    const accepted = answers.filter((a) => HASH.test(a.result ?? ''))
    const refused = answers.filter((a) => a.error)
    expect(accepted).toHaveLength(4)
    expect(refused).toHaveLength(4)
    for (const { error } of refused) {
      expect(error.code).toBe(-32505)
      expect(error.message).toContain(`account ${sender} is unstaked and has 4 user operations in the mempool`)
    }
    expect((await node.rpc('debug_bundler_dumpMempool', [EP])).result).toHaveLength(4)
  }, 60_000)

  it("drops a throttled entity's op still waiting after 10 blocks (THROTTLED_ENTITY_LIVE_BLOCKS), and says so in its status", async () => {
    const sender = await account(node)
    await stake(node, sender)
    const pm = await deploy(node, reputationPaymasterAbi, reputationPaymasterBytecode)
    await call(node, pm, 'deposit', [], parseEther('1'))
    await stake(node, pm)
    // opsSeen 120 // 10 = 12 > 1 + 10: throttled, not banned.
    await node.rpc('debug_bundler_setReputation', [[{ address: pm, opsSeen: '0x78', opsIncluded: '0x1' }], EP])
    const before = BigInt((await node.rpc('eth_blockNumber')).result)
    const { result: throttled } = await node.rpc('eth_sendUserOperation', [await op(node, sender, 0n, pm), EP])
    const { result: ok } = await node.rpc('eth_sendUserOperation', [await op(node, sender, 1n), EP])
    expect(throttled).toMatch(HASH)
    expect(ok).toMatch(HASH)
    const status = async (hash: string) => (await node.rpc('pcnode_userOperationStatus', [hash])).result
    let seenPendingAt = -1n
    const dropped = await poll(
      async () => {
        const s = await status(throttled)
        const at = BigInt((await node.rpc('eth_blockNumber')).result)
        if (s.status === 'pending') seenPendingAt = at
        if (s.status !== 'dropped') await node.rpc('evm_mine')
        return { s, at }
      },
      ({ s }) => s.status !== 'pending',
      { timeoutMs: 60_000, what: 'the throttled op to leave the mempool', intervalMs: 20 },
    )
    expect(dropped.s.status).toBe('dropped')
    expect(dropped.s.reason).toContain('THROTTLED_ENTITY_LIVE_BLOCKS')
    expect(dropped.at).toBeGreaterThanOrEqual(before + 10n)
    expect(seenPendingAt).toBeGreaterThan(before)
    // The op naming no throttled entity still waits.
    expect((await status(ok)).status).toBe('pending')
    expect((await node.rpc('debug_bundler_dumpMempool', [EP])).result).toHaveLength(1)
  }, 90_000)

  it('refuses an unstaked paymaster that returns a context (EREP-050, -32505), and takes it once staked', async () => {
    const sender = await account(node)
    const pm = await deploy(node, reputationContextPaymasterAbi, reputationContextPaymasterBytecode)
    await call(node, pm, 'deposit', [], parseEther('1'))
    const { error } = await node.rpc('eth_sendUserOperation', [await op(node, sender, 0n, pm), EP])
    expect(error.code).toBe(-32505)
    expect(error.message).toContain('paymaster validation breaks ERC-7562 EREP-050')
    expect(error.data).toEqual({ paymaster: pm, minimumStake: ONE_ETH_HEX, minimumUnstakeDelay: '0x0' })
    // The same paymaster without a context, or staked, is taken.
    const plain = await deploy(node, reputationPaymasterAbi, reputationPaymasterBytecode)
    await call(node, plain, 'deposit', [], parseEther('1'))
    expect((await node.rpc('eth_sendUserOperation', [await op(node, sender, 0n, plain), EP])).result).toMatch(HASH)
    await stake(node, pm)
    expect((await node.rpc('eth_sendUserOperation', [await op(node, sender, 1n, pm), EP])).result).toMatch(HASH)
  }, 60_000)

  it('refuses a v0.6 account that names a signature aggregator with -32506', async () => {
    const sender = await deploy(node, aggregating06Abi, aggregating06Bytecode, [AGGREGATOR], parseEther('1'))
    const baseFee = (await node.publicClient.getBlock({ blockTag: 'pending' })).baseFeePerGas ?? 0n
    const op06 = {
      sender,
      nonce: '0x0',
      initCode: '0x',
      callData: encodeFunctionData({ abi: aggregating06Abi, functionName: 'execute', args: [RECIPIENT, 0n, '0x'] }),
      callGasLimit: '0x30000',
      verificationGasLimit: '0x60000',
      preVerificationGas: '0x30000',
      maxFeePerGas: `0x${(baseFee * 2n + 1_000_000_000n).toString(16)}`,
      maxPriorityFeePerGas: '0x3b9aca00',
      paymasterAndData: '0x',
      signature: '0x',
    }
    const { error } = await node.rpc('eth_sendUserOperation', [op06, entryPoint06Address])
    expect(error.code).toBe(-32506)
    expect(error.message).toMatch(/unsupported signature aggregator/)
    expect(error.data).toEqual({ aggregator: AGGREGATOR })
    // The same account naming none is taken.
    const plain = await deploy(node, aggregating06Abi, aggregating06Bytecode, [`0x${'0'.repeat(40)}` as Address], parseEther('1'))
    expect((await node.rpc('eth_sendUserOperation', [{ ...op06, sender: plain }, entryPoint06Address])).result).toMatch(HASH)
  }, 60_000)

  it("keeps an op that read storage in another waiting op's sender out of the bundle until that op is gone (STO-041)", async () => {
    const token = await deploy(node, reputationTokenAccountAbi, reputationTokenAccountBytecode, [], parseEther('1'))
    const holder = await deploy(node, reputationTokenAccountAbi, reputationTokenAccountBytecode, [], parseEther('1'))
    const send = (data: Hex, to: Address) =>
      node
        .wallet(0)
        .sendTransaction({ to, data })
        .then((h) => waitForReceipt(node, h))
    await send(encodeFunctionData({ abi: reputationTokenAccountAbi, functionName: 'setBalance', args: [holder, 1n] }), token)
    await send(encodeFunctionData({ abi: reputationTokenAccountAbi, functionName: 'setToken', args: [token] }), holder)
    // The holder's validation reads its balance in `token` (storage associated with the holder, STO-021),
    // and `token` is the sender of the op before it.
    const { result: first } = await node.rpc('eth_sendUserOperation', [await op(node, token, 0n), EP])
    const { result: second } = await node.rpc('eth_sendUserOperation', [await op(node, holder, 0n), EP])
    expect(first).toMatch(HASH)
    expect(second).toMatch(HASH)
    const { result: bundle } = await node.rpc('debug_bundler_sendBundleNow')
    expect(bundle).toMatch(HASH)
    expect((await node.rpc('debug_bundler_dumpMempool', [EP])).result).toEqual([expect.objectContaining({ sender: holder })])
    await waitForReceipt(node, bundle)
    expect((await node.rpc('eth_getUserOperationReceipt', [first])).result.userOpHash).toBe(first)
    expect((await node.rpc('eth_getUserOperationReceipt', [second])).result).toBe(null)
    // With the token's op gone, the holder's goes in the next bundle.
    const { result: next } = await node.rpc('debug_bundler_sendBundleNow')
    expect(next).toMatch(HASH)
    await waitForReceipt(node, next)
    expect((await node.rpc('eth_getUserOperationReceipt', [second])).result.success).toBe(true)
  }, 60_000)
})

describe('a bundle that passed its second validation and reverted on-chain (GREP-040)', () => {
  const node = useTestNode({}, { timeoutMs: 30_000 })

  it('bans the entity the failing op blames: opsSeen 10000, opsIncluded 0', async () => {
    await node.rpc('debug_bundler_setBundlingMode', ['manual'])
    const sender = await account(node)
    const { result: hash } = await node.rpc('eth_sendUserOperation', [await op(node, sender, 0n), EP])
    expect(hash).toMatch(HASH)
    // Mining stops, so the bundle and a transaction that breaks the account's validation wait together;
    // the breaking one pays the higher tip and runs first in the block.
    expect((await node.rpc('evm_setIntervalMining', [0])).result).toBe(null)
    const { result: bundle } = await node.rpc('debug_bundler_sendBundleNow')
    expect(bundle).toMatch(HASH)
    await node.wallet(0).sendTransaction({
      to: sender,
      data: encodeFunctionData({ abi: reputationAccountAbi, functionName: 'setFailing', args: [true] }),
      maxPriorityFeePerGas: parseGwei('50'),
      maxFeePerGas: parseGwei('100'),
    })
    await node.rpc('evm_mine')
    const receipt = await waitForReceipt(node, bundle)
    expect(receipt.status).toBe('reverted')
    const banned = await poll(
      () => reputationOf(node, sender),
      (e) => e?.status === '0x2',
      { what: 'the account to be banned', timeoutMs: 20_000 },
    )
    expect(banned).toEqual({ address: sender, opsSeen: '0x2710', opsIncluded: '0x0', status: '0x2' })
    const status = (await node.rpc('pcnode_userOperationStatus', [hash])).result
    expect(status.status).toBe('dropped')
    expect(status.reason).toContain('reverted')
    const refused = await node.rpc('eth_sendUserOperation', [await op(node, sender, 1n), EP])
    expect(refused.error.code).toBe(-32504)
    expect(refused.error.message).toContain(`account ${sender} is banned`)
  }, 60_000)
})
