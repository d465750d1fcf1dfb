// JSON-RPC errors: codes and message texts as geth and reth send them, and the one mapping of
// every error a handler throws to a response (anvil's ToRpcResponseResult).
import { NodeError, UpstreamRpcError } from '../node/errors.js'
import { toData } from '../shared/hex.js'

export const PARSE_ERROR = -32700
export const INVALID_REQUEST = -32600
export const METHOD_NOT_FOUND = -32601
export const INVALID_PARAMS = -32602
export const INTERNAL_ERROR = -32603
export const SERVER_ERROR = -32000

export class RpcError extends Error {
  override name = 'RpcError'
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data }
  }
}

export const invalidParams = (message: string) => new RpcError(INVALID_PARAMS, message)

/**
 * The response for anything a handler threw: RpcErrors as they are, the node's errors with the code
 * on their class (`data` as hex), anything else -32603 with a log line (a bug: input never gets here).
 */
export function toRpcError(error: unknown, log: (line: string) => void): RpcError {
  if (error instanceof RpcError) return error
  // A fork's upstream's own error, passed on as it came (its data may be any JSON).
  if (error instanceof UpstreamRpcError) return new RpcError(error.code, error.message, error.upstreamData)
  if (error instanceof NodeError) {
    const data = error.data instanceof Uint8Array ? toData(error.data) : error.data
    return new RpcError(error.code, error.message, data)
  }
  const e = error instanceof Error ? error : new Error(String(error))
  log(`internal error: ${e.stack ?? e.message}`)
  return new RpcError(INTERNAL_ERROR, `internal error: ${e.message}`)
}
