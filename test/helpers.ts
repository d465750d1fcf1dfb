// Shared test setup: a real pcnode on 127.0.0.1, port 0, and viem clients pointed at it.
import { spawn } from 'node:child_process'
import { randomInt } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import {
  type Chain,
  concat,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  toHex,
  zeroHash,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll } from 'vitest'
import { type NodeOptions, type StartedNode, startNode } from '../src/index.js'

function walletFor(chain: Chain, url: string, privateKey: `0x${string}`) {
  return createWalletClient({ chain, transport: http(url, { retryCount: 0 }), account: privateKeyToAccount(privateKey) })
}

export interface TestNode extends StartedNode {
  chain: Chain
  publicClient: PublicClient
  wallet: (index?: number) => ReturnType<typeof walletFor>
  /** JSON-RPC over plain fetch, for raw envelopes and error shapes. */
  rpc: (method: string, params?: unknown[]) => Promise<{ result?: any; error?: any }>
  raw: (body: string) => Promise<{ status: number; text: string }>
}

export async function startTestNode(options: NodeOptions = {}): Promise<TestNode> {
  const started = await startNode({ port: 0, host: '127.0.0.1', ...options })
  const chain = defineChain({
    id: started.chainId,
    name: 'pcnode',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [started.rpcUrl], webSocket: [started.wsUrl] } },
    // As on Base: viem then defaults to the "pending" (pre-confirmed) block tag.
    experimental_preconfirmationTime: options.preconfInterval ?? 200,
  })
  const transport = http(started.rpcUrl, { retryCount: 0 })
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 20 }) as PublicClient
  const wallet = (index = 0) => walletFor(chain, started.rpcUrl, started.accounts[index].privateKey)
  const raw = async (body: string) => {
    const res = await fetch(started.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    return { status: res.status, text: await res.text() }
  }
  let id = 0
  const rpc = async (method: string, params: unknown[] = []) => {
    const { text } = await raw(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }))
    return JSON.parse(text)
  }
  return { ...started, chain, publicClient, wallet, rpc, raw }
}

/**
 * A test node for the enclosing describe block: started in a beforeAll, stopped in an afterAll.
 * The returned object is filled in when it starts, so tests and later hooks use it as a TestNode
 * (hooks registered after this call run after the start and, vitest running after-hooks in
 * reverse, before the stop).
 */
export function useTestNode(options: NodeOptions = {}, { timeoutMs }: { timeoutMs?: number } = {}): TestNode {
  const node = {} as TestNode
  let started: TestNode | undefined
  beforeAll(async () => {
    started = await startTestNode(options)
    Object.assign(node, started)
  }, timeoutMs)
  afterAll(() => started?.stop())
  return node
}

