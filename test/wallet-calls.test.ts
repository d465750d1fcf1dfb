// EIP-5792 on the node, through viem's wallet actions as a Base app calls them: capabilities, call
// bundles from a node-held (json-rpc) account and an impersonated one, statuses from receipts
// (pending, confirmed, reverted, partial failure, dropped), atomic bundles through an account
// delegated to an ERC-7821 executor, and the EIP's error codes.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import solc from 'solc'
import { createWalletClient, getAddress, type Hex, http, parseEther, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleStatus } from '../src/node/wallet-calls/status.js'
import { ROOT } from './cli.js'
import { startTestNode, type TestNode } from './helpers.js'

/** Runtime code that succeeds once (sets slot 0) and reverts on every call after. */
const ONCE = '0x5f54600a5760015f55005b5f5ffd' as Hex
const ONCE_ADDRESS = '0x00000000000000000000000000000000000a11ce' as Hex
/** Runtime code that, called with data, opens a gate (sets slot 0); called without, reverts while it is shut. */
const GATE = '0x36600c575f546012575f5ffd5b60015f55005b00' as Hex
const GATE_ADDRESS = '0x0000000000000000000000000000000000006a7e' as Hex

/** The code a rejected viem action carries, wherever in its cause chain it sits. */
async function codeOf(promise: Promise<unknown>): Promise<number | undefined> {
  const error = await promise.then(
    () => undefined,
    (e) => e,
  )
  expect(error).toBeDefined()
  let e = error
  while (e) {
    if (typeof e.code === 'number') return e.code
    e = e.cause
  }
  return undefined
}

