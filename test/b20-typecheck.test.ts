// Base's validating decoder at the B20 precompiles' entry (base/base decode_precompile_call and the
// versions' abi_decode_validate, alloy-sol-types' type_check): arguments that fit the calldata but
// are not canonical — an address or uintN word with high bits, a bool's high bytes, an enum past its
// members at the block's upgrade, a string that is not UTF-8, an offset past a usize — revert with the
// selector then alloy's text, for tokens, the factory and both registries; a bool of 2 reads as true,
// as alloy's check lets it through. And EIP-8130's TxContext
// and NonceManager, warm from a transaction's start from Cobalt on (revm's static precompile map).
import { type Address, concat, encodeFunctionData, type Hex, pad, toFunctionSelector, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  ACTIVATION_REGISTRY_ADDRESS,
  activationRegistryAbi,
  B20_FACTORY_ADDRESS,
  b20Abi,
  NONCE_MANAGER_ADDRESS,
  POLICY_REGISTRY_ADDRESS,
  policyRegistryAbi,
  TX_CONTEXT_ADDRESS,
} from '../src/index.js'
import { ASSET, assetParams, b20Actions, revertData, salt } from './b20-helpers.js'
import { startTestNode, type TestNode, testClient, useTestNode, waitForSealed } from './helpers.js'

/** The selector of `data`, then alloy's text: Base's AbiDecodeFailed. */
const failed = (data: Hex, text: string) => concat([data.slice(0, 10) as Hex, toHex(text)])
const typeCheck = (data: Hex, types: string, encoded: string) =>
  failed(data, `type check failed for "(${types})" with data: ${encoded}`)
const word = (n: number | bigint) => pad(toHex(n)).slice(2)
/** An address word with a non-zero high byte. */
const dirty = (address: Address) => `01${'00'.repeat(11)}${address.slice(2).toLowerCase()}`
const selector = (signature: string) => toFunctionSelector(signature).slice(2)
const policyCall = (functionName: string, args: readonly unknown[]) =>
  encodeFunctionData({ abi: policyRegistryAbi, functionName, args } as never)

