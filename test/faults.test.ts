// Pre-confirmation faults as an app sees them, through viem and raw WebSocket subscriptions: a
// dropped pre-confirmation (explicit, and the seeded drop rate), halted flashblocks, a restarted
// stream (failover), an irregular cadence, and the settings and errors of the control methods.
import { type Address, type Hex, keccak256, parseGwei, zeroHash } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dropDraw } from '../src/node/faults/random.js'
import {
  emitterInitCode,
  openSocket,
  type RawSocket,
  startTestNode,
  type TestNode,
  testSeed,
  until,
  useTestNode,
  waitForReceipt,
} from './helpers.js'

/** A node that seals only when a test mines: every drop and restart happens in the open block. */
const STILL = { blockTime: 3_600_000, preconfInterval: 20 }

/** The emitter, deployed and sealed: the open block starts empty. */
async function deployEmitter(node: TestNode): Promise<Address> {
  const hash = await node.wallet(0).sendTransaction({ data: emitterInitCode() })
  const address = (await waitForReceipt(node, hash)).contractAddress as Address
  await node.rpc('evm_mine')
  return address
}

/**
 * A call to the emitter from dev account `from`, once pre-confirmed. (viem's waitForTransactionReceipt
 * looks once, then at each new block number: on a node that seals only when told, a poll of the receipt.)
 */
async function emit(node: TestNode, from: number, to: Address, data: Hex): Promise<Hex> {
  const hash = await node.wallet(from).sendTransaction({ to, data })
  const receipt = await waitForReceipt(node, hash)
  expect(receipt.blockHash).toBe(zeroHash) // pre-confirmed, not sealed
  return hash
}

/** A signed transfer with every field fixed, so its hash is the same on every run. */
function signedTransfer(node: TestNode, from: number, nonce = 0): Promise<Hex> {
  return privateKeyToAccount(node.accounts[from].privateKey).signTransaction({
    chainId: node.chainId,
    type: 'eip1559',
    nonce,
    to: node.accounts[9].address,
    value: 1n,
    gas: 21_000n,
    maxFeePerGas: parseGwei('10'),
    maxPriorityFeePerGas: parseGwei('1'),
  })
}

const userTxs = (hashes: Hex[], deposits: Set<string>) => hashes.filter((h) => !deposits.has(h))

