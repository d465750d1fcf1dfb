// JSON-RPC to a fork's upstream: viem's HTTP client (fetch, JSON-RPC envelope, timeout, error
// classes) and retry loop under pcnode's rules, as anvil (alloy's RetryBackoffLayer) and Hardhat
// (EDR) apply them: a bounded number of requests in flight; rate limits (HTTP 429, -32005, …)
// retried with backoff, honouring Retry-After; several URLs taking turns and taking over from one
// that fails. A request that still fails throws UpstreamError naming the (redacted) URL and why.
import { HttpRequestError, RpcRequestError, TimeoutError, withRetry } from 'viem'
import { getHttpRpcClient, type HttpRpcClient } from 'viem/utils'
import { UpstreamError, UpstreamRpcError } from '../errors.js'
import type { UpstreamOptions } from './options.js'
import { redactUrl } from './redact.js'

/** What the upstream was asked, for pcnode_forkStats and the exit line. */
export interface UpstreamStats {
  requests: number
  byMethod: Record<string, number>
  bytesRead: number
  retries: number
  failures: number
}

/** JSON-RPC codes and texts providers rate-limit with (Infura -32005, QuickNode -32007, Alchemy 429). */
function isRateLimit(error: unknown): boolean {
  if (error instanceof HttpRequestError || error instanceof RpcRequestError) {
    if (error.status === 429) return true
  }
  if (error instanceof UpstreamRpcError) {
    if (error.code === 429 || error.code === -32005 || error.code === -32007) return true
    return /rate.?limit|too many requests|request limit|exceeded .*(capacity|quota|compute units)/i.test(error.message)
  }
  return false
}

/** Transport failures another try (or another URL) may fix: no answer, a timeout, a 5xx. */
function isTransport(error: unknown): boolean {
  if (error instanceof TimeoutError) return true
  if (error instanceof HttpRequestError) return error.status === undefined || error.status >= 500 || error.status === 408
  return false
}

function retryAfterMs(error: unknown): number | undefined {
  const headers = error instanceof HttpRequestError || error instanceof RpcRequestError ? error.headers : undefined
  const value = headers?.get('Retry-After')
  if (!value) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return seconds * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now())
}

/**
 * An answer that is not JSON (an HTML page, a proxy's error text). Only its HTTP status is named:
 * the body is whatever the server at that URL sends, and a node must not hand it to its caller
 * (anvil_reset lets a caller pick the URL). Not retried: the same server answers the same way.
 */
class NotJsonError extends Error {
  constructor(readonly status: number | undefined) {
    super(`the answer is not JSON${status === undefined ? '' : ` (HTTP ${status})`}`)
  }
}

/** Why a transport failure happened, in a few words (viem's messages run over several lines). */
function reason(error: unknown): string {
  if (error instanceof TimeoutError) return 'timed out'
  if (error instanceof NotJsonError) return error.message
  if (error instanceof HttpRequestError || error instanceof RpcRequestError) {
    if (error.status) return `HTTP ${error.status}${error.status === 429 ? ' (rate limited)' : ''}`
    // fetch's TypeError, and under it the system's reason (ECONNREFUSED, a socket closed…).
    const cause = error.cause as { cause?: { code?: string; message?: string }; message?: string } | undefined
    const detail = cause?.cause?.code ?? cause?.cause?.message
    return detail ? `${cause?.message ?? 'fetch failed'} (${detail})` : (cause?.message ?? error.shortMessage)
  }
  if (error instanceof UpstreamRpcError) return error.message
  return (error as Error).message
}

interface Endpoint {
  url: string
  /** Printable: keys removed. */
  name: string
  client: HttpRpcClient
  /** Until when (performance.now()) it is skipped after a transport failure, while others remain. */
  downUntil: number
}

export class Upstream {
  readonly stats: UpstreamStats = { requests: 0, byMethod: {}, bytesRead: 0, retries: 0, failures: 0 }
  private readonly endpoints: Endpoint[]
  private next = 0
  private inFlight = 0
  private readonly waiting: Array<() => void> = []
  private readonly o: Required<UpstreamOptions>
  private id = 0

