// Test-client control through viem's test actions (createTestClient, modes anvil / hardhat /
// ganache) against real nodes: setters, mining, time, snapshots, impersonation, mining modes,
// dropping, reset, dump and load.
import { type AddressInfo, createServer } from 'node:net'
import {
  type Address,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  numberToHex,
  pad,
  parseEther,
  parseGwei,
  zeroHash,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { counterAbi, counterBytecode } from './fixtures/counter.js'
import { openSocket, poll, sleep, startTestNode, type TestNode, testClient, useTestNode, waitForReceipt } from './helpers.js'

// PUSH0 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns storage slot 0.
const SLOT0_RETURNER = '0x5f5460005260206000f3'

async function blockNumber(node: TestNode): Promise<bigint> {
  return BigInt((await node.rpc('eth_blockNumber')).result)
}

interface BlockView {
  number: bigint
  hash: Hex
  parentHash: Hex
  timestamp: bigint
  transactions: Hex[]
}

/** A block with no cache in between (viem caches the block number). */
async function block(node: TestNode, tag: 'latest' | 'pending' | bigint): Promise<BlockView> {
  const found =
    typeof tag === 'bigint' ? node.publicClient.getBlock({ blockNumber: tag }) : node.publicClient.getBlock({ blockTag: tag })
  return (await found) as unknown as BlockView
}

async function deployCounter(node: TestNode, start = 1n): Promise<Address> {
  const hash = await node.wallet(0).deployContract({ abi: counterAbi, bytecode: counterBytecode, args: [start] })
  const receipt = await waitForReceipt(node, hash)
  return receipt.contractAddress as Address
}

describe('dev methods: accounts, blocks and time (mode anvil)', () => {
  // An hour between seals: the tests seal with anvil_mine / evm_mine.
  const node = useTestNode({ blockTime: 3_600_000, preconfInterval: 10 })
  let test: ReturnType<typeof testClient>
  beforeAll(() => {
    test = testClient(node)
  })

  it('anvil_setBalance / setNonce / setCode / setStorageAt show at "latest" and "pending" at once, and in the next block', async () => {
    const pub = node.publicClient
    const target = '0x00000000000000000000000000000000000000a1' as Address
    // A pre-confirmed transfer in the open block: "latest" must not see it, the setters must show at both.
    const sender = node.accounts[0].address
    const senderLatest = await pub.getBalance({ address: sender, blockTag: 'latest' })
    await waitForReceipt(node, await node.wallet(0).sendTransaction({ to: node.accounts[1].address, value: 1n }))

    await test.setBalance({ address: target, value: parseEther('3') })
    await test.setNonce({ address: target, nonce: 7 })
    await test.setCode({ address: target, bytecode: SLOT0_RETURNER })
    await test.setStorageAt({ address: target, index: 0, value: pad('0x2a') })
    for (const blockTag of ['latest', 'pending'] as const) {
      expect(await pub.getBalance({ address: target, blockTag })).toBe(parseEther('3'))
      expect(await pub.getTransactionCount({ address: target, blockTag })).toBe(7)
      expect(await pub.getCode({ address: target, blockTag })).toBe(SLOT0_RETURNER)
      expect(await pub.getStorageAt({ address: target, slot: '0x0', blockTag })).toBe(pad('0x2a'))
      expect((await pub.call({ to: target, blockTag })).data).toBe(pad('0x2a'))
    }
    expect(await pub.getBalance({ address: sender, blockTag: 'latest' })).toBe(senderLatest)
    expect(await pub.getBalance({ address: sender, blockTag: 'pending' })).toBeLessThan(senderLatest)

    await test.mine({ blocks: 1 })
    const sealed = await block(node, 'latest')
    expect(await pub.getBalance({ address: target, blockNumber: sealed.number })).toBe(parseEther('3'))
    expect(await pub.getStorageAt({ address: target, slot: '0x0', blockNumber: sealed.number })).toBe(pad('0x2a'))
    expect(await pub.getBalance({ address: sender, blockTag: 'latest' })).toBeLessThan(senderLatest)
    // The sealed header still hashes to its hash (the state root in it is the real one).
    expect(sealed.hash).toBe((await pub.getBlock({ blockHash: sealed.hash })).hash)
  })

  it('anvil_setBalance over 256 bits and anvil_setNonce over 64 bits are refused as geth refuses such numbers', async () => {
    const target = '0x00000000000000000000000000000000000000a2'
    const balance = await node.rpc('anvil_setBalance', [target, `0x1${'0'.repeat(64)}`])
    expect(balance.error).toMatchObject({ code: -32602, message: 'invalid argument balance: hex number > 256 bits' })
    const nonce = await node.rpc('anvil_setNonce', [target, `0x1${'0'.repeat(16)}`])
    expect(nonce.error).toMatchObject({ code: -32602, message: 'invalid argument nonce: hex number > 64 bits' })
    expect((await node.rpc('eth_getBalance', [target, 'latest'])).result).toBe('0x0')
    // The largest values are taken.
    expect((await node.rpc('anvil_setBalance', [target, `0x${'f'.repeat(64)}`])).error).toBeUndefined()
    expect((await node.rpc('eth_getBalance', [target, 'latest'])).result).toBe(`0x${'f'.repeat(64)}`)
  })

  it('edits in one batch request apply in order: each read sees exactly the edits before it', async () => {
    const who = '0x00000000000000000000000000000000000ba7c4'
    const call = (id: number, method: string, params: unknown[]) => ({ jsonrpc: '2.0', id, method, params })
    const batch = [
      call(1, 'anvil_setBalance', [who, '0x1']),
      call(2, 'anvil_setBalance', [who, '0x2']),
      call(3, 'eth_getBalance', [who, 'latest']),
      call(4, 'anvil_setBalance', [who, '0x3']),
      call(5, 'anvil_setNonce', [who, '0x7']),
      call(6, 'eth_getBalance', [who, 'pending']),
      call(7, 'eth_getTransactionCount', [who, 'latest']),
      ...Array.from({ length: 200 }, (_, i) =>
        call(100 + i, 'anvil_setBalance', [`0x${(0xbeef00 + i).toString(16).padStart(40, '0')}`, numberToHex(i + 1)]),
      ),
      call(8, 'eth_getBalance', [`0x${(0xbeef00 + 199).toString(16).padStart(40, '0')}`, 'latest']),
    ]
    const { text } = await node.raw(JSON.stringify(batch))
    const byId = new Map((JSON.parse(text) as Array<{ id: number; result: unknown }>).map((r) => [r.id, r.result]))
    expect([3, 6, 7, 8].map((id) => byId.get(id))).toEqual(['0x2', '0x3', '0x7', '0xc8'])
    expect([1, 2, 4, 5, 100, 299].map((id) => byId.get(id))).toEqual([null, null, null, null, null, null])
  })

  it("a past head's edits nobody read are written when its state is asked for: reads at its number, traces of the next block", async () => {
    const pub = node.publicClient
    // A fresh key: its only funds are the edit's, so replaying its transfer needs the edited state.
    const key = '0x5eed000000000000000000000000000000000000000000000000000000000001'
    const account = privateKeyToAccount(key)
    const wallet = createWalletClient({ chain: node.chain, transport: http(node.rpcUrl), account })
    const edited = await blockNumber(node)
    await test.setBalance({ address: account.address, value: parseEther('1') })
    const hash = await wallet.sendTransaction({ to: node.accounts[1].address, value: 1n })
    await waitForReceipt(node, hash)
    await test.mine({ blocks: 1 })
    // The head moves on; an edit at the new head leaves the past one's unwritten.
    await test.setBalance({ address: account.address, value: 5n })
    expect(await pub.getBalance({ address: account.address, blockTag: 'latest' })).toBe(5n)
    expect(await pub.getBalance({ address: account.address, blockNumber: edited })).toBe(parseEther('1'))
    const trace = await node.rpc('debug_traceTransaction', [hash, { tracer: 'callTracer' }])
    expect(trace.error).toBeUndefined()
    expect(trace.result.error).toBeUndefined()
    expect(BigInt(trace.result.value)).toBe(1n)
  })

  it('anvil_setNonce drops pooled transactions below the new nonce', async () => {
    const account = privateKeyToAccount(node.accounts[5].privateKey)
    const nonce = await node.publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' })
    // Nonce + 1 leaves a gap, so it waits in the pool.
    const raw = await account.signTransaction({
      chainId: node.chainId,
      type: 'eip1559',
      to: account.address,
      nonce: nonce + 1,
      gas: 21000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: 1n,
    })
    const hash = (await node.rpc('eth_sendRawTransaction', [raw])).result
    expect((await node.rpc('base_transactionStatus', [hash])).result.status).toBe('Known')
    await test.setNonce({ address: account.address, nonce: nonce + 5 })
    expect((await node.rpc('base_transactionStatus', [hash])).result.status).toBe('Unknown')
    expect(await node.publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' })).toBe(nonce + 5)
  })

  it('anvil_mine mines blocks `interval` seconds apart; evm_mine (ganache form and with a timestamp)', async () => {
    const start = await blockNumber(node)
    await test.mine({ blocks: 3, interval: 60 })
    expect(await blockNumber(node)).toBe(start + 3n)
    const blocks = await Promise.all([1n, 2n, 3n].map((i) => block(node, start + i)))
    expect(blocks[1].timestamp - blocks[0].timestamp).toBe(60n)
    expect(blocks[2].timestamp - blocks[1].timestamp).toBe(60n)
    expect(blocks[1].parentHash).toBe(blocks[0].hash)

    // viem's ganache mode sends evm_mine with { blocks }.
    await testClient(node, 'ganache').mine({ blocks: 2 })
    expect(await blockNumber(node)).toBe(start + 5n)

    const timestamp = blocks[2].timestamp + 1000n
    expect(await test.request({ method: 'evm_mine', params: [numberToHex(timestamp)] } as never)).toBe('0x0')
    const mined = await block(node, 'latest')
    expect(mined.number).toBe(start + 6n)
    expect(mined.timestamp).toBe(timestamp)
    // Later blocks continue from there.
    await test.mine({ blocks: 1 })
    const next = await block(node, 'latest')
    expect(next.timestamp).toBeGreaterThan(timestamp)
    expect(next.timestamp).toBeLessThan(timestamp + 10n)
  })

  it('evm_increaseTime moves block time forward, for the open block too', async () => {
    const counter = await deployCounter(node)
    await test.mine({ blocks: 1 })
    const head = await block(node, 'latest')
    const offset = await test.increaseTime({ seconds: 3600 })
    expect(Number(offset)).toBeGreaterThanOrEqual(3600)
    const pending = await block(node, 'pending')
    expect(pending.timestamp).toBeGreaterThanOrEqual(head.timestamp + 3600n)
    const [, seen] = await node.publicClient.readContract({ address: counter, abi: counterAbi, functionName: 'blockInfo' })
    expect(seen).toBe(pending.timestamp)
    await test.mine({ blocks: 1 })
    expect((await block(node, 'latest')).timestamp).toBe(pending.timestamp)
  })

  it('evm_setNextBlockTimestamp stamps the pending block exactly, its transactions included', async () => {
    const head = await block(node, 'latest')
    const timestamp = head.timestamp + 500n
    await test.setNextBlockTimestamp({ timestamp })
    expect((await block(node, 'pending')).timestamp).toBe(timestamp)
    const hash = await node.wallet(0).sendTransaction({ to: node.accounts[2].address, value: 1n })
    await waitForReceipt(node, hash)
    await test.mine({ blocks: 1 })
    const sealed = await block(node, 'latest')
    expect(sealed.timestamp).toBe(timestamp)
    expect(sealed.transactions).toContain(hash)
    await expect(test.setNextBlockTimestamp({ timestamp })).rejects.toThrow(/lower than or equal to previous block's timestamp/)
  })
})

describe('dev methods: evm_snapshot / evm_revert', () => {
  const node = useTestNode({ blockTime: 3_600_000, preconfInterval: 10 })
  let test: ReturnType<typeof testClient>
  beforeAll(() => {
    test = testClient(node)
  })

  it('restores balances, nonces, code, storage, blocks, the pending block and the pool exactly', async () => {
    const pub = node.publicClient
    const counter = await deployCounter(node, 5n)
    await test.mine({ blocks: 2 })
    // In the open block: a pre-confirmed call. In the pool: a transaction behind a nonce gap.
    const increase = await node
      .wallet(1)
      .writeContract({ address: counter, abi: counterAbi, functionName: 'increase', args: [2n] })
    await waitForReceipt(node, increase)
    const gapSender = privateKeyToAccount(node.accounts[2].privateKey)
    const gapNonce = await pub.getTransactionCount({ address: gapSender.address, blockTag: 'pending' })
    const gapRaw = await gapSender.signTransaction({
      chainId: node.chainId,
      type: 'eip1559',
      to: node.accounts[3].address,
      value: 5n,
      nonce: gapNonce + 1,
      gas: 21000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: 1n,
    })
    const gapHash = (await node.rpc('eth_sendRawTransaction', [gapRaw])).result as Hex
    const addresses = [...node.accounts.slice(0, 4).map((a) => a.address), counter]

    const observe = async () => {
      const out: Record<string, unknown> = {}
      out.blockNumber = await blockNumber(node)
      out.latest = (await node.rpc('eth_getBlockByNumber', ['latest', true])).result
      out.pending = (await node.rpc('eth_getBlockByNumber', ['pending', true])).result.transactions
      for (const blockTag of ['latest', 'pending'] as const) {
        for (const address of addresses) {
          out[`${address}@${blockTag}`] = [
            await pub.getBalance({ address, blockTag }),
            await pub.getTransactionCount({ address, blockTag }),
            await pub.getCode({ address, blockTag }),
            await pub.getStorageAt({ address, slot: '0x0', blockTag }),
          ]
        }
      }
      out.increase = (await node.rpc('eth_getTransactionReceipt', [increase])).result
      out.gap = (await node.rpc('eth_getTransactionByHash', [gapHash])).result
      out.gapStatus = (await node.rpc('base_transactionStatus', [gapHash])).result
      out.logs = (await node.rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'pending' }])).result
      return out
    }
    const before = await observe()
    const id = await test.snapshot()

    // Change everything.
    const later = await node.wallet(0).sendTransaction({ to: node.accounts[3].address, value: parseEther('1') })
    await waitForReceipt(node, later)
    await node.wallet(2).sendTransaction({ to: node.accounts[3].address, value: 1n, nonce: gapNonce }) // fills the gap
    await test.mine({ blocks: 3 })
    await test.setBalance({ address: node.accounts[1].address, value: 1n })
    await test.setNonce({ address: node.accounts[1].address, nonce: 99 })
    await test.setCode({ address: counter, bytecode: SLOT0_RETURNER })
    await test.setStorageAt({ address: counter, index: 0, value: pad('0xff') })
    await test.increaseTime({ seconds: 100 })
    expect(await node.publicClient.getTransactionReceipt({ hash: gapHash })).toBeDefined()
    expect(await observe()).not.toEqual(before)

    await test.revert({ id })
    expect(await observe()).toEqual(before)
    expect((await node.rpc('eth_getTransactionReceipt', [later])).result).toBeNull()
    // A snapshot is used up by reverting to it.
    expect((await node.rpc('evm_revert', [id])).result).toBe(false)

    // The node goes on from the restored state: the gap fills and both mine.
    const fill = await node.wallet(2).sendTransaction({ to: node.accounts[3].address, value: 1n, nonce: gapNonce })
    await waitForReceipt(node, fill)
    await waitForReceipt(node, gapHash)
    await test.mine({ blocks: 1 })
    const sealed = await block(node, 'latest')
    expect(sealed.transactions).toEqual(expect.arrayContaining([increase, fill, gapHash]))
  })

  it('nested snapshots revert in any order; unknown ids answer false', async () => {
    const address = '0x00000000000000000000000000000000000000b2' as Address
    await test.setBalance({ address, value: 1n })
    const first = await test.snapshot()
    await test.setBalance({ address, value: 2n })
    await test.mine({ blocks: 1 })
    const second = await test.snapshot()
    await test.setBalance({ address, value: 3n })
    await test.revert({ id: second })
    expect(await node.publicClient.getBalance({ address })).toBe(2n)
    await test.revert({ id: first })
    expect(await node.publicClient.getBalance({ address })).toBe(1n)
    expect((await node.rpc('evm_revert', ['0x999'])).result).toBe(false)
  })

  it('edits after a revert build on the restored state, not on the edits it undid (a block pending throughout)', async () => {
    const [a, b, c] = ['0xc1', '0xc2', '0xc3'].map((n) => `0x${n.slice(2).padStart(40, '0')}` as Address)
    // The head's edited state is kept between edits (dev/edits.ts HeadState): a revert must drop it.
    expect((await node.rpc('eth_getBlockByNumber', ['pending', false])).result).not.toBeNull()
    await test.setBalance({ address: a, value: 1n })
    const id = await test.snapshot()
    await test.setBalance({ address: b, value: 2n })
    expect(await node.publicClient.getBalance({ address: b })).toBe(2n)
    await test.revert({ id })
    await test.setBalance({ address: c, value: 3n })
    for (const blockTag of ['latest', 'pending'] as const) {
      const balances = await Promise.all([a, b, c].map((address) => node.publicClient.getBalance({ address, blockTag })))
      expect(balances, blockTag).toEqual([1n, 0n, 3n])
    }
  })
})

