// JSON-RPC over HTTP for the client subcommands (simulate, estimate, send): fetch only, no
// packages, so any command can import it statically without slowing `pcnode start`.

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

let nextId = 1

/** One JSON-RPC call over HTTP; the result, or RpcCallError / TransportError. */
export async function rpcRequest(url: string, method: string, params: unknown[], timeoutMs = 30_000): Promise<unknown> {
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    })
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string; errors?: Array<{ code?: string }> } }).cause
    const reason = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message
    throw new TransportError(`cannot reach ${url}: ${reason ?? (error as Error).message}`)
  }
  const text = await response.text()
  let body: { result?: unknown; error?: { code: number; message: string; data?: unknown } }
  try {
    body = JSON.parse(text)
  } catch {
    throw new TransportError(`${url} answered HTTP ${response.status} without JSON-RPC: ${text.slice(0, 120)}`)
  }
  if (body.error) throw new RpcCallError(body.error.code, body.error.message, body.error.data)
  if (!('result' in body)) throw new TransportError(`${url} answered without a result`)
  return body.result
}
