// JSON-RPC over HTTP for the client subcommands (simulate, estimate, trace, send, and the first
// request of wallet and typed-data), and their --rpc-url. fetch only, no packages, so any command
// can import it statically without slowing `pcnode start`. An endpoint that cannot be reached, or
// that answers something other than JSON-RPC (a web page, a 404), is a TransportError whose message
// says what happened and what to do, as every subcommand prints it.
import { InvalidArgumentError } from 'commander'

export const DEFAULT_RPC_URL = 'http://127.0.0.1:8545'

/** A JSON-RPC error answer (exit 1 or 2 is the caller's choice). */
export class RpcCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}

/** The endpoint could not be reached or did not answer JSON-RPC. */
export class TransportError extends Error {}

/** What to do when the URL is not a node, said once for every subcommand. */
export const NODE_HINT = 'is a node running there? `pcnode start` prints its RPC URL; pass it with --rpc-url'

/**
 * --rpc-url as cast takes it: a URL without a scheme (127.0.0.1:8545, localhost:8545) is http://.
 * `schemes` are the ones the command speaks; anything else is a usage error.
 */
export function rpcUrlOption(schemes: readonly string[] = ['http', 'https']): (value: string) => string {
  return (value) => {
    const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw new InvalidArgumentError(`not a URL: ${value} (e.g. http://127.0.0.1:8545)`)
    }
    const scheme = parsed.protocol.slice(0, -1)
    if (!schemes.includes(scheme)) throw new InvalidArgumentError(`${value}: the URL must be ${schemes.join(', ')}`)
    return url
  }
}

/** Why fetch failed, in words: undici puts the system error in `cause` (an AggregateError for localhost). */
export function unreachable(url: string, error: unknown): TransportError {
  if ((error as Error).name === 'TimeoutError') return new TransportError(`${url} did not answer in time; ${NODE_HINT}`)
  const cause = (error as { cause?: { code?: string; message?: string; errors?: Array<{ code?: string }> } }).cause
  const code = cause?.code ?? cause?.errors?.[0]?.code
  const words: Record<string, string> = {
    ECONNREFUSED: 'nothing listens on that port (ECONNREFUSED)',
    ENOTFOUND: 'no such host (ENOTFOUND)',
    EAI_AGAIN: 'the host name did not resolve (EAI_AGAIN)',
    ECONNRESET: 'the connection was reset (ECONNRESET)',
    EHOSTUNREACH: 'the host is unreachable (EHOSTUNREACH)',
    UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  }
  // fetch refuses the ports browsers block (1, 9, 25, …) with a bare "bad port".
  const reason =
    cause?.message === 'bad port'
      ? 'fetch refuses that port (browsers block it too); run the node on another'
      : ((code && words[code]) ?? code ?? cause?.message ?? (error as Error).message)
  return new TransportError(`cannot reach the node at ${url}: ${reason}; ${NODE_HINT}`)
}

/** A body that is not a JSON-RPC answer: what the server is, as far as its answer tells. */
function notJsonRpc(url: string, response: Response, text: string): TransportError {
  const type = response.headers.get('content-type')?.split(';')[0] ?? 'no content type'
  const start = text.replace(/\s+/g, ' ').trim().slice(0, 60)
  const shown = start ? `: ${JSON.stringify(start)}${text.length > 60 ? '…' : ''}` : ''
  return new TransportError(`${url} is not a JSON-RPC node: it answered HTTP ${response.status} (${type})${shown}; ${NODE_HINT}`)
}

let nextId = 1

/** One JSON-RPC call over HTTP; the result, or RpcCallError / TransportError. */
export async function rpcRequest(url: string, method: string, params: unknown[], timeoutMs = 30_000): Promise<unknown> {
  let response: Response
  let text: string
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    text = await response.text()
  } catch (error) {
    throw unreachable(url, error)
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw notJsonRpc(url, response, text)
  }
  // JSON that is not a JSON-RPC answer (an app's {"error": "not found"}): not a node either.
  const answer = body as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw notJsonRpc(url, response, text)
  const { error } = answer
  if (error !== undefined) {
    if (typeof error !== 'object' || error === null || typeof error.code !== 'number' || typeof error.message !== 'string') {
      throw notJsonRpc(url, response, text)
    }
    throw new RpcCallError(error.code, error.message, error.data)
  }
  if (!('result' in answer)) throw notJsonRpc(url, response, text)
  return answer.result
}
