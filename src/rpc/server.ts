// HTTP and WebSocket transport on one port. It moves bytes to and from the dispatcher and knows
// nothing of methods or the chain. Who may call it (Host, Origin, content type) is shared/access.ts's rule.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { EXPLORER_HTML, explorerHeaders } from '../explorer/index.js'
import { type AccessOptions, AccessPolicy, CONTENT_TYPE_REFUSAL, isJsonContentType, type Refusal } from '../shared/access.js'
import type { Dispatcher, RpcConnection } from './dispatch.js'
import { BacklogBudget } from './ws-backlog.js'

/** Largest request body accepted, as geth's default is 5 MiB; simulations can be big, so 10 MiB. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024

// Flat [name, value, ...] lists: writeHead takes them as they are, with no per-header setHeader.
const JSON_HEADERS = ['content-type', 'application/json']
const TEXT_HEADERS = ['content-type', 'text/plain; charset=utf-8']

/** Writes a whole response in one go: status, headers and body. */
function send(res: ServerResponse, status: number, body: string, headers: string[]): void {
  res.writeHead(status, [...headers, 'content-length', String(Buffer.byteLength(body))]).end(body)
}

/** Who may call the server beyond loopback pages and Host names (shared/access.ts); none by default. */
export type RpcAccess = Pick<AccessOptions, 'allowOrigins' | 'allowHosts'> & {
  /** Answer GET / and /index.html with the explorer page (src/explorer/); off unless asked. */
  explorer?: boolean
}

export interface RpcServer {
  server: Server
  url: string
  wsUrl: string
  port: number
  /** What WebSocket clients that do not read hold in the node (ws-backlog.ts). */
  wsBacklog: Pick<BacklogBudget, 'buffered' | 'peak' | 'dropped'>
  close(): Promise<void>
}

