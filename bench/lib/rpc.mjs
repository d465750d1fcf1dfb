// JSON-RPC over node:http, keep-alive, with a hard timeout per request. Node 20's fetch costs
// ~1.7 ms of client CPU per request, which would make the bench itself the bottleneck.
import http from 'node:http'
import { short } from './log.mjs'

export class RpcError extends Error {
  constructor(message, code, data) {
    super(message)
    this.code = code
    this.data = data
  }
}

export function makeRpc(port, defaultTimeoutMs = 10_000) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64, keepAliveMsecs: 1000 })
  let id = 0
  const rpc = (method, params = [], timeoutMs = defaultTimeoutMs) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })
    return new Promise((resolveCall, reject) => {
      let done = false
      const finish = (err, val) => {
        if (done) return
        done = true
        clearTimeout(timer)
        if (err) reject(err)
        else resolveCall(val)
      }
      const req = http.request(
        {
          hostname: '127.0.0.1',
          port,
          path: '/',
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks = []
          res.on('data', (c) => chunks.push(c))
          res.on('error', (e) => finish(new RpcError(`transport: ${e.message}`, 'TRANSPORT')))
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8')
            let j
            try {
              j = JSON.parse(text)
            } catch {
              return finish(new RpcError(`HTTP ${res.statusCode}, non-JSON body: ${short(text)}`, `HTTP_${res.statusCode}`))
            }
            if (j?.error) return finish(new RpcError(j.error.message ?? JSON.stringify(j.error), j.error.code, j.error.data))
            if (!j || !('result' in j)) return finish(new RpcError(`malformed response: ${short(text)}`, 'MALFORMED'))
            finish(null, j.result)
          })
        },
      )
      const timer = setTimeout(() => {
        finish(new RpcError(`timeout after ${timeoutMs} ms`, 'TIMEOUT'))
        req.destroy()
      }, timeoutMs)
      req.on('error', (e) => finish(new RpcError(`transport: ${e.message}`, e.code ?? 'TRANSPORT')))
      req.end(body)
    })
  }
  rpc.close = () => agent.destroy()
  return rpc
}

/** One JSON-RPC batch request; throws on a transport error or any error answer. */
export function rpcBatch(port, calls, timeoutMs) {
  const body = JSON.stringify(calls.map(([method, params], i) => ({ jsonrpc: '2.0', id: i, method, params })))
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname: '127.0.0.1', port, path: '/', method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks = []
        res.on('data', (c) => chunks.push(c))
        res.on('end', () => {
          try {
            const answers = JSON.parse(Buffer.concat(chunks).toString('utf8'))
            const failed = Array.isArray(answers) ? answers.find((a) => a.error) : answers
            if (failed?.error || !Array.isArray(answers))
              reject(new Error(JSON.stringify(failed?.error ?? answers).slice(0, 300)))
            else resolve(answers.sort((a, b) => a.id - b.id).map((a) => a.result))
          } catch (e) {
            reject(e)
          }
        })
      },
    )
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)))
    req.on('error', reject)
    req.end(body)
  })
}

/**
 * A JSON-RPC client over fetch, for the scripts that time a node running in their own process
 * (state-io.mjs, preconf-latency.mjs): one request per call, as a plain fetch client sends it.
 */
export function fetchRpc(url) {
  let id = 0
  const post = async (body) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return res.json()
  }
  return {
    async call(method, params = []) {
      const reply = await post({ jsonrpc: '2.0', id: ++id, method, params })
      if (reply.error) throw new Error(`${method}: ${reply.error.message}`)
      return reply.result
    },
    async batch(requests) {
      const replies = await post(requests.map(([method, params]) => ({ jsonrpc: '2.0', id: ++id, method, params })))
      const failed = replies.find((r) => r.error)
      if (failed) throw new Error(failed.error.message)
      return replies.map((r) => r.result)
    },
  }
}
