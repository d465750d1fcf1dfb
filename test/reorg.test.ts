// Chain reorganisations: anvil_reorg beside anvil 1.7.1 on the same requests, what a newHeads
// subscriber and readers see of the replaced blocks, the `safe` / `finalized` lags, and the seeded
// reorg fault (pcnode_setPreconfFaults({reorgRate})).
import { type Hex, keccak256, parseGwei, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { serializeTransaction as serializeOpTransaction } from 'viem/op-stack'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openSocket, poll, startAnvil, startTestNode, type TestNode, useTestNode } from './helpers.js'

type Json = { result?: any; error?: { code: number; message: string } }

let calls = 0
async function rpcAt(url: string, method: string, params: unknown[] = []): Promise<Json> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++calls, method, params }),
  })
  return (await res.json()) as Json
}

// anvil's and pcnode's default dev accounts (the same mnemonic) and chain id.
const KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
] as const
const [A0, A1, A2] = KEYS.map((k) => privateKeyToAccount(k))
const CHAIN_ID = 31337
const TO = '0x00000000000000000000000000000000000000aa'

function transfer(index: number, nonce: number, value: bigint): Promise<Hex> {
  return privateKeyToAccount(KEYS[index]).signTransaction({
    chainId: CHAIN_ID,
    type: 'eip1559',
    nonce,
    to: TO,
    value,
    gas: 21_000n,
    maxFeePerGas: parseGwei('20'),
    maxPriorityFeePerGas: parseGwei('1'),
  })
}

const hashOf = async (url: string, raw: Hex) => (await rpcAt(url, 'eth_sendRawTransaction', [raw])).result as Hex

/**
 * The same requests on either node (mining off): a transfer in block 1, blocks 2..4 empty, then
 * anvil_reorg of depth 4 with a raw transfer at offset 1 and a request object at offset 0.
 */