describe('pcnode_dropPreconfirmed: Base by default', () => {
  const node = useTestNode(STILL)
  let emitter: Address
  let sock: RawSocket
  beforeAll(async () => {
    emitter = await deployEmitter(node)
    sock = await openSocket(node.wsUrl)
  })
  afterAll(() => sock.close())

  it('a client that waited for a pre-confirmed receipt sees it gone, and everything it could read changes with it', async () => {
    const hashSub = await sock.subscribe(['newFlashblockTransactions'])
    const fullSub = await sock.subscribe(['newFlashblockTransactions', true])
    const logSub = await sock.subscribe(['pendingLogs', { address: emitter }])
    const payloadSub = await sock.subscribe(['newFlashblocks', { format: 'payload' }])
    const sender = node.accounts[1].address
    const nonce0 = Number((await node.rpc('eth_getTransactionCount', [sender, 'pending'])).result)

    // Two from one sender (the second needs the first's nonce), one from another.
    const a0 = await emit(node, 1, emitter, '0xa0')
    const a1 = await emit(node, 1, emitter, '0xa1')
    const b0 = await emit(node, 2, emitter, '0xb0')
    await sock.waitFor(hashSub, (items) => items.includes(b0))
    const pendingBefore = (await node.rpc('eth_getBlockByNumber', ['pending', false])).result
    const payloadId = sock.received(payloadSub).at(-1).payload_id

    const { result } = await node.rpc('pcnode_dropPreconfirmed', [a0])
    expect(result).toEqual({ blockNumber: pendingBefore.number, dropped: [a0, a1], requeued: false })

    // The receipts and transactions are gone; the status says why.
    for (const h of [a0, a1]) {
      expect((await node.rpc('eth_getTransactionReceipt', [h])).result).toBeNull()
      expect((await node.rpc('eth_getTransactionByHash', [h])).result).toBeNull()
      await expect(node.publicClient.getTransactionReceipt({ hash: h })).rejects.toThrow(/could not be found/)
    }
    expect((await node.rpc('pcnode_transactionStatus', [a0])).result).toEqual({
      status: 'dropped',
      blockNumber: pendingBefore.number,
      flashblockIndex: expect.stringMatching(/^0x[1-9a-f]/),
      reason: 'dropped by pcnode_dropPreconfirmed',
      requeued: false,
      pooledAt: expect.any(Number),
      preconfirmedAt: expect.any(Number),
      droppedAt: expect.any(Number),
    })
    const a1Status = (await node.rpc('pcnode_transactionStatus', [a1])).result
    expect(a1Status.status).toBe('dropped')
    expect(a1Status.reason).toBe(`it follows ${a0} (nonce ${nonce0}) of the same sender, which was dropped`)

    // The pending block, its logs and the nonces re-ran without them; the other sender's stays, moved up.
    const pending = (await node.rpc('eth_getBlockByNumber', ['pending', false])).result
    expect(pending.number).toBe(pendingBefore.number)
    expect(pending.transactions).toEqual([pendingBefore.transactions[0], b0]) // the L1-info deposit, then b0
    const b0Receipt = await node.publicClient.getTransactionReceipt({ hash: b0 })
    expect(b0Receipt).toMatchObject({ status: 'success', blockHash: zeroHash, transactionIndex: 1 })
    expect(Number((await node.rpc('eth_getTransactionCount', [sender, 'pending'])).result)).toBe(nonce0)
    const logs = (await node.rpc('eth_getLogs', [{ fromBlock: 'pending', toBlock: 'pending', address: emitter }])).result
    expect(logs.map((l: any) => l.transactionHash)).toEqual([b0])

    // The stream restarted: flashblock 0 again with a new payload id, then the kept transaction.
    const restarted = await sock.waitFor(payloadSub, (items) => items.some((p) => p.payload_id !== payloadId && p.index === 1))
    const fresh = restarted.filter((p) => p.payload_id !== payloadId)
    expect(fresh.map((p) => p.index)).toEqual([0, 1])
    expect(fresh[0].base.block_number).toBe(pending.number)
    expect(fresh[0].diff.transactions.map((raw: Hex) => raw.slice(0, 4))).toEqual(['0x7e'])
    expect(fresh[1].diff.transactions.map((raw: Hex) => keccak256(raw))).toEqual([b0])

    // Base's RPC announces nothing on pendingLogs / newFlashblockTransactions, and pcnode by default
    // neither: no removal, and nothing announced twice. A later transaction arrives after all of it.
    const c0 = await emit(node, 3, emitter, '0xc0')
    await sock.waitFor(logSub, (items) => items.some((l) => l.transactionHash === c0))
    const deposits = new Set(
      sock
        .received(fullSub)
        .filter((t) => t.type === '0x7e')
        .map((t) => t.hash),
    )
    const hashes = sock.received(hashSub)
    expect(new Set(hashes).size).toBe(hashes.length)
    expect(userTxs(hashes, deposits)).toEqual([a0, a1, b0, c0])
    expect(sock.received(fullSub).some((t) => t.removed)).toBe(false)
    expect(sock.received(logSub).map((l) => [l.transactionHash, l.removed])).toEqual([
      [a0, false],
      [a1, false],
      [b0, false],
      [c0, false],
    ])

    // Sealed: the block never had them; the status still says dropped. The sender's next
    // transaction takes the dropped one's nonce.
    await node.rpc('evm_mine')
    const sealed = (await node.rpc('eth_getBlockByNumber', [pending.number, false])).result
    expect(sealed.transactions).toEqual([pendingBefore.transactions[0], b0, c0])
    expect((await node.rpc('eth_getTransactionReceipt', [a0])).result).toBeNull()
    expect((await node.rpc('pcnode_transactionStatus', [a0])).result.status).toBe('dropped')
    const again = await node.wallet(1).sendTransaction({ to: emitter, data: '0xa0' })
    expect((await waitForReceipt(node, again)).blockNumber).toBe(BigInt(pending.number) + 1n)
    expect((await node.publicClient.getTransaction({ hash: again })).nonce).toBe(nonce0)
  })

  it('refuses what cannot be dropped, naming why, and keeps serving', async () => {
    const unknown = `0x${'ab'.repeat(32)}`
    expect((await node.rpc('pcnode_dropPreconfirmed', [unknown])).error).toEqual({
      code: -32000,
      message: `transaction ${unknown} not found`,
    })
    const sealedTx = (await node.rpc('eth_getBlockByNumber', ['latest', false])).result
    const sealedHash = sealedTx.transactions[1]
    const sealed = (await node.rpc('pcnode_dropPreconfirmed', [sealedHash])).error
    expect(sealed.code).toBe(-32000)
    expect(sealed.message).toBe(
      `transaction ${sealedHash} is already sealed in block ${BigInt(sealedTx.number)}: only the open block's pre-confirmed transactions can be dropped`,
    )
    const [deposit] = (await node.rpc('eth_getBlockByNumber', ['pending', false])).result.transactions
    const refused = (await node.rpc('pcnode_dropPreconfirmed', [deposit])).error
    expect(refused.code).toBe(-32000)
    expect(refused.message).toMatch(/is a deposit: deposits come from L1 and stay in their block/)
    // One still in the pool: flashblocks halted, it waits for the block to be built.
    expect((await node.rpc('pcnode_haltFlashblocks')).result).toBe(true)
    const raw = await signedTransfer(node, 7)
    const pooled = (await node.rpc('eth_sendRawTransaction', [raw])).result
    expect((await node.rpc('pcnode_transactionStatus', [pooled])).result).toEqual({
      status: 'pending',
      pooledAt: expect.any(Number),
    })
    expect((await node.rpc('pcnode_dropPreconfirmed', [pooled])).error).toEqual({
      code: -32000,
      message: `transaction ${pooled} is not pre-confirmed: it waits in the pool (anvil_dropTransaction takes it out of the pool)`,
    })
    expect((await node.rpc('pcnode_resumeFlashblocks')).result).toBe(true)
    await waitForReceipt(node, pooled)
    // Malformed parameters: -32602 naming the argument.
    expect((await node.rpc('pcnode_dropPreconfirmed', ['0x12'])).error.code).toBe(-32602)
    expect((await node.rpc('pcnode_dropPreconfirmed', [pooled, { requeue: 'yes' }])).error).toEqual({
      code: -32602,
      message: 'invalid argument 1.requeue: expected a boolean',
    })
    expect((await node.rpc('pcnode_dropPreconfirmed', [pooled, { later: true }])).error).toEqual({
      code: -32602,
      message: 'invalid argument 1: unknown field later (expected requeue)',
    })
    expect((await node.rpc('pcnode_dropPreconfirmed', [])).error.code).toBe(-32602)
    expect((await node.rpc('eth_chainId')).result).toBe(`0x${node.chainId.toString(16)}`)
  })
})

