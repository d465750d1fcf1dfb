// Denim blocks under --profile base (base/docs upgrades/denim; base/base l2_block_timestamp_millis,
// base_time.rs): 200 ms apart on the schedule, five to a second, each opening with the L1-info and
// BaseTime deposits exactly as Base builds them; the BaseTime predeploy answering each block's time;
// the dev time methods keeping the schedule's invariants; a chain crossing Denim at its activation.
import { concat, type Hex, keccak256, toHex } from 'viem'
import { serializeTransaction } from 'viem/op-stack'
import { describe, expect, it } from 'vitest'
import { poll, startTestNode, testClient, useTestNode } from './helpers.js'

const BASE_TIME = '0x4200000000000000000000000000000000000030'
const L1_BLOCK = '0x4200000000000000000000000000000000000015'
const DEPOSITOR = '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001'
const PART = '0x7b2fea99' // timestampMillisPart()
const MS = '0x5745a677' // timestampMs()

const msOf = (block: any) => BigInt(block.timestampMs)

/** The block `n` with its transactions. */
async function block(node: { rpc: (m: string, p?: unknown[]) => Promise<any> }, n: bigint | string) {
  const tag = typeof n === 'bigint' ? toHex(n) : n
  return (await node.rpc('eth_getBlockByNumber', [tag, true])).result
}

