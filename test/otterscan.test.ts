// The Otterscan API (ots_*, erigon_getHeaderByNumber) beside anvil 1.7.1: the same transactions
// (a transfer, a deployment whose constructor calls another contract with value and logs, a
// reverted call) sent by the same key to pcnode's ethereum profile and to anvil, then every answer
// compared field by field. What differs by nature is normalized: hashes, signatures and timestamps
// (each chain's own blocks), fee fields (each chain's own base fees), block numbers (named by the
// transaction they hold). The default (OP) profile is checked for what only it has: the L1-info
// deposit in every block, gasUsedDepositTx and the L1 fee on receipts.
import {
  concat,
  createPublicClient,
  createWalletClient,
  defineChain,
  getContractAddress,
  type Hex,
  http,
  keccak256,
  toHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PING, poll, startAnvil, startTestNode, type TestNode } from './helpers.js'

type Json = any

const KEY = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6' as Hex // anvil's account 9
const account = privateKeyToAccount(KEY)
const SENDER = account.address.toLowerCase()
const SINK = '0x00000000000000000000000000000000000000bb'
const ZERO_HASH = `0x${'0'.repeat(64)}`

/** E: logs LOG2(calldata, PING, caller) on every call. */
const RUNTIME_E = concat(['0x365f5f37337f', PING, '0x365fa200'])
const INIT_E = concat([`0x60${((RUNTIME_E.length - 2) / 2).toString(16)}8060095f395ff3`, RUNTIME_E])
const E = getContractAddress({ from: account.address, nonce: 1n }).toLowerCase() as Hex
const MADE = keccak256(toHex('Made()'))
/** C's constructor: CALL E with 1 wei, LOG1(Made()), then return C's runtime, which reverts with 32 bytes (0x2a). */
const RUNTIME_C = '0x602a5f5260205ffd'
const CTOR_C = concat(['0x5f5f5f5f600173', E, '0x5af150', '0x7f', MADE, '0x5f5fa1'])
const INIT_C = concat([CTOR_C, `0x60088060${toHex((CTOR_C.length - 2) / 2 + 9).slice(2)}5f395ff3`, RUNTIME_C])
const C = getContractAddress({ from: account.address, nonce: 2n }).toLowerCase() as Hex
const REVERT_DATA = `0x${'0'.repeat(62)}2a`

interface Side {
  rpc: (method: string, params?: unknown[]) => Promise<Json>
  hashes: Hex[]
  /** The sealed receipt of each scenario transaction. */
  receipts: Json[]
}

function rpcAt(url: string) {
  let id = 0
  return async (method: string, params: unknown[] = []): Promise<Json> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    })
    return res.json()
  }
}

