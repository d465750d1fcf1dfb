// --genesis / --import: the hive test chain (test/fixtures/hive-chain) loads with geth's genesis hash,
// imports to block 54 with every root checked, serves old blocks' state, and a corrupted file stops
// the start naming the block. Chain profiles: defaults, revert codes, simulated state roots.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RLP } from '@ethereumjs/rlp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { splitRlpBlocks } from '../src/node/engine/chain-import.js'
import { resolveOptions } from '../src/node/options.js'
import { BASE_PROFILE, ETHEREUM_PROFILE, FLASHBLOCKS_PROFILE, getProfile } from '../src/node/profile.js'
import { startTestNode, useTestNode } from './helpers.js'

const dir = join(import.meta.dirname, 'fixtures', 'hive-chain')
const genesisFile = join(dir, 'genesis.json')
const importFile = join(dir, 'chain.rlp')
const GENESIS_HASH = '0x44fd89d504659cd58f48f4796b77a7e7012cf296a2409afa2f6c3cb99b5b3d99'
const HEAD_HASH = '0xd226371d0b1551adb03fb52b71f08e3e11247fe9b1af994768af8cdaa8e7dcd7'
/** hivechain's deploy-callenv contract, created in block 1: returns NUMBER, CHAINID, COINBASE, … */
const CALLENV = '0x9344b07175800259691961298ca11c824e65032d'
/** PUSH1 0 PUSH1 0 REVERT: reverts with empty data. */
const REVERTER = '0x60006000fd'

