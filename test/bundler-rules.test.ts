// The built-in bundler's ERC-7562 rules, collected with the native erc7562Tracer and checked per entity:
// a RuleBreakerAccount (test/fixtures/RuleBreaker.sol) breaks one rule per mode as an account, a
// paymaster or a factory, each refused with -32502 naming the rule and the entity; what the rules allow
// (depositTo(sender), storage keyed by the sender, the factory's one CREATE2 of the sender) passes, and
// what they allow only to a staked entity passes once the entity stakes in the EntryPoint.
import { type Address, encodeFunctionData, getContractAddress, type Hex, pad, parseEther, toHex } from 'viem'
import { entryPoint07Address } from 'viem/account-abstraction'
import { describe, expect, it } from 'vitest'
import { ruleBreakerAccountAbi, ruleBreakerAccountBytecode } from './fixtures/rule-breaker.js'
import { poll, type TestNode, useTestNode, waitForReceipt } from './helpers.js'

const EP = entryPoint07Address
const RECIPIENT: Address = '0x000000000000000000000000000000000000bEEF'
/** A refusal a stake would lift: ERC-7769's -32505, the entity and the minimums in its data. */
function expectStakeTooLow(error: { code: number; data?: Record<string, string> }, entity: string, address?: Address) {
  expect(error.code).toBe(-32505)
  expect(error.data?.minimumStake).toMatch(/^0x[0-9a-f]+$/)
  expect(error.data?.[entity]).toMatch(/^0x[0-9a-fA-F]{40}$/)
  if (address) expect(error.data?.[entity]?.toLowerCase()).toBe(address.toLowerCase())
}

async function breaker(node: TestNode, eth = '1'): Promise<{ address: Address; store: Address }> {
  const hash = await node
    .wallet(0)
    .deployContract({ abi: ruleBreakerAccountAbi, bytecode: ruleBreakerAccountBytecode, value: parseEther(eth) })
  const address = (await waitForReceipt(node, hash)).contractAddress as Address
  const store = await node.publicClient.readContract({ address, abi: ruleBreakerAccountAbi, functionName: 'store' })
  return { address, store: store.toLowerCase() as Address }
}

async function call(node: TestNode, to: Address, functionName: 'stake' | 'deposit', args: unknown[], value: bigint) {
  const hash = await node.wallet(0).sendTransaction({
    to,
    value,
    data: encodeFunctionData({ abi: ruleBreakerAccountAbi, functionName, args } as never),
  })
  await waitForReceipt(node, hash)
}

interface OpParts {
  mode?: number
  nonce?: bigint
  paymaster?: { address: Address; mode: number }
  factory?: { address: Address; data: Hex }
}

async function op(node: TestNode, sender: Address, parts: OpParts = {}) {
  const baseFee = (await node.publicClient.getBlock({ blockTag: 'pending' })).baseFeePerGas ?? 0n
  const { paymaster, factory } = parts
  return {
    sender,
    nonce: toHex(parts.nonce ?? 0n),
    callData: encodeFunctionData({ abi: ruleBreakerAccountAbi, functionName: 'execute', args: [RECIPIENT, 0n, '0x'] }),
    callGasLimit: '0x30000',
    verificationGasLimit: '0x80000',
    preVerificationGas: '0x30000',
    maxFeePerGas: toHex(baseFee * 2n + 1_000_000_000n),
    maxPriorityFeePerGas: '0x3b9aca00',
    signature: toHex(parts.mode ?? 0, { size: 1 }),
    ...(paymaster
      ? {
          paymaster: paymaster.address,
          paymasterVerificationGasLimit: '0x30000',
          paymasterPostOpGasLimit: '0x0',
          paymasterData: toHex(paymaster.mode, { size: 1 }),
        }
      : {}),
    ...(factory ? { factory: factory.address, factoryData: factory.data } : {}),
  }
}

async function accepted(node: TestNode, userOp: Record<string, unknown>): Promise<void> {
  const sent = await node.rpc('eth_sendUserOperation', [userOp, EP])
  expect(sent.error).toBeUndefined()
  const receipt = await poll(async () => (await node.rpc('eth_getUserOperationReceipt', [sent.result])).result, undefined, {
    timeoutMs: 20_000,
  })
  expect(receipt.success).toBe(true)
}

