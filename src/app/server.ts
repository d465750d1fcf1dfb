// The example typed-data app: GET /typed-data/prepare and POST /typed-data/verify (SPEC, "Endpoints"
// and "States and transitions"), and a page at / to try it in a browser. It is an ordinary client
// of the node: signatures are verified through viem's public client pointed at the node's URL.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createPublicClient, custom, defineChain, http, isAddress, isHex, type PublicClient, RpcRequestError } from 'viem'
import { type AppContext, HttpError, type RouteTable, readJson, send } from './http.js'
import { NonceStore } from './nonces.js'
import { renderPage } from './page.js'
import { isAppDomain, prepareTypedData } from './typed-data.js'
import { passkeyRoutes } from './wallet-routes.js'

// Part of the library's types (src/index.ts re-exports it from here).
export type { AppContext } from './http.js'

export type VerifyMode = 'full' | 'simple'

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
  const chain = defineChain({
    id: chainId,
    name: 'pcnode',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
    // Verify against the pre-confirmed state, as a Base app would.
    experimental_preconfirmationTime: 200,
  })
  const client = createPublicClient({ chain, transport: http(options.rpcUrl, { retryCount: 0 }) }) as PublicClient
  // viem's verifyTypedData answers false when the node can't be reached; a per-request transport
  // that remembers transport failures turns that case into the 500 it is.
  const verifyingClient = () => {
    const state = { unreachable: undefined as Error | undefined }
    const inner = http(options.rpcUrl, { retryCount: 0 })({ chain })
    const transport = custom({
      request: async (args: { method: string; params?: unknown }) => {
        try {
          return await inner.request(args as never)
        } catch (error) {
          if (!(error instanceof RpcRequestError)) state.unreachable = error as Error
          throw error
        }
      },
    })
    return { client: createPublicClient({ chain, transport }), state }
  }
  const ctx: AppContext = { chainId, rpcUrl: options.rpcUrl, client }
  const routes = options.routes ?? passkeyRoutes
  const nonces = new NonceStore(options.dataDir)

  const prepare = (url: URL) => {
    const read = (name: string) => {
      const value = url.searchParams.get(name)
      if (value === null || value.trim() === '') throw new HttpError(400, `Missing query parameter: ${name}`)
      if (value.length > 256) throw new HttpError(400, `Query parameter too long: ${name}`)
      return value
    }
    const userAddress = read('userAddress')
    if (!isAddress(userAddress)) throw new HttpError(400, 'Invalid query parameter: userAddress must be an address')
    return prepareTypedData(chainId, userAddress, read('action'), read('resource'))
  }

  const verify = async (body: unknown) => {
    const { typedData, signature, address, nonceKey } = parseVerifyBody(body, chainId)
    const message = typedData.message as Record<string, unknown>
    const expired = () => Number(message.expiry) < Math.floor(Date.now() / 1000)
    const valid = async () => {
      const { client, state } = verifyingClient()
      const ok = await client.verifyTypedData({
        address,
        domain: typedData.domain as never,
        types: typedData.types as never,
        primaryType: typedData.primaryType as never,
        message: message as never,
        signature,
      })
      if (!ok && state.unreachable) throw state.unreachable
      return ok
    }
    if (mode === 'simple') {
      if (!(await valid())) throw new HttpError(401, 'Invalid signature')
      if (expired()) throw new HttpError(401, 'Signature expired')
      return { valid: true, message: 'Signature verified successfully', data: message }
    }
    return nonces.withKey(nonceKey, async () => {
      if (nonces.has(nonceKey)) throw new HttpError(400, 'Nonce already used')
      if (expired()) throw new HttpError(400, 'Signature expired')
      if (!(await valid())) throw new HttpError(401, 'Invalid signature')
      nonces.markUsed(nonceKey)
      return { valid: true, message: 'Typed data verified successfully', action: message.action, resource: message.resource }
    })
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (error instanceof HttpError) return send(res, error.status, { error: error.message })
      log(`app: verification failed: ${(error as Error).stack ?? error}`)
      send(res, 500, { error: 'Verification failed' })
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('access-control-allow-origin', '*')
    res.setHeader('access-control-allow-headers', 'content-type')
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (req.method === 'OPTIONS') return void res.writeHead(204).end()
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      return void res.end(renderPage())
    }
    if (req.method === 'GET' && url.pathname === '/config') {
      return send(res, 200, { chainId, rpcUrl: options.rpcUrl, verifyMode: mode })
    }
    if (url.pathname === '/typed-data/prepare') {
      if (req.method !== 'GET') throw new HttpError(405, 'Use GET')
      return send(res, 200, prepare(url))
    }
    if (url.pathname === '/typed-data/verify') {
      if (req.method !== 'POST') throw new HttpError(405, 'Use POST')
      return send(res, 200, await verify(await readJson(req)))
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

interface VerifyInput {
  typedData: { domain: unknown; types: Record<string, unknown>; primaryType: string; message: unknown }
  signature: `0x${string}`
  address: `0x${string}`
  nonceKey: string
}

/** Checks the body's shape; every problem is a 400 that names it. */
function parseVerifyBody(body: unknown, chainId: number): VerifyInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'Body must be a JSON object')
  const { typedData, signature, address } = body as Record<string, unknown>
  if (typeof typedData !== 'object' || typedData === null) throw new HttpError(400, 'Missing or invalid field: typedData')
  const td = typedData as Record<string, unknown>
  for (const field of ['domain', 'types', 'message'] as const) {
    if (typeof td[field] !== 'object' || td[field] === null)
      throw new HttpError(400, `Missing or invalid field: typedData.${field}`)
  }
  if (typeof td.primaryType !== 'string') throw new HttpError(400, 'Missing or invalid field: typedData.primaryType')
  if (typeof signature !== 'string' || !isHex(signature) || signature.length < 4)
    throw new HttpError(400, 'Missing or invalid field: signature')
  if (typeof address !== 'string' || !isAddress(address)) throw new HttpError(400, 'Missing or invalid field: address')
  if (!isAppDomain(td.domain, chainId))
    throw new HttpError(400, 'Invalid domain: the payload was not prepared by this app on this chain')
  const message = td.message as Record<string, unknown>
  const nonce = message.nonce
  if ((typeof nonce !== 'string' && typeof nonce !== 'number') || !/^[0-9]+$/.test(String(nonce))) {
    throw new HttpError(400, 'Missing or invalid field: typedData.message.nonce')
  }
  const expiry = message.expiry
  if ((typeof expiry !== 'string' && typeof expiry !== 'number') || !/^[0-9]+$/.test(String(expiry))) {
    throw new HttpError(400, 'Missing or invalid field: typedData.message.expiry')
  }
  return {
    typedData: td as VerifyInput['typedData'],
    signature: signature as `0x${string}`,
    address: address as `0x${string}`,
    nonceKey: NonceStore.key(address, String(nonce)),
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
