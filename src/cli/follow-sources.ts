// The event sources `pcnode send` follows a transaction with (follow.ts), and the JSON-RPC
// connection it uses, chosen once before the submission: over a WebSocket (viem's webSocket
// transport; pcnode serves it on the HTTP port) it subscribes to newFlashblockTransactions and
// newHeads, and looks at the transaction when one names it or a block seals; without one, or on a
// node without flashblock subscriptions, it polls. Either way an observation comes from the same
// probe: pcnode_transactionStatus where the node has it, then the receipt.
import type * as Viem from 'viem'
import type { EventSource, Observation, Receipt } from './follow.js'
import { NODE_HINT, RpcCallError, rpcRequest, TransportError } from './rpc-client.js'

/** A JSON-RPC endpoint (HTTP through rpc-client.ts, or the WebSocket). */
export interface Rpc {
  request<T = unknown>(method: string, params?: unknown[]): Promise<T>
}

const ZERO_HASH = `0x${'0'.repeat(64)}`
const REQUEST_TIMEOUT_MS = 10_000
const WS_CONNECT_TIMEOUT_MS = 1500
/** Receipt polling period when there is no subscription. */
const POLL_MS = 25
/** With a subscription, a look anyway this often: a missed notification costs at most this. */
const SAFETY_MS = 1000
/** How often a missing transaction's sender nonce is read (the replaced check). */
const NONCE_CHECK_MS = 500

export function httpRpc(url: string): Rpc {
  return { request: (method, params = []) => rpcRequest(url, method, params, REQUEST_TIMEOUT_MS) as Promise<never> }
}

/** ws:// for http://, wss:// for https:// (same host, port and path: pcnode serves both on one port). */
export function wsUrlFor(url: string): string {
  return /^wss?:\/\//i.test(url) ? url : url.replace(/^http/i, 'ws')
}

export interface WebSocketRpc extends Rpc {
  subscribe(params: unknown[], onData: (data: unknown) => void, onClosed: (error: Error) => void): Promise<void>
  close(): Promise<void>
}