describe("pcnode_dropPreconfirmed: pcnode's explicit notification (opt-in) and requeue", () => {
  const node = useTestNode({ ...STILL, preconfDropNotify: true })
  let emitter: Address
  let sock: RawSocket
  beforeAll(async () => {
    emitter = await deployEmitter(node)
    sock = await openSocket(node.wsUrl)
  })
  afterAll(() => sock.close())

  it('tells pendingLogs and newFlashblockTransactions subscribers; the transaction returns in the next block', async () => {
    expect((await node.rpc('pcnode_getPreconfFaults')).result.notifyDropped).toBe(true)
    const hashSub = await sock.subscribe(['newFlashblockTransactions', false])
    const fullSub = await sock.subscribe(['newFlashblockTransactions', true])
    const filterSub = await sock.subscribe(['newFlashblockTransactions', { address: emitter }])
    const logSub = await sock.subscribe(['pendingLogs', { address: emitter }])
    const d0 = await emit(node, 4, emitter, '0xd0')
    await sock.waitFor(logSub, (items) => items.length === 1)
    const blockNumber = (await node.publicClient.getTransactionReceipt({ hash: d0 })).blockNumber

    const { result } = await node.rpc('pcnode_dropPreconfirmed', [d0, { requeue: true }])
    expect(result.requeued).toBe(true)
    const reason = 'dropped by pcnode_dropPreconfirmed'
    const removed = (items: any[]) => items.filter((x) => typeof x === 'object' && x.removed)
    await sock.waitFor(logSub, (items) => removed(items).length === 1, 'the removed log')
    expect(removed(sock.received(hashSub))).toEqual([{ hash: d0, removed: true, reason, requeued: true }])
    const [full] = removed(await sock.waitFor(fullSub, (items) => removed(items).length === 1))
    expect(full).toMatchObject({ hash: d0, removed: true, reason, requeued: true, status: '0x1' })
    expect(full.logs).toHaveLength(1)
    expect(removed(sock.received(filterSub)).map((t) => t.hash)).toEqual([d0])
    const [log] = removed(sock.received(logSub))
    expect(log).toMatchObject({ transactionHash: d0, address: emitter.toLowerCase(), data: '0xd0', removed: true })
    expect((await node.rpc('pcnode_transactionStatus', [d0])).result).toMatchObject({ status: 'dropped', requeued: true })

    // Requeued: back in the pool once its block seals, pre-confirmed in the next one.
    await node.rpc('evm_mine')
    const back = await waitForReceipt(node, d0)
    expect(back.blockNumber).toBe(blockNumber + 1n)
    expect(back.blockHash).toBe(zeroHash)
    expect((await node.rpc('pcnode_transactionStatus', [d0])).result.status).toBe('preconfirmed')
    // Announced again: a pre-confirmation in a new block.
    await sock.waitFor(logSub, (items) => items.filter((l) => !l.removed).length === 2)
    const summary = (await node.rpc('pcnode_getPreconfFaults')).result
    expect(summary.injected).toMatchObject({ dropped: 1, total: 1 })
  })
})