describe('EIP-5792 wallet calls, mining on', () => {
  let node: TestNode
  const lines: string[] = []
  let wallet: ReturnType<typeof walletClient>
  const walletClient = (n: TestNode) =>
    createWalletClient({ chain: n.chain, transport: http(n.rpcUrl, { retryCount: 0 }), pollingInterval: 20 })
  let dev: Hex

  beforeAll(async () => {
    node = await startTestNode({ silent: false, logger: (line) => lines.push(line) })
    wallet = walletClient(node)
    dev = getAddress(node.accounts[0].address)
  })
  afterAll(() => node?.stop())

  it('wallet_getCapabilities: atomic unsupported on the node chain, for a dev account', async () => {
    const caps = await wallet.getCapabilities({ account: dev })
    expect(caps).toEqual({ [node.chainId]: { atomic: { status: 'unsupported' } } })
    const raw = await node.rpc('wallet_getCapabilities', [dev, ['0x1']])
    expect(raw.result).toEqual({})
  })

  it('sendCalls from a node-held account: two transfers, consecutive nonces, success with two receipts', async () => {
    const [a, b] = ['0x00000000000000000000000000000000000000b1', '0x00000000000000000000000000000000000000b2'] as const
    const { id } = await wallet.sendCalls({
      account: dev,
      calls: [
        { to: a, value: parseEther('1') },
        { to: b, value: parseEther('2'), data: '0x' },
      ],
    })
    expect(id).toMatch(/^0x[0-9a-f]{64}$/)
    const first = await wallet.getCallsStatus({ id })
    expect(['pending', 'success']).toContain(first.status)
    const done = await wallet.waitForCallsStatus({ id, timeout: 30_000 })
    expect(done.status).toBe('success')
    expect(done.statusCode).toBe(200)
    expect(done.atomic).toBe(false)
    expect(done.chainId).toBe(node.chainId)
    expect(done.receipts).toHaveLength(2)
    expect((done.receipts ?? []).map((r) => r.status)).toEqual(['success', 'success'])
    const txs = await Promise.all((done.receipts ?? []).map((r) => node.publicClient.getTransaction({ hash: r.transactionHash })))
    expect(txs.map((t) => t.from.toLowerCase())).toEqual([dev.toLowerCase(), dev.toLowerCase()])
    expect(txs[1].nonce).toBe(txs[0].nonce + 1)
    expect(await node.publicClient.getBalance({ address: a })).toBe(parseEther('1'))
    expect(await node.publicClient.getBalance({ address: b })).toBe(parseEther('2'))
  })

  it('two bundles from one sender at once: each takes consecutive nonces', async () => {
    const calls = [
      { to: dev, value: 1n },
      { to: dev, value: 2n },
      { to: dev, value: 3n },
    ]
    const ids = await Promise.all([wallet.sendCalls({ account: dev, calls }), wallet.sendCalls({ account: dev, calls })])
    for (const x of ids) {
      const done = await wallet.waitForCallsStatus({ ...x, timeout: 30_000 })
      expect(done.statusCode).toBe(200)
      const txs = await Promise.all(
        (done.receipts ?? []).map((r) => node.publicClient.getTransaction({ hash: r.transactionHash })),
      )
      expect(txs.map((t) => t.nonce - txs[0].nonce)).toEqual([0, 1, 2])
    }
  })

  it('sendCalls from an impersonated account', async () => {
    const who = '0x00000000000000000000000000000000000c0ffe' as Hex
    await node.rpc('anvil_setBalance', [who, toHex(parseEther('10'))])
    await node.rpc('anvil_impersonateAccount', [who])
    const { id } = await wallet.sendCalls({ account: who, calls: [{ to: dev, value: 1n }] })
    const done = await wallet.waitForCallsStatus({ id, timeout: 30_000 })
    expect(done.status).toBe('success')
    expect(done.receipts).toHaveLength(1)
    // One call is one transaction: atomic.
    expect(done.atomic).toBe(true)
  })

  it('an unknown account: 4100, for sendCalls and getCapabilities', async () => {
    const stranger = '0x00000000000000000000000000000000000bad00' as Hex
    expect(await codeOf(wallet.sendCalls({ account: stranger, calls: [{ to: dev, value: 1n }] }))).toBe(4100)
    expect(await codeOf(wallet.getCapabilities({ account: stranger }))).toBe(4100)
  })

  it('atomicRequired with two calls: 5750, nothing sent', async () => {
    const nonce = await node.publicClient.getTransactionCount({ address: dev, blockTag: 'pending' })
    const call = { to: dev, value: 1n }
    expect(await codeOf(wallet.sendCalls({ account: dev, forceAtomic: true, calls: [call, call] }))).toBe(5750)
    expect(await node.publicClient.getTransactionCount({ address: dev, blockTag: 'pending' })).toBe(nonce)
  })

  it('an unknown bundle id: 5730', async () => {
    expect(await codeOf(wallet.getCallsStatus({ id: `0x${'ab'.repeat(32)}` }))).toBe(5730)
    expect((await node.rpc('wallet_showCallsStatus', ['0x1234'])).error?.code).toBe(5730)
  })

  it("the EIP's other refusals: 5710 chain, 5700 capability, 5720 duplicate id, 5740 too large; -32602 bad input", async () => {
    const base = {
      version: '2.0.0',
      from: dev,
      chainId: toHex(node.chainId),
      atomicRequired: false,
      calls: [{ to: dev, value: '0x1' }],
    }
    const send = async (over: Record<string, unknown>) => (await node.rpc('wallet_sendCalls', [{ ...base, ...over }])).error?.code
    expect(await send({ chainId: '0x1' })).toBe(5710)
    expect(await send({ capabilities: { paymasterService: { url: 'http://127.0.0.1:1' } } })).toBe(5700)
    expect(await send({ calls: [{ to: dev, capabilities: { something: {} } }] })).toBe(5700)
    expect(await send({ calls: Array.from({ length: 257 }, () => ({ to: dev })) })).toBe(5740)
    expect(await send({ calls: [] })).toBe(-32602)
    expect(await send({ calls: [{ to: '0x12' }] })).toBe(-32602)
    expect(await send({ calls: [{ to: dev, value: toHex(2n ** 256n) }] })).toBe(-32602)
    expect(await send({ chainId: undefined })).toBe(-32602)
    // An optional capability the node does not know is ignored, as the EIP says.
    const ok = await node.rpc('wallet_sendCalls', [
      { ...base, id: 'app-bundle-1', capabilities: { paymasterService: { url: 'x', optional: true } } },
    ])
    expect(ok.result).toEqual({ id: 'app-bundle-1' })
    expect(await send({ id: 'app-bundle-1' })).toBe(5720)
    await wallet.waitForCallsStatus({ id: 'app-bundle-1', timeout: 30_000 })
  })

  it('wallet_showCallsStatus: null, and a log line with the status', async () => {
    const { id } = await wallet.sendCalls({ account: dev, calls: [{ to: dev, value: 1n }] })
    await wallet.waitForCallsStatus({ id, timeout: 30_000 })
    const answer = await node.rpc('wallet_showCallsStatus', [id])
    expect(answer).toMatchObject({ result: null })
    expect(lines.some((l) => l.includes(`wallet_showCallsStatus ${id}: status 200, 1 receipt(s)`))).toBe(true)
  })
})

