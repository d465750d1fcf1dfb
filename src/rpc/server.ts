// HTTP and WebSocket transport on one port. It moves bytes to and from the dispatcher and knows
// nothing of methods or the chain.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Dispatcher, RpcConnection } from './dispatch.js'

/** Largest request body accepted, as geth's default is 5 MiB; simulations can be big, so 10 MiB. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024
/** A WebSocket client whose unsent backlog passes this is dropped rather than slowing the node. */
const MAX_WS_BACKLOG = 16 * 1024 * 1024

// Flat [name, value, ...] lists: writeHead takes them as they are, with no per-header setHeader.
const CORS_HEADERS = [
  'access-control-allow-origin',
  '*',
  'access-control-allow-methods',
  'POST, GET, OPTIONS',
  'access-control-allow-headers',
  '*',
  'access-control-max-age',
  '86400',
]
const JSON_HEADERS = [...CORS_HEADERS, 'content-type', 'application/json']

/** Writes a whole response in one go: status, headers (CORS on every one) and body. */
function send(res: ServerResponse, status: number, body: string, headers = JSON_HEADERS): void {
  res.writeHead(status, [...headers, 'content-length', String(Buffer.byteLength(body))]).end(body)
}

export interface RpcServer {
  server: Server
  url: string
  wsUrl: string
  port: number
  close(): Promise<void>
}

export async function startRpcServer(dispatcher: Dispatcher, host: string, port: number): Promise<RpcServer> {
  const server = createServer((req, res) => handleHttp(dispatcher, req, res))
  server.keepAliveTimeout = 65_000
  const sockets = new Set<import('node:net').Socket>()
  server.on('connection', (socket) => {
    socket.setNoDelay(true)
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  attachWebSocket(server, dispatcher)
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
    url: `http://${shownHost}:${actual}`,
    wsUrl: `ws://${shownHost}:${actual}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      }),
  }
}

function handleHttp(dispatcher: Dispatcher, req: IncomingMessage, res: ServerResponse): void {
  if (req.method === 'OPTIONS') {
    res.writeHead(204, CORS_HEADERS).end()
    return
  }
  if (req.method !== 'POST') {
    const text = 'pcnode JSON-RPC endpoint: POST JSON-RPC 2.0 requests here (WebSocket on the same port).\n'
    send(res, req.method === 'GET' ? 200 : 405, text, [...CORS_HEADERS, 'content-type', 'text/plain'])
    return
  }
  const declared = Number(req.headers['content-length'] ?? 0)
  if (declared > MAX_BODY_BYTES) {
    tooLarge(res)
    req.resume()
    return
  }
  const chunks: Buffer[] = []
  let size = 0
  let aborted = false
  req.on('data', (chunk: Buffer) => {
    if (aborted) return
    size += chunk.length
    if (size > MAX_BODY_BYTES) {
      aborted = true
      tooLarge(res)
      return
    }
    chunks.push(chunk)
  })
  req.on('end', () => {
    if (aborted) return
    dispatcher.handle(Buffer.concat(chunks).toString('utf8')).then(
      (body) => send(res, 200, body ?? ''),
      (error) => send(res, 500, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: String(error) } })),
    )
  })
  req.on('error', () => res.destroy())
}

function tooLarge(res: ServerResponse): void {
  const message = `request body too large: limit is ${MAX_BODY_BYTES} bytes`
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } })
  send(res, 413, body, [...JSON_HEADERS, 'connection', 'close'])
}

let nextConnectionId = 1

/** WebSocket upgrades on the HTTP port; `ws` loads after the server listens (it costs ~100 ms). */
function attachWebSocket(server: Server, dispatcher: Dispatcher): void {
  const wssReady = import('ws').then(({ WebSocketServer }) => new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES }))
  server.on('upgrade', async (req, socket, head) => {
    const wss = await wssReady
    wss.handleUpgrade(req, socket, head, (ws) => {
      const closers: Array<() => void> = []
      const connection: RpcConnection = {
        id: nextConnectionId++,
        send(message) {
          if (ws.readyState !== ws.OPEN) return
          if (ws.bufferedAmount > MAX_WS_BACKLOG) {
            ws.terminate()
            return
          }
          ws.send(message)
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
        for (const fn of closers) fn()
      })
      ws.on('error', () => ws.terminate())
    })
  })
  server.on('close', () => void wssReady.then((wss) => wss.close()))
}
