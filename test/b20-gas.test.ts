// Gas of the B20 precompiles against what Base's native code charges (base/base precompile-storage
// evm.rs and macros.rs): intrinsic gas, 6 per calldata word on entry, 100 for a token's marker
// check, SLOAD/SSTORE as EIP-2929/2200/3529 price them, LOG's 375 + 375 per topic + 8 per byte,
// an account read as an access (2,600 cold), and a new token's code as CREATE's deposit (32,236).
// Each figure below is that sum over the storage Base's code reads and writes for the operation
// (common/ops transferable.rs, mintable.rs, permittable.rs; b20_factory logic/v1.rs), compared
// with the receipt's gasUsed and eth_estimateGas; also the singletons' warmth and Base's reverts.
import {
  type Address,
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  hexToBytes,
  keccak256,
  parseSignature,
  toFunctionSelector,
  toHex,
} from 'viem'
import { describe, expect, it } from 'vitest'
import { B20Token } from '../src/contracts/artifacts.js'
import { B20_FACTORY_ADDRESS, b20Abi, b20FactoryAbi, POLICY_REGISTRY_ADDRESS, policyRegistryAbi } from '../src/index.js'
import {
  ASSET,
  assetParams,
  b20Actions,
  MINT_ROLE,
  revertData,
  STABLECOIN,
  salt,
  stablecoinParams,
  TRANSFER_SENDER_POLICY,
} from './b20-helpers.js'
import { useTestNode } from './helpers.js'

/**
 * A contract that STATICCALLs the address in its calldata's first 20 bytes with the rest and returns
 * what it returns; it first reads a cold slot so its transaction's gas stays above EIP-7623's floor.
 */
const STATIC_PROXY = '0x5f545036601490038060145f375f5f825f5f3560601c5afa3d5f5f3e3d5ff3' as Hex
const PROXY = '0x00000000000000000000000000000000000b20c0' as Address
/** An empty account whose address has as many non-zero bytes as the factory's (the same intrinsic gas). */
const EMPTY = '0xb30f000000000000000000000000000000000000' as Address

/** EIP-2028 calldata and the base transaction cost. */
const intrinsic = (data: Hex) => 21_000 + hexToBytes(data).reduce((sum, b) => sum + (b === 0 ? 4 : 16), 0)
/** Base's dispatch: 6 per 32-byte calldata word, and a token's with_account_info on itself (warm). */
const entry = (data: Hex, token: boolean) => Math.ceil(hexToBytes(data).length / 32) * 6 + (token ? 100 : 0)
const COLD_SLOAD = 2_100
const SET = 20_000 // a warm slot from zero
const RESET = 2_900 // a warm slot from one non-zero value to another
const COLD_SET = COLD_SLOAD + SET
const log = (topics: number, bytes: number) => 375 + 375 * topics + 8 * bytes
const COLD_ACCOUNT = 2_600
/** set_code of the one-byte marker on a new account: 200 per byte + G_create + keccak(30 + 6). */
const SET_CODE = 200 + 32_000 + 36