/** viem's webSocket transport as an Rpc: no reconnects or retries (a send is short), errors as rpc-client's. */
async function openWebSocket(viem: typeof Viem, url: string): Promise<WebSocketRpc> {
  const transport = viem.webSocket(url, { reconnect: false, keepAlive: false, retryCount: 0, timeout: REQUEST_TIMEOUT_MS })({
    retryCount: 0,
  })
  const socket = transport.value as NonNullable<typeof transport.value>
  const connecting = socket.getRpcClient()
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${WS_CONNECT_TIMEOUT_MS} ms`)), WS_CONNECT_TIMEOUT_MS)
  })
  try {
    await Promise.race([connecting, timedOut])
  } catch (error) {
    connecting.then((client) => client.close()).catch(() => {}) // a connection that opens late is closed
    const reason = (error as { message?: string }).message || 'the WebSocket connection failed'
    throw new TransportError(`cannot reach the node at ${url}: ${reason}; ${NODE_HINT}`)
  } finally {
    clearTimeout(timer)
  }
  const mapped = (error: unknown): Error => {
    if (error instanceof viem.RpcRequestError) return new RpcCallError(error.code, error.details, error.data)
    const raw = error as { code?: unknown; message?: unknown; data?: unknown }
    if (typeof raw?.code === 'number' && typeof raw.message === 'string') return new RpcCallError(raw.code, raw.message, raw.data)
    return new TransportError(`${url}: ${(error as Error)?.message || 'the WebSocket connection closed'}`)
  }
  return {
    async request<T>(method: string, params: unknown[] = []) {
      try {
        return (await transport.request({ method, params } as never)) as T
      } catch (error) {
        throw mapped(error)
      }
    },
    async subscribe(params, onData, onClosed) {
      try {
        await socket.subscribe({
          params: params as never,
          // viem hands over the notification's params: { subscription, result }.
          onData: (params) => onData((params as unknown as { result: unknown }).result),
          onError: (error: Error) => onClosed(mapped(error)),
        })
      } catch (error) {
        throw mapped(error)
      }
    },
    async close() {
      ;(await connecting).close()
    },
  }
}

/** Reads what the node says about the transaction, the same way for every source. */
class Probe {
  private statusMethod = true
  private nonceReadAt = Number.NEGATIVE_INFINITY

  constructor(
    private readonly rpc: Rpc,
    private readonly tx: { hash: string; from?: string; nonce?: number },
  ) {}

  async look(at: number): Promise<Observation> {
    const status = await this.status()
    if (status?.status === 'dropped') {
      const where =
        status.blockNumber !== undefined
          ? { blockNumber: Number(status.blockNumber), flashblockIndex: Number(status.flashblockIndex ?? 0) }
          : {}
      return { kind: 'dropped', at, reason: status.reason ?? 'dropped', requeued: status.requeued === true, ...where }
    }
    if (status?.status === 'pending') return { kind: 'pending', at }
    const receipt =
      status?.status === 'unknown' ? null : await this.rpc.request<Receipt | null>('eth_getTransactionReceipt', [this.tx.hash])
    const flashblockIndex = status?.flashblockIndex !== undefined ? Number(status.flashblockIndex) : undefined
    if (receipt) {
      if (receipt.blockHash !== ZERO_HASH) return { kind: 'sealed', at, receipt, flashblockIndex }
      return { kind: 'preconfirmed', at, blockNumber: Number(receipt.blockNumber), flashblockIndex, receipt }
    }
    return (await this.replaced()) ? { kind: 'replaced', at } : { kind: 'pending', at }
  }

  /** pcnode_transactionStatus; undefined on nodes without it (asked once). */
  private async status() {
    if (!this.statusMethod) return undefined
    try {
      return await this.rpc.request<{
        status: string
        blockNumber?: string
        flashblockIndex?: string
        reason?: string
        requeued?: boolean
      }>('pcnode_transactionStatus', [this.tx.hash])
    } catch (error) {
      if (!(error instanceof RpcCallError)) throw error
      this.statusMethod = false
      return undefined
    }
  }

  /** Whether the sender's sealed nonce has passed the transaction's (read at most every NONCE_CHECK_MS). */
  private async replaced(): Promise<boolean> {
    const { from, nonce } = this.tx
    if (from === undefined || nonce === undefined || performance.now() - this.nonceReadAt < NONCE_CHECK_MS) return false
    this.nonceReadAt = performance.now()
    return Number(await this.rpc.request<string>('eth_getTransactionCount', [from, 'latest'])) > nonce
  }
}

/** Waits until `ms` from now, `deadline`, or wake(); never past the deadline. */
class Waiter {
  private wakeUp: (() => void) | undefined
  wait(ms: number, deadline: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, Math.min(ms, deadline - performance.now())))
      const self = this
      function done() {
        clearTimeout(timer)
        self.wakeUp = undefined
        resolve()
      }
      this.wakeUp = done
    })
  }
  wake(): void {
    this.wakeUp?.()
  }
}

/** Polls the probe every POLL_MS. */
class PollingSource implements EventSource {
  private probe: Probe | undefined
  private t0 = 0
  private readonly waiter = new Waiter()

  constructor(
    private readonly rpc: Rpc,
    readonly transport: 'websocket' | 'http',
    private readonly closeRpc: () => Promise<void> = async () => {},
  ) {}

  track(tx: { hash: string; from?: string; nonce?: number }, t0: number): void {
    this.probe = new Probe(this.rpc, tx)
    this.t0 = t0
  }

  async next(deadline: number): Promise<Observation | undefined> {
    await this.waiter.wait(POLL_MS, deadline)
    if (performance.now() >= deadline) return undefined
    return (this.probe as Probe).look(Math.round(performance.now() - this.t0))
  }

  close(): Promise<void> {
    return this.closeRpc()
  }
}

/**
 * Subscribed before the submission: a flashblock naming the transaction, or a new head, makes the
 * probe look, timed at the notification (the moment the node announced it).
 */
export class SubscriptionSource implements EventSource {
  readonly transport = 'websocket'
  private probe: Probe | undefined
  private hash: string | undefined
  private t0 = 0
  /** Each notification not looked at yet: when it came, and whether it named the transaction. */
  private readonly notices: Array<{ at: number; named: boolean }> = []
  /** A sealed observation held back one turn (see next()). */
  private held: Observation | undefined
  /** Pre-confirmed hashes seen before the accepted reply named ours. */
  private readonly early = new Map<string, number>()
  private closed: Error | undefined
  private readonly waiter = new Waiter()

  constructor(private readonly ws: WebSocketRpc) {}

  async open(): Promise<void> {
    const onClosed = (error: Error) => {
      this.closed = error
      this.waiter.wake()
    }
    await this.ws.subscribe(
      ['newFlashblockTransactions'],
      (hash) => {
        const key = String(hash).toLowerCase()
        if (this.hash === undefined) this.early.set(key, performance.now())
        else if (key === this.hash) this.notice(performance.now(), true)
      },
      onClosed,
    )
    // Heads before the submission say nothing about the transaction.
    await this.ws.subscribe(['newHeads'], () => this.hash !== undefined && this.notice(performance.now(), false), onClosed)
  }

  private notice(at: number, named: boolean): void {
    this.notices.push({ at, named })
    this.waiter.wake()
  }

  track(tx: { hash: string; from?: string; nonce?: number }, t0: number): void {
    this.hash = tx.hash.toLowerCase()
    this.probe = new Probe(this.ws, tx)
    this.t0 = t0
    const early = this.early.get(this.hash)
    if (early !== undefined) this.notices.push({ at: early, named: true })
  }

  async next(deadline: number): Promise<Observation | undefined> {
    if (this.held) {
      const held = this.held
      this.held = undefined
      return held
    }
    if (this.notices.length === 0 && !this.closed) await this.waiter.wait(SAFETY_MS, deadline)
    if (this.closed) throw this.closed
    if (performance.now() >= deadline) return undefined
    const notice = this.notices.shift()
    const at = Math.round((notice?.at ?? performance.now()) - this.t0)
    const seen = await (this.probe as Probe).look(at)
    // The flashblock that named it came first, though its block sealed (or a fault took it back)
    // before the look: both, in order.
    if (notice?.named && (seen.kind === 'sealed' || (seen.kind === 'dropped' && seen.blockNumber !== undefined))) {
      this.held = { ...seen, at: Math.round(performance.now() - this.t0) }
      const receipt = seen.kind === 'sealed' ? seen.receipt : undefined
      const blockNumber = seen.kind === 'sealed' ? Number(seen.receipt.blockNumber) : (seen.blockNumber as number)
      return { kind: 'preconfirmed', at, blockNumber, flashblockIndex: seen.flashblockIndex, receipt }
    }
    return seen
  }

  close(): Promise<void> {
    return this.ws.close()
  }
}

/**
 * The connection and the one event source for `url`: a WebSocket with flashblock subscriptions when
 * the node offers them (ws(s):// must connect; for http(s):// the same URL as ws is tried), else
 * polling, over the WebSocket for a ws URL and over HTTP otherwise. Call before the submission.
 */
export async function chooseSource(url: string): Promise<{ rpc: Rpc; source: EventSource }> {
  const wsOnly = /^wss?:\/\//i.test(url)
  const viem = await import('viem')
  let ws: WebSocketRpc
  try {
    ws = await openWebSocket(viem, wsUrlFor(url))
  } catch (error) {
    if (wsOnly) throw error
    return { rpc: httpRpc(url), source: new PollingSource(httpRpc(url), 'http') }
  }
  const live = new SubscriptionSource(ws)
  try {
    await live.open()
  } catch (error) {
    if (error instanceof TransportError) {
      await ws.close().catch(() => {})
      throw error
    }
    // No flashblock subscriptions here (another kind of node): poll, on the connection the URL names.
    if (wsOnly) return { rpc: ws, source: new PollingSource(ws, 'websocket', () => ws.close()) }
    await ws.close().catch(() => {})
    return { rpc: httpRpc(url), source: new PollingSource(httpRpc(url), 'http') }
  }
  // For an http URL requests stay on HTTP, as the user named it; the WebSocket only listens.
  return { rpc: wsOnly ? ws : httpRpc(url), source: live }
}