async function scenario(url: string) {
  const dropped = await hashOf(url, await transfer(1, 0, 1000n))
  await rpcAt(url, 'evm_mine')
  await rpcAt(url, 'anvil_mine', ['0x3'])
  const before = await Promise.all(
    [1, 2, 3, 4].map(async (n) => (await rpcAt(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).result),
  )
  const replacement = await transfer(2, 0, 2000n)
  const reorg = await rpcAt(url, 'anvil_reorg', [
    4,
    [
      [replacement, 1],
      [{ from: A0.address, to: TO, value: '0x64' }, 0],
    ],
  ])
  const after = await Promise.all(
    [1, 2, 3, 4].map(async (n) => (await rpcAt(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).result),
  )
  const replacementHash = after[1].transactions[0] as Hex
  return {
    reorg,
    dropped,
    before,
    after,
    head: BigInt((await rpcAt(url, 'eth_blockNumber')).result),
    droppedReceipt: (await rpcAt(url, 'eth_getTransactionReceipt', [dropped])).result,
    replacementReceipt: (await rpcAt(url, 'eth_getTransactionReceipt', [replacementHash])).result,
    requestReceipt: (await rpcAt(url, 'eth_getTransactionReceipt', [after[0].transactions[0]])).result,
    balance1: BigInt((await rpcAt(url, 'eth_getBalance', [A1.address, 'latest'])).result),
    toBalance: BigInt((await rpcAt(url, 'eth_getBalance', [TO, 'latest'])).result),
    errors: {
      tooDeep: (await rpcAt(url, 'anvil_reorg', [10, []])).error,
      lateOffset: (await rpcAt(url, 'anvil_reorg', [1, [[replacement, 1]]])).error,
    },
  }
}

describe('anvil_reorg beside anvil', () => {
  let node: TestNode
  let anvil: { url: string; stop: () => void }
  let ws: Awaited<ReturnType<typeof openSocket>>
  let heads: string
  let ours: Awaited<ReturnType<typeof scenario>>
  let theirs: Awaited<ReturnType<typeof scenario>>

  beforeAll(async () => {
    ;[node, anvil] = await Promise.all([startTestNode({ profile: 'ethereum', mining: false }), startAnvil(['--no-mining'])])
    ws = await openSocket(node.wsUrl)
    heads = await ws.subscribe(['newHeads'])
    ;[ours, theirs] = await Promise.all([scenario(node.rpcUrl), scenario(anvil.url)])
  }, 60_000)
  afterAll(async () => {
    await ws?.close()
    anvil?.stop()
    await node?.stop()
  })

  it('answers null and keeps the height, as anvil does', () => {
    expect(ours.reorg).toEqual({ jsonrpc: '2.0', id: expect.any(Number), result: null })
    expect(theirs.reorg.error).toBeUndefined()
    expect(ours.head).toBe(4n)
    expect(theirs.head).toBe(4n)
  })

  it('replaces every block at the reorged heights: new hashes, chained from the common block', () => {
    for (const r of [ours, theirs]) {
      for (let i = 0; i < 4; i++) {
        expect(r.after[i].number).toBe(r.before[i].number)
        expect(r.after[i].hash).not.toBe(r.before[i].hash)
      }
      expect(r.after[0].parentHash).toBe(r.before[0].parentHash)
      for (let i = 1; i < 4; i++) expect(r.after[i].parentHash).toBe(r.after[i - 1].hash)
    }
  })

  it('places the given transactions at their offsets and drops the replaced ones, as anvil does', () => {
    const counts = (r: typeof ours) => r.after.map((b: { transactions: unknown[] }) => b.transactions.length)
    expect(counts(ours)).toEqual([1, 1, 0, 0])
    expect(counts(ours)).toEqual(counts(theirs))
    for (const r of [ours, theirs]) {
      expect(r.droppedReceipt).toBeNull()
      expect(r.replacementReceipt.blockNumber).toBe('0x2')
      expect(r.replacementReceipt.status).toBe('0x1')
      expect(r.requestReceipt.blockNumber).toBe('0x1')
      expect(r.requestReceipt.from.toLowerCase()).toBe(A0.address.toLowerCase())
    }
    // The dropped transfer's value is back with its sender; the recipient holds the two given ones.
    expect(ours.toBalance).toBe(2100n)
    expect(theirs.toBalance).toBe(2100n)
    expect(ours.balance1).toBe(theirs.balance1)
  })

  it('refuses a depth past the height and an offset past the depth with -32602 and anvil texts', () => {
    expect(ours.errors.tooDeep).toEqual(theirs.errors.tooDeep)
    expect(ours.errors.tooDeep?.code).toBe(-32602)
    expect(ours.errors.lateOffset?.code).toBe(-32602)
    expect(ours.errors.lateOffset?.message).toBe(theirs.errors.lateOffset?.message)
  })

  it('shows newHeads subscribers the new blocks', async () => {
    const items = await ws.waitFor(heads, (xs) => xs.length >= 8, 'the 4 mined and 4 replaced heads')
    expect(items.map((h) => Number(h.number))).toEqual([1, 2, 3, 4, 1, 2, 3, 4])
    expect(items.slice(4).map((h) => h.hash)).toEqual(ours.after.map((b: { hash: string }) => b.hash))
  })
})

describe('anvil_reorg on pcnode', () => {
  const node = useTestNode({ profile: 'ethereum', mining: false })

  it('refuses bad parameters with -32602, never -32603, and keeps serving', async () => {
    await node.rpc('anvil_mine', ['0x2'])
    const bad: unknown[][] = [
      [],
      ['x'],
      [1, 'nope'],
      [1, [['0x1234', 0]]],
      [1, [[{ to: TO }, 'a']]],
      [1, [[{ to: TO, bogus: 1 }, 0]]],
      [1, [[42, 0]]],
      [1, [[{ to: TO }]]],
    ]
    for (const params of bad) {
      const { error } = await node.rpc('anvil_reorg', params)
      expect(error?.code, JSON.stringify(params)).toBe(-32602)
    }
    const unknown = await node.rpc('anvil_reorg', [1, [[{ from: '0x00000000000000000000000000000000000000bb', to: TO }, 0]]])
    expect(unknown.error?.code).not.toBe(-32603)
    expect(unknown.error?.message).toMatch(/unknown account/)
    expect((await node.rpc('eth_blockNumber')).result).toBe('0x2')
  })

  it('depth 0 changes nothing; a raw transaction already in the pool is not run twice', async () => {
    const head = (await node.rpc('eth_getBlockByNumber', ['latest', false])).result
    expect((await node.rpc('anvil_reorg', [0, []])).result).toBeNull()
    expect((await node.rpc('eth_getBlockByNumber', ['latest', false])).result.hash).toBe(head.hash)
    const nonce = Number((await node.rpc('eth_getTransactionCount', [A2.address, 'latest'])).result)
    const raw = await transfer(2, nonce, 5n)
    const hash = (await node.rpc('eth_sendRawTransaction', [raw])).result
    expect((await node.rpc('anvil_reorg', [1, [[raw, 0]]])).result).toBeNull()
    expect((await node.rpc('eth_getTransactionReceipt', [hash])).result.blockNumber).toBe(head.number)
    // Out of the pool once mined: dropped by the next reorg, it is gone, not mined again.
    expect((await node.rpc('anvil_reorg', [1, []])).result).toBeNull()
    expect((await node.rpc('eth_getTransactionReceipt', [hash])).result).toBeNull()
    await node.rpc('evm_mine')
    expect((await node.rpc('eth_getTransactionReceipt', [hash])).result).toBeNull()
  })
})

describe.each(['base', 'flashblocks'])('anvil_reorg on profile %s (OP stack), mining', (profile) => {
  // Blocks far apart: the open block's pre-confirmations are what the reorg has to carry over.
  const node = useTestNode({ profile, blockTime: 600_000, preconfInterval: 0 })

  it("builds the new blocks with their deposits first, and keeps the open block's transaction", async () => {
    await node.rpc('anvil_mine', ['0x2'])
    const raw = await transfer(1, 0, 3n)
    const open = (await node.rpc('eth_sendTransaction', [{ from: A2.address, to: TO, value: '0x4' }])).result as Hex
    // Flashblocks pre-confirm it in the open block; on Base since Denim it waits for the next block.
    const preconfirms = profile === 'flashblocks'
    if (preconfirms) await poll(async () => (await node.rpc('eth_getTransactionReceipt', [open])).result)
    expect((await node.rpc('anvil_reorg', [2, [[raw, 1]]])).result).toBeNull()
    const block = (await node.rpc('eth_getBlockByNumber', ['0x2', true])).result
    const types = block.transactions.map((t: { type: string }) => t.type)
    expect(types[0]).toBe('0x7e')
    expect(types.slice(0, -1).every((t: string) => t === '0x7e')).toBe(true)
    expect(block.transactions.at(-1).hash).toBe(keccak256(raw))
    const receipt = (await node.rpc('eth_getTransactionReceipt', [keccak256(raw)])).result
    expect(receipt.l1Fee).toBeDefined()
    if (preconfirms) {
      // Pre-confirmed again, in the block after the new head.
      const again = await poll(async () => (await node.rpc('eth_getTransactionReceipt', [open])).result)
      expect(again.blockNumber).toBe('0x3')
    } else {
      expect((await node.rpc('pcnode_transactionStatus', [open])).result.status).toBe('pending')
    }
  })

  it('refuses a deposit among the transactions (-32602): deposits come from L1', async () => {
    const deposit = serializeOpTransaction({
      type: 'deposit',
      sourceHash: keccak256(toHex(`reorg deposit ${profile}`)),
      from: '0x00000000000000000000000000000000000d3a05',
      to: TO,
      mint: 1n,
      gas: 100_000n,
    })
    const head = (await node.rpc('eth_getBlockByNumber', ['latest', false])).result
    const { error } = await node.rpc('anvil_reorg', [1, [[deposit, 0]]])
    expect(error?.code).toBe(-32602)
    expect(error?.message).toMatch(/deposit/)
    expect((await node.rpc('eth_getBlockByNumber', ['latest', false])).result.hash).toBe(head.hash)
  })
})

describe('safe and finalized lag latest', () => {
  const node = useTestNode({ profile: 'ethereum', mining: false, safeLag: 2, finalizedLag: 5 })
  const numberAt = async (tag: string) => Number((await node.rpc('eth_getBlockByNumber', [tag, false])).result.number)

  it('never below block 0', async () => {
    await node.rpc('anvil_mine', ['0x3'])
    expect(await numberAt('latest')).toBe(3)
    expect(await numberAt('safe')).toBe(1)
    expect(await numberAt('finalized')).toBe(0)
  })

  it('trail the head by their lags, in every method taking a block tag', async () => {
    await node.rpc('anvil_mine', ['0x7'])
    expect(await numberAt('safe')).toBe(8)
    expect(await numberAt('finalized')).toBe(5)
    const fresh = '0x00000000000000000000000000000000000000cc'
    await node.rpc('eth_sendTransaction', [{ from: A0.address, to: fresh, value: '0x7' }])
    await node.rpc('evm_mine')
    const balance = async (tag: string) => BigInt((await node.rpc('eth_getBalance', [fresh, tag])).result)
    expect(await balance('latest')).toBe(7n)
    expect(await balance('safe')).toBe(0n)
    await node.rpc('anvil_mine', ['0x2'])
    expect(await balance('safe')).toBe(7n)
    expect(await balance('finalized')).toBe(0n)
    const nonce = async (tag: string) => Number((await node.rpc('eth_getTransactionCount', [A0.address, tag])).result)
    expect(await nonce('latest')).toBe(1)
    expect(await nonce('finalized')).toBe(0)
    // eth_call runs in the block the tag names (the NUMBER opcode, 0x43, returned as a word).
    const code = '0x4360005260206000f3'
    const at = async (tag: string) => Number((await node.rpc('eth_call', [{ data: code }, tag])).result)
    expect(await at('finalized')).toBe(await numberAt('finalized'))
    expect(await at('safe')).toBe(await numberAt('safe'))
    expect(await numberAt('finalized')).toBe((await numberAt('latest')) - 5)
  })

  it('a read at a lagging safe gives no pre-confirmation hint; at latest it does', async () => {
    const lines: string[] = []
    const live = await startTestNode({
      profile: 'flashblocks',
      blockTime: 60_000,
      preconfInterval: 0,
      safeLag: 1,
      silent: false,
      logger: (line) => lines.push(line),
    })
    try {
      await live.rpc('anvil_mine', ['0x2'])
      const sent = (await live.rpc('eth_sendTransaction', [{ from: A1.address, to: TO, value: '0x1' }])).result
      await poll(async () => (await live.rpc('eth_getTransactionReceipt', [sent])).result)
      expect((await live.rpc('eth_getTransactionCount', [A1.address, 'safe'])).result).toBe('0x0')
      expect(lines.filter((l) => l.startsWith('hint:'))).toEqual([])
      expect((await live.rpc('eth_getTransactionCount', [A1.address, 'latest'])).result).toBe('0x0')
      expect(lines.filter((l) => l.startsWith('hint:'))).toHaveLength(1)
    } finally {
      await live.stop()
    }
  })

  it('refuses negative or fractional lags', async () => {
    await expect(startTestNode({ safeLag: -1 })).rejects.toThrow(/safe lag/)
    await expect(startTestNode({ finalizedLag: 1.5 })).rejects.toThrow(/finalized lag/)
  })
})

describe('the reorg fault', () => {
  const node = useTestNode({ profile: 'ethereum', mining: false })

  it('replaces the sealed head with a block at its height holding its transactions again', async () => {
    const ws = await openSocket(node.wsUrl)
    try {
      const heads = await ws.subscribe(['newHeads'])
      const set = await node.rpc('pcnode_setPreconfFaults', [{ reorgRate: 1, seed: 7 }])
      expect(set.result.reorgRate).toBe(1)
      expect(set.result.reorgDepth).toBe(1)
      const hash = (await node.rpc('eth_sendTransaction', [{ from: A0.address, to: TO, value: '0x9' }])).result
      await node.rpc('evm_mine')
      const items = await ws.waitFor(heads, (xs) => xs.length >= 2, 'the sealed head and its replacement')
      expect(items.map((h) => h.number)).toEqual(['0x1', '0x1'])
      expect(items[1].hash).not.toBe(items[0].hash)
      const head = (await node.rpc('eth_getBlockByNumber', ['latest', false])).result
      expect(head.hash).toBe(items[1].hash)
      expect(head.transactions).toEqual([hash])
      const receipt = (await node.rpc('eth_getTransactionReceipt', [hash])).result
      expect(receipt.blockHash).toBe(items[1].hash)
      expect((await node.rpc('eth_getBlockByHash', [items[0].hash, false])).result).toBeNull()
      const summary = (await node.rpc('pcnode_getPreconfFaults')).result
      expect(summary.injected.reorgedBlocks).toBe(1)
      await node.rpc('pcnode_setPreconfFaults', [{ reorgRate: 0 }])
      await node.rpc('evm_mine')
      expect((await ws.waitFor(heads, (xs) => xs.length >= 3)).length).toBe(3)
    } finally {
      await ws.close()
    }
  })

  it('depth 2 replaces the last two blocks; bad settings are -32602', async () => {
    await node.rpc('pcnode_setPreconfFaults', [{ reorgRate: 1, reorgDepth: 2 }])
    const before = (await node.rpc('eth_getBlockByNumber', ['latest', false])).result
    await node.rpc('evm_mine')
    const after = (await node.rpc('eth_getBlockByNumber', [before.number, false])).result
    expect(after.hash).not.toBe(before.hash)
    expect((await node.rpc('pcnode_getPreconfFaults')).result.injected.reorgedBlocks).toBe(3)
    for (const bad of [{ reorgRate: 2 }, { reorgRate: '1' }, { reorgDepth: 0 }, { reorgDepth: 65 }]) {
      expect((await node.rpc('pcnode_setPreconfFaults', [bad])).error?.code).toBe(-32602)
    }
    await node.rpc('pcnode_setPreconfFaults', [{ reorgRate: 0 }])
  })
})
