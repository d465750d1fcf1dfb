#!/usr/bin/env node
// The explorer page (GET / on the node's port) measured in headless Chromium against a running
// pcnode, for docs/performance.md:
//   load        the page's first load: navigation start to DOM ready, and to the first block row
//   lag         a block's sealing to its row in the page: each row's appearance (a MutationObserver
//               in the page) beside the block's newHeads arrival at this process's own WebSocket and
//               beside the block's own time (timestampMs, Denim blocks under --profile base)
//   throughput  pre-signed transfers sent with the page closed and open, alternately: accepted
//               tx/s and the time until the last one's receipt is sealed
//
//   pcnode start --profile base --no-app -qq &            # 5 blocks a second
//   node bench/explorer.mjs --rpc-url http://127.0.0.1:8545 [--only load,lag,throughput]
//        [--loads 10] [--blocks 300] [--tx 2000] [--runs 3] [--in-flight 32] [--chromium /usr/bin/chromium]
//
// Plain Node ESM: playwright-core (Debian's Chromium), ws, viem (signing, via lib/accounts.mjs).
// The transfers come from dev account 0 of the default mnemonic, from its current nonce on.
// Every wait is bounded; the browser is closed at the end.
import { setTimeout as sleep } from 'node:timers/promises'
import { chromium } from 'playwright-core'
import WebSocket from 'ws'
import { DEV, recipient, signTransfer } from './lib/accounts.mjs'
import { log } from './lib/log.mjs'
import { runPool } from './lib/measure.mjs'
import { makeRpc } from './lib/rpc.mjs'
import { now, round, stats } from './lib/stats.mjs'

const ARGS = {
  rpcUrl: 'http://127.0.0.1:8545',
  only: 'load,lag,throughput',
  loads: 10,
  blocks: 300,
  tx: 2000,
  runs: 3,
  inFlight: 32,
  chromium: '/usr/bin/chromium',
}

function parseArgs(argv) {
  const opts = { ...ARGS }
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '').replace(/-(\w)/g, (_, c) => c.toUpperCase())
    if (!(key in ARGS)) throw new Error(`unknown flag ${argv[i]} (flags: ${Object.keys(ARGS).join(', ')})`)
    const value = argv[++i]
    opts[key] = typeof ARGS[key] === 'number' ? Number(value) : value
  }
  opts.only = opts.only.split(',')
  return opts
}

/** In the page, before its script runs: when each block row first appears (wall-clock ms). */
function watchRows() {
  const seen = {}
  globalThis.__seen = seen
  new MutationObserver((changes) => {
    const t = performance.timeOrigin + performance.now()
    for (const c of changes) {
      for (const n of c.addedNodes) {
        const number = n.dataset?.number
        if (number !== undefined && n.parentElement?.id === 'blocks' && seen[number] === undefined) seen[number] = t
      }
    }
  }).observe(document, { childList: true, subtree: true })
}

const fmt = (s) => (s ? `p50 ${s.p50} ms, p90 ${s.p90} ms, p99 ${s.p99} ms, max ${s.max} ms (n ${s.n})` : 'no samples')

async function measureLoad(browser, url, loads) {
  const dom = []
  const firstRow = []
  for (let i = 0; i < loads; i++) {
    const context = await browser.newContext({ viewport: { width: 1000, height: 800 } })
    const page = await context.newPage()
    await page.addInitScript(watchRows)
    await page.goto(url, { timeout: 30_000 })
    await page.waitForSelector('#blocks li', { timeout: 30_000 })
    const t = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0]
      const first = Math.min(...Object.values(globalThis.__seen))
      return { dom: nav.domContentLoadedEventEnd - nav.startTime, firstRow: first - performance.timeOrigin }
    })
    dom.push(t.dom)
    firstRow.push(t.firstRow)
    await context.close()
  }
  return { domReady: stats(dom), firstBlockRow: stats(firstRow) }
}

async function measureLag(browser, url, blocks) {
  const wsUrl = url.replace(/^http/, 'ws')
  const heads = new Map()
  const ws = new WebSocket(wsUrl)
  await new Promise((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  ws.on('message', (data) => {
    const m = JSON.parse(String(data))
    const h = m.params?.result
    if (!h?.number) return
    heads.set(Number(BigInt(h.number)), { arrival: Date.now(), stamp: h.timestampMs ? Number(BigInt(h.timestampMs)) : undefined })
  })
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }))
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } })
  const page = await context.newPage()
  const problems = []
  page.on('pageerror', (e) => problems.push(e.message))
  await page.addInitScript(watchRows)
  await page.goto(url, { timeout: 30_000 })
  await page.waitForFunction(() => document.getElementById('live')?.textContent === 'live', undefined, { timeout: 30_000 })
  const from = Math.max(...heads.keys(), 0) + 2
  const bound = now() + blocks * 1000 + 60_000
  while (heads.size < blocks + 2 && now() < bound) await sleep(250)
  await sleep(1000) // the last rows' fetches
  const seen = await page.evaluate(() => globalThis.__seen)
  await context.close()
  ws.close()
  const byHeads = []
  const byStamp = []
  const missing = []
  const last = Math.max(...heads.keys())
  for (const [n, h] of heads) {
    if (n < from) continue
    const shown = seen[String(n)]
    if (shown === undefined) {
      missing.push(n === last ? `${n} (the last)` : n)
      continue
    }
    byHeads.push(shown - h.arrival)
    if (h.stamp !== undefined) byStamp.push(shown - h.stamp)
  }
  return { afterNewHeads: stats(byHeads), afterTimestampMs: stats(byStamp), missing, pageErrors: problems }
}