describe('ERC-7562 rules of the built-in bundler', () => {
  const node = useTestNode({}, { timeoutMs: 30_000 })

  it('refuses each rule an account breaks with -32502, naming the rule; allows depositTo(sender) and storage keyed by the sender', async () => {
    const { address: sender, store } = await breaker(node)
    const cases: Array<[number, string, RegExp]> = [
      [3, 'OP-012', /GAS not followed by a call/],
      [4, 'OP-020', new RegExp(`STATICCALL to ${sender.toLowerCase()} ran out of gas`)],
      [5, 'OP-041', /EXTCODEHASH of 0x000000000000000000000000000000000000dead, which has no code/],
      [6, 'OP-054', /a call to the EntryPoint \(selector 0x70a08231\)/],
      [8, 'OP-062', /a call to precompile 0x000000000000000000000000000000000000000b/],
      [
        9,
        'OP-070',
        new RegExp(`TSTORE of slot 0x0{64} of ${store}, not storage of the sender or associated with it \\(STO-021\\)`),
      ],
      [11, 'OP-031', /CREATE2 of 0x[0-9a-f]{40}: only the factory's one deployment of the sender/],
      [12, 'OP-061', new RegExp(`a call with value to ${store}`)],
      [13, 'OP-054', /EXTCODE\* of the EntryPoint/],
    ]
    for (const [mode, rule, what] of cases) {
      const { error } = await node.rpc('eth_sendUserOperation', [await op(node, sender, { mode }), EP])
      expect(error?.code, `mode ${mode}: ${error?.message}`).toBe(-32502)
      expect(error.message).toMatch(new RegExp(`^account validation breaks ERC-7562 ${rule}: `))
      expect(error.message).toMatch(what)
    }
    // OP-080: BALANCE/SELFBALANCE only for a staked entity.
    const balance = (await node.rpc('eth_sendUserOperation', [await op(node, sender, { mode: 10 }), EP])).error
    expectStakeTooLow(balance, 'account', sender)
    expect(balance.message).toMatch(/account validation breaks ERC-7562 OP-080: SELFBALANCE needs a staked account/)
    // OP-052: depositTo(sender) with value from the sender; STO-021: a slot of another contract keyed by the sender.
    await accepted(node, await op(node, sender, { mode: 7 }))
    await accepted(node, await op(node, sender, { mode: 14, nonce: 1n }))
    expect((await node.rpc('eth_blockNumber')).result).toMatch(/^0x/)
  }, 120_000)

  it('a paymaster: its own storage (STO-031), SELFBALANCE (OP-080) and other storage read (STO-033) need its stake', async () => {
    const { address: sender } = await breaker(node)
    const { address: paymaster, store } = await breaker(node, '0')
    await call(node, paymaster, 'deposit', [], parseEther('1'))
    const cases: Array<[number, string, RegExp]> = [
      [1, 'STO-031', new RegExp(`SLOAD of slot 0x0{64} of ${paymaster.toLowerCase()} needs a staked paymaster`)],
      [2, 'OP-080', /SELFBALANCE needs a staked paymaster/],
      [3, 'STO-033', new RegExp(`SLOAD of slot 0x0{64} of ${store} needs a staked paymaster`)],
    ]
    for (const [mode, rule, what] of cases) {
      const { error } = await node.rpc('eth_sendUserOperation', [
        await op(node, sender, { paymaster: { address: paymaster, mode } }),
        EP,
      ])
      expectStakeTooLow(error, 'paymaster')
      expect(error.message).toMatch(new RegExp(`^paymaster validation breaks ERC-7562 ${rule}: `))
      expect(error.message).toMatch(what)
    }
    await call(node, paymaster, 'stake', [2], parseEther('1'))
    for (const mode of [1, 2, 3]) {
      await accepted(node, await op(node, sender, { nonce: BigInt(mode - 1), paymaster: { address: paymaster, mode } }))
    }
  }, 120_000)

  it('a factory: deploys the sender once (OP-031), and writes storage keyed by it only when staked (STO-022)', async () => {
    const { address: factory, store } = await breaker(node, '0')
    const created = async (salt: number, mode: number) => {
      const code = `0x3d602d80600a3d3981f3363d3d373d3d3d363d73${factory.slice(2)}5af43d82803e903d91602b57fd5bf3` as Hex
      const sender = getContractAddress({ opcode: 'CREATE2', from: factory, salt: pad(toHex(salt)), bytecode: code })
      const hash = await node.wallet(0).sendTransaction({ to: sender, value: parseEther('1') })
      await waitForReceipt(node, hash)
      const data = encodeFunctionData({ abi: ruleBreakerAccountAbi, functionName: 'deploy', args: [pad(toHex(salt)), mode] })
      return op(node, sender, { factory: { address: factory, data } })
    }
    await accepted(node, await created(1, 0))
    const twice = (await node.rpc('eth_sendUserOperation', [await created(2, 1), EP])).error
    expect(twice.code).toBe(-32502)
    expect(twice.message).toMatch(/^factory validation breaks ERC-7562 OP-031: CREATE2 of 0x[0-9a-f]{40}: only the factory's one/)
    const keyed = (await node.rpc('eth_sendUserOperation', [await created(3, 2), EP])).error
    expectStakeTooLow(keyed, 'factory')
    expect(keyed.message).toMatch(
      new RegExp(
        `^factory validation breaks ERC-7562 STO-022: SSTORE of slot 0x[0-9a-f]{64} of ${store}, associated with the sender being created, needs a staked factory`,
      ),
    )
    await call(node, factory, 'stake', [2], parseEther('1'))
    await accepted(node, await created(4, 2))
  }, 120_000)
})