describe('--preconf-drop-rate: seeded and reproducible, applied as the block seals', () => {
  const seed = testSeed('drop rate')
  const senders = [0, 1, 2, 3, 4, 5, 6, 7]

  /** Eight transfers pre-confirmed, the block sealed: which were left out. */
  async function run(options: { seed: number; rate: number }): Promise<{ dropped: Hex[]; hashes: Hex[] }> {
    const node = await startTestNode({ ...STILL, preconfDropRate: options.rate, preconfSeed: options.seed })
    try {
      const hashes: Hex[] = []
      for (const i of senders) hashes.push((await node.rpc('eth_sendRawTransaction', [await signedTransfer(node, i)])).result)
      for (const h of hashes) expect((await waitForReceipt(node, h)).blockHash).toBe(zeroHash)
      await node.rpc('evm_mine')
      const sealed = (await node.rpc('eth_getBlockByNumber', ['latest', false])).result
      const dropped: Hex[] = []
      for (const h of hashes) {
        const status = (await node.rpc('pcnode_transactionStatus', [h])).result
        if (status.status === 'dropped') {
          dropped.push(h)
          expect(status.reason).toBe(
            `left out as block ${BigInt(sealed.number)} sealed (drop rate ${options.rate}, seed ${options.seed})`,
          )
          expect((await node.rpc('eth_getTransactionReceipt', [h])).result).toBeNull()
        } else expect(status.status).toBe('confirmed')
      }
      // The deposit always stays: every block opens with it.
      expect(sealed.transactions).toEqual([expect.any(String), ...hashes.filter((h) => !dropped.includes(h))])
      expect((await node.rpc('pcnode_getPreconfFaults')).result.injected.dropped).toBe(dropped.length)
      return { dropped, hashes }
    } finally {
      await node.stop()
    }
  }

  it('drops the transactions the seed picks, the same ones on every run', async () => {
    const first = await run({ seed, rate: 0.5 })
    const picked = first.hashes.filter((h) => dropDraw(seed, Buffer.from(h.slice(2), 'hex'), 0) < 0.5)
    expect(first.dropped).toEqual(picked)
    expect((await run({ seed, rate: 0.5 })).dropped).toEqual(first.dropped)
  })

  it('rate 1 leaves every sequenced transaction out, never the deposit; rate 0 none', async () => {
    const all = await run({ seed, rate: 1 })
    expect(all.dropped).toEqual(all.hashes)
    expect((await run({ seed, rate: 0 })).dropped).toEqual([])
  })
})

