// Cobalt's registry changes and the B20 upgrades by timestamp: composite UNION/INTERSECT policies
// (their events, storage and revert data, on each policy scope of a token), the ActivationRegistry's
// stored admin, Beryl's and Cobalt's behaviour on one chain whose upgrades come after genesis, and
// Beryl's precompiles arriving in the first block at its time (base-std changelog "Composite
// Policies"; base/base activation/storage.rs set_admin, dispatch.rs).
import {
  type Address,
  concat,
  decodeEventLog,
  encodeAbiParameters,
  encodeErrorResult,
  encodeFunctionData,
  type Hex,
  hexToBigInt,
  keccak256,
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
  b20FactoryAbi,
  NONCE_MANAGER_ADDRESS,
  nonceManagerAbi,
  POLICY_REGISTRY_ADDRESS,
  policyRegistryAbi,
  TX_CONTEXT_ADDRESS,
  txContextAbi,
} from '../src/index.js'
import {
  ASSET,
  assetParams,
  b20Actions,
  MINT_ROLE,
  revertData,
  salt,
  TRANSFER_RECEIVER_POLICY,
  TRANSFER_SENDER_POLICY,
} from './b20-helpers.js'
import { poll, startTestNode, type TestNode, testClient, useTestNode, waitForSealed } from './helpers.js'

const POLICY_ROOT = 0x00503aeb06982fa1fe3151dc68f90b3946c55c449dfd447e49dcaece71ba4a00n
const ACTIVATION_ROOT = 0x43ee1bbe25e988521cccd8b2c8fbd38c8287ebff8e074e825a70dfd3885cce00n
const TRANSFER_EXECUTOR_POLICY = keccak256(toHex('TRANSFER_EXECUTOR_POLICY'))
const MINT_RECEIVER_POLICY = keccak256(toHex('MINT_RECEIVER_POLICY'))
const [BLOCKLIST, ALLOWLIST, UNION, INTERSECT] = [0, 1, 2, 3]
const ALWAYS_BLOCK = (1n << 56n) | 1n
const DEV_ADMIN = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc'

const policyCall = (functionName: string, args: readonly unknown[]) =>
  encodeFunctionData({ abi: policyRegistryAbi, functionName, args } as never)
const policyError = (errorName: string, args?: readonly unknown[]) =>
  encodeErrorResult({ abi: policyRegistryAbi, errorName, args } as never)
const activationCall = (functionName: string, args: readonly unknown[] = []) =>
  encodeFunctionData({ abi: activationRegistryAbi, functionName, args } as never)

/** The storage slot of `mapping(uint64 => …)` at `offset` of the PolicyRegistry's namespace. */
const policyMappingSlot = (id: bigint, offset: bigint) =>
  keccak256(encodeAbiParameters([{ type: 'uint64' }, { type: 'uint256' }], [id, POLICY_ROOT + offset]))

/** The id a policy-creating receipt's PolicyCreated names. */
function createdId(logs: readonly { data: Hex; topics: readonly Hex[] }[]): bigint {
  const created = decodeEventLog({ abi: policyRegistryAbi, ...logs[0], topics: logs[0].topics as [Hex, ...Hex[]] })
  expect(created.eventName).toBe('PolicyCreated')
  return (created.args as { policyId: bigint }).policyId
}

