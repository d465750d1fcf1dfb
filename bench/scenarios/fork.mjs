// fork: `pcnode start --fork-url` beside `anvil --fork-url`, both forking one local anvil upstream
// through a proxy that adds 50 ms to every request, as a remote RPC would: the start time, the
// workload's wall time and the upstream requests, with a cold and then a warm disk cache; and the
// RSS per thousand accounts touched (2,000 eth_getBalance of new addresses, no proxy).
import { setTimeout as sleep } from 'node:timers/promises'
import { FORK_LATENCY_MS, forkerHomes, forkUpstream, forkWorkload, latencyProxy, startForker } from '../fork-harness.mjs'
import { DEV, recipient } from '../lib/accounts.mjs'
import { log } from '../lib/log.mjs'
import { runPool } from '../lib/measure.mjs'
import { memOf } from '../lib/procfs.mjs'
import { waitAnswer } from '../lib/procs.mjs'
import { now, round } from '../lib/stats.mjs'

export const name = 'fork'
export const selectedBy = ['fork']

export async function run({ opts }) {
  const u = await forkUpstream(opts)
  const proxy = await latencyProxy(u.up.port, FORK_LATENCY_MS)
  const homes = forkerHomes()
  const start = (kind, url, cache) => startForker(kind, opts, { url, block: u.block, cache, homes })
  const out = { latencyMs: FORK_LATENCY_MS, upstreamBlock: u.block, runs: {} }
  try {
    for (const kind of ['pcnode', 'anvil'].filter((k) => !(opts.noAnvil && k === 'anvil'))) {
      out.runs[kind] = {}
      for (const phase of ['cold', 'warm']) {
        proxy.reset()
        const node = await start(kind, proxy.url, true)
        try {
          out.runs[kind][phase] = await workloadRun(node, proxy, u)
          const r = out.runs[kind][phase]
          log(`fork ${kind} ${phase}: start ${r.startMs} ms, workload ${r.wallMs} ms, ${proxy.total()} upstream requests`)
        } finally {
          await node.stop()
        }
      }
      // RSS per thousand accounts touched: straight to the upstream, nothing cached on disk.
      const node = await start(kind, `http://127.0.0.1:${u.up.port}/`, false)
      try {
        out.runs[kind].rss = await rssRun(node)
        const r = out.runs[kind].rss
        log(`fork ${kind}: RSS ${r.beforeMiB} -> ${r.afterMiB} MiB over ${r.accounts} accounts`)
      } finally {
        await node.stop()
      }
    }
  } finally {
    await proxy.close()
    await u.up.stop()
    homes.remove()
  }
  return { fork: out }
}

/** One forker through the proxy: its start, then the workload; the upstream requests of each. */
async function workloadRun(node, proxy, u) {
  const startMs = await waitAnswer(node, 'eth_blockNumber', [], 120_000)
  const atStart = proxy.total()
  const t = now()
  await forkWorkload(node, u)
  const wallMs = now() - t
  return {
    startMs: round(startMs),
    wallMs: round(wallMs),
    requestsAtStart: atStart,
    requestsInWorkload: proxy.total() - atStart,
    requests: proxy.total(),
    byMethod: proxy.snapshot(),
    rssMiB: memOf(node.pid).rssMiB,
  }
}

/** The forker's RSS before and after it has touched 2,000 new accounts. */
async function rssRun(node) {
  await waitAnswer(node, 'eth_blockNumber', [], 120_000)
  await node.rpc('eth_getBalance', [DEV[0].address, 'latest'])
  await sleep(500)
  const before = memOf(node.pid).rssMiB
  const accounts = 2000
  await runPool(accounts, 32, now() + 300_000, (i) => node.rpc('eth_getBalance', [recipient('fork-rss', i), 'latest']))
  await sleep(500)
  const after = memOf(node.pid).rssMiB
  return {
    accounts,
    beforeMiB: before,
    afterMiB: after,
    kibPer1000: round(((after - before) * 1024 * 1000) / accounts, 0),
  }
}
