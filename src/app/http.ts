// The HTTP vocabulary the app's route modules and its server share: the error a handler throws for
// bad input, the context a route gets, the shapes of the route tables, and JSON in and out. It
// imports nothing from the app: route modules depend on it, server.ts (the composition root) depends
// on them, and no route module has to import the server, so the app's modules form no import cycle.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { PublicClient } from 'viem'

/** The largest request body read, in bytes; a larger one is a 413. */
export const MAX_BODY = 256 * 1024

/** A response with this status and `{error: message}`; route handlers throw it for bad input. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** What the server hands every route: the chain it serves and a client of the node. */
export interface AppContext {
  chainId: number
  rpcUrl: string
  client: PublicClient
}

/**
 * A helper route: POST only, the parsed JSON body in, the 200 response body out. Any other method on
 * its path is a 404 (it is not a route). The shape of `startAppServer`'s `routes` option.
 */
export type Route = (body: unknown, ctx: AppContext) => Promise<unknown>
/** Routes by path, e.g. `/wallet/passkey/address`. */
export type RouteTable = Record<string, Route>

/**
 * One of the SPEC's endpoints: it answers one method (GET reads the query, POST the JSON body) and
 * any other method on its path is a 405 that names the right one (SPEC, "Endpoints").
 */
export type Endpoint =
  | { method: 'GET'; handle: (query: URLSearchParams) => unknown }
  | { method: 'POST'; handle: (body: unknown) => Promise<unknown> }
/** Endpoints by path, e.g. `/typed-data/verify`. */
export type EndpointTable = Record<string, Endpoint>

/** Writes `body` as JSON (bigints as decimal strings); ends a response whose headers already went out. */
export function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.end()
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)))
}

/** The request body as JSON: 413 over MAX_BODY, 400 when it is empty or not JSON. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY) throw new HttpError(413, `Request body too large (limit ${MAX_BODY} bytes)`)
    chunks.push(chunk as Buffer)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  if (!text.trim()) throw new HttpError(400, 'Missing request body')
  try {
    return JSON.parse(text)
  } catch {
    throw new HttpError(400, 'Malformed JSON body')
  }
}