describe('Cobalt on a chain Denim from genesis (profile base)', () => {
  const node = useTestNode({ profile: 'base' })
  const { send, createToken } = b20Actions(node)
  const who = (i: number) => node.accounts[i].address as Address

  async function policy(type: number, members: Address[]): Promise<bigint> {
    const receipt = await send(0, POLICY_REGISTRY_ADDRESS, policyCall('createPolicyWithAccounts', [who(0), type, members]))
    return createdId(receipt.logs)
  }

  it('creates and updates composite policies with Base’s events, storage and revert order', async () => {
    const a = await policy(ALLOWLIST, [who(1)])
    const b = await policy(ALLOWLIST, [who(2)])
    const receipt = await send(0, POLICY_REGISTRY_ADDRESS, policyCall('createCompositePolicy', [who(0), UNION, [a, b]]))
    const events = receipt.logs.map((l) => decodeEventLog({ abi: policyRegistryAbi, ...l }))
    expect(events.map((e) => e.eventName)).toEqual(['PolicyCreated', 'PolicyAdminUpdated', 'CompositePolicyUpdated'])
    const union = createdId(receipt.logs)
    // The type in the top byte, the one global counter below it.
    expect(union >> 56n).toBe(2n)
    expect(union & ((1n << 56n) - 1n)).toBe((b & ((1n << 56n) - 1n)) + 1n)
    expect(events[0].args).toEqual({ policyId: union, creator: who(0), policyType: UNION })
    expect(events[1].args).toEqual({ policyId: union, previousAdmin: zeroAddress, newAdmin: who(0) })
    expect(events[2].args).toEqual({ policyId: union, updater: who(0), childPolicyIds: [a, b] })
    expect(receipt.logs[2].topics[0]).toBe('0x4ff6adaab31b0df87aa7b8b7320c52b8b3b5eede3bf28a6baaaa8b8b7e1d6363')
    // Storage: the length at the mapping entry (offset 4), the ids packed four to a slot, low bits first.
    const lengthSlot = policyMappingSlot(union, 4n)
    expect(
      hexToBigInt((await node.publicClient.getStorageAt({ address: POLICY_REGISTRY_ADDRESS, slot: lengthSlot })) as Hex),
    ).toBe(2n)
    const packed = await node.publicClient.getStorageAt({ address: POLICY_REGISTRY_ADDRESS, slot: keccak256(lengthSlot) })
    expect(hexToBigInt(packed as Hex)).toBe((b << 64n) | a)
    const read = async (functionName: string, args: readonly unknown[]) =>
      node.publicClient.readContract({ address: POLICY_REGISTRY_ADDRESS, abi: policyRegistryAbi, functionName, args } as never)
    expect(await read('compositePolicyChildIds', [union])).toEqual([a, b])
    expect(await read('compositePolicyChildIds', [a])).toEqual([])
    expect(await read('MIN_COMPOSITE_CHILD_POLICIES', [])).toBe(2n)
    expect(await read('MAX_COMPOSITE_CHILD_POLICIES', [])).toBe(4n)
    // UNION: any child; live, so a child's update changes it at once.
    expect(await read('isAuthorized', [union, who(1)])).toBe(true)
    expect(await read('isAuthorized', [union, who(2)])).toBe(true)
    expect(await read('isAuthorized', [union, who(3)])).toBe(false)
    await send(0, POLICY_REGISTRY_ADDRESS, policyCall('updateAllowlist', [a, true, [who(3)]]))
    expect(await read('isAuthorized', [union, who(3)])).toBe(true)
    // Never-created composite ids: a UNION authorizes nobody, an INTERSECT everybody.
    expect(await read('isAuthorized', [(2n << 56n) | 9999n, who(1)])).toBe(false)
    expect(await read('isAuthorized', [(3n << 56n) | 9999n, who(1)])).toBe(true)

    // createCompositePolicy's order: admin, type, count, existence (one pass), kind (a second pass).
    const create = (admin: Address, type: number, children: bigint[]) =>
      revertData(node, who(0), POLICY_REGISTRY_ADDRESS, policyCall('createCompositePolicy', [admin, type, children]))
    expect(await create(zeroAddress, UNION, [])).toBe(policyError('ZeroAddress'))
    expect(await create(who(0), ALLOWLIST, [a])).toBe(policyError('IncompatiblePolicyType'))
    expect(await create(who(0), UNION, [a])).toBe('0x697ec868')
    expect(await create(who(0), INTERSECT, [a, b, a, b, a])).toBe(policyError('ChildPoliciesOutsideOfRange'))
    expect(await create(who(0), UNION, [union, 12345n])).toBe(policyError('PolicyNotFound'))
    expect(await create(who(0), UNION, [a, 0n])).toBe(policyError('InvalidChildPolicy', [0n]))
    expect(await create(who(0), UNION, [a, ALWAYS_BLOCK])).toBe(policyError('InvalidChildPolicy', [ALWAYS_BLOCK]))
    expect(await create(who(0), UNION, [a, union])).toBe(`0x46508ef6${pad(toHex(union)).slice(2)}`)
    // Simple creators refuse the composite types from Cobalt.
    expect(await revertData(node, who(0), POLICY_REGISTRY_ADDRESS, policyCall('createPolicy', [who(0), UNION]))).toBe(
      policyError('IncompatiblePolicyType'),
    )

    // updateComposite: exists, composite, admin (before the count), then the children.
    const update = (from: Address, id: bigint, children: bigint[]) =>
      revertData(node, from, POLICY_REGISTRY_ADDRESS, policyCall('updateComposite', [id, children]))
    expect(await update(who(0), (2n << 56n) | 9999n, [a, b])).toBe(policyError('PolicyNotFound'))
    expect(await update(who(0), a, [a, b])).toBe(policyError('IncompatiblePolicyType'))
    expect(await update(who(1), union, [a])).toBe(policyError('Unauthorized'))
    expect(await update(who(0), union, [a])).toBe(policyError('ChildPoliciesOutsideOfRange'))
    const updated = await send(0, POLICY_REGISTRY_ADDRESS, policyCall('updateComposite', [union, [b, b, a]]))
    expect(updated.logs).toHaveLength(1)
    expect(decodeEventLog({ abi: policyRegistryAbi, ...updated.logs[0] }).args).toEqual({
      policyId: union,
      updater: who(0),
      childPolicyIds: [b, b, a],
    })
    expect(await read('compositePolicyChildIds', [union])).toEqual([b, b, a])
  })

  it('holds a token to a composite policy on each scope (PolicyForbids names the scope and the composite)', async () => {
    const a = await policy(ALLOWLIST, [who(1), who(3)])
    const b = await policy(ALLOWLIST, [who(2)])
    const x = await policy(BLOCKLIST, [who(3)])
    const union = createdId(
      (await send(0, POLICY_REGISTRY_ADDRESS, policyCall('createCompositePolicy', [who(0), UNION, [a, b]]))).logs,
    )
    // INTERSECT of "on A" and "not on X": account 1 only. Denim: an inverted simple child (NOT B) also works.
    const intersect = createdId(
      (await send(0, POLICY_REGISTRY_ADDRESS, policyCall('createCompositePolicy', [who(0), INTERSECT, [a, x, b | (1n << 63n)]])))
        .logs,
    )
    const { token } = await createToken(0, ASSET, assetParams('Composite', 'CMP', who(0), 6), 700, [
      encodeFunctionData({ abi: b20Abi, functionName: 'grantRole', args: [MINT_ROLE, who(0)] }),
    ])
    for (const i of [1, 2, 3, 4]) {
      await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [who(i), 1000n] }))
    }
    const setScope = (scope: Hex, id: bigint) =>
      send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'updatePolicy', args: [scope, id] }))
    const transfer = (from: number, to: number) =>
      node.rpc('eth_call', [
        { from: who(from), to: token, data: encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [who(to), 1n] }) },
        'latest',
      ])
    const forbids = (scope: Hex, id: bigint) => encodeErrorResult({ abi: b20Abi, errorName: 'PolicyForbids', args: [scope, id] })
    const ok = pad('0x01')

    await setScope(TRANSFER_SENDER_POLICY, union)
    expect((await transfer(1, 4)).result).toBe(ok)
    expect((await transfer(2, 4)).result).toBe(ok)
    expect((await transfer(4, 1)).error.data).toBe(forbids(TRANSFER_SENDER_POLICY, union))
    await setScope(TRANSFER_SENDER_POLICY, 0n)

    await setScope(TRANSFER_RECEIVER_POLICY, union)
    expect((await transfer(4, 2)).result).toBe(ok)
    expect((await transfer(1, 4)).error.data).toBe(forbids(TRANSFER_RECEIVER_POLICY, union))
    await setScope(TRANSFER_RECEIVER_POLICY, 0n)

    // Denim checks the executor on every transfer path, a holder's own transfer included.
    await setScope(TRANSFER_EXECUTOR_POLICY, intersect)
    expect((await transfer(1, 4)).result).toBe(ok)
    expect((await transfer(3, 4)).error.data).toBe(forbids(TRANSFER_EXECUTOR_POLICY, intersect))
    expect((await transfer(2, 4)).error.data).toBe(forbids(TRANSFER_EXECUTOR_POLICY, intersect))
    await setScope(TRANSFER_EXECUTOR_POLICY, 0n)

    await setScope(MINT_RECEIVER_POLICY, intersect)
    const mint = (to: number) =>
      node.rpc('eth_call', [
        { from: who(0), to: token, data: encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [who(to), 5n] }) },
        'latest',
      ])
    expect((await mint(1)).error).toBeUndefined()
    expect((await mint(3)).error.data).toBe(forbids(MINT_RECEIVER_POLICY, intersect))
  })

  it("answers EIP-8130's TxContext and NonceManager outside an EIP-8130 transaction (tx.origin, unset 2D nonces)", async () => {
    const origin = who(3)
    expect(await txContext(node, origin, 'getTransactionSender')).toBe(pad(origin.toLowerCase() as Hex))
    expect(await txContext(node, origin, 'getTransactionPayer')).toBe(pad(origin.toLowerCase() as Hex))
    // The actor id: the origin right-aligned, bytes32(uint256(uint160(tx.origin))).
    expect(await txContext(node, origin, 'getTransactionSenderActorId')).toBe(pad(origin.toLowerCase() as Hex))
    // No code at either address (Base plants none before Zenith), yet both run.
    for (const address of [TX_CONTEXT_ADDRESS, NONCE_MANAGER_ADDRESS]) {
      expect((await node.rpc('eth_getCode', [address, 'latest'])).result).toBe('0x')
    }
    // A DELEGATECALL into TxContext: DelegateCallNotAllowed() (a probe DELEGATECALLs it with this call's data).
    const code = `0x366000600037600060003660007f${'00'.repeat(12)}${TX_CONTEXT_ADDRESS.slice(2)}5af43d600060003e3d6000f3` as Hex
    const probe = '0x00000000000000000000000000000000000b207a'
    const data = encodeFunctionData({ abi: txContextAbi, functionName: 'getTransactionSender' })
    const delegated = await node.rpc('eth_call', [{ from: origin, to: probe, data }, 'latest', { [probe]: { code } }])
    expect(delegated.result).toBe(encodeErrorResult({ abi: txContextAbi, errorName: 'DelegateCallNotAllowed' }))
    const nonce = (key: bigint, value?: bigint) =>
      node.rpc('eth_call', [
        {
          from: origin,
          to: NONCE_MANAGER_ADDRESS,
          data: encodeFunctionData({ abi: nonceManagerAbi, functionName: 'getNonce', args: [origin, key] }),
          ...(value === undefined ? {} : { value: toHex(value) }),
        },
        'latest',
      ])
    expect((await nonce(7n)).result).toBe(pad('0x00'))
    // Key 0 is the protocol nonce, kept in the account: ProtocolNonceNotSupported(); value: NonPayable().
    expect((await nonce(0n)).error.data).toBe('0x1bc81ca9')
    expect((await nonce(7n, 1n)).error.data).toBe('0x6fb1b0e9')
    // An unknown selector reverts with its four bytes.
    const unknown = await node.rpc('eth_call', [{ from: origin, to: NONCE_MANAGER_ADDRESS, data: '0xdeadbeef00' }, 'latest'])
    expect(unknown.error.data).toBe('0xdeadbeef')
  })

  it('keeps the activation admin in storage: setAdmin, AdminChanged, the old admin refused', async () => {
    const registry = (functionName: string) =>
      node.publicClient.readContract({ address: ACTIVATION_REGISTRY_ADDRESS, abi: activationRegistryAbi, functionName } as never)
    const adminSlot = toHex(ACTIVATION_ROOT + 1n, { size: 32 })
    expect(await registry('admin')).toBe(DEV_ADMIN)
    expect(await node.publicClient.getStorageAt({ address: ACTIVATION_REGISTRY_ADDRESS, slot: adminSlot })).toBe(pad('0x00'))
    const setAdmin = (to: Address) => activationCall('setAdmin', [to])
    // Order: zero address before the caller, then the caller.
    expect(await revertData(node, who(0), ACTIVATION_REGISTRY_ADDRESS, setAdmin(zeroAddress))).toBe(
      encodeErrorResult({ abi: activationRegistryAbi, errorName: 'ZeroAdminAddress' }),
    )
    expect(await revertData(node, who(0), ACTIVATION_REGISTRY_ADDRESS, setAdmin(who(6)))).toBe(
      encodeErrorResult({ abi: activationRegistryAbi, errorName: 'Unauthorized', args: [who(0)] }),
    )
    const changed = await send(5, ACTIVATION_REGISTRY_ADDRESS, setAdmin(who(6)))
    expect(changed.logs).toHaveLength(1)
    expect(changed.logs[0].topics[0]).toBe(keccak256(toHex('AdminChanged(address,address,address)')))
    expect(decodeEventLog({ abi: activationRegistryAbi, ...changed.logs[0] })).toEqual({
      eventName: 'AdminChanged',
      args: { previousAdmin: DEV_ADMIN, newAdmin: who(6), caller: DEV_ADMIN },
    })
    expect(await registry('admin')).toBe(who(6))
    expect(await node.publicClient.getStorageAt({ address: ACTIVATION_REGISTRY_ADDRESS, slot: adminSlot })).toBe(
      pad(who(6).toLowerCase() as Hex),
    )
    // The configured admin no longer passes; the stored one does.
    const deactivate = activationCall('deactivate', [B20_FEATURES.stablecoin])
    expect(await revertData(node, DEV_ADMIN, ACTIVATION_REGISTRY_ADDRESS, deactivate)).toBe(
      encodeErrorResult({ abi: activationRegistryAbi, errorName: 'Unauthorized', args: [DEV_ADMIN] }),
    )
    const off = await send(6, ACTIVATION_REGISTRY_ADDRESS, deactivate)
    expect(decodeEventLog({ abi: activationRegistryAbi, ...off.logs[0] }).args).toEqual({
      feature: B20_FEATURES.stablecoin,
      caller: who(6),
    })
    await send(6, ACTIVATION_REGISTRY_ADDRESS, activationCall('activate', [B20_FEATURES.stablecoin]))
    // A static call cannot reach setAdmin: StaticCallNotAllowed() first (a probe STATICCALLs the registry).
    const code = `0x3660006000376000600036600073${ACTIVATION_REGISTRY_ADDRESS.slice(2)}5afa503d600060003e3d6000f3` as Hex
    const probe = '0x00000000000000000000000000000000000b2079'
    const answer = await node.rpc('eth_call', [
      { from: who(6), to: probe, data: setAdmin(who(7)) },
      'latest',
      { [probe]: { code } },
    ])
    expect(answer.result).toBe('0xbeaba5b7')
  })
})