export async function startRpcServer(
  dispatcher: Dispatcher,
  host: string,
  port: number,
  access: RpcAccess = {},
): Promise<RpcServer> {
  const policy = new AccessPolicy({ ...access, boundHost: host })
  const explorer = access.explorer === true
  const server = createServer((req, res) => handleHttp(dispatcher, policy, explorer, req, res))
  server.keepAliveTimeout = 65_000
  const sockets = new Set<Socket>()
  server.on('connection', (socket) => {
    socket.setNoDelay(true)
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  const wsBacklog = new BacklogBudget()
  attachWebSocket(server, dispatcher, policy, wsBacklog)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const actual = (server.address() as AddressInfo).port
  const shownHost = host.includes(':') ? `[${host}]` : host
  return {
    server,
    port: actual,
    wsBacklog,
    url: `http://${shownHost}:${actual}`,
    wsUrl: `ws://${shownHost}:${actual}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      }),
  }
}

/**
 * geth's order (node/rpcstack.go, rpc/http.go validateRequest): Host, then Origin, then method, size
 * and content type; nothing reaches the dispatcher before all of them pass.
 */
function handleHttp(
  dispatcher: Dispatcher,
  policy: AccessPolicy,
  explorer: boolean,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const refusal = policy.check(req.headers)
  if (refusal) {
    refuse(res, refusal)
    req.resume()
    return
  }
  if (req.method === 'OPTIONS') {
    res.writeHead(204, policy.corsHeaders(req.headers, true)).end()
    return
  }
  const cors = policy.corsHeaders(req.headers)
  // The page calls the node from its own origin, which the Origin rule already lets through.
  if (explorer && req.method === 'GET' && isExplorerPath(req.url)) {
    send(res, 200, EXPLORER_HTML, [...cors, ...explorerHeaders(req.headers.host)])
    return
  }
  if (req.method !== 'POST') {
    const text = 'pcnode JSON-RPC endpoint: POST JSON-RPC 2.0 requests here (WebSocket on the same port).\n'
    send(res, req.method === 'GET' ? 200 : 405, text, [...cors, ...TEXT_HEADERS])
    return
  }
  const declared = Number(req.headers['content-length'] ?? 0)
  if (declared > MAX_BODY_BYTES) {
    tooLarge(res, cors)
    req.resume()
    return
  }
  // A type a page can send cross-origin without a preflight (text/plain, a form, none) is never run.
  if (!isJsonContentType(req.headers['content-type'])) {
    send(res, 415, `${CONTENT_TYPE_REFUSAL}\n`, [...cors, ...TEXT_HEADERS])
    req.resume()
    return
  }
  const headers = [...cors, ...JSON_HEADERS]
  const chunks: Buffer[] = []
  let size = 0
  let aborted = false
  req.on('data', (chunk: Buffer) => {
    if (aborted) return
    size += chunk.length
    if (size > MAX_BODY_BYTES) {
      aborted = true
      tooLarge(res, cors)
      return
    }
    chunks.push(chunk)
  })
  req.on('end', () => {
    if (aborted) return
    dispatcher.handle(Buffer.concat(chunks).toString('utf8')).then(
      (body) => send(res, 200, body ?? '', headers),
      (error) =>
        send(res, 500, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: String(error) } }), headers),
    )
  })
  req.on('error', () => res.destroy())
}

/** geth's http.Error: the status and a line of text; no CORS grant, so a page cannot read it. */
function refuse(res: ServerResponse, refusal: Refusal): void {
  send(res, refusal.status, `${refusal.message}\n`, [...TEXT_HEADERS, 'connection', 'close'])
}

function tooLarge(res: ServerResponse, cors: string[]): void {
  const message = `request body too large: limit is ${MAX_BODY_BYTES} bytes`
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } })
  send(res, 413, body, [...cors, ...JSON_HEADERS, 'connection', 'close'])
}

let nextConnectionId = 1

/**
 * WebSocket upgrades on the HTTP port; `ws` loads after the server listens (it costs ~100 ms). The
 * Host and Origin are checked before the upgrade (geth's wsHandshakeValidator): browsers apply no
 * CORS to WebSockets, so this is the only thing keeping other sites' pages out.
 */
function attachWebSocket(server: Server, dispatcher: Dispatcher, policy: AccessPolicy, budget: BacklogBudget): void {
  const wssReady = import('ws').then(({ WebSocketServer }) => new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES }))
  server.on('upgrade', async (req, socket, head) => {
    // No HTTP parser listens on an upgraded socket: a client's reset must not become an uncaught error.
    socket.on('error', () => socket.destroy())
    const refusal = policy.check(req.headers)
    if (refusal) {
      const body = `${refusal.message}\n`
      socket.end(
        `HTTP/1.1 ${refusal.status} Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      )
      return
    }
    const wss = await wssReady
    wss.handleUpgrade(req, socket, head, (ws) => {
      const closers: Array<() => void> = []
      const backlog = budget.connect(() => ws.terminate())
      const connection: RpcConnection = {
        id: nextConnectionId++,
        send(message) {
          if (ws.readyState !== ws.OPEN) return
          // JSON text is ASCII but for rare strings, so its length stands for its bytes.
          if (!backlog.admit(message.length)) return
          ws.send(message, backlog.written(message.length))
        },
        onClose(fn) {
          closers.push(fn)
        },
      }
      ws.on('message', (data) => {
        // Subscriptions start notifying only after the reply carrying their id is out.
        const after: Array<() => void> = []
        const afterReply = (fn: () => void) => after.push(fn)
        dispatcher.handle(data.toString(), { connection, afterReply }).then((reply) => {
          if (reply !== undefined) connection.send(reply)
          for (const fn of after) fn()
        })
      })
      ws.on('close', () => {
        backlog.close()
        for (const fn of closers) fn()
      })
      ws.on('error', () => ws.terminate())
    })
  })
  server.on('close', () => void wssReady.then((wss) => wss.close()))
}

/** The explorer's own paths, a query string ignored. */
function isExplorerPath(url: string | undefined): boolean {
  const path = (url ?? '').split('?')[0]
  return path === '/' || path === '/index.html'
}