describe('dev methods: impersonation', () => {
  const node = useTestNode({ blockTime: 500, preconfInterval: 10 })
  let test: ReturnType<typeof testClient>
  beforeAll(() => {
    test = testClient(node)
  })

  it('anvil_impersonateAccount lets eth_sendTransaction send from an address without a key, until stopped', async () => {
    const whale = '0x000000000000000000000000000000000000bEEF' as Address
    await test.setBalance({ address: whale, value: parseEther('10') })
    await test.impersonateAccount({ address: whale })
    const wallet = createWalletClient({ chain: node.chain, transport: http(node.rpcUrl, { retryCount: 0 }), account: whale })
    const to = node.accounts[4].address
    const before = await node.publicClient.getBalance({ address: to })
    const hash = await wallet.sendTransaction({ to, value: parseEther('1') })
    const receipt = await waitForReceipt(node, hash)
    expect(receipt.status).toBe('success')
    expect(receipt.from).toBe(whale.toLowerCase())
    expect((await node.publicClient.getTransaction({ hash })).from).toBe(whale.toLowerCase())
    expect(await node.publicClient.getBalance({ address: to })).toBe(before + parseEther('1'))

    // A contract sees the impersonated sender as msg.sender.
    const counter = await deployCounter(node)
    const call = await wallet.writeContract({
      address: counter,
      abi: counterAbi,
      functionName: 'increase',
      args: [1n],
      gas: 100_000n,
    })
    const logs = (await waitForReceipt(node, call)).logs
    expect(logs[0].topics[1]).toBe(pad(whale.toLowerCase() as Hex))
    // Sealed like any other transaction.
    const sealed = await poll(
      () => node.publicClient.getTransactionReceipt({ hash: call }),
      (r) => r.blockHash !== zeroHash,
      { timeoutMs: 5000, what: 'the impersonated call sealed' },
    )
    expect((await node.publicClient.getBlock({ blockHash: sealed.blockHash })).transactions).toContain(call)

    await test.stopImpersonatingAccount({ address: whale })
    await expect(wallet.sendTransaction({ to, value: 1n })).rejects.toThrow(/unknown account/)

    // anvil_autoImpersonateAccount: every address, until turned off.
    expect((await node.rpc('anvil_autoImpersonateAccount', [true])).result).toBeNull()
    expect((await waitForReceipt(node, await wallet.sendTransaction({ to, value: 1n }))).status).toBe('success')
    await node.rpc('anvil_autoImpersonateAccount', [false])
    await expect(wallet.sendTransaction({ to, value: 1n })).rejects.toThrow(/unknown account/)
  })

  it('eth_sendUnsignedTransaction sends from any address (viem sendUnsignedTransaction)', async () => {
    const from = '0x00000000000000000000000000000000000C0ffe' as Address
    await test.setBalance({ address: from, value: parseEther('1') })
    const counter = await deployCounter(node)
    const hash = await test.sendUnsignedTransaction({
      from,
      to: counter,
      data: encodeFunctionData({ abi: counterAbi, functionName: 'increase', args: [3n] }),
    })
    const receipt = await waitForReceipt(node, hash)
    expect(receipt.status).toBe('success')
    expect(receipt.from).toBe(from.toLowerCase())
  })
})