describe('geth genesis and chain import', () => {
  const node = useTestNode({ genesisFile, importFile, mining: false, profile: 'ethereum' }, { timeoutMs: 60_000 })

  it('takes the chain id from the genesis file', async () => {
    expect(node.chainId).toBe(3503995874084926)
    expect((await node.rpc('eth_chainId')).result).toBe('0xc72dd9d5e883e')
  })

  it("has geth's genesis hash: block 1's parentHash", async () => {
    const g = (await node.rpc('eth_getBlockByNumber', ['0x0', false])).result
    const b1 = (await node.rpc('eth_getBlockByNumber', ['0x1', false])).result
    expect(g.hash).toBe(GENESIS_HASH)
    expect(b1.parentHash).toBe(GENESIS_HASH)
  })

  it('imports to head 54 with the hash geth computes', async () => {
    expect((await node.rpc('eth_blockNumber')).result).toBe('0x36')
    const head = (await node.rpc('eth_getBlockByNumber', ['latest', false])).result
    expect(head.hash).toBe(HEAD_HASH)
    expect(head.stateRoot).toBe('0x6da8f636cdc85dbe8c1b5299e5db22f462c041febaf3b78cac1040152ee30b3b')
    expect((await node.rpc('eth_getBlockByHash', [HEAD_HASH, false])).result.number).toBe('0x36')
  })

  it('serves the transactions and receipts of imported blocks', async () => {
    const b1 = (await node.rpc('eth_getBlockByNumber', ['0x1', true])).result
    expect(b1.transactions.length).toBeGreaterThan(0)
    const tx = b1.transactions[0]
    const receipt = (await node.rpc('eth_getTransactionReceipt', [tx.hash])).result
    expect(receipt.blockHash).toBe(b1.hash)
    expect(receipt.status).toBe('0x1')
    expect((await node.rpc('eth_getTransactionByHash', [tx.hash])).result.blockNumber).toBe('0x1')
  })

  it('keeps the state of every imported block', async () => {
    expect((await node.rpc('eth_getCode', [CALLENV, '0x0'])).result).toBe('0x')
    expect((await node.rpc('eth_getCode', [CALLENV, '0x1'])).result).toMatch(/^0x6000/)
    const from = (await node.rpc('eth_getBlockByNumber', ['0x1', true])).result.transactions[0].from
    const at0 = BigInt((await node.rpc('eth_getBalance', [from, '0x0'])).result)
    const at1 = BigInt((await node.rpc('eth_getBalance', [from, '0x1'])).result)
    expect(at1).toBeLessThan(at0) // block 1's gas was paid
    // eth_call at block 1 runs on block 1's state and header: NUMBER = 1, CHAINID = the genesis'.
    const out = (await node.rpc('eth_call', [{ to: CALLENV }, '0x1'])).result as string
    expect(BigInt(`0x${out.slice(2, 66)}`)).toBe(1n)
    expect(BigInt(`0x${out.slice(66, 130)}`)).toBe(3503995874084926n)
  })

  it('accepts a blob transaction with Osaka cell proofs, and refuses one whose proof is wrong', async () => {
    const io = readFileSync(join(dir, 'send-blob-tx.io'), 'utf8').split('\n')
    const request = JSON.parse(io.find((l) => l.startsWith('>>'))!.slice(3))
    const expected = JSON.parse(io.find((l) => l.startsWith('<<'))!.slice(3))
    const raw = request.params[0] as string
    const bad = `${raw.slice(0, -2)}${raw.slice(-2) === '00' ? '01' : '00'}` // the last byte of the last proof
    const refused = await node.rpc('eth_sendRawTransaction', [bad])
    expect(refused.error.code).toBe(-32000)
    expect((await node.rpc('eth_sendRawTransaction', [raw])).result).toBe(expected.result)
  }, 30_000)

  it('lets two precompiles move to one address, as geth does (ethereum profile)', async () => {
    const to = '0xc200000000000000000000000000000000000000'
    const stateOverrides = {
      '0x0000000000000000000000000000000000000001': { movePrecompileToAddress: to },
      '0x0000000000000000000000000000000000000002': { movePrecompileToAddress: to },
    }
    const moved = await node.rpc('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides }] }, 'latest'])
    const empty = await node.rpc('eth_simulateV1', [{ blockStateCalls: [{}] }, 'latest'])
    expect(moved.result[0].stateRoot).toBe(empty.result[0].stateRoot) // a move touches no account
  })

  it('reverts as code 3 with data (ethereum profile)', async () => {
    const res = await node.rpc('eth_call', [{ to: CALLENV }, 'latest', { [CALLENV]: { code: REVERTER } }])
    expect(res.error).toMatchObject({ code: 3, data: '0x' })
  })

  it('simulates blocks with their real state root, leaving the state alone', async () => {
    const sender = '0xc000000000000000000000000000000000000000'
    const request = {
      blockStateCalls: [{ stateOverrides: { [sender]: { balance: '0x1000000' } }, calls: [{ from: sender, to: CALLENV }] }],
    }
    const first = (await node.rpc('eth_simulateV1', [request, 'latest'])).result
    expect(first[0].number).toBe('0x37')
    expect(first[0].timestamp).toBe('0x228') // head + 12 s
    expect(first[0].stateRoot).not.toBe(`0x${'0'.repeat(64)}`)
    const again = (await node.rpc('eth_simulateV1', [request, 'latest'])).result
    expect(again[0].stateRoot).toBe(first[0].stateRoot)
    expect(again[0].hash).toBe(first[0].hash)
    expect((await node.rpc('eth_getTransactionCount', [sender, 'latest'])).result).toBe('0x0')
  })
})

describe('chain import failures', () => {
  let tmp: string
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'pcnode-import-'))
  })
  afterAll(() => rmSync(tmp, { recursive: true, force: true }))

  it('stops the start at a block whose state root does not match, naming it', async () => {
    const items = splitRlpBlocks(new Uint8Array(readFileSync(importFile)))
    const block5 = RLP.decode(items[4]) as Uint8Array[][]
    block5[0][3] = new Uint8Array(32).fill(0xab) // header.stateRoot
    items[4] = RLP.encode(block5 as never)
    const corrupted = join(tmp, 'corrupted.rlp')
    writeFileSync(corrupted, Buffer.concat(items))
    await expect(startTestNode({ genesisFile, importFile: corrupted, mining: false })).rejects.toThrow(
      /cannot import block 5 \(0x[0-9a-f]{64}, [a-zA-Z]+\): .*state ?root/i,
    )
  })

  it('rejects a chain file that is not RLP', async () => {
    const bad = join(tmp, 'bad.rlp')
    writeFileSync(bad, Buffer.concat([readFileSync(importFile).subarray(0, 1000)]))
    await expect(startTestNode({ genesisFile, importFile: bad, mining: false })).rejects.toThrow(/chain file: item 1/)
  })

  it('refuses to mine on a pre-merge head and says why', async () => {
    await expect(startTestNode({ genesisFile })).rejects.toThrow(/post-merge blocks only/)
  })

  it('needs --genesis for --import', () => {
    expect(() => resolveOptions({ importFile })).toThrow(/--import needs --genesis/)
  })
})