/** A viem chain as a dapp declares it: no experimental_preconfirmationTime, so viem reads "latest". */
export function plainClients(node: TestNode, index = 0) {
  const chain = defineChain({
    id: node.chainId,
    name: 'base-local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.rpcUrl] } },
  })
  const transport = http(node.rpcUrl, { retryCount: 0 })
  const account = privateKeyToAccount(node.accounts[index].privateKey)
  return {
    publicClient: createPublicClient({ chain, transport, pollingInterval: 50 }),
    wallet: createWalletClient({ chain, transport, account, pollingInterval: 50 }),
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface PollOptions {
  /** Throws once this long has passed without `ok` holding (default 10 s: generous on a loaded machine). */
  timeoutMs?: number
  /** Named in the timeout error. */
  what?: string
  /** Pause between attempts (default 10 ms). */
  intervalMs?: number
}

/**
 * Calls `fn` until `ok` holds for its value (by default: until it returns something other than
 * undefined or null) and returns that value; throws after `timeoutMs`. The tests wait through it
 * on what they can observe, never on a fixed sleep.
 */
export function poll<T>(fn: () => T | Promise<T>, ok?: undefined, options?: PollOptions): Promise<NonNullable<T>>
export function poll<T>(fn: () => T | Promise<T>, ok: (value: T) => boolean, options?: PollOptions): Promise<T>
export async function poll<T>(
  fn: () => T | Promise<T>,
  ok: (value: T) => boolean = (value) => value !== undefined && value !== null,
  { timeoutMs = 10_000, what = 'a condition', intervalMs = 10 }: PollOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await fn()
    if (ok(value)) return value
    if (Date.now() > deadline) {
      const last = typeof value === 'object' || typeof value === 'function' ? '' : ` (last: ${String(value)})`
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last}`)
    }
    await sleep(intervalMs)
  }
}

/** Polls eth_getTransactionReceipt (viem's waitForTransactionReceipt waits for a new block number first). */
export function waitForReceipt(node: TestNode, hash: Hex, timeoutMs = 10_000) {
  return poll(() => node.publicClient.getTransactionReceipt({ hash }).catch(() => undefined), undefined, {
    timeoutMs,
    what: `the receipt of ${hash}`,
    intervalMs: 5,
  })
}

/** Polls `check` until it holds; throws after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  await poll(check, (held) => held, { timeoutMs, what })
}

/** The receipt once the block holding the transaction is sealed (a real block hash). */
export async function waitForSealed(node: TestNode, hash: Hex, timeoutMs = 10_000) {
  const receipt = await poll(
    () => node.publicClient.getTransactionReceipt({ hash }).catch(() => undefined),
    (found) => found !== undefined && found.blockHash !== zeroHash,
    { timeoutMs, what: `${hash} sealed`, intervalMs: 20 },
  )
  return receipt!
}

/** viem's test actions (anvil_*, evm_*, hardhat_*) against a test node. */
export function testClient(node: TestNode, mode: 'anvil' | 'hardhat' | 'ganache' = 'anvil') {
  return createTestClient({ mode, chain: node.chain, transport: http(node.rpcUrl, { retryCount: 0 }) })
}

/** keccak("Ping(address,bytes)"): the emitter's LOG2 topic0. */
export const PING = keccak256(toHex('Ping(address,bytes)'))

/** Init code of a contract that logs LOG2(calldata, PING, caller) on every call. */
export function emitterInitCode(): Hex {
  // CALLDATASIZE PUSH0 PUSH0 CALLDATACOPY CALLER PUSH32 PING CALLDATASIZE PUSH0 LOG2 STOP
  const runtime = concat(['0x365f5f37337f', PING, '0x365fa200'])
  const size = (runtime.length - 2) / 2
  // PUSH1 size DUP1 PUSH1 9 PUSH0 CODECOPY PUSH0 RETURN, then the runtime.
  return concat([`0x60${size.toString(16).padStart(2, '0')}8060095f395ff3`, runtime])
}

/**
 * The seed of a randomized test: PCNODE_TEST_SEED when set, else a fresh one. It is printed, so
 * a failing run can be replayed with `PCNODE_TEST_SEED=<seed> npx vitest run <file>`.
 */
export function testSeed(what: string): number {
  const fromEnv = process.env.PCNODE_TEST_SEED
  if (fromEnv !== undefined && !/^\d+$/.test(fromEnv)) throw new Error(`PCNODE_TEST_SEED must be an integer, got "${fromEnv}"`)
  const seed = fromEnv !== undefined ? Number(fromEnv) >>> 0 : randomInt(2 ** 32)
  console.log(`${what}: seed ${seed} (replay: PCNODE_TEST_SEED=${seed})`)
  return seed
}

/** A seeded PRNG (mulberry32, the one pcnode's faults draw from): floats in [0, 1). */
export { seededRandom } from '../src/node/faults/random.js'

/**
 * A raw WebSocket JSON-RPC client (package `ws`): requests, and each subscription's notifications
 * in arrival order, for tests that look at exactly what a subscriber receives.
 */
export interface RawSocket {
  request(method: string, params?: unknown[]): Promise<{ result?: any; error?: any }>
  /** eth_subscribe; resolves with the id (throws the error on refusal). */
  subscribe(params: unknown[]): Promise<string>
  /** Notifications received so far for a subscription id. */
  received(id: string): any[]
  /** Resolves once `check` holds for a subscription's notifications. */
  waitFor(id: string, check: (items: any[]) => boolean, what?: string): Promise<any[]>
  close(): Promise<void>
}

export async function openSocket(url: string): Promise<RawSocket> {
  const { default: WebSocket } = await import('ws')
  const ws = new WebSocket(url)
  await new Promise((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  let id = 0
  const replies = new Map<number, (reply: any) => void>()
  const items = new Map<string, any[]>()
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data))
    if (msg.method === 'eth_subscription') {
      const list = items.get(msg.params.subscription) ?? []
      list.push(msg.params.result)
      items.set(msg.params.subscription, list)
    } else replies.get(msg.id)?.(msg)
  })
  const request = (method: string, params: unknown[] = []) =>
    new Promise<{ result?: any; error?: any }>((resolve) => {
      const n = ++id
      replies.set(n, resolve)
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: n, method, params }))
    })
  const received = (sub: string) => items.get(sub) ?? []
  return {
    request,
    async subscribe(params) {
      const reply = await request('eth_subscribe', params)
      if (reply.error) throw new Error(`eth_subscribe ${JSON.stringify(params)}: ${reply.error.message}`)
      return reply.result
    },
    received,
    async waitFor(sub, check, what = 'notifications') {
      await until(() => check(received(sub)), 10_000, what)
      return received(sub)
    },
    close: () =>
      new Promise<void>((resolve) => {
        ws.once('close', () => resolve())
        ws.close()
      }),
  }
}

/** anvil (the devDependency's binary) on a free port, `args` added; stopped by `stop()`. */
export async function startAnvil(args: string[] = []): Promise<{ url: string; stop: () => void }> {
  const bin = fileURLToPath(new URL('../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil', import.meta.url))
  const proc = spawn(bin, ['--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    proc.stdout?.on('data', (d) => {
      out += d
      const m = /Listening on (\S+)/.exec(out)
      if (m) resolve(`http://${m[1]}`)
    })
    proc.once('exit', (code) => reject(new Error(`anvil exited (${code}): ${out}`)))
  })
  proc.stdout?.resume()
  return { url, stop: () => proc.kill() }
}