describe('pcnode_haltFlashblocks / pcnode_resumeFlashblocks', () => {
  const node = useTestNode({ blockTime: 400, preconfInterval: 20 })
  let sock: RawSocket
  beforeAll(async () => {
    sock = await openSocket(node.wsUrl)
  })
  afterAll(() => sock.close())

  it('no flashblocks, blocks go on; pending reads latest; viem and the sync send still get their receipt', async () => {
    const heads = await sock.subscribe(['newHeads'])
    const flashes = await sock.subscribe(['newFlashblocks'])
    expect((await node.rpc('pcnode_haltFlashblocks')).result).toBe(true)
    expect((await node.rpc('pcnode_haltFlashblocks')).result).toBe(false)
    // The block open at the halt keeps its pre-confirmations and seals on time; then none opens.
    const openAtHalt = BigInt((await node.rpc('eth_blockNumber')).result) + 1n
    await sock.waitFor(heads, (items) => items.some((h) => BigInt(h.number) === openAtHalt))
    // One batch: both are answered in the same turn, with no seal between them.
    const batch = await node.raw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['pending', false] },
        { jsonrpc: '2.0', id: 2, method: 'eth_getBlockByNumber', params: ['latest', false] },
      ]),
    )
    const [pending, latest] = JSON.parse(batch.text)
    expect(BigInt(pending.result.number)).toBeGreaterThanOrEqual(openAtHalt)
    expect(pending.result.hash).toBe(latest.result.hash)

    // viem on a chain with experimental_preconfirmationTime: the receipt comes once the block seals.
    const hash = await node.wallet(5).sendTransaction({ to: node.accounts[9].address, value: 1n })
    const receipt = await node.publicClient.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(receipt.blockHash).not.toBe(zeroHash)
    expect((await node.rpc('pcnode_transactionStatus', [hash])).result.status).toBe('confirmed')
    // eth_sendRawTransactionSync answers with the sealed receipt (Base's races the canonical chain too).
    const sync = await node.rpc('eth_sendRawTransactionSync', [await signedTransfer(node, 6)])
    expect(sync.result.status).toBe('0x1')
    expect(sync.result.blockHash).not.toBe(zeroHash)
    // Nothing was pre-confirmed: no flashblock for any block after the one open at the halt.
    await sock.waitFor(heads, (items) => items.some((h) => BigInt(h.number) >= BigInt(sync.result.blockNumber)))
    expect(sock.received(flashes).filter((b) => BigInt(b.number) > openAtHalt)).toEqual([])
    expect((await node.rpc('pcnode_getPreconfFaults')).result).toMatchObject({ halted: true, injected: { halts: 1 } })

    // Resumed: flashblock 0 of a new block, and pre-confirmed receipts again.
    expect((await node.rpc('pcnode_resumeFlashblocks')).result).toBe(true)
    expect((await node.rpc('pcnode_resumeFlashblocks')).result).toBe(false)
    await sock.waitFor(flashes, (items) => items.some((b) => BigInt(b.number) > BigInt(sync.result.blockNumber)))
    const next = await node.rpc('eth_sendRawTransactionSync', [await signedTransfer(node, 7)])
    expect(next.result.blockHash).toBe(zeroHash)
    expect((await node.rpc('pcnode_getPreconfFaults')).result.halted).toBe(false)
  })
})