describe('chain profiles', () => {
  it('hold every difference in one object', () => {
    expect(getProfile()).toBe(FLASHBLOCKS_PROFILE)
    expect(getProfile('base')).toBe(BASE_PROFILE)
    expect(getProfile('ethereum')).toBe(ETHEREUM_PROFILE)
    expect(() => getProfile('polygon')).toThrow(/unknown profile/)
    expect(FLASHBLOCKS_PROFILE).toMatchObject({ blockTime: 2000, preconfInterval: 200, estimateRevertCode: -32000, denim: false })
    expect(BASE_PROFILE).toMatchObject({
      blockTime: 200,
      estimateRevertCode: -32000,
      denim: true,
      safeLag: 600,
      finalizedLag: 6000,
    })
    expect(ETHEREUM_PROFILE).toMatchObject({ blockTime: 12_000, estimateRevertCode: 3 })
  })

  it('set the block-time defaults; explicit options win', () => {
    expect(resolveOptions({ profile: 'ethereum' })).toMatchObject({ blockTime: 12_000, preconfInterval: 12_000 })
    expect(resolveOptions({})).toMatchObject({ blockTime: 2000, preconfInterval: 200 })
    expect(resolveOptions({ profile: 'ethereum', blockTime: 1000 }).blockTime).toBe(1000)
    // A block time given alone caps the profile's interval: ethereum with --block-time 0 is automine.
    expect(resolveOptions({ profile: 'ethereum', blockTime: 1000 }).preconfInterval).toBe(1000)
    expect(resolveOptions({ profile: 'ethereum', blockTime: 0 }).preconfInterval).toBe(0)
    expect(resolveOptions({ blockTime: 100 })).toMatchObject({ blockTime: 100, preconfInterval: 100 })
    expect(resolveOptions({ blockTime: 0, preconfInterval: 50 })).toMatchObject({ blockTime: 0, preconfInterval: 50 })
    // The base profile's tags trail as Base's do; given lags win.
    expect(resolveOptions({ profile: 'base' })).toMatchObject({
      blockTime: 200,
      safeLag: 600,
      finalizedLag: 6000,
      stateInterval: 100,
      denimTime: 0n,
    })
    expect(resolveOptions({}).stateInterval).toBe(10)
    expect(resolveOptions({ profile: 'base', stateInterval: 5 }).stateInterval).toBe(5)
    // The state kept must cover the tags' lag.
    expect(() => resolveOptions({ profile: 'base', stateHistory: 1000 })).toThrow(
      /--state-history 1000 keeps less state than the tags' lag \(6000 blocks\)/,
    )
    expect(resolveOptions({ profile: 'base', stateHistory: 1000, safeLag: 10, finalizedLag: 100 }).stateHistory).toBe(1000)
    expect(resolveOptions({ profile: 'base', safeLag: 0 })).toMatchObject({ safeLag: 0, finalizedLag: 6000 })
    expect(resolveOptions({})).toMatchObject({ safeLag: 0, finalizedLag: 0 })
  })

  it('base: eth_call reverts as 3, eth_estimateGas as -32000; simulated blocks carry a zero state root', async () => {
    const node = await startTestNode({ mining: false })
    try {
      const to = '0x1000000000000000000000000000000000000001'
      const res = await node.rpc('eth_call', [{ to }, 'latest', { [to]: { code: REVERTER } }])
      expect(res.error.code).toBe(3)
      const est = await node.rpc('eth_estimateGas', [{ to }, 'latest', { [to]: { code: REVERTER } }])
      expect(est.error.code).toBe(-32000)
      const sim = await node.rpc('eth_simulateV1', [{ blockStateCalls: [{ calls: [] }] }, 'latest'])
      expect(sim.result[0].stateRoot).toBe(`0x${'0'.repeat(64)}`)
    } finally {
      await node.stop()
    }
  })
})
