// Denim chains (--profile base) under the dev methods and at their edges: automine after a halt and
// resume of flashblocks, evm_increaseTime undone by evm_revert, evm_setNextBlockTimestamp winning
// over a pending evm_increaseTime, a chain made before Denim continued under --profile base (its
// next block is the first Denim block), and deposits from the system depositor refused.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { toHex } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { poll, startTestNode, type TestNode, testClient } from './helpers.js'

const msOf = (block: any) => BigInt(block.timestampMs)
const latest = async (n: TestNode) => (await n.rpc('eth_getBlockByNumber', ['latest', true])).result
const wallSeconds = () => BigInt(Math.floor(Date.now() / 1000))

describe('Denim under the dev methods', () => {
  it('mines a transaction at once under automine after flashblocks are halted and resumed', async () => {
    const n = await startTestNode({ profile: 'base', blockTime: 0 })
    try {
      expect((await n.rpc('pcnode_haltFlashblocks')).result).toBe(true)
      expect((await n.rpc('pcnode_resumeFlashblocks')).result).toBe(true)
      const from = n.accounts[0].address
      const hash = (await n.rpc('eth_sendTransaction', [{ from, to: from, value: '0x1' }])).result
      const receipt = await poll(() => n.rpc('eth_getTransactionReceipt', [hash]).then((r) => r.result ?? undefined), undefined, {
        what: 'the receipt',
      })
      expect(receipt.status).toBe('0x1')
      // Still no stream to restart: nothing opened a block early.
      expect((await n.rpc('pcnode_restartFlashblocks')).error.code).toBe(-32000)
    } finally {
      await n.stop()
    }
  })

  it('undoes evm_increaseTime with evm_revert, and lets evm_setNextBlockTimestamp win over it', async () => {
    const n = await startTestNode({ profile: 'base', mining: false })
    try {
      const test = testClient(n)
      await test.mine({ blocks: 1 })
      const id = await test.snapshot()
      await test.increaseTime({ seconds: 1000 })
      await test.revert({ id })
      await test.mine({ blocks: 1 })
      expect(BigInt((await latest(n)).timestamp)).toBeLessThan(wallSeconds() + 100n)

      await test.increaseTime({ seconds: 100 })
      const target = wallSeconds() + 10n
      await test.setNextBlockTimestamp({ timestamp: target })
      await test.mine({ blocks: 1 })
      expect(msOf(await latest(n))).toBe(target * 1000n)
    } finally {
      await n.stop()
    }
  })
})

describe('eth_simulateV1 across Denim', () => {
  it('steps 2 s before the activation, then five blocks a second from the first Denim block', async () => {
    const activation = wallSeconds() + 3600n
    const n = await startTestNode({ profile: 'base', mining: false, denimTime: activation })
    try {
      await n.rpc('evm_setNextBlockTimestamp', [toHex(activation - 5n)])
      await testClient(n).mine({ blocks: 1 })
      const base = await latest(n)
      const { result } = await n.rpc('eth_simulateV1', [{ blockStateCalls: Array.from({ length: 10 }, () => ({})) }, base.number])
      const times = result.map((b: any) => BigInt(b.timestamp) - activation)
      // -5 (base) → -3, -1, then 1 (the first at or past Denim), four more in that second, then the next.
      expect(times).toEqual([-3n, -1n, 1n, 1n, 1n, 1n, 1n, 2n, 2n, 2n])
    } finally {
      await n.stop()
    }
  })
})

describe('a chain made before Denim, continued under --profile base', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pcnode-denim-state-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('makes its next block the first Denim block: on a whole second, gas limit ÷10, denominator ×10', async () => {
    const stateFile = join(dir, 'state.json')
    const before = await startTestNode({ profile: 'flashblocks', mining: false, stateFile })
    await testClient(before).mine({ blocks: 2 })
    const old = await latest(before)
    await before.stop()
    const n = await startTestNode({ profile: 'base', mining: false, stateFile })
    try {
      await testClient(n).mine({ blocks: 2 })
      const first = (await n.rpc('eth_getBlockByNumber', [toHex(BigInt(old.number) + 1n), true])).result
      expect(msOf(first) % 1000n).toBe(0n)
      expect(BigInt(first.gasLimit)).toBe(BigInt(old.gasLimit) / 10n)
      expect(BigInt(`0x${first.extraData.slice(4, 12)}`)).toBe(BigInt(`0x${old.extraData.slice(4, 12)}`) * 10n)
      expect(first.transactions[1].to).toBe('0x4200000000000000000000000000000000000030')
      const next = await latest(n)
      expect(msOf(next) - msOf(first)).toBe(200n)
    } finally {
      await n.stop()
    }
  })
})

describe('deposits from the system depositor', () => {
  it("are refused: the L1-info and BaseTime deposits are the node's own", async () => {
    const n = await startTestNode({ profile: 'base' })
    try {
      const { serializeTransaction } = await import('viem/op-stack')
      const raw = serializeTransaction({
        type: 'deposit',
        sourceHash: `0x${'11'.repeat(32)}`,
        from: '0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001',
        to: '0x4200000000000000000000000000000000000030',
        mint: 0n,
        value: 0n,
        gas: 100_000n,
        isSystemTx: false,
        data: `0x86bdf394${toHex(600, { size: 32 }).slice(2)}`,
      })
      const { error } = await n.rpc('eth_sendRawTransaction', [raw])
      expect(error).toEqual({
        code: -32000,
        message: "deposits from the system depositor 0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001 are the node's own",
      })
    } finally {
      await n.stop()
    }
  })
})