async function sendTransfers(rpc, count, inFlight) {
  const from = DEV[0]
  const start = Number(BigInt(await rpc('eth_getTransactionCount', [from.address, 'pending'])))
  const raws = []
  for (let i = 0; i < count; i++) raws.push(await signTransfer(from, start + i, recipient('explorer', start + i)))
  const t0 = now()
  let accepted = 0
  let last
  await runPool(count, inFlight, t0 + 180_000, async (i) => {
    try {
      const hash = await rpc('eth_sendRawTransaction', [raws[i]])
      accepted++
      if (i === count - 1) last = hash
    } catch {}
  })
  const submitMs = now() - t0
  let sealedMs = null
  const bound = now() + 120_000
  while (last && now() < bound) {
    const r = await rpc('eth_getTransactionReceipt', [last]).catch(() => null)
    if (r?.blockHash && !/^0x0+$/.test(r.blockHash)) {
      const block = await rpc('eth_getBlockByHash', [r.blockHash, false])
      if (block) {
        sealedMs = now() - t0
        break
      }
    }
    await sleep(5)
  }
  return { accepted, txPerS: round((accepted / submitMs) * 1000, 0), allSealedMs: round(sealedMs, 0) }
}

async function measureThroughput(browser, url, rpc, count, runs, inFlight) {
  const closed = []
  const open = []
  // Untimed: the node's and this process's first sends compile their code paths.
  await sendTransfers(rpc, Math.ceil(count / 4), inFlight)
  for (let r = 0; r < runs; r++) {
    closed.push(await sendTransfers(rpc, count, inFlight))
    log(`throughput, page closed, run ${r + 1}: ${JSON.stringify(closed.at(-1))}`)
    const context = await browser.newContext({ viewport: { width: 1000, height: 800 } })
    const page = await context.newPage()
    await page.goto(url, { timeout: 30_000 })
    await page.waitForFunction(() => document.getElementById('live')?.textContent === 'live', undefined, { timeout: 30_000 })
    open.push(await sendTransfers(rpc, count, inFlight))
    log(`throughput, page open, run ${r + 1}: ${JSON.stringify(open.at(-1))}`)
    await context.close()
  }
  const spread = (runs, key) => {
    const v = runs.map((x) => x[key]).filter((x) => x !== null)
    return { min: Math.min(...v), max: Math.max(...v), each: v }
  }
  return {
    closed: { txPerS: spread(closed, 'txPerS'), allSealedMs: spread(closed, 'allSealedMs') },
    open: { txPerS: spread(open, 'txPerS'), allSealedMs: spread(open, 'allSealedMs') },
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2))
  const url = `${opts.rpcUrl.replace(/\/$/, '')}/`
  // node:http with keep-alive: fetch's client CPU per request would make this process the bottleneck.
  const rpc = makeRpc(Number(new URL(opts.rpcUrl).port), 30_000)
  const version = await rpc('web3_clientVersion')
  log(`explorer bench against ${opts.rpcUrl} (${version}), ${opts.only.join(', ')}`)
  const browser = await chromium.launch({ executablePath: opts.chromium, args: ['--no-sandbox'], timeout: 60_000 })
  const out = {}
  try {
    if (opts.only.includes('load')) {
      out.load = await measureLoad(browser, url, opts.loads)
      console.log(`first load, DOM ready:       ${fmt(out.load.domReady)}`)
      console.log(`first load, first block row: ${fmt(out.load.firstBlockRow)}`)
    }
    if (opts.only.includes('lag')) {
      out.lag = await measureLag(browser, url, opts.blocks)
      console.log(`block shown, after newHeads at a WebSocket client: ${fmt(out.lag.afterNewHeads)}`)
      console.log(`block shown, after its timestampMs:                ${fmt(out.lag.afterTimestampMs)}`)
      console.log(`blocks never shown: ${out.lag.missing.join(', ') || 'none'}; page errors: ${out.lag.pageErrors.length}`)
    }
    if (opts.only.includes('throughput')) {
      out.throughput = await measureThroughput(browser, url, rpc, opts.tx, opts.runs, opts.inFlight)
      for (const side of ['closed', 'open']) {
        const t = out.throughput[side]
        console.log(
          `page ${side.padEnd(6)} ${opts.tx} transfers: accepted ${t.txPerS.min}–${t.txPerS.max} tx/s (${t.txPerS.each.join(', ')}), all sealed after ${t.allSealedMs.min}–${t.allSealedMs.max} ms`,
        )
      }
    }
  } finally {
    await browser.close()
    rpc.close()
  }
  console.log(JSON.stringify(out))
}

main().catch((e) => {
  console.error(e?.stack ?? e)
  process.exitCode = 1
})
