// Base's Beryl precompiles under --profile base: the B20Factory, the ActivationRegistry and the
// PolicyRegistry's presence: addresses (Base's golden vectors), genesis markers and features,
// creation logs and revert data in Base's order, activation gating, forks, and their absence under
// --profile ethereum (base/base b20_factory, activation/abi.rs; base/docs specifications/b20).
import {
  type Address,
  concat,
  decodeEventLog,
  encodeAbiParameters,
  encodeErrorResult,
  encodeFunctionData,
  type Hex,
  hexToBigInt,
  pad,
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
import {
  ASSET,
  assetParams,
  B20_ROOT,
  b20Actions,
  balanceSlot,
  DEFAULT_ADMIN_ROLE,
  MINT_ROLE,
  revertData,
  STABLECOIN,
  salt,
  stablecoinParams,
} from './b20-helpers.js'
import { startTestNode, useTestNode, waitForSealed } from './helpers.js'

describe('B20 factory and registries (profile base)', () => {
  const node = useTestNode({ profile: 'base' })
  const { send, createToken } = b20Actions(node)

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
    // Base's B20Variant has two members: a third fails the validating decoder (InvalidVariant() is unreachable).
    const third = create(2, '0x')
    expect(await revertData(node, from, B20_FACTORY_ADDRESS, third)).toBe(
      concat([
        third.slice(0, 10) as Hex,
        toHex(`type check failed for "(uint8,bytes32,bytes,bytes[])" with data: ${pad('0x20').slice(2)}${third.slice(10)}`),
      ]),
    )
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
    const token = b20Address(ASSET, other, salt(1))
    expect(await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'name' })).toBe('Gold')
    // Deactivating an inactive feature: FeatureNotActivated (base/base activation set_activated).
    expect(await revertData(node, admin, ACTIVATION_REGISTRY_ADDRESS, deactivate)).toBe(
      encodeErrorResult({ abi: activationRegistryAbi, errorName: 'FeatureNotActivated', args: [B20_FEATURES.asset] }),
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

  it('answers the same on a fork of the chain, and a token keeps working there', async () => {
    // The Stablecoin made above: account 2 holds 500.
    const [a, b] = [2, 1].map((i) => node.accounts[i].address as Address)
    const token = b20Address(STABLECOIN, node.accounts[1].address as Address, salt(2))
    const balance = (client: typeof node.publicClient, holder: Address) =>
      client.readContract({ address: token, abi: b20Abi, functionName: 'balanceOf', args: [holder] })
    const before = [await balance(node.publicClient, a), await balance(node.publicClient, b)]
    // eth_getProof proves the balance at its ERC-7201 slot under the token's storage root.
    const proof = await node.publicClient.getProof({ address: token, storageKeys: [balanceSlot(a)] })
    expect(proof.storageProof[0].value).toBe(before[0])
    expect(proof.storageHash).not.toBe('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')
    const fork = await startTestNode({ profile: 'base', fork: { url: node.rpcUrl } })
    try {
      expect([await balance(fork.publicClient, a), await balance(fork.publicClient, b)]).toEqual(before)
      expect(await fork.publicClient.getStorageAt({ address: token, slot: balanceSlot(a) })).toBe(
        await node.publicClient.getStorageAt({ address: token, slot: balanceSlot(a) }),
      )
      expect(before[0]).toBe(500n)
      const hash = await fork.wallet(2).sendTransaction({
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
        args: [(1n << 56n) | 1n],
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