describe('B20 calldata through Base’s validating decoder (profile base)', () => {
  const node = useTestNode({ profile: 'base' })
  const who = (i: number) => node.accounts[i].address as Address

  it('refuses a token’s non-canonical arguments with the selector and alloy’s type-check text', async () => {
    const { token } = await b20Actions(node).createToken(0, ASSET, assetParams('T', 'T', who(0), 6), 1)
    const a = who(0)
    // A dirty address: the one-element tuple and its word as sent.
    const balanceOf = `0x${selector('balanceOf(address)')}${dirty(a)}` as Hex
    expect(await revertData(node, a, token, balanceOf)).toBe(typeCheck(balanceOf, 'address', dirty(a)))
    // The whole argument tuple is named and quoted, the valid words included.
    const transfer = `0x${selector('transfer(address,uint256)')}${dirty(who(1))}${word(5)}` as Hex
    expect(await revertData(node, a, token, transfer)).toBe(typeCheck(transfer, 'address,uint256', dirty(who(1)) + word(5)))
    // The canonical call still answers (the check refuses only what alloy refuses).
    const clean = encodeFunctionData({ abi: b20Abi, functionName: 'balanceOf', args: [a] })
    expect((await node.rpc('eth_call', [{ from: a, to: token, data: clean }, 'latest'])).result).toBe(pad('0x00'))
    // An enum past its members (PausableFeature has four from Cobalt): the uint8 it is on the wire.
    const isPaused = `0x${selector('isPaused(uint8)')}${word(4)}` as Hex
    expect(await revertData(node, a, token, isPaused)).toBe(typeCheck(isPaused, 'uint8', word(4)))
    const seize = `0x${selector('isPaused(uint8)')}${word(3)}` as Hex
    expect((await node.rpc('eth_call', [{ from: a, to: token, data: seize }, 'latest'])).result).toBe(pad('0x00'))
    // A dynamic argument: alloy re-encodes the tuple canonically (an offset first), whatever offset was sent.
    const pause = `0x${selector('pause(uint8[])')}${word(0x40)}${word(0xdead)}${word(2)}${word(1)}${word(7)}` as Hex
    expect(await revertData(node, a, token, pause)).toBe(
      typeCheck(pause, 'uint8[]', word(32) + word(32) + word(2) + word(1) + word(7)),
    )
    // A string that is not UTF-8.
    const updateName = `0x${selector('updateName(string)')}${word(32)}${word(1)}ff${'00'.repeat(31)}` as Hex
    expect(await revertData(node, a, token, updateName)).toBe(
      typeCheck(updateName, 'string', word(32) + word(32) + word(1) + `ff${'00'.repeat(31)}`),
    )
    // An offset beyond a usize: alloy's decoder names it, before any type check.
    const hugeOffset = `ff${word(32).slice(2)}`
    const badOffset = `0x${selector('pause(uint8[])')}${hugeOffset}` as Hex
    expect(await revertData(node, a, token, badOffset)).toBe(
      failed(badOffset, `type check failed for "offset (usize)" with data: ${hugeOffset}`),
    )
    // A uint8 with bits above 8 (permit's v).
    const permit = encodeFunctionData({
      abi: b20Abi,
      functionName: 'permit',
      args: [a, who(1), 1n, 2n ** 40n, 27, pad('0x01'), pad('0x02')],
    })
    const args = permit.slice(10)
    const dirtyV = `${args.slice(0, 64 * 4)}${word(0x11b)}${args.slice(64 * 5)}`
    const permitDirty = `${permit.slice(0, 10)}${dirtyV}` as Hex
    expect(await revertData(node, a, token, permitDirty)).toBe(
      typeCheck(permitDirty, 'address,address,uint256,uint256,uint8,bytes32,bytes32', dirtyV),
    )
  })

  it('refuses the factory’s and the registries’ non-canonical arguments', async () => {
    const a = who(0)
    const aWord = a.slice(2).toLowerCase().padStart(64, '0')
    // The factory's variant is Base's two-member enum.
    const getAddress = `0x${selector('getB20Address(uint8,address,bytes32)')}${word(2)}${aWord}${salt(1).slice(2)}` as Hex
    expect(await revertData(node, a, B20_FACTORY_ADDRESS, getAddress)).toBe(
      typeCheck(getAddress, 'uint8,address,bytes32', getAddress.slice(10)),
    )
    const isB20 = `0x${selector('isB20(address)')}${dirty(a)}` as Hex
    expect(await revertData(node, a, B20_FACTORY_ADDRESS, isB20)).toBe(typeCheck(isB20, 'address', dirty(a)))
    // PolicyRegistry: a uint64 with high bits (base/base's own dirty-padding test), a policy type past INTERSECT.
    const exists = `0x${selector('policyExists(uint64)')}ff${word(1).slice(2)}` as Hex
    expect(await revertData(node, a, POLICY_REGISTRY_ADDRESS, exists)).toBe(typeCheck(exists, 'uint64', exists.slice(10)))
    const create = `0x${selector('createPolicy(address,uint8)')}${aWord}${word(4)}` as Hex
    expect(await revertData(node, a, POLICY_REGISTRY_ADDRESS, create)).toBe(typeCheck(create, 'address,uint8', create.slice(10)))
    // A bool's high bytes (alloy reads only them), in a call with a dynamic list.
    const list = encodeFunctionData({ abi: policyRegistryAbi, functionName: 'updateAllowlist', args: [2n, true, [a]] })
    const badBool = `${list.slice(0, 10 + 64)}${'01'}${list.slice(10 + 64 + 2)}` as Hex
    expect(await revertData(node, a, POLICY_REGISTRY_ADDRESS, badBool)).toBe(
      typeCheck(badBool, 'uint64,bool,address[]', word(32) + badBool.slice(10)),
    )
    // A bool of 2 passes alloy's check and reads as true, as on Base (Solidity alone would refuse it).
    const created = await b20Actions(node).send(0, POLICY_REGISTRY_ADDRESS, policyCall('createPolicy', [a, 1]))
    const id = BigInt(created.logs[0].topics[1] as Hex)
    const allow = encodeFunctionData({ abi: policyRegistryAbi, functionName: 'updateAllowlist', args: [id, true, [who(1)]] })
    const two = `${allow.slice(0, 10 + 64)}${word(2)}${allow.slice(10 + 128)}` as Hex
    expect((await b20Actions(node).send(0, POLICY_REGISTRY_ADDRESS, two)).status).toBe('success')
    const authorized = policyCall('isAuthorized', [id, who(1)])
    expect((await node.rpc('eth_call', [{ to: POLICY_REGISTRY_ADDRESS, data: authorized }, 'latest'])).result).toBe(pad('0x01'))
    // A known selector alone: the decoder overruns (Cobalt's registry has argument-less calls).
    const bare = encodeFunctionData({ abi: policyRegistryAbi, functionName: 'policyExists', args: [1n] }).slice(0, 10) as Hex
    expect(await revertData(node, a, POLICY_REGISTRY_ADDRESS, bare)).toBe(
      failed(bare, 'ABI decoding failed: buffer overrun while deserializing'),
    )
    const activate = encodeFunctionData({ abi: activationRegistryAbi, functionName: 'isActivated', args: [pad('0x01')] })
    const cut = activate.slice(0, 10 + 32) as Hex
    expect(await revertData(node, a, ACTIVATION_REGISTRY_ADDRESS, cut)).toBe(
      failed(cut, 'ABI decoding failed: buffer overrun while deserializing'),
    )
  })

  it('warms TxContext and NonceManager from a transaction’s start at Cobalt: a first CALL costs 100', async () => {
    const costs = await accessCosts(node, 'latest')
    expect(costs.first).toBe(costs.again)
    expect(costs.nonceManager).toBe(costs.again)
    expect(costs.cold - costs.first).toBe(2_500)
    // A transaction: the probe that calls TxContext costs 2,500 less than the same probe calling a cold account.
    const used = async (target: Address) => {
      const deployed = await deploy(node, probeInit(target))
      const hash = await node.wallet(0).sendTransaction({ to: deployed, gas: 200_000n })
      return (await waitForSealed(node, hash)).gasUsed
    }
    expect((await used(COLD)) - (await used(TX_CONTEXT_ADDRESS))).toBe(2_500n)
  })
})