/** JSON-RPC, a wallet for the test's account and a public client on the chain `url` serves. */
async function clientsAt(url: string) {
  const rpc = rpcAt(url)
  const chainId = Number((await rpc('eth_chainId')).result)
  const chain = defineChain({
    id: chainId,
    name: 'x',
    nativeCurrency: { name: 'E', symbol: 'E', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  })
  const wallet = createWalletClient({ chain, transport: http(url, { retryCount: 0 }), account })
  const client = createPublicClient({ chain, transport: http(url, { retryCount: 0 }) })
  return { rpc, wallet, client }
}

/**
 * The scenario, one transaction at a time, each waited for until its block is sealed. Every gas
 * limit is given: the comparison is of the Otterscan answers, not of the two nodes' estimates.
 */
async function scenario(url: string): Promise<Side> {
  const { rpc, wallet, client } = await clientsAt(url)
  const sends = [
    () => wallet.sendTransaction({ to: SINK, value: 10n ** 18n, gas: 21_000n }),
    () => wallet.sendTransaction({ data: INIT_E, gas: 100_000n }),
    () => wallet.sendTransaction({ data: INIT_C, value: 2n, gas: 300_000n }),
    () => wallet.sendTransaction({ to: C, data: '0x1234', gas: 100_000n }),
  ]
  const hashes: Hex[] = []
  const receipts: Json[] = []
  for (const send of sends) {
    const hash = await send()
    hashes.push(hash)
    receipts.push(
      await poll(
        async () => (await rpc('eth_getTransactionReceipt', [hash])).result,
        (r) => r !== null && r !== undefined && r.blockHash !== ZERO_HASH,
        { timeoutMs: 20_000 },
      ),
    )
    await client.getBlockNumber()
  }
  return { rpc: async (m, p) => rpc(m, p), hashes, receipts }
}

/** Keys whose values are each chain's own: signatures, fees from its base fee, times, hashes of its blocks. */
const OWN = new Set([
  'r',
  's',
  'v',
  'yParity',
  'maxFeePerGas',
  'gasPrice',
  'effectiveGasPrice',
  'timestamp',
  'blockTimestamp',
  'blockHash',
])
/** Fields anvil's alloy types add that pcnode's receipts do not carry (blobGasPrice on every receipt). */
const ANVIL_ONLY = new Set(['blobGasPrice'])

/** `value` with each chain's own values dropped and transaction hashes and block numbers named by scenario step. */
function normalize(value: Json, side: Side): Json {
  const txName = (h: string) => {
    const i = side.hashes.findIndex((x) => x.toLowerCase() === h.toLowerCase())
    return i < 0 ? h : `tx${i}`
  }
  const blockName = (n: string) => {
    const i = side.receipts.findIndex((r) => r.blockNumber === n)
    return i < 0 ? n : `block of tx${i}`
  }
  const walk = (v: Json): Json => {
    if (Array.isArray(v)) return v.map(walk)
    if (v === null || typeof v !== 'object') return v
    const out: Json = {}
    for (const [k, x] of Object.entries(v)) {
      if (OWN.has(k) || ANVIL_ONLY.has(k)) continue
      if ((k === 'hash' || k === 'transactionHash') && typeof x === 'string') out[k] = txName(x)
      else if (k === 'blockNumber' && typeof x === 'string') out[k] = blockName(x)
      else out[k] = walk(x)
    }
    return out
  }
  return walk(value)
}

describe('Otterscan API beside anvil (ethereum profile)', () => {
  let node: TestNode
  let anvil: { url: string; stop: () => void }
  let pc: Side
  let av: Side
  /** The same call on both, each answer's result. */
  const both = async (method: string, params: (side: Side) => unknown[]) => {
    const [a, b] = await Promise.all([pc.rpc(method, params(pc)), av.rpc(method, params(av))])
    expect(a.error, `pcnode ${method}`).toBeUndefined()
    expect(b.error, `anvil ${method}`).toBeUndefined()
    return [a.result, b.result] as const
  }

  beforeAll(async () => {
    ;[node, anvil] = await Promise.all([
      startTestNode({ profile: 'ethereum', blockTime: 0 }),
      startAnvil(['--host', '127.0.0.1']),
    ])
    ;[pc, av] = await Promise.all([scenario(node.rpcUrl), scenario(anvil.url)])
  }, 60_000)
  afterAll(() => {
    anvil?.stop()
    return node?.stop()
  })

  it('answers the probe: API level 8 and erigon_getHeaderByNumber as eth_getBlockByNumber(n, false)', async () => {
    const [level, levelAnvil] = await both('ots_getApiLevel', () => [])
    expect(level).toBe(8)
    expect(level).toBe(levelAnvil)
    for (const side of [pc, av]) {
      const n = side.receipts[0].blockNumber
      const header = await side.rpc('erigon_getHeaderByNumber', [Number(n)])
      expect(header.result).toEqual((await side.rpc('eth_getBlockByNumber', [n, false])).result)
      expect((await side.rpc('erigon_getHeaderByNumber', ['latest'])).result.number).toBe(side.receipts[3].blockNumber)
    }
  })

  it("answers Otterscan's connection probe: one batch, every call a result", async () => {
    const batch = ['eth_blockNumber', 'erigon_getHeaderByNumber', 'ots_getApiLevel', 'eth_chainId'].map((method, id) => ({
      jsonrpc: '2.0',
      id,
      method,
      params: method === 'erigon_getHeaderByNumber' ? ['latest'] : [],
    }))
    const { text } = await node.raw(JSON.stringify(batch))
    const answers = JSON.parse(text).sort((a: Json, b: Json) => a.id - b.id)
    expect(answers.map((a: Json) => a.error)).toEqual([undefined, undefined, undefined, undefined])
    expect(answers[1].result.number).toBe(answers[0].result)
    expect(answers[2].result).toBe(8)
  })

  it('ots_hasCode: true for the deployed contract, false for an account', async () => {
    expect(await both('ots_hasCode', () => [C, 'latest'])).toEqual([true, true])
    expect(await both('ots_hasCode', () => [SENDER, 'latest'])).toEqual([false, false])
    // Before C's block it has no code.
    expect(await both('ots_hasCode', (s) => [C, Number(s.receipts[1].blockNumber)])).toEqual([false, false])
  })

  it('ots_getInternalOperations, ots_traceTransaction and ots_getTransactionError match anvil for every transaction', async () => {
    for (let i = 0; i < 4; i++) {
      for (const method of ['ots_getInternalOperations', 'ots_traceTransaction', 'ots_getTransactionError']) {
        const [mine, theirs] = await both(method, (s) => [s.hashes[i]])
        expect(normalize(mine, pc), `${method} tx${i}`).toEqual(normalize(theirs, av))
      }
    }
    // What the scenario makes them show (so the comparison above compares something).
    const [ops] = await both('ots_getInternalOperations', (s) => [s.hashes[2]])
    expect(ops).toEqual([
      { type: 2, from: SENDER, to: C, value: '0x2' },
      { type: 0, from: C, to: E, value: '0x1' },
    ])
    const [trace] = await both('ots_traceTransaction', (s) => [s.hashes[3]])
    expect(trace).toEqual([{ type: 'CALL', depth: 0, from: SENDER, to: C, value: '0x0', input: '0x1234', output: REVERT_DATA }])
    const [error] = await both('ots_getTransactionError', (s) => [s.hashes[3]])
    expect(error).toBe(REVERT_DATA)
  })

  it('ots_getBlockDetails/ByHash: the block less its transactions, its count, zero issuance, the fees paid', async () => {
    for (const side of [pc, av]) {
      const r = side.receipts[2]
      const byNumber = (await side.rpc('ots_getBlockDetails', [Number(r.blockNumber)])).result
      const byHash = (await side.rpc('ots_getBlockDetailsByHash', [r.blockHash])).result
      expect(byHash).toEqual(byNumber)
      const { transactions, ...block } = (await side.rpc('eth_getBlockByNumber', [r.blockNumber, false])).result
      expect(byNumber.block).toEqual({ ...block, transactionCount: transactions.length })
      expect(byNumber.issuance).toEqual({ blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' })
      expect(BigInt(byNumber.totalFees)).toBe(BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice))
      expect(byNumber.gasUsedDepositTx).toBeUndefined()
    }
    const [mine, theirs] = await both('ots_getBlockDetails', (s) => [Number(s.receipts[2].blockNumber)])
    expect(mine.block.transactionCount).toBe(theirs.block.transactionCount)
    expect(mine.block.gasUsed).toBe(theirs.block.gasUsed)
  })

  it('ots_getBlockTransactions: transactions with the input cut to the selector, receipts with the timestamp', async () => {
    const [mine, theirs] = await both('ots_getBlockTransactions', (s) => [Number(s.receipts[2].blockNumber), 0, 25])
    expect(normalize(mine.fullblock.transactions, pc)).toEqual(normalize(theirs.fullblock.transactions, av))
    expect(mine.fullblock.transactions[0].input).toBe('0x5f5f5f5f')
    expect(normalize(mine.receipts, pc)).toEqual(normalize(theirs.receipts, av))
    expect(mine.receipts[0].timestamp).toBe(mine.fullblock.timestamp)
    expect(mine.receipts[0].logs.map((l: Json) => l.address)).toEqual([E, C])
    expect(mine.fullblock.transactionCount).toBe(theirs.fullblock.transactionCount)
    // Past the last page: no transactions. transactionCount stays the block's (Erigon's; anvil gives the page's 0).
    const [empty, emptyAnvil] = await both('ots_getBlockTransactions', (s) => [Number(s.receipts[2].blockNumber), 1, 25])
    expect(empty.fullblock.transactions).toEqual([])
    expect(empty.receipts).toEqual(emptyAnvil.receipts)
    expect(empty.fullblock.transactionCount).toBe(1)
    expect(emptyAnvil.fullblock.transactionCount).toBe(0)
  })

  it('ots_searchTransactionsBefore/After: the same pages, order and flags as anvil', async () => {
    const cases: [string, (s: Side) => unknown[]][] = [
      ['ots_searchTransactionsBefore', () => [SENDER, 0, 25]],
      ['ots_searchTransactionsBefore', () => [SENDER, 0, 2]],
      ['ots_searchTransactionsBefore', (s) => [SENDER, Number(s.receipts[2].blockNumber), 1]],
      ['ots_searchTransactionsAfter', () => [SENDER, 0, 25]],
      ['ots_searchTransactionsAfter', () => [SENDER, 0, 1]],
      ['ots_searchTransactionsAfter', (s) => [SENDER, Number(s.receipts[1].blockNumber), 1]],
      // E is touched only from inside C's constructor (and made by tx1).
      ['ots_searchTransactionsBefore', () => [E, 0, 25]],
      ['ots_searchTransactionsAfter', () => [C, 0, 25]],
    ]
    for (const [method, params] of cases) {
      const [mine, theirs] = await both(method, params)
      const label = `${method} ${JSON.stringify(params(pc))}`
      expect(normalize(mine, pc), label).toEqual(normalize(theirs, av))
      expect(mine.txs.length, label).toBeGreaterThan(0)
    }
    const [all] = await both('ots_searchTransactionsBefore', () => [E, 0, 25])
    expect(normalize(all, pc).txs.map((t: Json) => t.hash)).toEqual(['tx2', 'tx1'])
  })

  it('ots_getTransactionBySenderAndNonce and ots_getContractCreator', async () => {
    for (let nonce = 0; nonce < 4; nonce++) {
      const [mine, theirs] = await both('ots_getTransactionBySenderAndNonce', () => [SENDER, nonce])
      expect(mine).toBe(pc.hashes[nonce])
      expect(theirs).toBe(av.hashes[nonce])
    }
    expect(await both('ots_getTransactionBySenderAndNonce', () => [SENDER, 9])).toEqual([null, null])
    const [creator, creatorAnvil] = await both('ots_getContractCreator', () => [C])
    expect(normalize(creator, pc)).toEqual(normalize(creatorAnvil, av))
    expect(creator).toEqual({ hash: pc.hashes[2], creator: SENDER })
    expect(await both('ots_getContractCreator', () => [SENDER])).toEqual([null, null])
  })

  it('bad input: -32602, never -32603; unknown transactions as anvil answers them where it does not use -32603', async () => {
    const unknown = `0x${'11'.repeat(32)}`
    expect(await both('ots_traceTransaction', () => [unknown])).toEqual([[], []])
    expect(await both('ots_getTransactionError', () => [unknown])).toEqual(['0x', '0x'])
    const internal = await pc.rpc('ots_getInternalOperations', [unknown])
    expect(internal.error.code).toBe(-32602)
    expect((await av.rpc('ots_getInternalOperations', [unknown])).error.code).toBe(-32603)
    for (const [method, params] of [
      ['ots_hasCode', ['0x12', 'latest']],
      ['ots_getBlockTransactions', [1, 0, 10_000]],
      ['ots_searchTransactionsBefore', [SENDER, 0]],
      ['ots_getContractCreator', ['nope']],
    ] as const) {
      expect((await pc.rpc(method, [...params])).error?.code, method).toBe(-32602)
    }
    // A block that does not exist: null (Otterscan reads null as "no such block"; anvil answers -32001).
    expect((await pc.rpc('ots_getBlockDetails', [999])).result).toBeNull()
    expect((await pc.rpc('ots_getBlockTransactions', [999, 0, 25])).result).toBeNull()
  })
})

describe('Otterscan API on the OP profile', () => {
  let node: TestNode
  let side: Side

  beforeAll(async () => {
    node = await startTestNode({ blockTime: 500, preconfInterval: 50 })
    side = await scenario(node.rpcUrl)
  }, 60_000)
  afterAll(() => node?.stop())

  it('lists the L1-info deposit first in each block and counts its gas apart (gasUsedDepositTx)', async () => {
    const r = side.receipts[2]
    const details = (await side.rpc('ots_getBlockDetails', [Number(r.blockNumber)])).result
    const block = (await side.rpc('ots_getBlockTransactions', [Number(r.blockNumber), 0, 25])).result
    const [deposit] = block.fullblock.transactions
    expect(deposit.type).toBe('0x7e')
    expect(details.block.transactionCount).toBe(block.fullblock.transactions.length)
    expect(details.gasUsedDepositTx).toBe(block.receipts[0].gasUsed)
    const paid = block.receipts
      .slice(1)
      .reduce((sum: bigint, x: Json) => sum + BigInt(x.gasUsed) * BigInt(x.effectiveGasPrice), 0n)
    expect(BigInt(details.totalFees)).toBe(paid)
    // Receipts keep the L1 fee Otterscan reads on OP chains; a deposit pays none.
    const mine = block.receipts.find((x: Json) => x.transactionHash === side.hashes[2])
    expect(BigInt(mine.l1Fee)).toBeGreaterThan(0n)
    expect(BigInt(block.receipts[0].l1Fee)).toBe(0n)
  })

  it('traces deposits and finds the user transactions among them', async () => {
    const block = (await side.rpc('ots_getBlockTransactions', [Number(side.receipts[0].blockNumber), 0, 25])).result
    const trace = (await side.rpc('ots_traceTransaction', [block.fullblock.transactions[0].hash])).result
    expect(trace[0]).toMatchObject({ type: 'CALL', depth: 0, to: '0x4200000000000000000000000000000000000015' })
    const before = (await side.rpc('ots_searchTransactionsBefore', [SENDER, 0, 25])).result
    expect(before.txs.map((t: Json) => t.hash)).toEqual([...side.hashes].reverse())
    expect(before).toMatchObject({ firstPage: true, lastPage: true })
    const ops = (await side.rpc('ots_getInternalOperations', [side.hashes[2]])).result
    expect(ops).toEqual([
      { type: 2, from: SENDER, to: C, value: '0x2' },
      { type: 0, from: C, to: E, value: '0x1' },
    ])
    expect((await side.rpc('ots_getContractCreator', [E])).result).toEqual({ hash: side.hashes[1], creator: SENDER })
    expect((await side.rpc('ots_getTransactionError', [side.hashes[3]])).result).toBe(REVERT_DATA)
  })
})

describe('Otterscan API beside anvil: a factory (STATICCALL, DELEGATECALL, CREATE2, SELFDESTRUCT)', () => {
  let node: TestNode
  let anvil: { url: string; stop: () => void }
  const results: Json[] = []

  beforeAll(async () => {
    ;[node, anvil] = await Promise.all([
      startTestNode({ profile: 'ethereum', blockTime: 0 }),
      startAnvil(['--host', '127.0.0.1']),
    ])
    const sides = await Promise.all([scenario(node.rpcUrl), scenario(anvil.url)])
    // F, called with value: STATICCALL SINK (E logs, which a static frame may not), DELEGATECALL E,
    // then CREATE2 (1 wei, salt 0) of init code CALLER SELFDESTRUCT, which sends the wei back at once.
    const call = (to: Hex, op: string) => concat(['0x5f5f5f5f73', to, `0x5a${op}50`])
    const runtime = concat([call(SINK, 'fa'), call(E, 'f4'), '0x6133ff5f525f6002601e6001f55000'])
    const size = toHex((runtime.length - 2) / 2, { size: 2 }).slice(2)
    const init = concat([`0x61${size}600e60003961${size}6000f3`, runtime])
    const F = getContractAddress({ from: account.address, nonce: 4n })
    for (const [i, url] of [node.rpcUrl, anvil.url].entries()) {
      const { rpc, wallet } = await clientsAt(url)
      const deploy = await wallet.sendTransaction({ data: init, gas: 200_000n })
      await poll(
        async () => (await rpc('eth_getTransactionReceipt', [deploy])).result,
        (r) => r?.blockHash && r.blockHash !== ZERO_HASH,
      )
      const call = await wallet.sendTransaction({ to: F, value: 5n, gas: 300_000n })
      await poll(
        async () => (await rpc('eth_getTransactionReceipt', [call])).result,
        (r) => r?.blockHash && r.blockHash !== ZERO_HASH,
      )
      results[i] = {
        side: sides[i],
        ops: (await rpc('ots_getInternalOperations', [call])).result,
        trace: (await rpc('ots_traceTransaction', [call])).result,
      }
    }
  }, 60_000)
  afterAll(() => {
    anvil?.stop()
    return node?.stop()
  })

  it('answers the same call frames, and the same internal operations but for the self-destructed child', () => {
    const [mine, theirs] = results
    expect(mine.trace).toEqual(theirs.trace)
    expect(mine.trace.map((f: Json) => [f.type, f.depth, f.value])).toEqual([
      ['CALL', 0, '0x5'],
      ['STATICCALL', 1, '0x0'],
      ['DELEGATECALL', 1, '0x5'],
    ])
    // anvil files the child's frame under its self-destruct only (revm marks the frame that ran
    // SELFDESTRUCT), so its CREATE2 row is lost; pcnode lists both, as Erigon does.
    const child = theirs.ops[1].from
    const create2 = { type: 3, from: mine.ops[0].to, to: child, value: '0x1' }
    expect(mine.ops).toEqual([theirs.ops[0], create2, theirs.ops[1]])
    expect(theirs.ops[1]).toEqual({ type: 1, from: child, to: mine.ops[0].to, value: '0x1' })
  })
})