  constructor(urls: string[], options: UpstreamOptions = {}) {
    if (urls.length === 0) throw new Error('no fork URL')
    this.o = {
      concurrency: 16,
      rateLimitRetries: 8,
      transportRetries: 2,
      backoffMs: 250,
      maxBackoffMs: 10_000,
      timeoutMs: 30_000,
      ...options,
    }
    this.endpoints = urls.map((url) => {
      const name = redactUrl(url)
      let parsed: URL | undefined
      try {
        parsed = new URL(url)
      } catch {}
      if (!parsed || !/^https?:$/.test(parsed.protocol)) throw new Error(`invalid fork URL ${name} (an http:// or https:// URL)`)
      return {
        url,
        name,
        downUntil: 0,
        client: getHttpRpcClient(url, { timeout: this.o.timeoutMs }),
      }
    })
  }

  /** The URLs as printed (keys redacted). */
  get names(): string[] {
    return this.endpoints.map((e) => e.name)
  }

  /**
   * `method(params)` on the upstream; its result, or UpstreamRpcError with the upstream's code,
   * message and data when it answers with an error, or UpstreamError when it cannot be reached.
   */
  async request<T = unknown>(method: string, params: unknown[], what = method): Promise<T> {
    await this.acquire()
    try {
      this.stats.requests++
      this.stats.byMethod[method] = (this.stats.byMethod[method] ?? 0) + 1
      return await this.withEndpoints<T>(method, params, what)
    } finally {
      this.release()
    }
  }

  /** Tries each endpoint in turn (starting with the next one: they share the load) until one answers. */
  private async withEndpoints<T>(method: string, params: unknown[], what: string): Promise<T> {
    const start = this.next++ % this.endpoints.length
    const now = performance.now()
    const order = this.endpoints.map((_, i) => this.endpoints[(start + i) % this.endpoints.length])
    // Endpoints that failed recently go last.
    order.sort((a, b) => Number(a.downUntil > now) - Number(b.downUntil > now))
    let last: unknown
    for (const endpoint of order) {
      try {
        return await this.onEndpoint<T>(endpoint, method, params)
      } catch (error) {
        if (error instanceof UpstreamRpcError && !isRateLimit(error)) throw error
        last = error
        endpoint.downUntil = performance.now() + 30_000
      }
    }
    this.stats.failures++
    const which = order.length === 1 ? `upstream ${order[0].name}` : `every upstream (${order.map((e) => e.name).join(', ')})`
    throw new UpstreamError(`fork: ${what} failed on ${which}: ${reason(last)}`)
  }

  private onEndpoint<T>(endpoint: Endpoint, method: string, params: unknown[]): Promise<T> {
    let rateLimited = 0
    let transport = 0
    return withRetry(
      async () => {
        let status: number | undefined
        const response = await endpoint.client
          .request({
            body: { jsonrpc: '2.0', id: ++this.id, method, params },
            onResponse: (res) => {
              status = res.status
              this.stats.bytesRead += Number(res.headers.get('content-length') ?? 0)
            },
          })
          .catch((error: unknown) => {
            // viem's JSON.parse failed on the body: its SyntaxError quotes the body's first bytes.
            if (error instanceof HttpRequestError && error.cause instanceof SyntaxError) throw new NotJsonError(status)
            // Some providers send a JSON-RPC error with an HTTP 4xx status (viem: RpcRequestError).
            // Unless it is a rate limit, it is the upstream's answer, as on a 200 (an EIP-1898
            // refusal must reach the by-number fallback), not a failure of the endpoint.
            if (error instanceof RpcRequestError && !isRateLimit(error)) {
              throw new UpstreamRpcError(error.code, (error.cause as { message?: string })?.message ?? error.details, error.data)
            }
            throw error
          })
        if (response.error) {
          const { code, message, data } = response.error as { code: number; message: string; data?: unknown }
          throw new UpstreamRpcError(code, message, data)
        }
        return response.result as T
      },
      {
        retryCount: this.o.rateLimitRetries + this.o.transportRetries,
        shouldRetry: ({ error }) => {
          const retry = isRateLimit(error)
            ? ++rateLimited <= this.o.rateLimitRetries
            : isTransport(error) && ++transport <= this.o.transportRetries
          if (retry) this.stats.retries++
          return retry
        },
        delay: ({ count, error }) => Math.min(retryAfterMs(error) ?? this.o.backoffMs * 2 ** count, this.o.maxBackoffMs),
      },
    )
  }

  private async acquire(): Promise<void> {
    if (this.inFlight < this.o.concurrency) {
      this.inFlight++
      return
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve))
  }

  private release(): void {
    const wake = this.waiting.shift()
    if (wake) wake()
    else this.inFlight--
  }
}
