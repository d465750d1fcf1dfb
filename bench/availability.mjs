// Availability under hostile requests: each attack runs against a fresh pcnode while a second
// client polls eth_blockNumber; the table shows that client's latency, whether the node is still
// up afterwards, the largest gap between sealed blocks and the node's RSS. Loopback only, bounded
// traffic. The node runs from source (no build needed): `node --import tsx src/cli/index.ts start`.
//
//   node bench/availability.mjs                     (every attack)
//   node bench/availability.mjs batch deep-json     (some of them)
//   PCNODE_DIR=/other/checkout node bench/availability.mjs   (compare another checkout)
//   ANVIL=node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil node bench/availability.mjs idle batch
//                                                   (the same attacks against anvil --block-time 2)
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createGzip } from 'node:zlib'
import WebSocket from 'ws'

const ROOT = resolve(process.env.PCNODE_DIR ?? resolve(dirname(fileURLToPath(import.meta.url)), '..'))
const BLOCK_TIME = '2s'
const PROBE_EVERY_MS = 50
const LOOP_CODE = '0x5b600056' // JUMPDEST PUSH1 0 JUMP: loops until the (capped) gas runs out
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

async function post(url, body, timeoutMs = 120_000) {
  const t0 = performance.now()
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await res.text()
    return { ok: res.status === 200, status: res.status, text, ms: performance.now() - t0 }
  } catch (e) {
    return { ok: false, status: 0, text: String(e.cause?.code ?? e.name), ms: performance.now() - t0 }
  }
}
const call = (url, method, params = [], timeoutMs) =>
  post(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), timeoutMs)
const result = async (url, method, params) => JSON.parse((await call(url, method, params)).text).result

function rssMb(pid) {
  try {
    return Math.round(Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]) / 1024)
  } catch {
    return undefined
  }
}

/** Starts `pcnode start` from source (or anvil) on a free loopback port; resolves once it says where. */
async function startNode() {
  const [command, args, ready] = process.env.ANVIL
    ? [process.env.ANVIL, ['--port', '0', '--block-time', BLOCK_TIME.replace('s', '')], /Listening on (\S+)/]
    : [
        process.execPath,
        ['--import', 'tsx', 'src/cli/index.ts', 'start', '--port', '0', '--host', '127.0.0.1', '--no-app', '--json'].concat([
          '--block-time',
          BLOCK_TIME,
        ]),
        /"rpcUrl":"http:\/\/([^"]+)"/,
      ]
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000)
  })
  const exited = new Promise((r) => child.once('exit', (code, signal) => r(signal ?? code)))
  const host = await new Promise((ok, fail) => {
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      const m = out.match(ready)
      if (m) ok(m[1])
    })
    exited.then(() => fail(new Error(`node exited before it was ready: ${stderr}`)))
  })
  child.stdout.resume()
  if (!/^127\.0\.0\.1:\d+$/.test(host)) throw new Error(`not a loopback address: ${host}`)
  return { url: `http://${host}`, wsUrl: `ws://${host}`, pid: child.pid, child, exited, stderr: () => stderr }
}

/**
 * The second client, in a process of its own (the attack's client work here must not delay it):
 * eth_blockNumber in a loop until its stdin closes; then it prints its latencies' percentiles.
 */
const PROBE = `
const [url, every] = process.argv.slice(1)
const lat = []
let fails = 0
let stop = false
process.stdin.on('data', () => {}).on('end', () => { stop = true })
const body = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}'
;(async () => {
  while (!stop) {
    const t0 = performance.now()
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(30000) })
      if (res.status === 200 && (await res.text()).includes('result')) lat.push(performance.now() - t0)
      else fails++
    } catch { fails++ }
    await new Promise((r) => setTimeout(r, Number(every)))
  }
  const s = lat.sort((a, b) => a - b)
  const at = (p) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]
  console.log(JSON.stringify({ n: s.length, fails, p50: at(50), p99: at(99), max: s.at(-1) }))
})()`

function probe(url) {
  const child = spawn(process.execPath, ['-e', PROBE, url, String(PROBE_EVERY_MS)], { stdio: ['pipe', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d) => {
    out += d
  })
  const exited = new Promise((r) => child.once('exit', r))
  return async () => {
    child.stdin.end()
    await exited
    return JSON.parse(out)
  }
}

/**
 * Sealed blocks as a WebSocket client sees them (newHeads): how many arrive while the attack runs
 * and the longest wait between two of them (from the start, and until the end).
 */
async function watchHeads(wsUrl) {
  const ws = new WebSocket(wsUrl)
  await new Promise((ok, fail) => {
    ws.once('open', ok)
    ws.once('error', fail)
  })
  ws.on('error', () => {})
  const arrivals = [performance.now()]
  ws.on('message', (raw) => {
    if (JSON.parse(String(raw)).method === 'eth_subscription') arrivals.push(performance.now())
  })
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }))
  return () => {
    ws.terminate()
    arrivals.push(performance.now())
    let gap = 0
    for (let i = 1; i < arrivals.length; i++) gap = Math.max(gap, arrivals[i] - arrivals[i - 1])
    return { gap: gap / 1000, blocks: arrivals.length - 2 }
  }
}