describe('dev methods: mining modes', () => {
  const node = useTestNode({ blockTime: 3_600_000, preconfInterval: 50 })
  let test: ReturnType<typeof testClient>
  beforeAll(() => {
    test = testClient(node)
  })

  const config = async () => (await node.rpc('pcnode_getMiningConfig')).result

  it('anvil_setAutomine: a block per transaction; off stops mining until anvil_mine', async () => {
    expect(await test.getAutomine()).toBe(false)
    await test.setAutomine(true)
    expect(await test.getAutomine()).toBe(true)
    const start = await blockNumber(node)
    const hash = await node.wallet(0).sendTransaction({ to: node.accounts[1].address, value: 1n })
    const receipt = await poll(
      () => node.publicClient.getTransactionReceipt({ hash }).catch(() => undefined),
      (r) => r !== undefined && r.blockHash !== zeroHash,
      { timeoutMs: 5000, what: 'the automined block' },
    )
    expect(receipt?.blockNumber).toBe(start + 1n)

    await test.setAutomine(false)
    expect(await test.getAutomine()).toBe(false)
    expect((await config()).mining).toBe(false)
    const waiting = await node.wallet(0).sendTransaction({ to: node.accounts[1].address, value: 1n })
    // With mining off nothing is pre-confirmed (at the 50 ms interval it would be by now).
    await sleep(100) // negative wait
    expect((await node.publicClient.getTransaction({ hash: waiting })).blockNumber).toBeNull()
    await test.mine({ blocks: 1 })
    expect((await node.publicClient.getTransactionReceipt({ hash: waiting })).blockNumber).toBe(await blockNumber(node))
  })

  it('evm_setIntervalMining (seconds; 0 stops), pcnode_setBlockTime and pcnode_setPreconfInterval (ms)', async () => {
    await test.setIntervalMining({ interval: 1 })
    expect(await config()).toMatchObject({ mining: true, blockTime: 1000 })
    const start = await blockNumber(node)
    await poll(
      () => blockNumber(node),
      (n) => n >= start + 2n,
      { timeoutMs: 4000, what: 'two interval-mined blocks' },
    )
    await test.setIntervalMining({ interval: 0 })
    expect((await config()).mining).toBe(false)
    const stopped = await blockNumber(node)
    // No block for longer than the 1 s interval that ran until now.
    await sleep(1200) // negative wait
    expect(await blockNumber(node)).toBe(stopped)

    expect(await test.request({ method: 'pcnode_setBlockTime', params: [100] } as never)).toBeNull()
    await poll(
      () => blockNumber(node),
      (n) => n >= stopped + 3n,
      { timeoutMs: 2000, what: 'three blocks at the 100 ms block time' },
    )
    await test.request({ method: 'pcnode_setPreconfInterval', params: ['0x0'] } as never)
    expect(await config()).toEqual({ mining: true, blockTime: 100, preconfInterval: 0 })
    const hash = await node.wallet(0).sendTransaction({ to: node.accounts[1].address, value: 1n })
    expect((await waitForReceipt(node, hash, 2000)).status).toBe('success')
    await test.setIntervalMining({ interval: 0 })
  })
})

