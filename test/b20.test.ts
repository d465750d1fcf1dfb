// Base's Beryl precompiles under --profile base (B20Factory, B20 tokens, PolicyRegistry,
// ActivationRegistry): addresses, storage, logs, revert data and gating as Base's definition gives
// them (base/base b20_factory, common/abi/v1.rs, policy/abi/v1.rs, activation/abi.rs; base/docs
// specifications/b20), through viem against a real node.
import {
  type Address,
  type BaseError,
  ContractFunctionRevertedError,
  decodeEventLog,
  encodeAbiParameters,
  encodeErrorResult,
  encodeFunctionData,
  type Hex,
  hexToBigInt,
  keccak256,
  pad,
  parseSignature,
  toHex,
  zeroAddress,
} from 'viem'
import { describe, expect, it } from 'vitest'
import {
  ACTIVATION_REGISTRY_ADDRESS,
  activationRegistryAbi,
  B20_FACTORY_ADDRESS,
  B20_FEATURES,
  b20Abi,
  b20Address,
  b20FactoryAbi,
  POLICY_REGISTRY_ADDRESS,
  policyRegistryAbi,
} from '../src/index.js'
import { startTestNode, useTestNode, waitForSealed } from './helpers.js'

const ASSET = 0
const STABLECOIN = 1
const B20_ROOT = 0xc78b71fee795ddd74aff64ea9b2474194c938c3196430e10bb5f01ed48434000n
const DEFAULT_ADMIN_ROLE = pad('0x00')
const MINT_ROLE = keccak256(toHex('MINT_ROLE'))
const TRANSFER_SENDER_POLICY = keccak256(toHex('TRANSFER_SENDER_POLICY'))
const TRANSFER_RECEIVER_POLICY = keccak256(toHex('TRANSFER_RECEIVER_POLICY'))

const assetParams = (name: string, symbol: string, admin: Address, decimals: number, version = 1) =>
  encodeAbiParameters(
    [
      {
        type: 'tuple',
        components: [
          { name: 'version', type: 'uint8' },
          { name: 'name', type: 'string' },
          { name: 'symbol', type: 'string' },
          { name: 'initialAdmin', type: 'address' },
          { name: 'decimals', type: 'uint8' },
        ],
      },
    ],
    [{ version, name, symbol, initialAdmin: admin, decimals }],
  )

const stablecoinParams = (name: string, symbol: string, admin: Address, currency: string) =>
  encodeAbiParameters(
    [
      {
        type: 'tuple',
        components: [
          { name: 'version', type: 'uint8' },
          { name: 'name', type: 'string' },
          { name: 'symbol', type: 'string' },
          { name: 'initialAdmin', type: 'address' },
          { name: 'currency', type: 'string' },
        ],
      },
    ],
    [{ version: 1, name, symbol, initialAdmin: admin, currency }],
  )

/** The revert data of a failed eth_call (code 3), as the node answers it. */
async function revertData(node: ReturnType<typeof useTestNode>, from: Address, to: Address, data: Hex): Promise<Hex> {
  const answer = await node.rpc('eth_call', [{ from, to, data }, 'latest'])
  expect(answer.error?.code).toBe(3)
  return answer.error.data
}

/** The slot of `mapping(address => …)` at `offset` of the token's ERC-7201 namespace. */
const balanceSlot = (holder: Address) =>
  keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder, B20_ROOT + 4n]))