/** A gzip of `{"x":[0,0,…]}` with `millions` of elements, built in 1 MiB pieces (~0.5 MiB out for 140M). */
async function gzipBomb(millions) {
  const gz = createGzip({ level: 9 })
  const parts = []
  gz.on('data', (d) => parts.push(d))
  const ended = new Promise((r) => gz.on('end', r))
  const chunk = Buffer.from('0,'.repeat(512 * 1024))
  gz.write('{"format":"pcnode-state","version":1,"x":[')
  for (let written = 0; written < millions * 1e6; written += 512 * 1024) {
    if (!gz.write(chunk)) await new Promise((r) => gz.once('drain', r))
  }
  gz.end('0]}')
  await ended
  return `0x${Buffer.concat(parts).toString('hex')}`
}

const short = (r) => `${r.status} ${r.text.slice(0, 70).replace(/\s+/g, ' ')}`

// Each attack returns a short description of the answer it got.
const attacks = {
  async idle() {
    await sleep(3000)
    return 'no attack'
  },
  async 'loadstate-bomb'(url, _node, hex) {
    return `${(hex.length / 2 ** 20).toFixed(2)} MiB hex: ${short(await call(url, 'anvil_loadState', [hex], 120_000))}`
  },
  async batch(url) {
    const items = Array.from({ length: 150 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'eth_call',
      params: [{ data: LOOP_CODE }, 'latest'],
    }))
    const r = await post(url, JSON.stringify(items), 300_000)
    return `150 looping eth_calls: ${r.status} in ${(r.ms / 1000).toFixed(1)} s`
  },
  async 'concurrent-heavy'(url) {
    // 20 clients, each sending one looping eth_call after another for 10 s.
    const end = performance.now() + 10_000
    let n = 0
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (performance.now() < end) {
          await call(url, 'eth_call', [{ data: LOOP_CODE }, 'latest'], 120_000)
          n++
        }
      }),
    )
    return `20 clients, ${n} looping eth_calls in 10 s`
  },
  async 'deep-json'(url) {
    const n = 4_000_000
    const body = `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":${'['.repeat(n)}${']'.repeat(n)}}`
    return `8 MB nested: ${short(await post(url, body))}`
  },
  async 'big-hex'(url) {
    const answers = []
    for (const bytes of [4 * 2 ** 20, 4.5 * 2 ** 20]) {
      const data = `0x${'ab'.repeat(bytes)}`
      const r = await call(url, 'eth_call', [{ to: '0x0000000000000000000000000000000000000004', data }, 'latest'])
      answers.push(`${(data.length / 2 ** 20).toFixed(0)} MiB text: ${short(r).slice(0, 60)}`)
    }
    return answers.join('; ')
  },
  async 'trace-repeat'(url, node) {
    const [from] = await result(url, 'eth_accounts')
    const to = '0x000000000000000000000000000000000000dEaD'
    const hash = await result(url, 'eth_sendTransaction', [{ from, to, value: '0x1' }])
    while (!(await result(url, 'eth_getTransactionReceipt', [hash]))) await sleep(100)
    const before = rssMb(node.pid)
    let errors = 0
    for (let i = 0; i < 1500; i++) {
      const r = await call(url, 'debug_traceTransaction', [hash, { tracer: i % 2 ? 'callTracer' : 'prestateTracer' }])
      if (!r.ok || r.text.includes('"error"')) errors++
    }
    return `1500 traces (${errors} errors), RSS ${before} -> ${rssMb(node.pid)} MB`
  },
  async 'tracer-reject'(url) {
    const tracer = '{result(){ Promise.reject(new Error("bye")); return 1 }, fault(){}}'
    const to = '0x0000000000000000000000000000000000000004'
    const r = await call(url, 'debug_traceCall', [{ to }, 'latest', { tracer }])
    await sleep(1000)
    return `rejecting JS tracer: ${short(r)}`
  },
}

// Inputs built before the node starts, so building them does not slow the probing client.
const prepare = { 'loadstate-bomb': () => gzipBomb(140) }

const chosen = process.argv.slice(2)
const rows = []
for (const [name, attack] of Object.entries(attacks)) {
  if (chosen.length && !chosen.includes(name)) continue
  const input = await prepare[name]?.()
  const node = await startNode()
  try {
    await sleep(500)
    const stopHeads = await watchHeads(node.wsUrl)
    const stopProbe = probe(node.url)
    await sleep(500)
    let answer
    try {
      answer = await attack(node.url, node, input)
    } catch (e) {
      answer = `threw ${e.message}`
    }
    await sleep(300)
    const lat = await stopProbe()
    const gap = stopHeads()
    const alive = (await call(node.url, 'eth_blockNumber', [], 5000)).ok
    rows.push({ name, ...lat, alive, ...gap, rss: rssMb(node.pid) ?? '-', answer })
    console.error(`${name}: ${answer}${alive ? '' : ` | node stderr: ${node.stderr().trim().split('\n').slice(-2).join(' / ')}`}`)
  } finally {
    node.child.kill('SIGTERM')
    await Promise.race([node.exited, sleep(5000)])
    if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL')
  }
}

const ms = (v) => (v === undefined ? '-' : `${Math.round(v)} ms`)
console.log('| attack | eth_blockNumber p50 | p99 | max | failed | node alive | max block gap | blocks sealed | RSS MB |')
console.log('|---|---|---|---|---|---|---|---|---|')
for (const r of rows) {
  const gap = `${r.gap.toFixed(1)} s`
  console.log(
    `| ${r.name} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ${r.fails} | ${r.alive ? 'yes' : 'NO'} | ${gap} | ${r.blocks} | ${r.rss} |`,
  )
}