describe('dev methods: dropping, reset, dump and load', () => {
  const node = useTestNode({ blockTime: 3_600_000, preconfInterval: 10 })
  let test: ReturnType<typeof testClient>
  beforeAll(() => {
    test = testClient(node)
  })

  it('anvil_dropTransaction removes a pooled or a pre-confirmed transaction', async () => {
    const pub = node.publicClient
    const to = node.accounts[6].address
    const socket = await openSocket(node.wsUrl)
    const sub = await socket.subscribe(['newFlashblockTransactions'])
    const before = await pub.getBalance({ address: to, blockTag: 'pending' })
    const kept = await node.wallet(3).sendTransaction({ to, value: 5n })
    const preconfirmed = await node.wallet(0).sendTransaction({ to, value: 7n })
    await waitForReceipt(node, preconfirmed)
    await socket.waitFor(sub, (hashes) => hashes.includes(preconfirmed), 'both announced')
    expect(await pub.getBalance({ address: to, blockTag: 'pending' })).toBe(before + 12n)
    expect((await node.rpc('anvil_dropTransaction', [preconfirmed])).result).toBe(preconfirmed)
    // The block re-runs without it: the one kept is pre-confirmed again, but not announced twice.
    await waitForReceipt(node, kept)
    const marker = await node.wallet(4).sendTransaction({ to, value: 1n })
    await socket.waitFor(sub, (hashes) => hashes.includes(marker), 'a later announcement')
    expect(socket.received(sub).filter((h) => h === kept)).toHaveLength(1)
    await socket.close()
    await node.rpc('anvil_dropTransaction', [marker])
    await node.rpc('anvil_dropTransaction', [kept])
    expect((await node.rpc('eth_getTransactionByHash', [preconfirmed])).result).toBeNull()
    expect(await pub.getBalance({ address: to, blockTag: 'pending' })).toBe(before)

    await test.setIntervalMining({ interval: 0 }) // mining stops: the next one stays in the pool
    const pooled = await node.wallet(1).sendTransaction({ to, value: 1n })
    expect((await node.rpc('base_transactionStatus', [pooled])).result.status).toBe('Known')
    await test.dropTransaction({ hash: pooled })
    expect((await node.rpc('eth_getTransactionByHash', [pooled])).result).toBeNull()
    expect((await node.rpc('anvil_dropTransaction', [pooled])).result).toBeNull()
    const more = [
      await node.wallet(1).sendTransaction({ to, value: 2n }),
      await node.wallet(2).sendTransaction({ to, value: 3n }),
    ]
    expect((await node.rpc('anvil_dropAllTransactions')).result).toBeNull()
    for (const hash of more) expect((await node.rpc('eth_getTransactionByHash', [hash])).result).toBeNull()
    await test.request({ method: 'pcnode_setBlockTime', params: [3_600_000] } as never)
  })

  it('anvil_dumpState / anvil_loadState: the state file format, loaded back here and into another node', async () => {
    const pub = node.publicClient
    const counter = await deployCounter(node, 11n)
    await test.mine({ blocks: 1 }) // viem estimates at "latest": the contract must be sealed
    const call = await node.wallet(2).writeContract({ address: counter, abi: counterAbi, functionName: 'increase', args: [4n] })
    await waitForReceipt(node, call)
    await test.mine({ blocks: 1 })
    const target = '0x00000000000000000000000000000000000000c3' as Address
    await test.setBalance({ address: target, value: 12345n })
    const state = await test.dumpState()
    const doc = JSON.parse(Buffer.from(state.slice(2), 'hex').toString('utf8'))
    expect(doc).toMatchObject({ format: 'pcnode-state', version: 1, chainId: '0x7a69', hardfork: 'osaka' })
    expect(doc.accounts[target]).toEqual({ nonce: '0x0', balance: '0x3039' })
    expect(doc.accounts[counter.toLowerCase()].storage[pad('0x0')]).toBe(pad('0xf'))
    const head = await block(node, 'latest')
    const receipt = (await node.rpc('eth_getTransactionReceipt', [call])).result

    await test.mine({ blocks: 2 })
    await test.setBalance({ address: target, value: 1n })
    await test.loadState({ state })
    expect(await blockNumber(node)).toBe(head.number)
    expect((await block(node, 'latest')).hash).toBe(head.hash)
    expect(await pub.getBalance({ address: target })).toBe(12345n)
    expect((await node.rpc('eth_getTransactionReceipt', [call])).result).toEqual(receipt)

    const other = await startTestNode({ blockTime: 3_600_000, preconfInterval: 10 })
    try {
      await testClient(other).loadState({ state })
      expect((await block(other, 'latest')).hash).toBe(head.hash)
      expect((await other.rpc('eth_getTransactionReceipt', [call])).result).toEqual(receipt)
      expect(await other.publicClient.readContract({ address: counter, abi: counterAbi, functionName: 'count' })).toBe(15n)
      // Mining goes on from the loaded head.
      await testClient(other).mine({ blocks: 1 })
      expect((await block(other, 'latest')).parentHash).toBe(head.hash)
      // State before the loaded head is not kept: a clear error rather than a wrong answer.
      const old = await other.rpc('eth_getBalance', [target, '0x1'])
      expect(old.error.message).toMatch(/state of block 1 is not available/)
    } finally {
      await other.stop()
    }
    const bad = await node.rpc('anvil_loadState', [{ format: 'pcnode-state', version: 1, chainId: '0x1' }])
    expect(bad.error).toMatchObject({ code: -32602 })
    expect(bad.error.message).toMatch(/chain id 1/)
  })

  it('anvil_reset goes back to the node as it started', async () => {
    const genesis = await block(node, 0n)
    const address = node.accounts[7].address
    const initial = parseEther('10000') // untouched dev account (the node runs a loaded state now: no block-0 reads)
    await test.setBalance({ address, value: 1n })
    await test.mine({ blocks: 2 })
    const id = await test.snapshot()
    await test.reset()
    expect(await blockNumber(node)).toBe(0n)
    expect((await block(node, 'latest')).hash).toBe(genesis.hash)
    expect(await node.publicClient.getBalance({ address, blockTag: 'latest' })).toBe(initial)
    expect(await node.publicClient.getBalance({ address, blockNumber: 0n })).toBe(initial)
    expect((await node.rpc('evm_revert', [id])).result).toBe(false)
    const hash = await node.wallet(0).sendTransaction({ to: address, value: 1n })
    await waitForReceipt(node, hash)
    await test.mine({ blocks: 1 })
    expect(await blockNumber(node)).toBe(1n)
    // A fork that cannot be reached changes nothing (test/fork.test.ts forks a real one).
    const closed = createServer()
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done))
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`
    await new Promise<void>((done) => closed.close(() => done()))
    const forking = await node.rpc('anvil_reset', [{ forking: { jsonRpcUrl: url } }])
    expect(forking.error).toMatchObject({ code: -32000 })
    expect(forking.error.message).toBe(
      `fork: eth_chainId failed on upstream ${url}: fetch failed (ECONNREFUSED) (reading the chain id)`,
    )
    expect(await blockNumber(node)).toBe(1n)
  })
})

describe('dev methods: viem mode hardhat (hardhat_* names)', () => {
  const node = useTestNode({ blockTime: 3_600_000, preconfInterval: 10 })
  let test: ReturnType<typeof testClient>
  beforeAll(() => {
    test = testClient(node, 'hardhat')
  })

  it('setBalance, setNonce, setCode, setStorageAt, mine, impersonate, dropTransaction, getAutomine, reset', async () => {
    const pub = node.publicClient
    const target = '0x00000000000000000000000000000000000000d4' as Address
    await test.setBalance({ address: target, value: parseEther('2') })
    await test.setNonce({ address: target, nonce: 3 })
    await test.setCode({ address: target, bytecode: SLOT0_RETURNER })
    await test.setStorageAt({ address: target, index: 0, value: pad('0x07') })
    expect(await pub.getBalance({ address: target, blockTag: 'latest' })).toBe(parseEther('2'))
    expect(await pub.getTransactionCount({ address: target, blockTag: 'latest' })).toBe(3)
    expect((await pub.call({ to: target })).data).toBe(pad('0x07'))
    expect(await test.getAutomine()).toBe(false)
    expect((await node.rpc('hardhat_setBalance', [target, '0x1'])).result).toBe(true)

    const start = await blockNumber(node)
    await test.mine({ blocks: 2 })
    expect(await blockNumber(node)).toBe(start + 2n)

    const whale = '0x00000000000000000000000000000000000000e5' as Address
    await test.setBalance({ address: whale, value: parseEther('1') })
    await test.impersonateAccount({ address: whale })
    const wallet = createWalletClient({ chain: node.chain, transport: http(node.rpcUrl, { retryCount: 0 }), account: whale })
    const hash = await wallet.sendTransaction({ to: target, value: 1n })
    expect((await waitForReceipt(node, hash)).from).toBe(whale)
    await test.stopImpersonatingAccount({ address: whale })
    await expect(wallet.sendTransaction({ to: target, value: 1n })).rejects.toThrow(/unknown account/)

    const drop = await node.wallet(0).sendTransaction({ to: target, value: 1n })
    await waitForReceipt(node, drop)
    expect((await node.rpc('hardhat_dropTransaction', [drop])).result).toBe(true)
    expect((await node.rpc('eth_getTransactionByHash', [drop])).result).toBeNull()

    await test.reset()
    expect(await blockNumber(node)).toBe(0n)
    expect(await pub.getBalance({ address: target, blockTag: 'latest' })).toBe(0n)
  })

  it('rejects bad parameters with -32602', async () => {
    expect((await node.rpc('anvil_setBalance', ['0x12', '0x1'])).error).toMatchObject({ code: -32602 })
    expect((await node.rpc('anvil_setStorageAt', [node.accounts[0].address, '0x0', `0x${'00'.repeat(33)}`])).error).toMatchObject(
      {
        code: -32602,
      },
    )
    expect((await node.rpc('evm_setAutomine', ['yes'])).error).toMatchObject({ code: -32602 })
  })
})