describe('B20 gas as Base charges it (profile base)', () => {
  const node = useTestNode({ profile: 'base' })
  const { send, createToken } = b20Actions(node)
  const estimate = (from: Address, to: Address, data: Hex) =>
    node.publicClient.estimateGas({ account: from, to, data }).then(Number)

  it('charges transfer, transferFrom, mint, createB20 and permit as Base does', async () => {
    const [a, b, c] = [0, 1, 2].map((i) => node.accounts[i].address as Address)
    const figures: Record<string, { base: number; used: number; estimate: number }> = {}
    const measure = async (name: string, index: number, to: Address, data: Hex, base: number) => {
      const from = node.accounts[index].address as Address
      const estimated = await estimate(from, to, data)
      const receipt = await send(index, to, data)
      expect(receipt.status).toBe('success')
      figures[name] = { base, used: Number(receipt.gasUsed), estimate: estimated }
    }

    // createB20 (Stablecoin, an admin, no initCalls): feature check, the token's account read
    // (cold), its marker, name/symbol/supply cap/currency, B20Created, then the admin's role and
    // the admin count, RoleGranted.
    const params = stablecoinParams('Gas USD', 'GUSD', a, 'USD')
    const create = encodeFunctionData({ abi: b20FactoryAbi, functionName: 'createB20', args: [STABLECOIN, salt(1), params, []] })
    const created = encodeAbiParameters(
      [{ type: 'string' }, { type: 'string' }, { type: 'uint8' }, { type: 'bytes' }],
      [
        'Gas USD',
        'GUSD',
        6,
        // abi.encode(B20StablecoinEventParams{1, "USD"}): one dynamic tuple, its offset first.
        encodeAbiParameters([{ type: 'tuple', components: [{ type: 'uint8' }, { type: 'string' }] }], [[1, 'USD']]),
      ],
    )
    await measure(
      'createB20',
      0,
      B20_FACTORY_ADDRESS,
      create,
      intrinsic(create) +
        entry(create, false) +
        COLD_SLOAD +
        COLD_ACCOUNT +
        SET_CODE +
        4 * COLD_SET +
        log(3, hexToBytes(created).length) +
        2 * (COLD_SLOAD + SET) +
        log(4, 0),
    )
    const token = (await node.publicClient.readContract({
      address: B20_FACTORY_ADDRESS,
      abi: b20FactoryAbi,
      functionName: 'getB20Address',
      args: [STABLECOIN, a, salt(1)],
    })) as Address
    await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'grantRole', args: [MINT_ROLE, a] }))

    // mint (first): role, pause bits, mint-receiver policy, supply, cap, balance; supply and balance from zero.
    const mint = encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [a, 1_000_000n] })
    await measure('mint', 0, token, mint, intrinsic(mint) + entry(mint, true) + 6 * COLD_SLOAD + 2 * SET + log(3, 32))
    // mint again: the same reads, both writes now from one non-zero value to another.
    await measure('mint (again)', 0, token, mint, intrinsic(mint) + entry(mint, true) + 6 * COLD_SLOAD + 2 * RESET + log(3, 32))

    // transfer to a new holder: pause bits, the packed policy ids, both balances.
    const transfer = encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [b, 1_000n] })
    await measure(
      'transfer (new holder)',
      0,
      token,
      transfer,
      intrinsic(transfer) + entry(transfer, true) + 4 * COLD_SLOAD + RESET + SET + log(3, 32),
    )
    await measure(
      'transfer (holder)',
      0,
      token,
      transfer,
      intrinsic(transfer) + entry(transfer, true) + 4 * COLD_SLOAD + 2 * RESET + log(3, 32),
    )

    // transferFrom: pause bits, allowance, policy ids, balances; the allowance decremented (no Approval).
    await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'approve', args: [c, 10_000n] }))
    const pull = encodeFunctionData({ abi: b20Abi, functionName: 'transferFrom', args: [a, c, 500n] })
    await measure(
      'transferFrom',
      2,
      token,
      pull,
      intrinsic(pull) + entry(pull, true) + 5 * COLD_SLOAD + RESET + SET + RESET + log(3, 32),
    )

    // permit: the name (domain), the nonce, then nonce and allowance written; the signer recovered uncharged.
    const deadline = 2n ** 40n
    const signature = await node.wallet(1).signTypedData({
      domain: { name: 'Gas USD', version: '1', chainId: node.chainId, verifyingContract: token },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: b, spender: c, value: 77n, nonce: 0n, deadline },
    })
    const { v, r, s } = parseSignature(signature)
    const permit = encodeFunctionData({ abi: b20Abi, functionName: 'permit', args: [b, c, 77n, deadline, Number(v), r, s] })
    await measure(
      'permit',
      2,
      token,
      permit,
      intrinsic(permit) + entry(permit, true) + 2 * COLD_SLOAD + SET + COLD_SET + log(3, 32),
    )

    for (const [name, f] of Object.entries(figures)) expect({ name, used: f.used }).toEqual({ name, used: f.base })
    // eth_estimateGas searches to within its tolerance above the gas used (geth's 1.5 %).
    for (const f of Object.values(figures)) expect(f.estimate >= f.used && f.estimate <= f.used * 1.015 + 1).toBe(true)
    console.log(JSON.stringify(figures))

    // A policy other than ALWAYS_ALLOW costs the PolicyRegistry's storage reads, with no account
    // access or call (Base's token reads the registry's storage itself).
    const policy = await node.publicClient.simulateContract({
      account: a,
      address: POLICY_REGISTRY_ADDRESS,
      abi: policyRegistryAbi,
      functionName: 'createPolicyWithAccounts',
      args: [a, 0, [c]],
    })
    await send(
      0,
      POLICY_REGISTRY_ADDRESS,
      encodeFunctionData({ abi: policyRegistryAbi, functionName: 'createPolicyWithAccounts', args: [a, 0, [c]] }),
    )
    await send(
      0,
      token,
      encodeFunctionData({ abi: b20Abi, functionName: 'updatePolicy', args: [TRANSFER_SENDER_POLICY, policy.result] }),
    )
    const gated = await send(0, token, transfer)
    const trace = await node.rpc('debug_traceTransaction', [gated.transactionHash, {}])
    const registryReads = (trace.result.structLogs as { depth: number; op: string; gasCost: number }[])
      .filter((l) => l.depth === 2 && l.op === 'SLOAD')
      .reduce((sum, l) => sum + l.gasCost, 0)
    expect(registryReads).toBeGreaterThanOrEqual(COLD_SLOAD)
    expect(Number(gated.gasUsed)).toBe(figures['transfer (holder)'].base + registryReads)
  })

  it("charges an Asset's batchMint, updateMultiplier and announce as Base does", async () => {
    const [a, b, c] = [0, 1, 2].map((i) => node.accounts[i].address as Address)
    const OPERATOR_ROLE = keccak256(toHex('OPERATOR_ROLE'))
    const { token } = await createToken(0, ASSET, assetParams('Gas Fund', 'GFD', a, 18), 11, [
      encodeFunctionData({ abi: b20Abi, functionName: 'grantRole', args: [OPERATOR_ROLE, a] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'grantRole', args: [MINT_ROLE, a] }),
    ])
    const used = async (data: Hex) => {
      const receipt = await send(0, token, data)
      expect(receipt.status).toBe('success')
      return Number(receipt.gasUsed)
    }
    const base = (data: Hex, storage: number) => intrinsic(data) + entry(data, true) + storage
    const WARM = 100
    // batchMint: pause and MINT_ROLE once; each mint its pause bits, policy id, supply and cap
    // (cold once, then warm), the supply written (from zero, then again), the holder's balance.
    const batch = encodeFunctionData({
      abi: b20Abi,
      functionName: 'batchMint',
      args: [
        [b, c],
        [10n, 20n],
      ],
    })
    const first = WARM + 3 * COLD_SLOAD + SET + COLD_SLOAD + SET + log(3, 32)
    const second = 4 * WARM + WARM + COLD_SLOAD + SET + log(3, 32)
    expect(await used(batch)).toBe(base(batch, 2 * COLD_SLOAD + first + second))
    // updateMultiplier (Cobalt's): OPERATOR_ROLE, the schedule word (read, then warm twice), the
    // stored multiplier read and written, UIMultiplierUpdated.
    const update = encodeFunctionData({ abi: b20Abi, functionName: 'updateMultiplier', args: [2n * 10n ** 18n] })
    expect(await used(update)).toBe(base(update, COLD_SLOAD + COLD_SLOAD + 2 * WARM + COLD_SLOAD + SET + log(1, 96)))
    // announce with no calls: OPERATOR_ROLE, the id's flag read and set, Announcement, EndAnnouncement.
    const announce = encodeFunctionData({ abi: b20Abi, functionName: 'announce', args: [[], 'id-1', 'd', 'u'] })
    const announced = encodeAbiParameters([{ type: 'string' }, { type: 'string' }, { type: 'string' }], ['id-1', 'd', 'u'])
    expect(await used(announce)).toBe(
      base(announce, COLD_SLOAD + COLD_SLOAD + SET + log(2, hexToBytes(announced).length) + log(1, 96)),
    )
  })

  it('warms the singletons from the start of a transaction; a token is cold', async () => {
    const a = node.accounts[0].address as Address
    const { token } = await createToken(0, ASSET, assetParams('Warm', 'WRM', a, 18), 7)
    const call = async (target: Address, data: Hex) => {
      const traced = await node.rpc('debug_traceCall', [
        { from: a, to: PROXY, data: concat([target, data]) },
        'latest',
        { tracer: 'callTracer', stateOverrides: { [PROXY]: { code: STATIC_PROXY } } },
      ])
      const frame = traced.result as { gasUsed: Hex; calls: { gasUsed: Hex; output?: Hex; error?: string }[] }
      return { total: Number(frame.gasUsed), inner: frame.calls[0] }
    }
    const isB20 = encodeFunctionData({ abi: b20FactoryAbi, functionName: 'isB20', args: [token] })
    const balanceOf = encodeFunctionData({ abi: b20Abi, functionName: 'balanceOf', args: [a] })
    const empty = await call(EMPTY, isB20)
    const factory = await call(B20_FACTORY_ADDRESS, isB20)
    // 100 for the warm factory where an empty account costs 2,600; the factory charges its calldata
    // (2 words) and the proxy copies its 32-byte answer (3).
    expect(factory.total - empty.total).toBe(100 - COLD_ACCOUNT + 12 + 3)
    expect(Number(factory.inner.gasUsed)).toBe(12)
    const emptyRead = await call(`0xb4${token.slice(4)}` as Address, balanceOf)
    const tokenRead = await call(token, balanceOf)
    // A token is as cold as any account; its read costs calldata, the marker check and the cold balance slot.
    expect(Number(tokenRead.inner.gasUsed)).toBe(12 + 100 + COLD_SLOAD)
    expect(tokenRead.total - emptyRead.total).toBe(12 + 100 + COLD_SLOAD + 3)
  })

  it("reverts as Base's dispatch does: a static write, bad calldata, value, an unknown entry point", async () => {
    const [a, b] = [0, 1].map((i) => node.accounts[i].address as Address)
    const { token } = await createToken(0, STABLECOIN, stablecoinParams('Rev USD', 'RUSD', a, 'USD'), 8, [
      encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [PROXY, 100n] }),
    ])
    const transfer = encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [b, 1n] })
    // A write in a static call: empty revert data, and only the gas used so far (Base's
    // StaticCallViolation), here calldata, marker check and four cold reads before the first write.
    const traced = await node.rpc('debug_traceCall', [
      { from: a, to: PROXY, data: concat([token, transfer]), gas: toHex(1_000_000) },
      'latest',
      { tracer: 'callTracer', stateOverrides: { [PROXY]: { code: STATIC_PROXY } } },
    ])
    const inner = traced.result.calls[0] as { gasUsed: Hex; output?: Hex; error?: string }
    expect(inner.error).toBe('execution reverted')
    expect(inner.output ?? '0x').toBe('0x')
    expect(Number(inner.gasUsed)).toBe(entry(transfer, true) + 4 * COLD_SLOAD)

    // DELEGATECALL into a token: DelegateCallNotAllowed(), nothing charged, the caller's storage untouched.
    const delegated = await node.rpc('debug_traceCall', [
      { from: a, to: PROXY, data: concat([token, transfer]), gas: toHex(1_000_000) },
      'latest',
      { tracer: 'callTracer', stateOverrides: { [PROXY]: { code: STATIC_PROXY.replace('5afa', '5af4') } } },
    ])
    const refused = delegated.result.calls[0] as { type: string; gasUsed: Hex; output?: Hex; error?: string }
    expect(refused.type).toBe('DELEGATECALL')
    expect(refused.output).toBe(toFunctionSelector('DelegateCallNotAllowed()'))
    expect(Number(refused.gasUsed)).toBe(0)

    // Calldata the selector's decoder overruns: the selector, then alloy's error text.
    const overrun = (data: Hex) =>
      concat([data.slice(0, 10) as Hex, toHex('ABI decoding failed: buffer overrun while deserializing')])
    const short = transfer.slice(0, 10 + 64) as Hex
    expect(await revertData(node, a, token, short)).toBe(overrun(short))
    const create = encodeFunctionData({
      abi: b20FactoryAbi,
      functionName: 'createB20',
      args: [STABLECOIN, salt(9), stablecoinParams('X', 'X', a, 'USD'), []],
    })
    const cut = create.slice(0, 10 + 64 * 3) as Hex
    expect(await revertData(node, a, B20_FACTORY_ADDRESS, cut)).toBe(overrun(cut))
    // Under the factory's shortest call: alloy's type check on the interface's name.
    const isB20Short = encodeFunctionData({ abi: b20FactoryAbi, functionName: 'isB20', args: [token] }).slice(0, 10 + 8) as Hex
    expect(await revertData(node, a, B20_FACTORY_ADDRESS, isB20Short)).toBe(
      concat([
        isB20Short.slice(0, 10) as Hex,
        toHex(`type check failed for "IB20FactoryCalls" with data: ${isB20Short.slice(2)}`),
      ]),
    )
    // Fewer than four bytes: the zero selector.
    expect(await revertData(node, a, token, '0x1234')).toBe('0x00000000')
    // Value with any selector, a view included: NonPayable(), before any gas is charged.
    const withValue = await node.rpc('eth_call', [
      { from: a, to: token, data: encodeFunctionData({ abi: b20Abi, functionName: 'balanceOf', args: [a] }), value: '0x1' },
      'latest',
    ])
    expect(withValue.error?.data).toBe('0x6fb1b0e9')
    const toFactory = await node.rpc('eth_call', [
      {
        from: a,
        to: B20_FACTORY_ADDRESS,
        data: encodeFunctionData({ abi: b20FactoryAbi, functionName: 'isB20', args: [token] }),
        value: '0x1',
      },
      'latest',
    ])
    expect(toFactory.error?.data).toBe('0x6fb1b0e9')
    // The creation entry point of a created token is an unknown selector, from anyone, the factory included.
    const initialize = encodeFunctionData({ abi: B20Token.abi, functionName: 'b20Initialize', args: ['N', 'S', 6, 'USD'] })
    expect(await revertData(node, a, token, initialize)).toBe(initialize.slice(0, 10))
    const createWithInitialize = encodeFunctionData({
      abi: b20FactoryAbi,
      functionName: 'createB20',
      args: [STABLECOIN, salt(10), stablecoinParams('Y', 'Y', a, 'USD'), [initialize]],
    })
    expect(await revertData(node, a, B20_FACTORY_ADDRESS, createWithInitialize)).toBe(initialize.slice(0, 10))
  })
})