describe('EIP-5792 wallet calls, mining off: calls measured in order, statuses from what the chain did', () => {
  let node: TestNode
  let dev: Hex
  let wallet: ReturnType<typeof createWalletClient>

  beforeAll(async () => {
    node = await startTestNode({ mining: false })
    dev = getAddress(node.accounts[0].address)
    wallet = createWalletClient({ chain: node.chain, transport: http(node.rpcUrl, { retryCount: 0 }), pollingInterval: 20 })
    await node.rpc('anvil_setCode', [ONCE_ADDRESS, ONCE])
    await node.rpc('anvil_setCode', [GATE_ADDRESS, GATE])
  })
  afterAll(() => node?.stop())

  const pendingNonce = () => node.publicClient.getTransactionCount({ address: dev, blockTag: 'pending' })

  it('a call that needs the one before it: measured after it, both sent, confirmed together', async () => {
    // Alone, the second call reverts (the gate is shut): eth_sendTransaction would refuse it.
    expect((await node.rpc('eth_estimateGas', [{ from: dev, to: GATE_ADDRESS }])).error?.message).toMatch(/execution reverted/)
    const { id } = await wallet.sendCalls({ account: dev, calls: [{ to: GATE_ADDRESS, data: '0x01' }, { to: GATE_ADDRESS }] })
    expect((await wallet.getCallsStatus({ id })).statusCode).toBe(100)
    await node.rpc('evm_mine')
    const done = await wallet.waitForCallsStatus({ id, timeout: 30_000 })
    expect(done.statusCode).toBe(200)
    expect((done.receipts ?? []).map((r) => r.status)).toEqual(['success', 'success'])
    expect(new Set((done.receipts ?? []).map((r) => r.blockNumber)).size).toBe(1)
  })

  it('a bundle whose calls fail when simulated in order: refused with the revert (code 3), nothing sent', async () => {
    const nonce = await pendingNonce()
    const error = await wallet.sendCalls({ account: dev, calls: [{ to: ONCE_ADDRESS }, { to: ONCE_ADDRESS }] }).catch((e) => e)
    expect(String(error)).toMatch(/execution reverted/)
    expect(await codeOf(Promise.reject(error))).toBe(3)
    expect(await pendingNonce()).toBe(nonce)
  })

  it('calls that pass simulation but revert on chain: pending (100), then 200, 600 and 500 by what each did', async () => {
    // Each bundle is simulated on the chain before any of them runs, where the contract still
    // succeeds; on chain only the first call to it does.
    const first = await wallet.sendCalls({ account: dev, calls: [{ to: ONCE_ADDRESS }] })
    const mixed = await wallet.sendCalls({ account: dev, calls: [{ to: dev, value: 1n }, { to: ONCE_ADDRESS }] })
    const last = await wallet.sendCalls({ account: dev, calls: [{ to: ONCE_ADDRESS }] })
    const pending = await wallet.getCallsStatus(mixed)
    expect(pending.status).toBe('pending')
    expect(pending.statusCode).toBe(100)
    expect(pending.receipts).toEqual([])
    await node.rpc('evm_mine')
    const [a, b, c] = await Promise.all([first, mixed, last].map((x) => wallet.waitForCallsStatus({ ...x, timeout: 30_000 })))
    expect([a.status, a.statusCode]).toEqual(['success', 200])
    expect([b.status, b.statusCode]).toEqual(['failure', 600])
    expect((b.receipts ?? []).map((r) => r.status)).toEqual(['success', 'reverted'])
    expect([c.status, c.statusCode]).toEqual(['failure', 500])
    expect((c.receipts ?? []).map((r) => r.status)).toEqual(['reverted'])
  })

  it('a bundle whose transactions are dropped from the pool: 400, no receipts', async () => {
    const { id } = await wallet.sendCalls({
      account: dev,
      calls: [
        { to: dev, value: 1n },
        { to: dev, value: 2n },
      ],
    })
    expect((await wallet.getCallsStatus({ id })).statusCode).toBe(100)
    await node.rpc('anvil_dropAllTransactions')
    const dropped = await wallet.getCallsStatus({ id })
    expect([dropped.status, dropped.statusCode]).toEqual(['failure', 400])
    expect(dropped.receipts).toEqual([])
  })
})