/**
 * Base's golden snapshots of the PolicyRegistry at Cobalt (base/base precompiles
 * tests/b20_policy_v2_golden.rs): keccak256 of the registry's events (topics, data) in order, then
 * its storage words (slot, value) sorted by slot, after the same calls from ADMIN = 0xAD…AD.
 */
describe("the PolicyRegistry against Base's golden snapshots", () => {
  const node = useTestNode({ profile: 'base' })
  const ADMIN = `0x${'ad'.repeat(20)}` as Address
  const ALICE = `0x${'a1'.repeat(20)}` as Address
  const BOB = `0x${'b0'.repeat(20)}` as Address

  /** Runs `calls` from ADMIN on a fresh registry and returns the snapshot hash; the chain is put back after. */
  async function snapshot(calls: Array<[string, readonly unknown[]]>): Promise<Hex> {
    const saved = (await node.rpc('evm_snapshot')).result
    try {
      await node.rpc('anvil_impersonateAccount', [ADMIN])
      await node.rpc('anvil_setBalance', [ADMIN, toHex(10n ** 18n)])
      const logs: Hex[] = []
      const words = new Map<bigint, bigint>()
      for (const [name, args] of calls) {
        const sent = await node.rpc('eth_sendTransaction', [
          { from: ADMIN, to: POLICY_REGISTRY_ADDRESS, data: policyCall(name, args), gas: toHex(1_000_000n) },
        ])
        const receipt = await waitForSealed(node, sent.result)
        expect(receipt.status).toBe('success')
        for (const log of receipt.logs) {
          if (log.address.toLowerCase() === POLICY_REGISTRY_ADDRESS) logs.push(...log.topics, log.data)
        }
        // Every word the call wrote: prestateTracer's diff (a slot cleared to zero leaves the map).
        const trace = await node.rpc('debug_traceTransaction', [
          sent.result,
          { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
        ])
        const key = Object.keys(trace.result.post).find((a) => a.toLowerCase() === POLICY_REGISTRY_ADDRESS)
        const before = Object.keys(trace.result.pre).find((a) => a.toLowerCase() === POLICY_REGISTRY_ADDRESS)
        for (const slot of Object.keys((before && trace.result.pre[before].storage) ?? {})) words.delete(BigInt(slot))
        for (const [slot, value] of Object.entries((key && trace.result.post[key].storage) ?? {})) {
          words.set(BigInt(slot), BigInt(value as string))
        }
      }
      const sorted = [...words].sort((x, y) => (x[0] < y[0] ? -1 : 1))
      return keccak256(
        concat([...logs, ...sorted.flatMap(([slot, value]) => [toHex(slot, { size: 32 }), toHex(value, { size: 32 })])]),
      )
    } finally {
      await node.rpc('anvil_stopImpersonatingAccount', [ADMIN])
      await node.rpc('evm_revert', [saved])
    }
  }

  // The ALLOWLISTs the cases create, in order (the counter starts at 2 on a fresh registry).
  const [A, B, C] = [(1n << 56n) | 2n, (1n << 56n) | 3n, (1n << 56n) | 4n]
  it('create_blocklist', async () => {
    expect(await snapshot([['createPolicy', [ADMIN, BLOCKLIST]]])).toBe(
      '0x5ff0dab60b6daec34cbc6135f09097ddbbe31c6f662d4cdd9c6c4c7b5a589556',
    )
  })

  it('create_composite_union', async () => {
    expect(
      await snapshot([
        ['createPolicy', [ADMIN, ALLOWLIST]],
        ['createPolicy', [ADMIN, ALLOWLIST]],
        ['updateAllowlist', [A, true, [ALICE]]],
        ['updateAllowlist', [B, true, [BOB]]],
        ['createCompositePolicy', [ADMIN, UNION, [A, B]]],
      ]),
    ).toBe('0xf76b88e4cd8e2379cd8fe082a8530e187eca346599b679abb5038aaf62d048ee')
  })

  it('update_composite', async () => {
    const union = (2n << 56n) | 5n
    expect(
      await snapshot([
        ['createPolicy', [ADMIN, ALLOWLIST]],
        ['createPolicy', [ADMIN, ALLOWLIST]],
        ['createPolicy', [ADMIN, ALLOWLIST]],
        ['updateAllowlist', [A, true, [ALICE]]],
        ['updateAllowlist', [C, true, [BOB]]],
        ['createCompositePolicy', [ADMIN, UNION, [A, B]]],
        ['updateComposite', [union, [B, C]]],
      ]),
    ).toBe('0xfa1912098beb387418d4c28bf4d9cc499f0f2cf8a623e6d57a768bcf062c9094')
  })
})

/** An eth_call's answer (result or revert data) of `functionName` on TxContext, from `from`. */
async function txContext(n: TestNode, from: Address, functionName: string, block: string = 'latest') {
  const data = encodeFunctionData({ abi: txContextAbi, functionName } as never)
  const answer = await n.rpc('eth_call', [{ from, to: TX_CONTEXT_ADDRESS, data }, block])
  return answer.result ?? answer.error?.data
}

/** Sends from dev account `index` on a chain that mines only on request, mines, and returns the receipt. */
async function sendMined(n: TestNode, index: number, to: Address, data: Hex) {
  const hash = await n.wallet(index).sendTransaction({ to, data, gas: 3_000_000n })
  await testClient(n).mine({ blocks: 1 })
  return waitForSealed(n, hash, 30_000)
}

/** Mines one block at `time` and waits until it is the latest. */
async function mineAt(n: TestNode, time: bigint) {
  await n.rpc('evm_setNextBlockTimestamp', [toHex(time)])
  await testClient(n).mine({ blocks: 1 })
  return poll(
    () => n.publicClient.getBlock({ blockTag: 'latest' }),
    (b) => b.timestamp >= time,
    { timeoutMs: 30_000, what: `a block at ${time}` },
  )
}

describe('Beryl, then Cobalt, after genesis (profile flashblocks)', () => {
  it('installs the precompiles in Beryl’s first block and switches to Cobalt’s logic at its time', async () => {
    const now = BigInt(Math.floor(Date.now() / 1000))
    const beryl = now + 3600n
    const cobalt = now + 7200n
    const n = await startTestNode({ profile: 'flashblocks', mining: false, berylTime: beryl, cobaltTime: cobalt })
    try {
      const who = (i: number) => n.accounts[i].address as Address
      // Before Beryl: nothing at the singletons, the factory answers nothing.
      for (const address of [B20_FACTORY_ADDRESS, ACTIVATION_REGISTRY_ADDRESS, POLICY_REGISTRY_ADDRESS]) {
        expect(await n.rpc('eth_getCode', [address, 'latest'])).toMatchObject({ result: '0x' })
      }
      const getAddress = encodeFunctionData({ abi: b20FactoryAbi, functionName: 'getB20Address', args: [ASSET, who(0), salt(1)] })
      expect((await n.rpc('eth_call', [{ to: B20_FACTORY_ADDRESS, data: getAddress }, 'latest'])).result).toBe('0x')

      // Beryl's first block: the markers and the features, as a chain Beryl from genesis holds them.
      const first = await mineAt(n, beryl)
      for (const address of [B20_FACTORY_ADDRESS, ACTIVATION_REGISTRY_ADDRESS, POLICY_REGISTRY_ADDRESS]) {
        expect((await n.rpc('eth_getCode', [address, toHex(first.number)])).result).toBe('0xef')
        expect((await n.rpc('eth_getCode', [address, toHex(first.number - 1n)])).result).toBe('0x')
      }
      const registry = (functionName: string, args: readonly unknown[] = []) =>
        n.publicClient.readContract({
          address: ACTIVATION_REGISTRY_ADDRESS,
          abi: activationRegistryAbi,
          functionName,
          args,
        } as never)
      for (const feature of Object.values(B20_FEATURES)) expect(await registry('isActivated', [feature])).toBe(true)
      const created = await sendMined(
        n,
        0,
        B20_FACTORY_ADDRESS,
        encodeFunctionData({
          abi: b20FactoryAbi,
          functionName: 'createB20',
          args: [ASSET, salt(1), assetParams('B', 'B', who(0), 6), []],
        }),
      )
      expect(created.status).toBe('success')

      // Beryl's logic: Cobalt's functions are unknown selectors (their four bytes), a composite type
      // fails Beryl's type check (the selector, then alloy's text), the admin is configuration only.
      const composite = policyCall('createCompositePolicy', [who(0), UNION, [2n, 3n]])
      expect(await revertData(n, who(0), POLICY_REGISTRY_ADDRESS, composite)).toBe('0x6fdd1491')
      const unionAtBeryl = policyCall('createPolicy', [who(0), UNION])
      expect(await revertData(n, who(0), POLICY_REGISTRY_ADDRESS, unionAtBeryl)).toBe(
        concat([
          unionAtBeryl.slice(0, 10) as Hex,
          toHex(`type check failed for "(address,uint8)" with data: ${unionAtBeryl.slice(10)}`),
        ]),
      )
      expect(await revertData(n, DEV_ADMIN, ACTIVATION_REGISTRY_ADDRESS, activationCall('setAdmin', [who(6)]))).toBe('0x704b6c02')
      expect(await registry('admin')).toBe(DEV_ADMIN)
      const a = createdId((await sendMined(n, 0, POLICY_REGISTRY_ADDRESS, policyCall('createPolicy', [who(0), ALLOWLIST]))).logs)
      const b = createdId((await sendMined(n, 0, POLICY_REGISTRY_ADDRESS, policyCall('createPolicy', [who(0), BLOCKLIST]))).logs)
      expect([a, b]).toEqual([(1n << 56n) | 2n, 3n])

      // Cobalt's first block on: composites and the stored admin.
      await mineAt(n, cobalt)
      const made = await sendMined(n, 0, POLICY_REGISTRY_ADDRESS, policyCall('createCompositePolicy', [who(0), UNION, [a, b]]))
      expect(made.status).toBe('success')
      expect(createdId(made.logs)).toBe((2n << 56n) | 4n)
      expect(await revertData(n, who(0), POLICY_REGISTRY_ADDRESS, policyCall('createPolicy', [who(0), UNION]))).toBe(
        policyError('IncompatiblePolicyType'),
      )
      const handed = await sendMined(n, 5, ACTIVATION_REGISTRY_ADDRESS, activationCall('setAdmin', [who(6)]))
      expect(handed.status).toBe('success')
      expect(await registry('admin')).toBe(who(6))
      // EIP-8130's precompiles answer from Cobalt (before it the address is an empty account).
      expect(await txContext(n, who(2), 'getTransactionSender', toHex(first.number))).toBe('0x')
      expect(await txContext(n, who(2), 'getTransactionSender')).toBe(pad(who(2).toLowerCase() as Hex))
      // Reads at a block before Cobalt still run Beryl's logic.
      const before = await n.rpc('eth_call', [
        { from: who(0), to: POLICY_REGISTRY_ADDRESS, data: policyCall('compositePolicyChildIds', [(2n << 56n) | 4n]) },
        toHex(first.number),
      ])
      expect(before.error?.data).toBe('0x7c40df74')
    } finally {
      await n.stop()
    }
  }, 120_000)
})

describe('profile flashblocks holds Beryl and Cobalt from genesis by default', () => {
  const node = useTestNode({ profile: 'flashblocks' })
  it('has the markers and features at genesis and Cobalt’s surface', async () => {
    expect((await node.rpc('eth_getCode', [ACTIVATION_REGISTRY_ADDRESS, '0x0'])).result).toBe('0xef')
    const max = await node.publicClient.readContract({
      address: POLICY_REGISTRY_ADDRESS,
      abi: policyRegistryAbi,
      functionName: 'MAX_COMPOSITE_CHILD_POLICIES',
    })
    expect(max).toBe(4n)
    // Before Denim, bit 63 is no NOT: an inverted id names no policy.
    const exists = await node.publicClient.readContract({
      address: POLICY_REGISTRY_ADDRESS,
      abi: policyRegistryAbi,
      functionName: 'policyExists',
      args: [1n << 63n],
    })
    expect(exists).toBe(false)
  })
})
