// The built-in bundler's ERC-7562 reputation and staking, and ERC-7769's refusals, through plain JSON-RPC
// and viem's bundler client: stakes read from the EntryPoint (an entity stakes with addStake), an unstaked
// sender's and paymaster's mempool limits (-32505 with the minimums), throttled and banned entities set with
// debug_bundler_setReputation (-32504), the hourly decay on the chain's clock, opsSeen/opsIncluded as ops
// are accepted, bundled and dropped, and an account naming a signature aggregator (-32506).
import { type Abi, type Address, encodeFunctionData, getAddress, type Hex, http, parseEther } from 'viem'
import { createBundlerClient, entryPoint07Address } from 'viem/account-abstraction'
import { beforeEach, describe, expect, it } from 'vitest'
import { DEV_PAYMASTERS } from '../src/contracts/paymaster.js'
import {
  reputationAccountAbi,
  reputationAccountBytecode,
  reputationFactoryAbi,
  reputationFactoryBytecode,
  reputationPaymasterAbi,
  reputationPaymasterBytecode,
} from './fixtures/reputation.js'
import { type TestNode, useTestNode, waitForReceipt } from './helpers.js'

const EP = entryPoint07Address
const RECIPIENT: Address = '0x000000000000000000000000000000000000bEEF'
const AGGREGATOR = getAddress('0x00000000000000000000000000000000000aa99a')
const ONE_ETH_HEX = '0xde0b6b3a7640000'

async function deploy(node: TestNode, abi: Abi, bytecode: Hex, args: unknown[] = [], value = 0n): Promise<Address> {
  const hash = await node.wallet(0).deployContract({ abi, bytecode, args, value } as never)
  return getAddress((await waitForReceipt(node, hash)).contractAddress as Address)
}

/** A ReputationAccount holding 1 ETH; `aggregator` is what its validation names (none by default). */
function account(node: TestNode, aggregator: Address = '0x0000000000000000000000000000000000000000') {
  return deploy(node, reputationAccountAbi, reputationAccountBytecode, [aggregator], parseEther('1'))
}

/** A ReputationPaymaster with 1 ETH deposited in the EntryPoint. */
async function paymaster(node: TestNode): Promise<Address> {
  const address = await deploy(node, reputationPaymasterAbi, reputationPaymasterBytecode)
  await call(node, address, 'deposit', [], parseEther('1'))
  return address
}

/** EntryPoint.addStake from the entity itself: 1 ETH locked for `delay` seconds. */
function stake(node: TestNode, address: Address, delay = 2) {
  return call(node, address, 'stake', [delay], parseEther('1'))
}

async function call(node: TestNode, address: Address, functionName: string, args: unknown[], value = 0n) {
  const hash = await node.wallet(0).sendTransaction({
    to: address,
    value,
    data: encodeFunctionData({ abi: reputationAccountAbi, functionName, args } as never),
  })
  await waitForReceipt(node, hash)
}

/** A v0.7 op from `sender` with nonce key `key`, paid by `pm` when given. */
async function op(node: TestNode, sender: Address, key: bigint, pm?: Address) {
  const baseFee = (await node.publicClient.getBlock({ blockTag: 'pending' })).baseFeePerGas ?? 0n
  return {
    sender,
    nonce: `0x${(key << 64n).toString(16)}`,
    callData: encodeFunctionData({ abi: reputationAccountAbi, functionName: 'execute', args: [RECIPIENT, 0n, '0x'] }),
    callGasLimit: '0x30000',
    verificationGasLimit: '0x60000',
    preVerificationGas: '0x30000',
    maxFeePerGas: `0x${(baseFee * 2n + 1_000_000_000n).toString(16)}`,
    maxPriorityFeePerGas: '0x3b9aca00',
    signature: '0x',
    ...(pm
      ? { paymaster: pm, paymasterVerificationGasLimit: '0x30000', paymasterPostOpGasLimit: '0x10000', paymasterData: '0x' }
      : {}),
  }
}

