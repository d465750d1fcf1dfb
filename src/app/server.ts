// The example typed-data app's server and composition root: it builds the chain and the node client,
// composes the route tables (the typed-data endpoints of typed-data-routes.ts, the helper routes of
// wallet-routes.ts or the caller's), and serves them with the page at / (SPEC, "Endpoints"). The
// route modules import only http.ts, never this file.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createPublicClient, http, type PublicClient } from 'viem'
import { pcnodeChain } from '../chain.js'
import { AccessPolicy } from '../shared/access.js'
import { type AppContext, HttpError, type RouteTable, readJson, send } from './http.js'
import { NonceStore } from './nonces.js'
import { renderPage } from './page.js'
import { typedDataRoutes, type VerifyMode } from './typed-data-routes.js'
import { passkeyRoutes } from './wallet-routes.js'

// Part of the library's types (src/index.ts re-exports them from here).
export type { AppContext } from './http.js'
export type { VerifyMode } from './typed-data-routes.js'

export interface AppServerOptions {
  /** The node the app verifies against. */
  rpcUrl: string
  port?: number
  host?: string
  /** Read from the node (eth_chainId) when absent. */
  chainId?: number
  /** Folder for used nonces; without it they live in memory only. */
  dataDir?: string
  /** 'full' (default): nonce, expiry, signature; 'simple': signature, then expiry, no nonce tracking. */
  verifyMode?: VerifyMode
  log?: (line: string) => void
  /** Browser origins allowed besides loopback pages, as the node's (docs/security.md); `*` any. */
  allowOrigins?: string[]
  /** Host names answered besides localhost and IP addresses, as the node's; `*` any. */
  allowHosts?: string[]
  /** Extra routes (the smart-wallet helpers the page's passkey path uses); default: `passkeyRoutes` (wallet-routes.ts). */
  routes?: RouteTable
}

export interface StartedAppServer {
  url: string
  port: number
  chainId: number
  stop(): Promise<void>
}

export async function startAppServer(options: AppServerOptions): Promise<StartedAppServer> {
  const log = options.log ?? ((line: string) => console.error(line))
  const mode = options.verifyMode ?? 'full'
  const chainId = options.chainId ?? (await fetchChainId(options.rpcUrl))
  // The library's chain: its pre-confirmation time makes viem read (and so verify against) the
  // "pending", pre-confirmed state, as a Base app would.
  const chain = pcnodeChain({ id: chainId, rpcUrl: options.rpcUrl })
  const client = createPublicClient({ chain, transport: http(options.rpcUrl, { retryCount: 0 }) }) as PublicClient
  const ctx: AppContext = { chainId, rpcUrl: options.rpcUrl, client }
  const nonces = new NonceStore(options.dataDir)
  const endpoints = typedDataRoutes({ chain, rpcUrl: options.rpcUrl, mode, nonces })
  const routes = options.routes ?? passkeyRoutes
  // The node's Host and Origin rules: its own page is same-origin, other sites' pages are refused.
  const access = new AccessPolicy({
    boundHost: options.host ?? '127.0.0.1',
    allowOrigins: options.allowOrigins,
    allowHosts: options.allowHosts,
    serverName: 'this app',
  })

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (error instanceof HttpError) return send(res, error.status, { error: error.message })
      log(`app: verification failed: ${(error as Error).stack ?? error}`)
      send(res, 500, { error: 'Verification failed' })
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refusal = access.check(req.headers)
    if (refusal) throw new HttpError(refusal.status, refusal.message)
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (req.method === 'OPTIONS') return void res.writeHead(204, access.corsHeaders(req.headers, true)).end()
    const cors = access.corsHeaders(req.headers)
    for (let i = 0; i < cors.length; i += 2) res.setHeader(cors[i], cors[i + 1])
    // The page and its config are not endpoints: another method on them falls through to the helper
    // routes, so it is a 404 (not a 405) unless one of them has the path.
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      return void res.end(renderPage())
    }
    if (req.method === 'GET' && url.pathname === '/config') {
      return send(res, 200, { chainId, rpcUrl: options.rpcUrl, verifyMode: mode })
    }
    const endpoint = endpoints[url.pathname]
    if (endpoint) {
      if (req.method !== endpoint.method) throw new HttpError(405, `Use ${endpoint.method}`)
      const body = endpoint.method === 'GET' ? endpoint.handle(url.searchParams) : await endpoint.handle(await readJson(req))
      return send(res, 200, body)
    }
    const route = routes[url.pathname]
    if (route && req.method === 'POST') return send(res, 200, await route(await readJson(req), ctx))
    throw new HttpError(404, `Not found: ${req.method} ${url.pathname}`)
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 3001, options.host ?? '127.0.0.1', () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    chainId,
    stop: () =>
      new Promise<void>((resolve) => {
        nonces.close()
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

async function fetchChainId(rpcUrl: string): Promise<number> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
  })
  const body = (await res.json()) as { result?: string }
  if (!body.result) throw new Error(`could not read the chain id from ${rpcUrl}`)
  return Number(body.result)
}