describe('Denim blocks (profile base)', () => {
  const node = useTestNode({ profile: 'base' })

  it('come 200 ms apart on the schedule, the header holding the whole second', async () => {
    const head = await poll(
      () => node.publicClient.getBlockNumber(),
      (n) => n >= 8n,
      { what: 'eight blocks' },
    )
    const blocks = await Promise.all([...Array(8).keys()].map((i) => block(node, head - 7n + BigInt(i))))
    for (const [i, b] of blocks.entries()) {
      expect(BigInt(b.timestamp)).toBe(msOf(b) / 1000n)
      expect(msOf(b) % 200n).toBe(0n)
      if (i > 0) expect(msOf(b) - msOf(blocks[i - 1])).toBe(200n)
    }
    const genesis = await block(node, 0n)
    expect(genesis.transactions).toEqual([])
    expect('timestampMs' in genesis).toBe(false)
    // Denim from genesis: block n is at genesis time + n·200 ms (base/base's formula, activation block 0).
    expect(msOf(await block(node, 1n))).toBe(BigInt(genesis.timestamp) * 1000n + 200n)
  })

  it("open with the L1-info deposit and the BaseTime deposit as Base's node builds them", async () => {
    const number = await poll(
      () => node.publicClient.getBlockNumber(),
      (n) => n >= 2n,
    )
    const b = await block(node, number)
    const [l1Info, baseTime] = b.transactions
    expect(l1Info).toMatchObject({ type: '0x7e', from: DEPOSITOR, to: L1_BLOCK, gas: '0xf4240', mint: '0x0', value: '0x0' })
    const millis = Number(msOf(b) % 1000n)
    expect(baseTime).toMatchObject({
      type: '0x7e',
      from: DEPOSITOR,
      to: BASE_TIME,
      gas: '0xf4240',
      mint: '0x0',
      value: '0x0',
      input: concat(['0x86bdf394', toHex(millis, { size: 32 })]),
      blockTimestampMs: b.timestampMs,
    })
    expect(baseTime.isSystemTx).toBeUndefined()
    // Source domain 3 over the block number (base/base BaseTimeDepositSource).
    const sourceHash = keccak256(concat([toHex(3, { size: 32 }), keccak256(toHex(BigInt(b.number), { size: 32 }))]))
    expect(baseTime.sourceHash).toBe(sourceHash)
    // Its hash is that of the deposit's encoding: every field, the calldata included.
    const raw = serializeTransaction({
      type: 'deposit',
      sourceHash,
      from: DEPOSITOR,
      to: BASE_TIME,
      mint: 0n,
      value: 0n,
      gas: 1_000_000n,
      isSystemTx: false,
      data: baseTime.input,
    })
    expect(baseTime.hash).toBe(keccak256(raw))
    const receipts = (await node.rpc('eth_getBlockReceipts', [b.number])).result
    expect(receipts.slice(0, 2).map((r: any) => r.status)).toEqual(['0x1', '0x1'])
  })

  it("have BaseTime answer each block's time, behind the OP proxy", async () => {
    const head = await poll(
      () => node.publicClient.getBlockNumber(),
      (n) => n >= 6n,
    )
    for (let n = head - 4n; n <= head; n++) {
      const b = await block(node, n)
      const at = { blockNumber: n }
      const part = await node.publicClient.call({ to: BASE_TIME, data: PART, ...at })
      const ms = await node.publicClient.call({ to: BASE_TIME, data: MS, ...at })
      expect(BigInt(part.data as Hex)).toBe(msOf(b) % 1000n)
      expect(BigInt(ms.data as Hex)).toBe(msOf(b))
      expect(await node.publicClient.getStorageAt({ address: BASE_TIME, slot: '0x0', ...at })).toBe(
        toHex(msOf(b) % 1000n, { size: 32 }),
      )
    }
    const implementation = await node.publicClient.getStorageAt({
      address: BASE_TIME,
      slot: '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
    })
    expect(implementation).toBe(toHex(BigInt('0xc0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d30030'), { size: 32 }))
    // Only the depositor sets the part; a contract reads it.
    const { error } = await node.rpc('eth_call', [
      { to: BASE_TIME, data: concat(['0x86bdf394', toHex(400, { size: 32 })]) },
      'latest',
    ])
    expect(error.data.slice(0, 10)).toBe('0x3c7b5203')
  })

  it('take evm_setNextBlockTimestamp while the block clock runs: the next block at that second, then 200 ms steps', async () => {
    const head = await poll(
      () => node.publicClient.getBlockNumber(),
      (n) => n >= 1n,
    )
    const target = msOf(await block(node, head)) / 1000n + 30n
    await testClient(node).setNextBlockTimestamp({ timestamp: target })
    const at = await poll(
      async () => {
        const latest = await block(node, 'latest')
        return BigInt(latest.timestamp) >= target ? latest : undefined
      },
      undefined,
      { what: 'the block at the set time' },
    )
    expect(msOf(at)).toBe(target * 1000n)
    const next = await poll(() => block(node, BigInt(at.number) + 1n))
    expect(msOf(next) - msOf(at)).toBe(200n)
  })

  it('keep the schedule under evm_increaseTime, evm_setNextBlockTimestamp and evm_mine', async () => {
    const n = await startTestNode({ profile: 'base', mining: false })
    try {
      const test = testClient(n)
      const times: bigint[] = []
      const mineOne = async () => {
        await test.mine({ blocks: 1 })
        times.push(msOf(await block(n, 'latest')))
      }
      await mineOne()
      await mineOne()
      await test.increaseTime({ seconds: 1 })
      await mineOne()
      const target = times[2] / 1000n + 10n
      await test.setNextBlockTimestamp({ timestamp: target })
      await mineOne()
      await mineOne()
      for (const t of times) expect(t % 200n).toBe(0n)
      expect(times[1] - times[0]).toBe(200n)
      // evm_increaseTime moves the schedule by its seconds (beyond the wall clock, if ahead).
      expect(times[2] - times[1]).toBeGreaterThanOrEqual(1200n)
      expect(times[3]).toBe(target * 1000n)
      expect(times[4] - times[3]).toBe(200n)
      // Each block still opens with its BaseTime deposit for its own part.
      const last = await block(n, 'latest')
      expect(BigInt(`0x${last.transactions[1].input.slice(-4)}`)).toBe(msOf(last) % 1000n)
    } finally {
      await n.stop()
    }
  })
})