describe('pcnode_restartFlashblocks (failover)', () => {
  const node = useTestNode(STILL)
  let emitter: Address
  let sock: RawSocket
  beforeAll(async () => {
    emitter = await deployEmitter(node)
    sock = await openSocket(node.wsUrl)
  })
  afterAll(() => sock.close())

  const receipt = async (h: Hex) => (await node.rpc('eth_getTransactionReceipt', [h])).result

  it('subscribers see flashblock 0 again with a new payload id, and no transaction twice', async () => {
    const payloadSub = await sock.subscribe(['newFlashblocks', { format: 'payload' }])
    const hashSub = await sock.subscribe(['newFlashblockTransactions'])
    const logSub = await sock.subscribe(['pendingLogs', { address: emitter }])
    const a0 = await emit(node, 1, emitter, '0xa0')
    const a1 = await emit(node, 1, emitter, '0xa1')
    const b0 = await emit(node, 2, emitter, '0xb0')
    await sock.waitFor(logSub, (items) => items.length === 3)
    const before = await Promise.all([a0, a1, b0].map(receipt))
    const firstPayload = sock.received(payloadSub).at(-1).payload_id
    const streamOf = (id: string) => sock.received(payloadSub).filter((p) => p.payload_id === id)

    // The same transactions in the same order: the same receipts, under a new payload id.
    const same = (await node.rpc('pcnode_restartFlashblocks')).result
    expect(same).toMatchObject({ transactions: 3, order: 'same' })
    expect(same.payloadId).toMatch(/^0x[0-9a-f]{16}$/)
    expect(same.payloadId).not.toBe(firstPayload)
    await sock.waitFor(payloadSub, () => streamOf(same.payloadId).length === 2)
    const [zero, one] = streamOf(same.payloadId)
    expect([zero.index, one.index]).toEqual([0, 1])
    expect(zero.base.block_number).toBe(same.blockNumber)
    expect(zero.diff.transactions.map((raw: Hex) => raw.slice(0, 4))).toEqual(['0x7e'])
    expect(one.diff.transactions.map((raw: Hex) => keccak256(raw))).toEqual([a0, a1, b0])
    expect(await Promise.all([a0, a1, b0].map(receipt))).toEqual(before)

    // Another order: each sender's transactions still in nonce order.
    const reversed = (await node.rpc('pcnode_restartFlashblocks', [{ order: 'reverse' }])).result
    expect(reversed).toMatchObject({ blockNumber: same.blockNumber, transactions: 3, order: 'reverse' })
    await sock.waitFor(payloadSub, () => streamOf(reversed.payloadId).length === 2)
    expect(streamOf(reversed.payloadId)[1].diff.transactions.map((raw: Hex) => keccak256(raw))).toEqual([b0, a0, a1])
    expect((await Promise.all([b0, a0, a1].map(receipt))).map((r) => Number(r.transactionIndex))).toEqual([1, 2, 3])
    const pending = (await node.rpc('eth_getBlockByNumber', ['pending', false])).result
    expect(pending.transactions.slice(1)).toEqual([b0, a0, a1])

    // Followers of transactions and logs: each once, a later one after them.
    const c0 = await emit(node, 3, emitter, '0xc0')
    await sock.waitFor(logSub, (items) => items.some((l) => l.transactionHash === c0))
    const hashes = sock.received(hashSub)
    expect(new Set(hashes).size).toBe(hashes.length)
    expect(hashes.filter((h: Hex) => [a0, a1, b0, c0].includes(h))).toEqual([a0, a1, b0, c0])
    expect(sock.received(logSub).map((l) => l.transactionHash)).toEqual([a0, a1, b0, c0])
    // Three streams of one block, each from flashblock 0.
    const zeros = sock.received(payloadSub).filter((p) => p.index === 0 && p.base.block_number === same.blockNumber)
    expect(zeros.length).toBeGreaterThanOrEqual(2)
    expect((await node.rpc('pcnode_getPreconfFaults')).result.injected.restarts).toBe(2)
  })

  it('a shuffled restart keeps every transaction; bad input and a halted stream are refused', async () => {
    const shuffled = (await node.rpc('pcnode_restartFlashblocks', [{ order: 'shuffle' }])).result
    expect(shuffled.order).toBe('shuffle')
    const pending = (await node.rpc('eth_getBlockByNumber', ['pending', false])).result
    expect(pending.transactions).toHaveLength(shuffled.transactions + 1)
    expect((await node.rpc('pcnode_restartFlashblocks', [{ order: 'sideways' }])).error).toEqual({
      code: -32602,
      message: 'invalid argument 0: unknown order "sideways" (expected "same", "reverse", "shuffle")',
    })
    expect((await node.rpc('pcnode_restartFlashblocks', ['same'])).error.code).toBe(-32602)
    await node.rpc('pcnode_haltFlashblocks')
    expect((await node.rpc('pcnode_restartFlashblocks')).error).toEqual({
      code: -32000,
      message: 'flashblocks are halted: there is no stream to restart (pcnode_resumeFlashblocks starts one)',
    })
    await node.rpc('pcnode_resumeFlashblocks')
  })
})

