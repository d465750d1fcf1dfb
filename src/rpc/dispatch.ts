// JSON-RPC 2.0 dispatch: parse, validate the envelope, route through the method table, shape
// errors. Knows nothing of the chain; handlers do. Kept free of heavy imports so the server can
// answer while the engine is still loading.
import { jsonShapeProblem } from '../shared/json-shape.js'
import { INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RpcError, SERVER_ERROR, toRpcError } from './errors.js'

export interface RpcContext {
  /** Set by the WebSocket transport: lets subscription methods push notifications. */
  connection?: RpcConnection
  /** Set by the WebSocket transport: runs `fn` once this message's reply has been sent. */
  afterReply?: (fn: () => void) => void
}

export interface RpcConnection {
  id: number
  send(message: string): void
  /** Called when the connection closes. */
  onClose(fn: () => void): void
}

export type Handler = (params: unknown[], ctx: RpcContext) => unknown
export type MethodTable = Record<string, Handler>

interface Request {
  jsonrpc?: unknown
  id?: unknown
  method?: unknown
  params?: unknown
}

const MAX_BATCH = 1000
/**
 * Deepest JSON a request may nest, checked on the text before JSON.parse builds it (which has no
 * limit of its own). serde_json's recursion limit, so anvil and reth refuse the same; the deepest
 * real request (eth_simulateV1 with access lists, in a batch) nests about ten levels.
 */
const MAX_JSON_DEPTH = 128

export class Dispatcher {
  private table: MethodTable
  private ready: Promise<MethodTable> | undefined

  /** `early` answers at once; the full table arrives with `full` (the engine loads meanwhile). */
  constructor(
    early: MethodTable,
    full: Promise<MethodTable> | MethodTable,
    private readonly log: (line: string) => void = () => {},
  ) {
    this.table = early
    if (full instanceof Promise) {
      this.ready = full.then((t) => {
        this.table = t
        this.ready = undefined
        return t
      })
      this.ready.catch(() => {})
    } else {
      this.table = full
    }
  }

  /** Handles one HTTP body or WebSocket message; undefined when nothing is to be sent back. */
  async handle(body: string, ctx: RpcContext = {}): Promise<string | undefined> {
    // Shorter text cannot nest that deep: the scan runs only where it could find something.
    const shape = body.length > MAX_JSON_DEPTH ? jsonShapeProblem(body, { maxDepth: MAX_JSON_DEPTH }) : undefined
    if (shape) {
      const error = { code: PARSE_ERROR, message: `parse error: the JSON ${shape.message}` }
      return JSON.stringify({ jsonrpc: '2.0', id: null, error })
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(body)
    } catch {
      return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'parse error' } })
    }
    if (Array.isArray(parsed)) {
      if (parsed.length === 0)
        return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message: 'empty batch' } })
      if (parsed.length > MAX_BATCH) {
        return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: SERVER_ERROR, message: 'batch too large' } })
      }
      // One item after another, as geth answers a batch: a batch of heavy calls then holds the
      // engine's queue for one call at a time, and other clients' requests take turns with it.
      const sent: string[] = []
      for (const item of parsed) {
        const response = await this.one(item as Request, ctx)
        if (response !== undefined) sent.push(response)
      }
      return sent.length ? `[${sent.join(',')}]` : undefined
    }
    return this.one(parsed as Request, ctx)
  }

  private async one(req: Request, ctx: RpcContext): Promise<string | undefined> {
    if (typeof req !== 'object' || req === null || Array.isArray(req)) {
      return reply(null, undefined, new RpcError(INVALID_REQUEST, 'invalid request'))
    }
    const id = validId(req.id) ? req.id : null
    const isNotification = !('id' in req)
    if (req.jsonrpc !== '2.0' || typeof req.method !== 'string' || !validId(req.id ?? null)) {
      return reply(id, undefined, new RpcError(INVALID_REQUEST, 'invalid request'))
    }
    let result: unknown
    let error: RpcError | undefined
    try {
      result = await this.call(req.method, req.params, ctx)
    } catch (e) {
      error = toRpcError(e, this.log)
    }
    if (isNotification) return undefined
    return reply(id, result, error)
  }

  async call(method: string, rawParams: unknown, ctx: RpcContext): Promise<unknown> {
    let handler = this.table[method]
    if (!handler && this.ready) handler = (await this.ready)[method]
    if (!handler) throw new RpcError(METHOD_NOT_FOUND, `the method ${method} does not exist/is not available`)
    if (rawParams !== undefined && rawParams !== null && !Array.isArray(rawParams)) {
      throw new RpcError(INVALID_PARAMS, 'non-array args')
    }
    const result = await handler((rawParams as unknown[] | undefined) ?? [], ctx)
    return result === undefined ? null : result
  }
}

function validId(id: unknown): boolean {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))
}

function reply(id: unknown, result: unknown, error: RpcError | undefined): string {
  if (error) return JSON.stringify({ jsonrpc: '2.0', id, error: error.toJSON() })
  const message = { jsonrpc: '2.0', id, result }
  // Results are hex strings already, save a stray bigint; a replacer makes V8 stringify ~2× slower
  // (a simulate reply, a trace), so it runs only when JSON.stringify refuses a bigint.
  try {
    return JSON.stringify(message)
  } catch {
    return JSON.stringify(message, bigintSafe)
  }
}

function bigintSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `0x${value.toString(16)}` : value
}

/** Checks the argument count the way geth does. */
export function expectArgs(params: unknown[], min: number, max: number): void {
  if (params.length < min) throw new RpcError(INVALID_PARAMS, `missing value for required argument ${params.length}`)
  if (params.length > max) throw new RpcError(INVALID_PARAMS, `too many arguments, want at most ${max}`)
}