describe('before Cobalt (profile flashblocks, Cobalt after genesis)', () => {
  it('checks Beryl’s enums and keeps TxContext cold until Cobalt’s first block', async () => {
    const now = BigInt(Math.floor(Date.now() / 1000))
    const cobalt = now + 7200n
    const n = await startTestNode({ profile: 'flashblocks', cobaltTime: cobalt })
    try {
      const a = n.accounts[0].address as Address
      expect((await n.rpc('eth_getCode', [ACTIVATION_REGISTRY_ADDRESS, 'latest'])).result).toBe('0xef')
      // Beryl's PausableFeature has three members: SEIZE (3) fails the type check.
      const { token } = await b20Actions(n).createToken(0, ASSET, assetParams('B', 'B', a, 6), 1)
      const pause = encodeFunctionData({ abi: b20Abi, functionName: 'pause', args: [[3]] })
      expect(await revertData(n, a, token, pause)).toBe(typeCheck(pause, 'uint8[]', word(32) + pause.slice(10)))
      // TxContext is an empty, cold account: the first call costs 2,500 more than the second.
      const before = await accessCosts(n, 'latest')
      expect(before.first - before.again).toBe(2_500)
      expect(before.cold).toBe(before.first)
      // From Cobalt's first block it is warm.
      await n.rpc('evm_setNextBlockTimestamp', [toHex(cobalt)])
      await testClient(n).mine({ blocks: 1 })
      const latest = await n.publicClient.getBlock({ blockTag: 'latest' })
      expect(latest.timestamp).toBe(cobalt)
      const after = await accessCosts(n, toHex(latest.number))
      expect(after.first).toBe(after.again)
    } finally {
      await n.stop()
    }
  }, 120_000)
})

/** An account nobody touches: a cold access. */
const COLD = '0x00000000000000000000000000000000000c01d0' as Address

/**
 * Runtime code measuring one STATICCALL (0 gas forwarded, so only the access is paid) to `target`:
 * GAS, the call's five pushes and PUSH20, STATICCALL, POP, GAS, then the difference at memory `slot`.
 */
const measure = (target: Address, slot: number) =>
  `5a600060006000600073${target.slice(2)}6000fa505a900360${slot.toString(16).padStart(2, '0')}52`
const probeRuntime = (targets: readonly Address[]) =>
  `${targets.map((t, i) => measure(t, 32 * i)).join('')}60${(32 * targets.length).toString(16).padStart(2, '0')}6000f3`
/** Init code returning `probeRuntime([target])` (CODECOPY of the tail). */
function probeInit(target: Address): Hex {
  const runtime = probeRuntime([target])
  const size = runtime.length / 2
  return `0x61${size.toString(16).padStart(4, '0')}80600c6000396000f3${runtime}` as Hex
}

/** Access costs measured in one eth_call (state override): TxContext twice, NonceManager, a cold account. */
async function accessCosts(n: TestNode, block: string) {
  const probe = '0x00000000000000000000000000000000000b2c70'
  const code = `0x${probeRuntime([TX_CONTEXT_ADDRESS, TX_CONTEXT_ADDRESS, NONCE_MANAGER_ADDRESS, COLD])}`
  const answer = await n.rpc('eth_call', [{ from: n.accounts[0].address, to: probe }, block, { [probe]: { code } }])
  expect(answer.error).toBeUndefined()
  const [first, again, nonceManager, cold] = [0, 1, 2, 3].map((i) => Number(`0x${answer.result.slice(2 + 64 * i, 66 + 64 * i)}`))
  return { first, again, nonceManager, cold }
}

async function deploy(n: TestNode, data: Hex): Promise<Address> {
  const hash = await n.wallet(0).sendTransaction({ data, gas: 300_000n })
  const receipt = await waitForSealed(n, hash)
  expect(receipt.status).toBe('success')
  return receipt.contractAddress as Address
}
