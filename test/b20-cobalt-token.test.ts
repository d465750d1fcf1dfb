// The B20 token across Base's upgrades: Cobalt's ERC-8056 scheduled multiplier on an Asset (base/base
// b20_asset abi/v2.rs, logic/v2.rs) with its events, errors and packed storage word, seize on both
// variants (base-std's seize changelog: SEIZE_ROLE, the inverted exempt policy, Seized), and the token
// logic chosen by the block's timestamp — Beryl's before Cobalt (no scheduled-multiplier selectors,
// MultiplierUpdated, credits to a B20 address allowed) and Cobalt's after it.
import { type Address, decodeEventLog, encodeErrorResult, encodeFunctionData, type Hex, keccak256, pad, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { B20_FACTORY_ADDRESS, b20Abi, b20FactoryAbi, POLICY_REGISTRY_ADDRESS, policyRegistryAbi } from '../src/index.js'
import {
  ASSET,
  assetParams,
  B20_ROOT,
  b20Actions,
  MINT_ROLE,
  revertData,
  STABLECOIN,
  salt,
  stablecoinParams,
} from './b20-helpers.js'
import { poll, startTestNode, type TestNode, testClient, useTestNode, waitForSealed } from './helpers.js'

const ASSET_ROOT = 0xfdc6d4552d1286ade4d9facdbf0fb50d2ec9b89a90e104f26fd277585e374b00n
const OPERATOR_ROLE = keccak256(toHex('OPERATOR_ROLE'))
const WAD = 10n ** 18n
const call = (name: string, args: unknown[] = []) =>
  encodeFunctionData({ abi: b20Abi, functionName: name as never, args: args as never })
const error = (errorName: string, args: unknown[] = []) =>
  encodeErrorResult({ abi: b20Abi, errorName: errorName as never, args: args as never })
const events = (logs: { data: Hex; topics: [Hex, ...Hex[]] | [] }[]) => logs.map((l) => decodeEventLog({ abi: b20Abi, ...l }))

describe('Cobalt: the scheduled multiplier (profile base)', () => {
  const node = useTestNode({ profile: 'base' })
  const { send, createToken } = b20Actions(node)

  it('schedules, matures and cancels multiplier updates as ERC-8056 on Base', async () => {
    const a = node.accounts[0].address as Address
    const { token } = await createToken(0, ASSET, assetParams('Scaled', 'SCL', a, 18), 31, [
      call('grantRole', [OPERATOR_ROLE, a]),
      call('grantRole', [MINT_ROLE, a]),
      call('mint', [a, 1000n]),
    ])
    const read = (name: string, args: unknown[] = []) =>
      node.publicClient.readContract({ address: token, abi: b20Abi, functionName: name as never, args: args as never })
    const pendingWord = () =>
      node.rpc('eth_getStorageAt', [token, toHex(ASSET_ROOT + 4n, { size: 32 }), 'latest']).then((r) => BigInt(r.result))
    const now = (await node.publicClient.getBlock()).timestamp
    expect(await read('uiMultiplier')).toBe(WAD)
    expect(await read('newUIMultiplier')).toBe(WAD)
    expect(await read('effectiveAt')).toBe(0n)
    for (const id of ['0xa60bf13d', '0x4bd27648', '0xd890fd71']) expect(await read('supportsInterface', [id])).toBe(true)
    expect(await read('supportsInterface', ['0x01ffc9a7'])).toBe(false)

    // Errors in Base's order: range, then time.
    expect(await revertData(node, a, token, call('setUIMultiplier', [0n, now + 1000n]))).toBe(error('InvalidMultiplier'))
    expect(await revertData(node, a, token, call('setUIMultiplier', [2n ** 128n, now + 1000n]))).toBe(error('InvalidMultiplier'))
    expect(await revertData(node, a, token, call('setUIMultiplier', [2n * WAD, 1n]))).toBe(error('EffectiveAtInPast', [1n]))
    expect(await revertData(node, a, token, call('setUIMultiplier', [2n * WAD, 2n ** 64n]))).toBe(
      error('EffectiveAtTooFar', [2n ** 64n]),
    )
    expect(await revertData(node, a, token, call('cancelScheduledMultiplier'))).toBe(error('NoScheduledMultiplier'))

    // A schedule an hour ahead: the pending word packs uint128 multiplier | uint64 time << 128.
    const at = now + 3600n
    const scheduled = await send(0, token, call('setUIMultiplier', [2n * WAD, at]))
    expect(events(scheduled.logs)).toEqual([
      { eventName: 'UIMultiplierUpdated', args: { oldMultiplier: WAD, newMultiplier: 2n * WAD, effectiveAtTimestamp: at } },
    ])
    expect(await pendingWord()).toBe(2n * WAD + (at << 128n))
    expect(await read('multiplier')).toBe(WAD)
    expect(await read('newUIMultiplier')).toBe(2n * WAD)
    expect(await read('effectiveAt')).toBe(at)
    expect(await revertData(node, a, token, call('setUIMultiplier', [3n * WAD, at + 1n]))).toBe(error('ScheduleOverlap', [at]))
    // At its time it is the multiplier, lazily (no write).
    const later = await node.rpc('eth_call', [{ to: token, data: call('balanceOfUI', [a]) }, 'latest', null, { time: toHex(at) }])
    expect(later.error ?? BigInt(later.result)).toBe(2000n)

    const cancelled = await send(0, token, call('cancelScheduledMultiplier'))
    expect(events(cancelled.logs)).toEqual([
      { eventName: 'MultiplierUpdateCancelled', args: { cancelledMultiplier: 2n * WAD, cancelledEffectiveAt: at } },
    ])
    expect(await pendingWord()).toBe(0n)

    // updateMultiplier, the instant failsafe: clears a live schedule (cancelled event first).
    await send(0, token, call('setUIMultiplier', [5n * WAD, at]))
    const instant = await send(0, token, call('updateMultiplier', [3n * WAD]))
    const block = await node.publicClient.getBlock({ blockNumber: instant.blockNumber })
    expect(events(instant.logs)).toEqual([
      { eventName: 'MultiplierUpdateCancelled', args: { cancelledMultiplier: 5n * WAD, cancelledEffectiveAt: at } },
      {
        eventName: 'UIMultiplierUpdated',
        args: { oldMultiplier: WAD, newMultiplier: 3n * WAD, effectiveAtTimestamp: block.timestamp },
      },
    ])
    expect(await pendingWord()).toBe(0n)
    expect(await read('totalSupplyUI')).toBe(3000n)
    expect(await read('balanceOfUI', [a])).toBe(3000n)
  })
})

describe('Cobalt: seize (profile base)', () => {
  const node = useTestNode({ profile: 'base' })
  const { send, createToken } = b20Actions(node)

  it('moves a seizable holder’s balance to a receiver: policies, pause, role, events, slot 14', async () => {
    const [a, b, c, d] = [0, 1, 2, 3].map((i) => node.accounts[i].address as Address)
    const SEIZE_ROLE = keccak256(toHex('SEIZE_ROLE'))
    const SEIZE_EXEMPT_POLICY = keccak256(toHex('SEIZE_EXEMPT_POLICY'))
    const PAUSE_ROLE = keccak256(toHex('PAUSE_ROLE'))
    const { token } = await createToken(0, STABLECOIN, stablecoinParams('Seize USD', 'SZD', a, 'USD'), 32, [
      call('grantRole', [SEIZE_ROLE, a]),
      call('grantRole', [MINT_ROLE, a]),
      call('grantRole', [PAUSE_ROLE, a]),
      call('mint', [b, 100n]),
    ])
    const read = (name: string, args: unknown[] = []) =>
      node.publicClient.readContract({ address: token, abi: b20Abi, functionName: name as never, args: args as never })
    expect(await read('SEIZE_ROLE')).toBe(SEIZE_ROLE)
    expect(await read('SEIZE_EXEMPT_POLICY')).toBe(SEIZE_EXEMPT_POLICY)
    const memo = pad('0x5e12e')
    const seize = (from: Address, to: Address, amount: bigint) => call('seizeWithMemo', [from, to, amount, memo])
    // No exempt policy set: it authorizes everyone, so nobody is seizable.
    expect(await revertData(node, a, token, seize(b, c, 1n))).toBe(error('AccountNotSeizable', [b]))
    // A blocklist holding b as the exempt policy: b is not authorized by it, so b is seizable.
    const created = await node.publicClient.simulateContract({
      account: a,
      address: POLICY_REGISTRY_ADDRESS,
      abi: policyRegistryAbi,
      functionName: 'createPolicyWithAccounts',
      args: [a, 0, [b]],
    })
    await send(
      0,
      POLICY_REGISTRY_ADDRESS,
      encodeFunctionData({ abi: policyRegistryAbi, functionName: 'createPolicyWithAccounts', args: [a, 0, [b]] }),
    )
    await send(0, token, call('updatePolicy', [SEIZE_EXEMPT_POLICY, created.result]))
    expect(await read('policyId', [SEIZE_EXEMPT_POLICY])).toBe(created.result)
    const slot14 = await node.rpc('eth_getStorageAt', [token, toHex(B20_ROOT + 14n, { size: 32 }), 'latest'])
    expect(BigInt(slot14.result)).toBe(created.result)

    const seized = await send(0, token, seize(b, c, 40n))
    expect(events(seized.logs)).toEqual([
      { eventName: 'Transfer', args: { from: b, to: c, amount: 40n } },
      { eventName: 'Memo', args: { caller: a, memo } },
      { eventName: 'Seized', args: { caller: a, from: b, to: c, amount: 40n } },
    ])
    expect([await read('balanceOf', [b]), await read('balanceOf', [c]), await read('totalSupply')]).toEqual([60n, 40n, 100n])
    // c is authorized by the blocklist: exempt.
    expect(await revertData(node, a, token, seize(c, b, 1n))).toBe(error('AccountNotSeizable', [c]))
    expect(await revertData(node, a, token, seize(b, b, 1n))).toBe(error('InvalidReceiver', [b]))
    expect(await revertData(node, a, token, seize(b, c, 61n))).toBe(error('InsufficientBalance', [b, 60n, 61n]))
    expect(await revertData(node, d, token, seize(b, c, 1n))).toBe(error('AccessControlUnauthorizedAccount', [d, SEIZE_ROLE]))
    // SEIZE pauses seizing alone.
    await send(0, token, call('pause', [[3]]))
    expect(await read('pausedFeatures')).toEqual([3])
    expect(await revertData(node, a, token, seize(b, c, 1n))).toBe(error('ContractPaused', [3]))
    expect((await send(1, token, call('transfer', [d, 1n]))).status).toBe('success')
  })
})

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

describe('the token logic of the block’s upgrade (profile flashblocks, Cobalt after genesis)', () => {
  it('runs Beryl’s token before Cobalt and Cobalt’s from its time', async () => {
    const cobalt = BigInt(Math.floor(Date.now() / 1000)) + 3600n
    const n = await startTestNode({ profile: 'flashblocks', mining: false, berylTime: 0n, cobaltTime: cobalt })
    try {
      const a = n.accounts[0].address as Address
      const params = assetParams('Early', 'ERL', a, 6)
      const create = encodeFunctionData({
        abi: b20FactoryAbi,
        functionName: 'createB20',
        args: [
          ASSET,
          salt(1),
          params,
          [call('grantRole', [OPERATOR_ROLE, a]), call('grantRole', [MINT_ROLE, a]), call('mint', [a, 100n])],
        ],
      })
      expect((await sendMined(n, 0, B20_FACTORY_ADDRESS, create)).status).toBe('success')
      const token = (await n.publicClient.readContract({
        address: B20_FACTORY_ADDRESS,
        abi: b20FactoryAbi,
        functionName: 'getB20Address',
        args: [ASSET, a, salt(1)],
      })) as Address
      // Beryl: the Cobalt selectors are unknown, updateMultiplier emits MultiplierUpdated.
      const ui = call('uiMultiplier')
      expect(await revertData(n, a, token, ui)).toBe(ui)
      const seize = call('seizeWithMemo', [a, n.accounts[1].address, 1n, pad('0x01')])
      expect(await revertData(n, a, token, seize)).toBe(seize.slice(0, 10))
      const beryl = await sendMined(n, 0, token, call('updateMultiplier', [2n * WAD]))
      expect(events(beryl.logs)).toEqual([{ eventName: 'MultiplierUpdated', args: { multiplier: 2n * WAD } }])
      // Before Denim a credit to another B20 address is allowed.
      const toToken = await sendMined(n, 0, token, call('transfer', [token, 1n]))
      expect(toToken.status).toBe('success')

      await mineAt(n, cobalt)
      expect(await n.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'uiMultiplier' })).toBe(2n * WAD)
      const cobaltUpdate = await sendMined(n, 0, token, call('updateMultiplier', [4n * WAD]))
      expect(events(cobaltUpdate.logs).map((e) => e.eventName)).toEqual(['UIMultiplierUpdated'])
      expect(await revertData(n, a, token, call('setUIMultiplier', [WAD, 1n]))).toBe(error('EffectiveAtInPast', [1n]))
    } finally {
      await n.stop()
    }
  })
})
