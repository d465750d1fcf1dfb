// Fork tests' upstream side: a real node to fork (a pcnode with contracts and history), and a small
// HTTP proxy in front of it that counts the JSON-RPC methods asked, can answer 429 first, can add
// latency, and can go dead, as a remote RPC does.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Address, encodeDeployData, encodeFunctionData, type Hex, parseEther } from 'viem'
import { counterAbi, counterBytecode } from './fixtures/counter.js'
import { tokenAbi, tokenBytecode } from './fixtures/token.js'
import { startTestNode, type TestNode, waitForSealed } from './helpers.js'

export interface RpcProxy {
  url: string
  /** JSON-RPC calls forwarded, by method (batches counted per call). */
  counts: Record<string, number>
  /** Every call forwarded, in order. */
  calls: Array<{ method: string; params: unknown[] }>
  /** Calls of `methods` (default: the state reads), of `address` when given. */
  count(methods?: string[], address?: string): number
  reset(): void
  /** Answer HTTP 429 (Retry-After: 0) to the next `n` requests. */
  failNext(n: number): void
  /**
   * Answer these methods "method not found" (-32601), as a geth upstream answers eth_getAccountInfo;
   * with `status`, on that HTTP status (some providers send JSON-RPC errors as 4xx).
   */
  refuse(methods: string[], status?: number): void
  /** Forward to another node from now on (an upstream restarted at the same URL). */
  retarget(url: string): void
  /** Close every connection at once and refuse new ones (an upstream that died). */
  kill(): void
  revive(): void
  close(): Promise<void>
}

const STATE = ['eth_getAccountInfo', 'eth_getBalance', 'eth_getTransactionCount', 'eth_getCode', 'eth_getStorageAt']

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export async function startProxy(initialTarget: string, options: { latencyMs?: number } = {}): Promise<RpcProxy> {
  let target = initialTarget
  const counts: Record<string, number> = {}
  const calls: Array<{ method: string; params: unknown[] }> = []
  let failing = 0
  let dead = false
  let refused: string[] = []
  let refusedStatus = 200
  const server: Server = createServer(async (req, res) => {
    if (dead) {
      req.socket.destroy()
      return
    }
    const text = await body(req)
    if (failing > 0) {
      failing--
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' })
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: 429, message: 'Too Many Requests' } }))
      return
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {}
    for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
      const { method, params } = (call ?? {}) as { method?: string; params?: unknown[] }
      if (!method) continue
      counts[method] = (counts[method] ?? 0) + 1
      calls.push({ method, params: params ?? [] })
    }
    const single = parsed as { id?: unknown; method?: string }
    if (single?.method && refused.includes(single.method)) {
      res.writeHead(refusedStatus, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ jsonrpc: '2.0', id: single.id, error: { code: -32601, message: 'the method does not exist' } }))
      return
    }
    if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs))
    try {
      const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })
      const answer = await upstream.text()
      res.writeHead(upstream.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) })
      res.end(answer)
    } catch {
      req.socket.destroy()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    counts,
    calls,
    count: (methods = STATE, address) =>
      calls.filter(
        (c) =>
          methods.includes(c.method) && (address === undefined || String(c.params[0]).toLowerCase() === address.toLowerCase()),
      ).length,
    retarget: (url) => {
      target = url
    },
    reset: () => {
      for (const key of Object.keys(counts)) delete counts[key]
      calls.length = 0
    },
    failNext: (n) => {
      failing = n
    },
    refuse: (methods, status = 200) => {
      refused = methods
      refusedStatus = status
    },
    kill: () => {
      dead = true
      server.closeAllConnections()
    },
    revive: () => {
      dead = false
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** What the upstream holds: contracts, a funded account without a key, and history. */
export interface Upstream {
  node: TestNode
  counter: Address
  token: Address
  /** Holds the whole token supply and 5 ETH upstream; nobody has its key. */
  whale: Address
  supply: bigint
  /** Blocks of note: the Counter's deployment, the whale's funding, the last block. */
  blocks: { counterDeployed: bigint; whaleFunded: bigint; head: bigint }
  txs: { counterDeploy: Hex; increase: Hex }
}

export const WHALE: Address = '0x00000000000000000000000000000000000a11ce'

/** A pcnode (chain id 4242) with a Counter (count 12 after `increase(5)`), a Token whose supply the whale holds. */
export async function startUpstream(): Promise<Upstream> {
  const node = await startTestNode({ chainId: 4242, blockTime: 0, preconfInterval: 0 })
  const wallet = node.wallet(0)
  const send = async (tx: { to?: Address; data?: Hex; value?: bigint }) => {
    const hash = await wallet.sendTransaction({ ...tx, chain: node.chain })
    const receipt = await waitForSealed(node, hash)
    return { hash, receipt, blockNumber: receipt.blockNumber }
  }
  const supply = parseEther('1000000')
  const counterDeploy = await send({ data: encodeDeployData({ abi: counterAbi, bytecode: counterBytecode, args: [7n] }) })
  const tokenDeploy = await send({ data: encodeDeployData({ abi: tokenAbi, bytecode: tokenBytecode, args: [WHALE, supply] }) })
  const funded = await send({ to: WHALE, value: parseEther('5') })
  const counter = counterDeploy.receipt.contractAddress as Address
  const increase = await send({
    to: counter,
    data: encodeFunctionData({ abi: counterAbi, functionName: 'increase', args: [5n] }),
  })
  return {
    node,
    counter,
    token: tokenDeploy.receipt.contractAddress as Address,
    whale: WHALE,
    supply,
    blocks: { counterDeployed: counterDeploy.blockNumber, whaleFunded: funded.blockNumber, head: increase.blockNumber },
    txs: { counterDeploy: counterDeploy.hash, increase: increase.hash },
  }
}