/** An ERC-7821 batch executor: solady's, compiled here (an account delegates to it by EIP-7702). */
function compileBatcher(): Hex {
  const source = 'pragma solidity ^0.8.4;\nimport {ERC7821} from "solady/accounts/ERC7821.sol";\ncontract Batcher is ERC7821 {}\n'
  const input = {
    language: 'Solidity',
    sources: { 'Batcher.sol': { content: source } },
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { Batcher: ['evm.bytecode.object'] } },
    },
  }
  const findImports = (path: string) => ({
    contents: readFileSync(join(ROOT, 'node_modules', path.replace(/^solady\//, 'solady/src/')), 'utf8'),
  })
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }))
  const object = output.contracts?.['Batcher.sol']?.Batcher?.evm?.bytecode?.object
  if (!object) throw new Error(`solc: ${JSON.stringify(output.errors)}`)
  return `0x${object}`
}

describe('EIP-5792 atomic bundles: an account delegated (EIP-7702) to an ERC-7821 executor', () => {
  let node: TestNode
  let owner: Hex
  let wallet: ReturnType<typeof createWalletClient>
  const REVERTS = '0x00000000000000000000000000000000000dead1' as Hex

  beforeAll(async () => {
    node = await startTestNode()
    wallet = createWalletClient({ chain: node.chain, transport: http(node.rpcUrl, { retryCount: 0 }), pollingInterval: 20 })
    const deployer = node.wallet(0)
    const hash = await deployer.deployContract({ abi: [], bytecode: compileBatcher() })
    const batcher = (await node.publicClient.waitForTransactionReceipt({ hash })).contractAddress as Hex
    const local = node.wallet(1)
    owner = local.account.address
    const authorization = await local.signAuthorization({ contractAddress: batcher, executor: 'self' })
    const set = await local.sendTransaction({ authorizationList: [authorization], to: owner, data: '0x' })
    await node.publicClient.waitForTransactionReceipt({ hash: set })
    await node.rpc('anvil_setCode', [REVERTS, '0x5f5ffd'])
  }, 60_000)
  afterAll(() => node?.stop())

  it('capabilities: atomic supported for the delegated account, unsupported for a plain one', async () => {
    expect(await wallet.getCapabilities({ account: owner })).toEqual({ [node.chainId]: { atomic: { status: 'supported' } } })
    const plain = getAddress(node.accounts[2].address)
    expect(await wallet.getCapabilities({ account: plain })).toEqual({ [node.chainId]: { atomic: { status: 'unsupported' } } })
  })

  it('sendCalls with atomicRequired: one transaction (the account calling its own execute), one receipt, atomic', async () => {
    const [a, b] = ['0x00000000000000000000000000000000000000d1', '0x00000000000000000000000000000000000000d2'] as const
    const { id } = await wallet.sendCalls({
      account: owner,
      forceAtomic: true,
      calls: [
        { to: a, value: 5n },
        { to: b, value: 7n },
      ],
    })
    const done = await wallet.waitForCallsStatus({ id, timeout: 30_000 })
    expect([done.status, done.statusCode, done.atomic]).toEqual(['success', 200, true])
    expect(done.receipts).toHaveLength(1)
    const tx = await node.publicClient.getTransaction({ hash: (done.receipts ?? [])[0].transactionHash })
    expect([tx.from, tx.to]).toEqual([owner.toLowerCase(), owner.toLowerCase()])
    expect(await node.publicClient.getBalance({ address: a })).toBe(5n)
    expect(await node.publicClient.getBalance({ address: b })).toBe(7n)
  })

  it('a batch with a reverting call is refused whole before anything is sent', async () => {
    const a = '0x00000000000000000000000000000000000000d3' as Hex
    const nonce = await node.publicClient.getTransactionCount({ address: owner, blockTag: 'pending' })
    const sent = wallet.sendCalls({ account: owner, calls: [{ to: a, value: 1n }, { to: REVERTS }] })
    await expect(sent).rejects.toThrow(/revert/i)
    expect(await node.publicClient.getTransactionCount({ address: owner, blockTag: 'pending' })).toBe(nonce)
    expect(await node.publicClient.getBalance({ address: a })).toBe(0n)
  })
})

describe('bundle status codes (EIP-5792)', () => {
  it('100 while any waits, 200 all succeeded, 400 none ran, 500 all reverted, 600 a mix', () => {
    expect(bundleStatus(['success', 'pooled'])).toBe(100)
    expect(bundleStatus(['success', 'success'])).toBe(200)
    expect(bundleStatus(['gone', 'gone'])).toBe(400)
    expect(bundleStatus(['reverted', 'reverted'])).toBe(500)
    expect(bundleStatus(['success', 'reverted'])).toBe(600)
    expect(bundleStatus(['success', 'gone'])).toBe(600)
    expect(bundleStatus(['reverted', 'gone'])).toBe(600)
  })
})
