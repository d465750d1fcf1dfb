// A no-op node:http server in a child process: the throughput scenario's ceiling (the same sends,
// answered with a constant) and the floor under the call figures (the same view call).
import { spawn } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { recipient } from '../lib/accounts.mjs'
import { log } from '../lib/log.mjs'
import { runPool, seqLatency } from '../lib/measure.mjs'
import { freePort } from '../lib/procs.mjs'
import { makeRpc } from '../lib/rpc.mjs'
import { now, round } from '../lib/stats.mjs'

export const name = 'noopCeiling'
export const selectedBy = ['throughput']

// The ceiling of any Node.js JSON-RPC server on this machine: a node:http server that parses each
// body and answers a constant, doing none of a node's work (no decoding, recovery, pool or
// execution). The throughput scenario sends it the same transactions the same way.
const NOOP_SERVER = `
const http = require('node:http')
const result = '0x' + '00'.repeat(32)
http.createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    const body = JSON.stringify({ jsonrpc: '2.0', id, result })
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body)
  })
}).listen(Number(process.argv[1]), '127.0.0.1')
`

/** Runs `fn(rpc)` against a no-op node:http server in a child process, stopped afterwards. */
async function withNoopServer(fn) {
  const port = await freePort()
  const child = spawn(process.execPath, ['-e', NOOP_SERVER, String(port)], { stdio: 'ignore' })
  const rpc = makeRpc(port, 2000)
  try {
    const ready = now() + 10_000
    while (
      !(await rpc('eth_chainId').then(
        () => true,
        () => false,
      ))
    ) {
      if (now() > ready) throw new Error('the no-op server did not start')
      await sleep(20)
    }
    return await fn(rpc)
  } finally {
    rpc.close()
    child.kill('SIGTERM')
  }
}

/**
 * The same view call sent the same way to a no-op node:http server: what any Node.js server pays
 * before its own work, the floor under pcnode's call figures. Fresh (`warmups` = P.warmup, as the
 * first rows are measured), or warm (P.warmLong, as the warm rows).
 */
export function noopCallLatency(P, warmups) {
  const to = recipient('floor', 0)
  return withNoopServer((rpc) =>
    seqLatency(P.estimateCount, warmups, now() + 60_000, () => rpc('eth_call', [{ to, data: '0x' }, 'latest'])),
  )
}

export async function run({ P, transfers: set }) {
  const noopCeiling = await withNoopServer(async (rpc) => {
    const N = P.throughputCount
    let answered = 0
    const t0 = now()
    await runPool(N, P.inFlight, t0 + 60_000, async (i) => {
      await rpc('eth_sendRawTransaction', [set.raws[i]])
      answered++
    })
    const acceptTps = round(answered / ((now() - t0) / 1000), 1)
    log(`throughput no-op node:http server: answered ${answered}/${N} at ${acceptTps} req/s`)
    return { answered, acceptTps }
  })
  return { noopCeiling }
}