describe('B20 precompiles (profile base)', () => {
  const node = useTestNode({ profile: 'base' })
  const salt = (n: number) => pad(toHex(n))

  async function send(index: number, to: Address, data: Hex) {
    const hash = await node.wallet(index).sendTransaction({ to, data, gas: 3_000_000n })
    return waitForSealed(node, hash)
  }

  async function createToken(index: number, variant: number, params: Hex, n: number, initCalls: Hex[] = []) {
    const sender = node.accounts[index].address as Address
    const data = encodeFunctionData({
      abi: b20FactoryAbi,
      functionName: 'createB20',
      args: [variant, salt(n), params, initCalls],
    })
    const receipt = await send(index, B20_FACTORY_ADDRESS, data)
    expect(receipt.status).toBe('success')
    return { token: b20Address(variant, sender, salt(n)), receipt }
  }

  it('derives token addresses as Base does (golden vectors verified against getB20Address on Base Sepolia)', async () => {
    const deployer = '0x34A50a7A272E86EE30b7A74E36f3f02AF18B1eB5'
    const vectors = [
      [ASSET, '0xd966e0f1e6f392cefea9931df3ab3130fcc4e2456e1a7fd3412815a023cba94f', '0xb200000000000000000000d2E0c57D4924D1Ee6B'],
      [
        STABLECOIN,
        '0xe3c70aa5c359a8a4e01a887cfc0f547895d5f4fe9a034c9b20dea29a74476a18',
        '0xb200000000000000000001E0e960E1525cE46C46',
      ],
    ] as const
    for (const [variant, vectorSalt, expected] of vectors) {
      expect(b20Address(variant, deployer, vectorSalt)).toBe(expected)
      const onChain = await node.publicClient.readContract({
        address: B20_FACTORY_ADDRESS,
        abi: b20FactoryAbi,
        functionName: 'getB20Address',
        args: [variant, deployer, vectorSalt],
      })
      expect(onChain).toBe(expected)
    }
  })

  it('holds the 0xef marker at the singletons and the features on at genesis', async () => {
    for (const address of [B20_FACTORY_ADDRESS, ACTIVATION_REGISTRY_ADDRESS, POLICY_REGISTRY_ADDRESS]) {
      expect(await node.publicClient.getCode({ address })).toBe('0xef')
    }
    for (const feature of Object.values(B20_FEATURES)) {
      const on = await node.publicClient.readContract({
        address: ACTIVATION_REGISTRY_ADDRESS,
        abi: activationRegistryAbi,
        functionName: 'isActivated',
        args: [feature],
      })
      expect(on).toBe(true)
    }
    const admin = await node.publicClient.readContract({
      address: ACTIVATION_REGISTRY_ADDRESS,
      abi: activationRegistryAbi,
      functionName: 'admin',
    })
    expect(admin).toBe('0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc')
  })

  it('creates an Asset: B20Created from the factory, then RoleGranted from the token; reads back', async () => {
    const admin = node.accounts[0].address as Address
    const { token, receipt } = await createToken(0, ASSET, assetParams('Gold', 'GLD', admin, 8), 1)
    expect(receipt.logs.map((l) => l.address.toLowerCase())).toEqual([B20_FACTORY_ADDRESS.toLowerCase(), token.toLowerCase()])
    expect(receipt.logs[0].topics[0]).toBe('0xfd9bf2730513a1709722ff379a0844dfd8f997d600693c2bcc659e188bbdba0d')
    const created = decodeEventLog({ abi: b20FactoryAbi, ...receipt.logs[0] })
    expect(created.args).toMatchObject({ token, variant: ASSET, name: 'Gold', symbol: 'GLD', decimals: 8, variantParams: '0x' })
    const granted = decodeEventLog({ abi: b20Abi, ...receipt.logs[1] })
    expect(granted).toMatchObject({
      eventName: 'RoleGranted',
      args: { role: DEFAULT_ADMIN_ROLE, account: admin, sender: B20_FACTORY_ADDRESS },
    })
    expect(await node.publicClient.getCode({ address: token })).toBe('0xef')
    const read = (functionName: 'name' | 'symbol' | 'decimals' | 'totalSupply' | 'supplyCap') =>
      node.publicClient.readContract({ address: token, abi: b20Abi, functionName })
    expect([await read('name'), await read('symbol'), await read('decimals'), await read('totalSupply')]).toEqual([
      'Gold',
      'GLD',
      8,
      0n,
    ])
    expect(await read('supplyCap')).toBe(2n ** 128n - 1n)
    const flags = await Promise.all(
      (['isB20', 'isB20Initialized'] as const).map((functionName) =>
        node.publicClient.readContract({ address: B20_FACTORY_ADDRESS, abi: b20FactoryAbi, functionName, args: [token] }),
      ),
    )
    expect(flags).toEqual([true, true])
    // name sits at the namespace root as a Solidity short string.
    const nameWord = await node.publicClient.getStorageAt({ address: token, slot: toHex(B20_ROOT, { size: 32 }) })
    expect(nameWord).toBe(`0x${Buffer.from('Gold').toString('hex').padEnd(62, '0')}08`)
  })
  it('creates a Stablecoin (6 decimals, currency in variantParams) with initCalls run as the factory', async () => {
    const admin = node.accounts[1].address as Address
    const holder = node.accounts[2].address as Address
    const sender = node.accounts[1].address as Address
    const token = b20Address(STABLECOIN, sender, salt(2))
    // initCalls: grant MINT_ROLE to the admin and mint, both without the admin's own role (factory privilege).
    const initCalls = [
      encodeFunctionData({ abi: b20Abi, functionName: 'grantRole', args: [MINT_ROLE, admin] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [holder, 500n] }),
    ]
    const { receipt } = await createToken(1, STABLECOIN, stablecoinParams('Dollar', 'USDX', admin, 'USD'), 2, initCalls)
    const events = receipt.logs.map((l) =>
      l.address.toLowerCase() === token.toLowerCase()
        ? decodeEventLog({ abi: b20Abi, ...l })
        : decodeEventLog({ abi: b20FactoryAbi, ...l }),
    )
    expect(events.map((e) => e.eventName)).toEqual(['B20Created', 'RoleGranted', 'RoleGranted', 'Transfer'])
    expect(events[0].args).toMatchObject({
      token,
      variant: STABLECOIN,
      decimals: 6,
      variantParams: encodeAbiParameters([{ type: 'tuple', components: [{ type: 'uint8' }, { type: 'string' }] }], [[1, 'USD']]),
    })
    expect(events[2].args).toMatchObject({ role: MINT_ROLE, account: admin, sender: B20_FACTORY_ADDRESS })
    expect(events[3].args).toEqual({ from: zeroAddress, to: holder, amount: 500n })
    expect(await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'currency' })).toBe('USD')
    expect(await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'decimals' })).toBe(6)
    expect(await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'balanceOf', args: [holder] })).toBe(
      500n,
    )
    // balanceOf and eth_getStorageAt read the same ERC-7201 slot.
    expect(hexToBigInt((await node.publicClient.getStorageAt({ address: token, slot: balanceSlot(holder) })) as Hex)).toBe(500n)
  })

  it("reverts with Base's error encoding, in Base's order", async () => {
    const from = node.accounts[0].address as Address
    const create = (variant: number, params: Hex, n = 99) =>
      encodeFunctionData({ abi: b20FactoryAbi, functionName: 'createB20', args: [variant, salt(n), params, []] })
    expect(await revertData(node, from, B20_FACTORY_ADDRESS, create(2, '0x'))).toBe('0xf10e8e43') // InvalidVariant()
    expect(await revertData(node, from, B20_FACTORY_ADDRESS, create(ASSET, assetParams('A', 'A', from, 8, 2)))).toBe(
      encodeErrorResult({ abi: b20FactoryAbi, errorName: 'UnsupportedVersion', args: [2, ASSET] }),
    )
    expect(await revertData(node, from, B20_FACTORY_ADDRESS, create(ASSET, assetParams('A', 'A', from, 19)))).toBe(
      `0xca950391${pad(toHex(19)).slice(2)}`, // InvalidDecimals(19)
    )
    expect(await revertData(node, from, B20_FACTORY_ADDRESS, create(STABLECOIN, stablecoinParams('S', 'S', from, 'usd')))).toBe(
      encodeErrorResult({ abi: b20FactoryAbi, errorName: 'InvalidCurrency', args: ['usd'] }),
    )
    expect(await revertData(node, from, B20_FACTORY_ADDRESS, create(STABLECOIN, stablecoinParams('S', 'S', from, '')))).toBe(
      encodeErrorResult({ abi: b20FactoryAbi, errorName: 'MissingRequiredField', args: ['currency'] }),
    )
    // The token made in the first test: TokenAlreadyExists(token).
    const existing = b20Address(ASSET, from, salt(1))
    expect(await revertData(node, from, B20_FACTORY_ADDRESS, create(ASSET, assetParams('A', 'A', from, 8), 1))).toBe(
      `0x15ef3a57${pad(existing).slice(2).toLowerCase()}`,
    )
    // A failing initCall bubbles its own revert; an unknown selector reverts with its four bytes.
    const failing = encodeFunctionData({
      abi: b20FactoryAbi,
      functionName: 'createB20',
      args: [ASSET, salt(98), assetParams('A', 'A', zeroAddress, 8), ['0xdeadbeef']],
    })
    expect(await revertData(node, from, B20_FACTORY_ADDRESS, failing)).toBe('0xdeadbeef')
    expect(await revertData(node, from, existing, '0x12345678')).toBe('0x12345678')
    // A role the caller lacks: AccessControlUnauthorizedAccount(caller, MINT_ROLE) = 0xe2517d3f.
    const mint = encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [from, 1n] })
    expect(await revertData(node, from, existing, mint)).toBe(
      `0xe2517d3f${pad(from).slice(2).toLowerCase()}${MINT_ROLE.slice(2)}`,
    )
  })

  it('moves tokens: Transfer and Approval logs, transferFrom without Approval, balance errors', async () => {
    const [a, b, c] = [0, 1, 2].map((i) => node.accounts[i].address as Address)
    const { token } = await createToken(0, ASSET, assetParams('Coin', 'CN', a, 18), 3, [
      encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [a, 1000n] }),
    ])
    const tx = async (index: number, data: Hex) => send(index, token, data)
    const moved = await tx(0, encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [b, 100n] }))
    expect(moved.logs.map((l) => decodeEventLog({ abi: b20Abi, ...l }))).toEqual([
      { eventName: 'Transfer', args: { from: a, to: b, amount: 100n } },
    ])
    const approved = await tx(0, encodeFunctionData({ abi: b20Abi, functionName: 'approve', args: [c, 50n] }))
    expect(decodeEventLog({ abi: b20Abi, ...approved.logs[0] })).toEqual({
      eventName: 'Approval',
      args: { owner: a, spender: c, amount: 50n },
    })
    const pulled = await tx(2, encodeFunctionData({ abi: b20Abi, functionName: 'transferFrom', args: [a, c, 30n] }))
    expect(pulled.logs.map((l) => decodeEventLog({ abi: b20Abi, ...l }).eventName)).toEqual(['Transfer'])
    const read = (functionName: 'balanceOf', holder: Address) =>
      node.publicClient.readContract({ address: token, abi: b20Abi, functionName, args: [holder] })
    expect([await read('balanceOf', a), await read('balanceOf', b), await read('balanceOf', c)]).toEqual([870n, 100n, 30n])
    expect(await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'allowance', args: [a, c] })).toBe(
      20n,
    )
    const memo = pad('0x1234')
    const withMemo = await tx(1, encodeFunctionData({ abi: b20Abi, functionName: 'transferWithMemo', args: [c, 1n, memo] }))
    expect(withMemo.logs.map((l) => decodeEventLog({ abi: b20Abi, ...l }))).toEqual([
      { eventName: 'Transfer', args: { from: b, to: c, amount: 1n } },
      { eventName: 'Memo', args: { caller: b, memo } },
    ])
    expect(
      await revertData(node, b, token, encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [c, 1000n] })),
    ).toBe(encodeErrorResult({ abi: b20Abi, errorName: 'InsufficientBalance', args: [b, 99n, 1000n] }))
    expect(
      await revertData(node, c, token, encodeFunctionData({ abi: b20Abi, functionName: 'transferFrom', args: [a, c, 21n] })),
    ).toBe(encodeErrorResult({ abi: b20Abi, errorName: 'InsufficientAllowance', args: [c, 20n, 21n] }))
    // Denim: a credit to any B20 address is refused.
    expect(
      await revertData(node, a, token, encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [token, 1n] })),
    ).toBe(encodeErrorResult({ abi: b20Abi, errorName: 'InvalidReceiver', args: [token] }))
    // eth_getStorageAt at the ERC-7201 balance slot equals balanceOf.
    expect(hexToBigInt((await node.publicClient.getStorageAt({ address: token, slot: balanceSlot(a) })) as Hex)).toBe(870n)
  })

  it('refuses a blocklisted transfer (the docs example: Stablecoin, mint, blocklist, transfer refused)', async () => {
    const [issuer, alice, bob] = [0, 1, 2].map((i) => node.accounts[i].address as Address)
    const { token } = await createToken(0, STABLECOIN, stablecoinParams('Test USD', 'TUSD', issuer, 'USD'), 4, [
      encodeFunctionData({ abi: b20Abi, functionName: 'grantRole', args: [MINT_ROLE, issuer] }),
    ])
    await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [alice, 1_000_000n] }))
    const created = await send(
      0,
      POLICY_REGISTRY_ADDRESS,
      encodeFunctionData({ abi: policyRegistryAbi, functionName: 'createPolicyWithAccounts', args: [issuer, 0, [alice]] }),
    )
    const policyEvents = created.logs.map((l) => decodeEventLog({ abi: policyRegistryAbi, ...l }))
    expect(policyEvents.map((e) => e.eventName)).toEqual(['PolicyCreated', 'PolicyAdminUpdated', 'BlocklistUpdated'])
    expect(created.logs[0].topics[0]).toBe(keccak256(toHex('PolicyCreated(uint64,address,uint8)')))
    const policyId = (policyEvents[0].args as { policyId: bigint }).policyId
    expect(policyId).toBe(2n) // the first custom policy of a fresh chain
    const updated = await send(
      0,
      token,
      encodeFunctionData({ abi: b20Abi, functionName: 'updatePolicy', args: [TRANSFER_SENDER_POLICY, policyId] }),
    )
    expect(decodeEventLog({ abi: b20Abi, ...updated.logs[0] })).toEqual({
      eventName: 'PolicyUpdated',
      args: { policyScope: TRANSFER_SENDER_POLICY, oldPolicyId: 0n, newPolicyId: policyId },
    })
    const transfer = encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [bob, 10n] })
    expect(await revertData(node, alice, token, transfer)).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'PolicyForbids', args: [TRANSFER_SENDER_POLICY, policyId] }),
    )
    // viem decodes it from the simulated write.
    const refused = await node.publicClient
      .simulateContract({ account: alice, address: token, abi: b20Abi, functionName: 'transfer', args: [bob, 10n] })
      .catch((e: BaseError) => e)
    const reverted = (refused as BaseError).walk((e) => e instanceof ContractFunctionRevertedError)
    expect((reverted as ContractFunctionRevertedError).data?.errorName).toBe('PolicyForbids')
    // Unblocked, the same transfer goes through.
    await send(
      0,
      POLICY_REGISTRY_ADDRESS,
      encodeFunctionData({ abi: policyRegistryAbi, functionName: 'updateBlocklist', args: [policyId, false, [alice]] }),
    )
    expect((await send(1, token, transfer)).status).toBe('success')
    // Unknown policy ids and scopes: PolicyNotFound(id), UnsupportedPolicyType(scope).
    const update = (scope: Hex, id: bigint) =>
      encodeFunctionData({ abi: b20Abi, functionName: 'updatePolicy', args: [scope, id] })
    expect(await revertData(node, issuer, token, update(TRANSFER_RECEIVER_POLICY, 77n))).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'PolicyNotFound', args: [77n] }),
    )
    expect(await revertData(node, issuer, token, update(MINT_ROLE, 0n))).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'UnsupportedPolicyType', args: [MINT_ROLE] }),
    )
  })

  it('pauses, caps supply and takes EIP-2612 permits', async () => {
    const owner = node.wallet(0)
    const [a, b] = [0, 1].map((i) => node.accounts[i].address as Address)
    const PAUSE_ROLE = keccak256(toHex('PAUSE_ROLE'))
    const { token } = await createToken(0, ASSET, assetParams('Capped', 'CAP', a, 6), 5, [
      encodeFunctionData({ abi: b20Abi, functionName: 'grantRole', args: [MINT_ROLE, a] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'grantRole', args: [PAUSE_ROLE, a] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'updateSupplyCap', args: [100n] }),
    ])
    expect(await revertData(node, a, token, encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [a, 101n] }))).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'SupplyCapExceeded', args: [100n, 101n] }),
    )
    await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [a, 100n] }))
    await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'pause', args: [[0]] }))
    expect(await revertData(node, a, token, encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [b, 1n] }))).toBe(
      '0xfd8c42450000000000000000000000000000000000000000000000000000000000000000', // ContractPaused(TRANSFER)
    )
    // Permit works while transfers are paused (approvals are not gated).
    const deadline = 2n ** 40n
    const signature = await owner.signTypedData({
      domain: { name: 'Capped', version: '1', chainId: node.chainId, verifyingContract: token },
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
      message: { owner: a, spender: b, value: 42n, nonce: 0n, deadline },
    })
    const { v, r, s } = parseSignature(signature)
    const permitted = await send(
      1,
      token,
      encodeFunctionData({ abi: b20Abi, functionName: 'permit', args: [a, b, 42n, deadline, Number(v), r, s] }),
    )
    expect(decodeEventLog({ abi: b20Abi, ...permitted.logs[0] })).toEqual({
      eventName: 'Approval',
      args: { owner: a, spender: b, amount: 42n },
    })
    expect(await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'nonces', args: [a] })).toBe(1n)
  })

  it('is reached by eth_estimateGas and debug_traceCall, and a static call cannot write', async () => {
    const a = node.accounts[0].address as Address
    const token = b20Address(ASSET, a, salt(3))
    const transfer = encodeFunctionData({
      abi: b20Abi,
      functionName: 'transfer',
      args: [node.accounts[1].address as Address, 1n],
    })
    const gas = await node.publicClient.estimateGas({ account: a, to: token, data: transfer })
    expect(gas).toBeGreaterThan(21_000n + 5_000n) // intrinsic plus at least one warm storage write
    const trace = await node.rpc('debug_traceCall', [{ from: a, to: token, data: transfer }, 'latest', { tracer: 'callTracer' }])
    expect(trace.result).toMatchObject({ type: 'CALL', to: token.toLowerCase(), input: transfer })
    expect(trace.result.output).toBe(pad('0x01'))
    // eth_simulateV1 runs it too: the Transfer log of the simulated call.
    const simulated = await node.rpc('eth_simulateV1', [
      { blockStateCalls: [{ calls: [{ from: a, to: token, data: transfer }] }] },
      'latest',
    ])
    const simulatedCall = simulated.result[0].calls[0]
    expect(simulatedCall.status).toBe('0x1')
    expect(simulatedCall.logs.map((l: { address: string; topics: Hex[] }) => [l.address, l.topics[0]])).toEqual([
      [token.toLowerCase(), keccak256(toHex('Transfer(address,address,uint256)'))],
    ])
    // prestateTracer shows the token's storage the transfer touched (its balance slot among them).
    const pre = await node.rpc('debug_traceCall', [
      { from: a, to: token, data: transfer },
      'latest',
      { tracer: 'prestateTracer' },
    ])
    expect(Object.keys(pre.result[token.toLowerCase()].storage)).toContain(balanceSlot(a))
    expect(pre.result[token.toLowerCase()].code).toBe('0xef')
    // Value sent to a nonpayable function: NonPayable().
    const paid = await node.rpc('eth_call', [{ from: a, to: token, data: transfer, value: '0x1' }, 'latest'])
    expect(paid.error.data).toBe('0x6fb1b0e9')
    // A STATICCALL into the token's transfer from a contract fails (the EVM's static rule).
    // Runtime: STATICCALL(gas, token, 0, len, 0, 32) over the calldata copied to memory; return success.
    const len = (transfer.length - 2) / 2
    const code =
      `0x36600060003760206000${toHex(len).slice(2).padStart(4, '0').replace(/^/, '61')}600073${token.slice(2)}5afa60005260206000f3` as Hex
    const probe = '0x00000000000000000000000000000000000b2077'
    const answer = await node.rpc('eth_call', [{ from: a, to: probe, data: transfer }, 'latest', { [probe]: { code } }])
    expect(BigInt(answer.result)).toBe(0n)
    // The same probe calling balanceOf succeeds (reads are fine in a static call).
    const balanceOf = encodeFunctionData({ abi: b20Abi, functionName: 'balanceOf', args: [a] })
    const lenB = (balanceOf.length - 2) / 2
    const codeB =
      `0x36600060003760206000${toHex(lenB).slice(2).padStart(4, '0').replace(/^/, '61')}600073${token.slice(2)}5afa60005260206000f3` as Hex
    const ok = await node.rpc('eth_call', [{ from: a, to: probe, data: balanceOf }, 'latest', { [probe]: { code: codeB } }])
    expect(BigInt(ok.result)).toBe(1n)
  })

  it('lets only the admin switch features, and gates creation on them', async () => {
    const admin = node.accounts[5].address as Address
    const other = node.accounts[0].address as Address
    const deactivate = encodeFunctionData({ abi: activationRegistryAbi, functionName: 'deactivate', args: [B20_FEATURES.asset] })
    expect(await revertData(node, other, ACTIVATION_REGISTRY_ADDRESS, deactivate)).toBe(
      encodeErrorResult({ abi: activationRegistryAbi, errorName: 'Unauthorized', args: [other] }),
    )
    const off = await send(5, ACTIVATION_REGISTRY_ADDRESS, deactivate)
    expect(decodeEventLog({ abi: activationRegistryAbi, ...off.logs[0] })).toEqual({
      eventName: 'FeatureDeactivated',
      args: { feature: B20_FEATURES.asset, caller: admin },
    })
    const create = encodeFunctionData({
      abi: b20FactoryAbi,
      functionName: 'createB20',
      args: [ASSET, salt(50), assetParams('A', 'A', other, 8), []],
    })
    expect(await revertData(node, other, B20_FACTORY_ADDRESS, create)).toBe(
      encodeErrorResult({ abi: activationRegistryAbi, errorName: 'FeatureNotActivated', args: [B20_FEATURES.asset] }),
    )
    // Existing tokens keep running.
    const token = b20Address(ASSET, other, salt(3))
    expect(await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'name' })).toBe('Coin')
    expect(await revertData(node, admin, ACTIVATION_REGISTRY_ADDRESS, deactivate)).toBe(
      encodeErrorResult({ abi: activationRegistryAbi, errorName: 'AlreadyDeactivated', args: [B20_FEATURES.asset] }),
    )
    await send(
      5,
      ACTIVATION_REGISTRY_ADDRESS,
      encodeFunctionData({ abi: activationRegistryAbi, functionName: 'activate', args: [B20_FEATURES.asset] }),
    )
    expect((await node.publicClient.call({ account: other, to: B20_FACTORY_ADDRESS, data: create })).data).toBe(
      pad(b20Address(ASSET, other, salt(50))).toLowerCase(),
    )
  })

  it("checks the executor policy first on a holder's own transfer (Denim), and initCalls bypass it", async () => {
    const a = node.accounts[0].address as Address
    const b = node.accounts[1].address as Address
    const ALWAYS_BLOCK = (1n << 56n) | 1n
    const TRANSFER_EXECUTOR_POLICY = keccak256(toHex('TRANSFER_EXECUTOR_POLICY'))
    const { token } = await createToken(0, ASSET, assetParams('Agent', 'AGT', a, 6), 6, [
      encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [B20_FACTORY_ADDRESS, 10n] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'updatePolicy', args: [TRANSFER_EXECUTOR_POLICY, ALWAYS_BLOCK] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'updatePolicy', args: [TRANSFER_SENDER_POLICY, ALWAYS_BLOCK] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [a, 10n] }),
    ])
    expect(await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'balanceOf', args: [a] })).toBe(10n)
    const transfer = encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [b, 1n] })
    expect(await revertData(node, a, token, transfer)).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'PolicyForbids', args: [TRANSFER_EXECUTOR_POLICY, ALWAYS_BLOCK] }),
    )
  })

  it('refuses an ActivationRegistry write in a static call with StaticCallNotAllowed()', async () => {
    const admin = node.accounts[5].address as Address
    // Probe: STATICCALL the registry with this call's calldata and return what it returned.
    const code = `0x3660006000376000600036600073${ACTIVATION_REGISTRY_ADDRESS.slice(2)}5afa503d600060003e3d6000f3` as Hex
    const probe = '0x00000000000000000000000000000000000b2078'
    const activate = encodeFunctionData({ abi: activationRegistryAbi, functionName: 'activate', args: [B20_FEATURES.asset] })
    const answer = await node.rpc('eth_call', [{ from: admin, to: probe, data: activate }, 'latest', { [probe]: { code } }])
    expect(answer.result).toBe('0xbeaba5b7')
    // A read through the same probe answers normally.
    const read = encodeFunctionData({ abi: activationRegistryAbi, functionName: 'isActivated', args: [B20_FEATURES.asset] })
    const ok = await node.rpc('eth_call', [{ from: admin, to: probe, data: read }, 'latest', { [probe]: { code } }])
    expect(ok.result).toBe(pad('0x01'))
  })

  it('keeps the last admin: revoke and renounce refuse, renounceLastAdmin gives it up', async () => {
    const a = node.accounts[0].address as Address
    const b = node.accounts[1].address as Address
    const { token } = await createToken(0, ASSET, assetParams('Roles', 'RL', a, 6), 7)
    const call = (functionName: 'revokeRole' | 'renounceRole', account: Address) =>
      encodeFunctionData({ abi: b20Abi, functionName, args: [DEFAULT_ADMIN_ROLE, account] })
    const lastAdmin = encodeErrorResult({ abi: b20Abi, errorName: 'LastAdminCannotRenounce' })
    expect(await revertData(node, a, token, call('revokeRole', a))).toBe(lastAdmin)
    expect(await revertData(node, a, token, call('renounceRole', a))).toBe(lastAdmin)
    expect(await revertData(node, a, token, call('renounceRole', b))).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'AccessControlBadConfirmation' }),
    )
    const gone = await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'renounceLastAdmin' }))
    expect(gone.logs.map((l) => decodeEventLog({ abi: b20Abi, ...l }))).toEqual([
      { eventName: 'RoleRevoked', args: { role: DEFAULT_ADMIN_ROLE, account: a, sender: a } },
      { eventName: 'LastAdminRenounced', args: { previousAdmin: a } },
    ])
    expect(
      await node.publicClient.readContract({
        address: token,
        abi: b20Abi,
        functionName: 'hasRole',
        args: [DEFAULT_ADMIN_ROLE, a],
      }),
    ).toBe(false)
  })

  it('inverts a policy with bit 63 (Denim): an inverted blocklist lets only its members send', async () => {
    const [a, b, c] = [0, 1, 2].map((i) => node.accounts[i].address as Address)
    const INVERTED = 1n << 63n
    const created = await send(
      0,
      POLICY_REGISTRY_ADDRESS,
      encodeFunctionData({ abi: policyRegistryAbi, functionName: 'createPolicyWithAccounts', args: [a, 0, [a]] }),
    )
    const base = (decodeEventLog({ abi: policyRegistryAbi, ...created.logs[0] }).args as { policyId: bigint }).policyId
    const read = <T>(functionName: 'invertedPolicyId' | 'policyExists' | 'policyAdmin', id: bigint) =>
      node.publicClient.readContract({
        address: POLICY_REGISTRY_ADDRESS,
        abi: policyRegistryAbi,
        functionName,
        args: [id],
      }) as Promise<T>
    expect(await read('invertedPolicyId', base)).toBe(base | INVERTED)
    expect([await read('policyExists', base | INVERTED), await read('policyAdmin', base | INVERTED)]).toEqual([true, a])
    // An inverted id of a policy that does not exist authorizes nobody.
    const authorized = (id: bigint, who: Address) =>
      node.publicClient.readContract({
        address: POLICY_REGISTRY_ADDRESS,
        abi: policyRegistryAbi,
        functionName: 'isAuthorized',
        args: [id, who],
      })
    expect([
      await authorized(base | INVERTED, a),
      await authorized(base | INVERTED, b),
      await authorized(999n | INVERTED, b),
    ]).toEqual([true, false, false])
    const { token } = await createToken(0, ASSET, assetParams('Inverted', 'INV', a, 6), 8, [
      encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [a, 10n] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [b, 10n] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'updatePolicy', args: [TRANSFER_SENDER_POLICY, base | INVERTED] }),
    ])
    const transfer = encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [c, 1n] })
    expect((await node.publicClient.call({ account: a, to: token, data: transfer })).data).toBe(pad('0x01'))
    expect(await revertData(node, b, token, transfer)).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'PolicyForbids', args: [TRANSFER_SENDER_POLICY, base | INVERTED] }),
    )
  })

  it('burns with a memo, burns a blocked holder, pauses by feature and renames (EIP-712 domain follows)', async () => {
    const [a, b] = [0, 1].map((i) => node.accounts[i].address as Address)
    const role = (name: string) => keccak256(toHex(name))
    const grant = (name: string) => encodeFunctionData({ abi: b20Abi, functionName: 'grantRole', args: [role(name), a] })
    const { token } = await createToken(0, ASSET, assetParams('Old', 'OLD', a, 6), 10, [
      ...['MINT_ROLE', 'BURN_ROLE', 'BURN_BLOCKED_ROLE', 'PAUSE_ROLE', 'UNPAUSE_ROLE', 'METADATA_ROLE'].map(grant),
      encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [a, 100n] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [b, 100n] }),
    ])
    const memo = pad('0xbeef')
    const burned = await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'burnWithMemo', args: [40n, memo] }))
    expect(burned.logs.map((l) => decodeEventLog({ abi: b20Abi, ...l }))).toEqual([
      { eventName: 'Transfer', args: { from: a, to: zeroAddress, amount: 40n } },
      { eventName: 'Memo', args: { caller: a, memo } },
    ])
    expect(await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'totalSupply' })).toBe(160n)
    // b is not blocked (the sender policy is ALWAYS_ALLOW): AccountNotBlocked(b).
    const burnBlocked = encodeFunctionData({ abi: b20Abi, functionName: 'burnBlocked', args: [b, 1n] })
    expect(await revertData(node, a, token, burnBlocked)).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'AccountNotBlocked', args: [b] }),
    )
    await send(
      0,
      token,
      encodeFunctionData({ abi: b20Abi, functionName: 'updatePolicy', args: [TRANSFER_SENDER_POLICY, (1n << 56n) | 1n] }),
    )
    const seized = await send(0, token, burnBlocked)
    expect(seized.logs.map((l) => decodeEventLog({ abi: b20Abi, ...l }).eventName)).toEqual(['Transfer', 'BurnedBlocked'])
    // Pause MINT and BURN, not TRANSFER.
    const paused = await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'pause', args: [[1, 2]] }))
    expect(decodeEventLog({ abi: b20Abi, ...paused.logs[0] })).toEqual({
      eventName: 'Paused',
      args: { updater: a, features: [1, 2] },
    })
    expect(await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'pausedFeatures' })).toEqual([1, 2])
    expect(await revertData(node, a, token, encodeFunctionData({ abi: b20Abi, functionName: 'burn', args: [1n] }))).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'ContractPaused', args: [2] }),
    )
    expect(await revertData(node, a, token, encodeFunctionData({ abi: b20Abi, functionName: 'pause', args: [[]] }))).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'EmptyFeatureSet' }),
    )
    // Paused bits in slot 11 of the namespace: 1 << MINT | 1 << BURN.
    expect(
      hexToBigInt((await node.publicClient.getStorageAt({ address: token, slot: toHex(B20_ROOT + 11n, { size: 32 }) })) as Hex),
    ).toBe(6n)
    await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'updateName', args: ['New'] }))
    const domain = await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'eip712Domain' })
    expect(domain.slice(1, 5)).toEqual(['New', '1', BigInt(node.chainId), token])
  })

  it('answers the same on a fork of the chain, and a token keeps working there', async () => {
    const [a, b] = [0, 1].map((i) => node.accounts[i].address as Address)
    const token = b20Address(ASSET, a, salt(3))
    const balance = (client: typeof node.publicClient, holder: Address) =>
      client.readContract({ address: token, abi: b20Abi, functionName: 'balanceOf', args: [holder] })
    const before = [await balance(node.publicClient, a), await balance(node.publicClient, b)]
    const fork = await startTestNode({ profile: 'base', fork: { url: node.rpcUrl } })
    try {
      expect([await balance(fork.publicClient, a), await balance(fork.publicClient, b)]).toEqual(before)
      expect(await fork.publicClient.getStorageAt({ address: token, slot: balanceSlot(a) })).toBe(
        await node.publicClient.getStorageAt({ address: token, slot: balanceSlot(a) }),
      )
      const hash = await fork.wallet(0).sendTransaction({
        to: token,
        data: encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [b, 5n] }),
        gas: 500_000n,
      })
      expect((await waitForSealed(fork, hash)).status).toBe('success')
      expect(await balance(fork.publicClient, b)).toBe(before[1] + 5n)
    } finally {
      await fork.stop()
    }
  })

  it('runs the factory and PolicyRegistry without their marker on a Beryl chain (a fork of Base); a registry write sets it', async () => {
    const a = node.accounts[0].address as Address
    for (const address of [B20_FACTORY_ADDRESS, POLICY_REGISTRY_ADDRESS]) await node.rpc('anvil_setCode', [address, '0x'])
    try {
      const { token } = await createToken(0, ASSET, assetParams('Bare', 'BR', a, 6), 9)
      expect(await node.publicClient.getCode({ address: token })).toBe('0xef')
      expect(await node.publicClient.getCode({ address: B20_FACTORY_ADDRESS })).toBeUndefined()
      // A read leaves the registry as it is; a write gives it the marker before its storage.
      const exists = await node.publicClient.readContract({
        address: POLICY_REGISTRY_ADDRESS,
        abi: policyRegistryAbi,
        functionName: 'policyExists',
        args: [2n],
      })
      expect(exists).toBe(true)
      expect(await node.publicClient.getCode({ address: POLICY_REGISTRY_ADDRESS })).toBeUndefined()
      await send(
        0,
        POLICY_REGISTRY_ADDRESS,
        encodeFunctionData({ abi: policyRegistryAbi, functionName: 'createPolicy', args: [a, 1] }),
      )
      expect(await node.publicClient.getCode({ address: POLICY_REGISTRY_ADDRESS })).toBe('0xef')
    } finally {
      await node.rpc('anvil_setCode', [B20_FACTORY_ADDRESS, '0xef'])
    }
  })
})

describe('B20 precompiles are absent under --profile ethereum', () => {
  const node = useTestNode({ profile: 'ethereum' })

  it('has no marker at the factory or registries, and a call to the factory does nothing', async () => {
    for (const address of [B20_FACTORY_ADDRESS, ACTIVATION_REGISTRY_ADDRESS, POLICY_REGISTRY_ADDRESS]) {
      expect(await node.publicClient.getCode({ address })).toBeUndefined()
    }
    const data = encodeFunctionData({
      abi: b20FactoryAbi,
      functionName: 'getB20Address',
      args: [ASSET, zeroAddress, pad('0x01')],
    })
    expect((await node.publicClient.call({ to: B20_FACTORY_ADDRESS, data })).data).toBeUndefined()
  })
})