async function reputationOf(node: TestNode, address: Address) {
  const { result } = await node.rpc('debug_bundler_dumpReputation', [EP])
  return result.find((e: { address: string }) => e.address.toLowerCase() === address.toLowerCase())
}

describe("the bundler's reputation and staking (ERC-7562, ERC-7769)", () => {
  const node = useTestNode({}, { timeoutMs: 30_000 })

  beforeEach(async () => {
    expect((await node.rpc('debug_bundler_clearState')).result).toBe('ok')
    expect((await node.rpc('debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok')
  })

  it('reads stakes from the EntryPoint: debug_bundler_getStakeStatus before and after addStake', async () => {
    const pm = await paymaster(node)
    const before = await node.rpc('debug_bundler_getStakeStatus', [pm, EP])
    expect(before.result).toEqual({ stakeInfo: { addr: pm, stake: '0', unstakeDelaySec: '0' }, isStaked: false })
    await stake(node, pm)
    const after = await node.rpc('debug_bundler_getStakeStatus', [pm, EP])
    expect(after.result).toEqual({
      stakeInfo: { addr: pm, stake: '1000000000000000000', unstakeDelaySec: '2' },
      isStaked: true,
    })
    expect((await node.rpc('debug_bundler_getStakeStatus', ['0x1234', EP])).error.code).toBe(-32602)
  }, 60_000)

  it('holds an unstaked sender to 4 ops in the mempool (UREP-010): -32505 with the minimums', async () => {
    const sender = await account(node)
    for (let key = 0n; key < 4n; key++) {
      expect((await node.rpc('eth_sendUserOperation', [await op(node, sender, key), EP])).result).toMatch(/^0x[0-9a-f]{64}$/)
    }
    const { error } = await node.rpc('eth_sendUserOperation', [await op(node, sender, 4n), EP])
    expect(error.code).toBe(-32505)
    expect(error.message).toContain(`account ${sender} is unstaked`)
    expect(error.data).toEqual({ account: sender, minimumStake: ONE_ETH_HEX, minimumUnstakeDelay: '0x0' })
    expect((await node.rpc('debug_bundler_dumpMempool', [EP])).result).toHaveLength(4)
    // The limit is on what waits: once the mempool is cleared the fifth is taken.
    expect((await node.rpc('debug_bundler_clearMempool')).result).toBe('ok')
    expect((await node.rpc('eth_sendUserOperation', [await op(node, sender, 4n), EP])).result).toMatch(/^0x[0-9a-f]{64}$/)
  }, 60_000)

  it('holds an unstaked paymaster to 10 ops (UREP-020) until it stakes; a staked sender has no limit', async () => {
    const sender = await account(node)
    await stake(node, sender)
    const pm = await paymaster(node)
    for (let key = 0n; key < 10n; key++) {
      expect((await node.rpc('eth_sendUserOperation', [await op(node, sender, key, pm), EP])).result).toMatch(/^0x/)
    }
    // Through viem's bundler client, as an app meets it.
    const client = createBundlerClient({ client: node.publicClient, transport: http(node.rpcUrl, { retryCount: 0 }) })
    const eleventh = await op(node, sender, 10n, pm)
    const refused = client.request({ method: 'eth_sendUserOperation', params: [eleventh as never, EP] })
    await expect(refused).rejects.toMatchObject({ code: -32505 })
    const { error } = await node.rpc('eth_sendUserOperation', [eleventh, EP])
    expect(error.message).toContain(`paymaster ${pm} is unstaked`)
    expect(error.data).toEqual({ paymaster: pm, minimumStake: ONE_ETH_HEX, minimumUnstakeDelay: '0x0' })
    // Both were counted when their ops entered the mempool (the sender because it is staked).
    expect(await reputationOf(node, pm)).toEqual({ address: pm, opsSeen: '0xa', opsIncluded: '0x0', status: '0x0' })
    expect((await reputationOf(node, sender)).opsSeen).toBe('0xa')

    await stake(node, pm)
    expect((await node.rpc('eth_sendUserOperation', [eleventh, EP])).result).toMatch(/^0x/)
    expect((await node.rpc('debug_bundler_dumpMempool', [EP])).result).toHaveLength(11)
  }, 90_000)

  it('holds an unstaked factory to 10 ops (UREP-020), each deploying its own sender', async () => {
    const factory = await deploy(node, reputationFactoryAbi, reputationFactoryBytecode)
    const pm = await paymaster(node)
    await stake(node, pm)
    const deploying = async (salt: bigint) => {
      const sender = await node.publicClient.readContract({
        address: factory,
        abi: reputationFactoryAbi,
        functionName: 'accountAt',
        args: [salt],
      })
      const factoryData = encodeFunctionData({ abi: reputationFactoryAbi, functionName: 'create', args: [salt] })
      return { ...(await op(node, sender, 0n, pm)), factory, factoryData, verificationGasLimit: '0x100000' }
    }
    for (let salt = 1n; salt <= 10n; salt++) {
      expect((await node.rpc('eth_sendUserOperation', [await deploying(salt), EP])).result).toMatch(/^0x/)
    }
    const { error } = await node.rpc('eth_sendUserOperation', [await deploying(11n), EP])
    expect(error.code).toBe(-32505)
    expect(error.message).toContain(`factory ${factory} is unstaked`)
    expect(error.data).toEqual({ factory, minimumStake: ONE_ETH_HEX, minimumUnstakeDelay: '0x0' })
    expect((await reputationOf(node, factory)).opsSeen).toBe('0xa')
  }, 90_000)

  it("limits a throttled paymaster to 4 ops and refuses a banned one (-32504); a bundle drops a banned entity's ops", async () => {
    const sender = await account(node)
    await stake(node, sender)
    const pm = await paymaster(node)
    const set = await node.rpc('debug_bundler_setReputation', [[{ address: pm, opsSeen: '0x78', opsIncluded: '0x1' }], EP])
    expect(set.result).toBe('ok')
    expect((await reputationOf(node, pm)).status).toBe('0x1')
    for (let key = 0n; key < 4n; key++) {
      expect((await node.rpc('eth_sendUserOperation', [await op(node, sender, key, pm), EP])).result).toMatch(/^0x/)
    }
    const throttled = await node.rpc('eth_sendUserOperation', [await op(node, sender, 4n, pm), EP])
    expect(throttled.error.code).toBe(-32504)
    expect(throttled.error.message).toContain(`paymaster ${pm} is throttled`)
    expect(throttled.error.data).toEqual({ paymaster: pm })

    await node.rpc('debug_bundler_setReputation', [[{ address: pm, opsSeen: '0x186a0', opsIncluded: '0x1' }], EP])
    expect((await reputationOf(node, pm)).status).toBe('0x2')
    const banned = await node.rpc('eth_sendUserOperation', [await op(node, sender, 5n, pm), EP])
    expect(banned.error.code).toBe(-32504)
    expect(banned.error.message).toContain(`paymaster ${pm} is banned`)
    // GREP-010: the banned paymaster's waiting ops leave the mempool instead of being bundled.
    expect((await node.rpc('debug_bundler_sendBundleNow')).result).toBe(null)
    expect((await node.rpc('debug_bundler_dumpMempool', [EP])).result).toEqual([])
  }, 90_000)

  it('bundles at most 4 ops naming a throttled entity; the rest wait for the next bundle (GREP-020)', async () => {
    const sender = await account(node)
    await stake(node, sender)
    const pm = await paymaster(node)
    for (let key = 0n; key < 6n; key++) {
      expect((await node.rpc('eth_sendUserOperation', [await op(node, sender, key, pm), EP])).result).toMatch(/^0x/)
    }
    await node.rpc('debug_bundler_setReputation', [[{ address: pm, opsSeen: '0x78', opsIncluded: '0x1' }], EP])
    const { result: first } = await node.rpc('debug_bundler_sendBundleNow')
    expect(first).toMatch(/^0x[0-9a-f]{64}$/)
    expect((await node.rpc('debug_bundler_dumpMempool', [EP])).result).toHaveLength(2)
    await waitForReceipt(node, first)
    expect((await node.rpc('debug_bundler_sendBundleNow')).result).toMatch(/^0x[0-9a-f]{64}$/)
    expect((await node.rpc('debug_bundler_dumpMempool', [EP])).result).toEqual([])
  }, 90_000)

  it('counts opsSeen when an op is accepted and opsIncluded when it lands (auto mode, viem waits for the receipt)', async () => {
    await node.rpc('debug_bundler_setBundlingMode', ['auto'])
    const sender = await account(node)
    const pm = await paymaster(node)
    await stake(node, pm)
    const client = createBundlerClient({ client: node.publicClient, transport: http(node.rpcUrl, { retryCount: 0 }) })
    const hash = await client.request({
      method: 'eth_sendUserOperation',
      params: [(await op(node, sender, 0n, pm)) as never, EP],
    })
    expect((await client.waitForUserOperationReceipt({ hash, timeout: 20_000, pollingInterval: 50 })).success).toBe(true)
    expect(await reputationOf(node, pm)).toEqual({ address: pm, opsSeen: '0x1', opsIncluded: '0x1', status: '0x0' })
    // An unstaked sender is not tracked (the reference bundler's and alto's rule).
    expect(await reputationOf(node, sender)).toBe(undefined)
  }, 60_000)

  it("gives back the paymaster's opsSeen when the account fails the second validation (EREP-015)", async () => {
    const sender = await account(node)
    const pm = await paymaster(node)
    await stake(node, pm)
    await node.rpc('debug_bundler_setReputation', [[{ address: pm, opsSeen: '0x5', opsIncluded: '0x2' }], EP])
    expect((await node.rpc('eth_sendUserOperation', [await op(node, sender, 0n, pm), EP])).result).toMatch(/^0x/)
    expect((await reputationOf(node, pm)).opsSeen).toBe('0x6')
    await call(node, sender, 'setFailing', [true])
    expect((await node.rpc('debug_bundler_sendBundleNow')).result).toBe(null)
    expect(await reputationOf(node, pm)).toEqual({ address: pm, opsSeen: '0x5', opsIncluded: '0x2', status: '0x0' })
  }, 60_000)

  it('decays opsSeen and opsIncluded by 23/24 for each hour of chain time (evm_increaseTime)', async () => {
    const entity = getAddress('0x00000000000000000000000000000000000deca7')
    await node.rpc('debug_bundler_setReputation', [[{ address: entity, opsSeen: '0xf0', opsIncluded: '0x18' }], EP])
    expect(await reputationOf(node, entity)).toMatchObject({ opsSeen: '0xf0', opsIncluded: '0x18' })
    await node.rpc('evm_increaseTime', ['0xe10'])
    await node.rpc('evm_mine')
    // 240 × 23 // 24 = 230, 24 × 23 // 24 = 23.
    expect(await reputationOf(node, entity)).toMatchObject({ opsSeen: '0xe6', opsIncluded: '0x17' })
    await node.rpc('evm_increaseTime', ['0x1c20'])
    await node.rpc('evm_mine')
    // Two more hours: 230 → 220 → 210, 23 → 22 → 21.
    expect(await reputationOf(node, entity)).toMatchObject({ opsSeen: '0xd2', opsIncluded: '0x15' })
  }, 60_000)

  it('refuses one address as a sender in one waiting op and a paymaster in another (STO-040, -32502)', async () => {
    const sender = await account(node)
    const other = await account(node)
    const pm = await paymaster(node)
    expect((await node.rpc('eth_sendUserOperation', [await op(node, sender, 0n, pm), EP])).result).toMatch(/^0x/)
    const asPaymaster = await node.rpc('eth_sendUserOperation', [await op(node, other, 0n, sender), EP])
    expect(asPaymaster.error.code).toBe(-32502)
    expect(asPaymaster.error.message).toContain(`paymaster ${sender} in this UserOperation is used as a sender entity`)
    const asSender = await node.rpc('eth_sendUserOperation', [await op(node, pm, 0n), EP])
    expect(asSender.error.code).toBe(-32502)
    expect(asSender.error.message).toMatch(/is used as a different entity in another UserOperation currently in mempool/)
  }, 60_000)

  it("refuses an op its paymaster's deposit cannot pay for besides its waiting ops (EREP-010, -32508)", async () => {
    const sender = await account(node)
    await stake(node, sender)
    const pm = await deploy(node, reputationPaymasterAbi, reputationPaymasterBytecode)
    await stake(node, pm)
    const ops = await Promise.all([0n, 1n, 2n].map((key) => op(node, sender, key, pm)))
    const cost = (o: (typeof ops)[number]) =>
      (BigInt(o.callGasLimit) +
        BigInt(o.verificationGasLimit) +
        BigInt(o.preVerificationGas) +
        BigInt(o.paymasterVerificationGasLimit ?? 0) +
        BigInt(o.paymasterPostOpGasLimit ?? 0)) *
      BigInt(o.maxFeePerGas)
    // Enough for all three but one wei.
    await call(node, pm, 'deposit', [], ops.map(cost).reduce((a, b) => a + b) - 1n)
    for (const o of ops.slice(0, 2)) expect((await node.rpc('eth_sendUserOperation', [o, EP])).result).toMatch(/^0x/)
    const { error } = await node.rpc('eth_sendUserOperation', [ops[2], EP])
    expect(error.code).toBe(-32508)
    expect(error.message).toContain(`paymaster ${pm} deposit too low`)
    expect(error.data).toEqual({ paymaster: pm })
  }, 60_000)

  it('refuses an account that names a signature aggregator with -32506', async () => {
    const sender = await account(node, AGGREGATOR)
    const { error } = await node.rpc('eth_sendUserOperation', [await op(node, sender, 0n), EP])
    expect(error.code).toBe(-32506)
    expect(error.message).toMatch(/unsupported signature aggregator/)
    expect(error.data).toEqual({ aggregator: AGGREGATOR })
    expect((await node.rpc('eth_blockNumber')).result).toMatch(/^0x/)
  }, 60_000)

  it('clears reputation with debug_bundler_clearReputation and clearState; keeps the development paymaster OK', async () => {
    const entity = getAddress('0x0000000000000000000000000000000000c1ea12')
    const dev = DEV_PAYMASTERS[0].address
    await node.rpc('debug_bundler_setReputation', [
      [
        { address: entity, opsSeen: '0x186a0', opsIncluded: '0x0' },
        { address: dev, opsSeen: '0x186a0', opsIncluded: '0x0' },
      ],
      EP,
    ])
    expect((await reputationOf(node, entity)).status).toBe('0x2')
    // The node's own paymaster is on the allow list.
    expect((await reputationOf(node, dev)).status).toBe('0x0')
    expect((await node.rpc('debug_bundler_clearReputation')).result).toBe('ok')
    expect((await node.rpc('debug_bundler_dumpReputation', [EP])).result).toEqual([])
    await node.rpc('debug_bundler_setReputation', [[{ address: entity, opsSeen: '0x1', opsIncluded: '0x0' }], EP])
    expect((await node.rpc('debug_bundler_clearState')).result).toBe('ok')
    expect((await node.rpc('debug_bundler_dumpReputation', [EP])).result).toEqual([])
    expect((await node.rpc('debug_bundler_setReputation', [{ address: entity }, EP])).error.code).toBe(-32602)
  }, 60_000)
})

describe('reputation skipped (bundlerUnsafe, --bundler-unsafe)', () => {
  const node = useTestNode({ bundlerUnsafe: true }, { timeoutMs: 30_000 })

  it('takes a fifth op from an unstaked sender and counts nothing', async () => {
    await node.rpc('debug_bundler_setBundlingMode', ['manual'])
    const sender = await account(node)
    for (let key = 0n; key < 5n; key++) {
      expect((await node.rpc('eth_sendUserOperation', [await op(node, sender, key), EP])).result).toMatch(/^0x[0-9a-f]{64}$/)
    }
    expect((await node.rpc('debug_bundler_dumpMempool', [EP])).result).toHaveLength(5)
    expect((await node.rpc('debug_bundler_dumpReputation', [EP])).result).toEqual([])
  }, 60_000)
})