describe('Denim blocks replaced by the reorg fault', () => {
  it('keep their time to the millisecond and their BaseTime deposit', async () => {
    const n = await startTestNode({ profile: 'base' })
    try {
      const set = await n.rpc('pcnode_setPreconfFaults', [{ reorgRate: 1, seed: 7 }])
      expect(set.error).toBeUndefined()
      await poll(
        async () => (await n.rpc('pcnode_getPreconfFaults')).result.injected.reorgedBlocks,
        (count) => count >= 4,
        { what: 'four replaced blocks' },
      )
      await n.rpc('pcnode_setPreconfFaults', [{ reorgRate: 0 }])
      // Six blocks after genesis to compare (genesis has no deposits).
      const head = await poll(
        () => n.publicClient.getBlockNumber(),
        (h) => h >= 7n,
        { what: 'seven blocks' },
      )
      const blocks = await Promise.all([...Array(6).keys()].map((i) => block(n, head - 5n + BigInt(i))))
      for (const [i, b] of blocks.entries()) {
        expect(BigInt(`0x${b.transactions[1].input.slice(-4)}`)).toBe(msOf(b) % 1000n)
        if (i > 0) {
          expect(msOf(b) - msOf(blocks[i - 1])).toBe(200n)
          expect(b.parentHash).toBe(blocks[i - 1].hash)
        }
      }
    } finally {
      await n.stop()
    }
  })
})

describe('a chain crossing Denim', () => {
  it('runs flashblocks before its Denim time and scales the first Denim block', async () => {
    // Denim a few seconds after start: the first blocks are Base's old 2 s blocks with flashblocks.
    const denimTime = BigInt(Math.floor(Date.now() / 1000) + 3)
    const n = await startTestNode({ profile: 'base', denimTime })
    try {
      const genesis = await block(n, 0n)
      const first = await poll(
        async () => {
          const latest = await block(n, 'latest')
          return BigInt(latest.timestamp) >= denimTime ? latest : undefined
        },
        undefined,
        { timeoutMs: 20_000, what: 'the first Denim block' },
      )
      // Walk back to the activation block: the first whose time reaches Denim's.
      let activation = first
      for (;;) {
        const parent = await block(n, BigInt(activation.number) - 1n)
        if (BigInt(parent.timestamp) < denimTime) {
          expect(parent.timestampMs).toBeUndefined()
          expect(parent.transactions.some((t: any) => t.to === BASE_TIME)).toBe(false)
          expect(BigInt(parent.gasLimit)).toBe(BigInt(genesis.gasLimit))
          break
        }
        activation = parent
      }
      expect(msOf(activation) % 1000n).toBe(0n)
      expect(BigInt(activation.gasLimit)).toBe(BigInt(genesis.gasLimit) / 10n)
      // Jovian extraData: version, denominator (×10), elasticity, minimum base fee.
      expect(BigInt(`0x${activation.extraData.slice(4, 12)}`)).toBe(BigInt(`0x${genesis.extraData.slice(4, 12)}`) * 10n)
      expect(activation.transactions[1].to).toBe(BASE_TIME)
      const next = await poll(() => block(n, BigInt(activation.number) + 1n))
      expect(msOf(next) - msOf(activation)).toBe(200n)
      expect(BigInt(next.gasLimit)).toBe(BigInt(activation.gasLimit))
      expect(next.extraData).toBe(activation.extraData)
    } finally {
      await n.stop()
    }
  }, 40_000)

  it('crosses it by time travel: evm_increaseTime past Denim makes the next blocks Denim blocks', async () => {
    const denimTime = BigInt(Math.floor(Date.now() / 1000) + 3600)
    const n = await startTestNode({ profile: 'base', denimTime })
    try {
      const before = await poll(() => block(n, 1n))
      expect(before.timestampMs).toBeUndefined()
      await testClient(n).increaseTime({ seconds: 3600 })
      const first = await poll(
        async () => {
          const latest = await block(n, 'latest')
          return latest.timestampMs !== undefined ? latest : undefined
        },
        undefined,
        { timeoutMs: 20_000, what: 'a Denim block' },
      )
      expect(BigInt(first.timestamp)).toBeGreaterThanOrEqual(denimTime)
      expect(first.transactions[1].to).toBe(BASE_TIME)
      const next = await poll(() => block(n, BigInt(first.number) + 1n))
      expect(msOf(next) - msOf(first)).toBe(200n)
    } finally {
      await n.stop()
    }
  }, 40_000)
})