describe('--preconf-jitter: an irregular cadence', () => {
  const node = useTestNode({ blockTime: 600, preconfInterval: 60 })

  it('blocks get more or fewer flashblock intervals than blockTime / preconfInterval, each logged', async () => {
    const lines: string[] = []
    node.node.events.on('fault', ({ kind, message }) => {
      if (kind === 'cadence') lines.push(message)
    })
    const set = (await node.rpc('pcnode_setPreconfFaults', [{ jitterMs: 50, seed: 2 }])).result
    expect(set).toMatchObject({ jitterMs: 50, seed: 2, dropRate: 0 })
    await until(
      async () => (await node.rpc('pcnode_getPreconfFaults')).result.injected.irregularBlocks > 0,
      20_000,
      'an irregular block',
    )
    expect(lines.length).toBeGreaterThan(0)
    expect(lines[0]).toMatch(/^cadence: block \d+ got \d+ flashblock intervals, not 10 \(jitter 50 ms\)$/)
    // Pre-confirmations still come, between irregular ticks.
    const sync = await node.rpc('eth_sendRawTransactionSync', [await signedTransfer(node, 1)])
    expect(sync.result.blockHash).toBe(zeroHash)
  })
})

describe('pcnode_setPreconfFaults / pcnode_getPreconfFaults', () => {
  const node = useTestNode(STILL)

  it('reads the settings and the counts back; refuses bad values naming them', async () => {
    expect((await node.rpc('pcnode_getPreconfFaults')).result).toEqual({
      dropRate: 0,
      seed: 0,
      jitterMs: 0,
      requeue: false,
      notifyDropped: false,
      reorgRate: 0,
      reorgDepth: 1,
      halted: false,
      injected: { dropped: 0, halts: 0, restarts: 0, irregularBlocks: 0, reorgedBlocks: 0, total: 0 },
    })
    const set = await node.rpc('pcnode_setPreconfFaults', [{ dropRate: 0.25, seed: '0x10', requeue: true }])
    expect(set.result).toMatchObject({ dropRate: 0.25, seed: 16, requeue: true, jitterMs: 0 })
    const bad: Array<[unknown, string]> = [
      [{ dropRate: 1.5 }, 'invalid argument 0: invalid dropRate 1.5: expected a number from 0 to 1'],
      [{ dropRate: '0.5' }, 'invalid argument 0: dropRate must be a JSON number from 0 to 1'],
      [{ seed: 2 ** 32 }, 'invalid argument 0: invalid seed 4294967296: expected an integer from 0 to 4294967295'],
      [{ jitterMs: 'soon' }, 'invalid argument 0.jitterMs: hex string without 0x prefix or with invalid characters'],
      [{ jitterMs: 60_001 }, 'invalid argument 0: invalid jitterMs 60001: expected whole milliseconds from 0 to 60000'],
      [{ notifyDropped: 1 }, 'invalid argument 0.notifyDropped: expected a boolean'],
      [
        { dropRat: 0.1 },
        'invalid argument 0: unknown field dropRat (expected dropRate, seed, jitterMs, requeue, notifyDropped, reorgRate, reorgDepth)',
      ],
      [
        [0.1],
        'invalid argument 0: expected an object of dropRate, seed, jitterMs, requeue, notifyDropped, reorgRate, reorgDepth',
      ],
    ]
    for (const [param, message] of bad) {
      expect((await node.rpc('pcnode_setPreconfFaults', [param])).error).toEqual({ code: -32602, message })
    }
    expect((await node.rpc('pcnode_setPreconfFaults')).error.code).toBe(-32602)
    // Nothing half-applied.
    expect((await node.rpc('pcnode_getPreconfFaults')).result).toMatchObject({ dropRate: 0.25, seed: 16 })
  })

  it('startNode refuses bad fault options', async () => {
    await expect(startTestNode({ preconfDropRate: 2 })).rejects.toThrow('invalid dropRate 2: expected a number from 0 to 1')
    await expect(startTestNode({ preconfJitter: -1 })).rejects.toThrow(/invalid jitterMs -1/)
  })
})
