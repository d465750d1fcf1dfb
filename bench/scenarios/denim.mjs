// denim: Base since its Denim upgrade (`pcnode start --profile base`, a sealed block every 200 ms)
// beside `anvil --block-time 0.2`: idle CPU at 5 blocks a second; send -> sealed receipt under
// Poisson arrivals (lib/arrivals.mjs); `anvil_mine` of a day of 200 ms blocks (432,000) in chunks,
// its time and the RSS after it, and idle CPU with that chain. pcnode with `--state FILE` is run
// once more for what the state-file writes (every --state-interval blocks) cost at this block rate.
import { rmSync, statSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { DEV, signedSet } from '../lib/accounts.mjs'
import { openLoopReceipts, poissonSchedule } from '../lib/arrivals.mjs'
import { log } from '../lib/log.mjs'
import { cpuMeter, memOf } from '../lib/procfs.mjs'
import { DENIM_STATE_FILE, withNode } from '../lib/procs.mjs'
import { hexN, now, round } from '../lib/stats.mjs'

export const name = 'denim'
export const selectedBy = ['denim']

/** The node's CPU as % of one core over `seconds` with no traffic, and the blocks it sealed meanwhile. */
async function idleCpu(node, seconds) {
  const b0 = hexN(await node.rpc('eth_blockNumber', []))
  const cpu = cpuMeter(node.pid)
  await sleep(seconds * 1000)
  const c = cpu()
  const blocks = hexN(await node.rpc('eth_blockNumber', [])) - b0
  const r = { ...c, pctOfCore: round((100 * c.nodeCpuS) / c.wallS, 1), blocksPerS: round(blocks / c.wallS, 2) }
  log(`denim ${node.name}: idle ${r.pctOfCore}% of a core, ${r.blocksPerS} blocks/s`)
  return r
}

/**
 * anvil_mine of P.denimMineBlocks in chunks of P.denimMineChunk, stopping at the first chunk past
 * `boundS` (anvil slows down as its chain grows, writing every block's state to disk) or past
 * P.denimRssBoundMiB. At P.denimIdleAtBlock mined, an untimed idle CPU sample.
 */
async function mine(node, P, boundS) {
  const chunks = []
  const deadline = now() + boundS * 1000
  let mined = 0
  let stopped = null
  let idleAfterFirst = null
  let mineMs = 0
  while (mined < P.denimMineBlocks) {
    const n = Math.min(P.denimMineChunk, P.denimMineBlocks - mined)
    const left = deadline - now()
    if (left <= 0) {
      stopped = `time bound ${boundS} s`
      break
    }
    const s = now()
    await node.rpc('anvil_mine', [`0x${n.toString(16)}`], left + 600_000)
    const ms = now() - s
    mineMs += ms
    mined += n
    const mem = memOf(node.pid)
    chunks.push({ mined, ms: round(ms, 0), rssMiB: mem.rssMiB })
    if (chunks.length % 10 === 1)
      log(`denim ${node.name}: mined ${mined} blocks in ${round(mineMs / 1000, 1)} s, RSS ${mem.rssMiB} MiB`)
    if (mined === P.denimIdleAtBlock && mined < P.denimMineBlocks) idleAfterFirst = await idleCpu(node, P.denimIdleAfterS)
    if (mem.rssMiB > P.denimRssBoundMiB) {
      stopped = `RSS over ${P.denimRssBoundMiB} MiB`
      break
    }
  }
  const rssNow = memOf(node.pid)
  await sleep(P.denimSettleS * 1000) // pruning sweeps and anvil's state offloading run after the blocks
  const rssSettled = memOf(node.pid)
  return {
    mined,
    mineS: round(mineMs / 1000, 1),
    msPerBlock: mined ? round(mineMs / mined, 3) : null,
    stopped,
    chunks,
    idleAfterFirst,
    rssAfterMiB: rssNow.rssMiB,
    rssSettledMiB: rssSettled.rssMiB,
    peakRssMiB: rssSettled.peakRssMiB,
    head: hexN(await node.rpc('eth_blockNumber', [])),
  }
}

const fileBytes = (f) => {
  try {
    return statSync(f).size
  } catch {
    return null
  }
}

export async function run({ opts, P }) {
  const schedule = await poissonSchedule(P.denimRate, P.denimSeconds, P.denimMaxTx, 7)
  const set = await signedSet(DEV[0], schedule.length, 'denim')
  const names = ['pcnode(base)', 'anvil(bt 0.2)'].filter((n) => !(opts.noAnvil && n.startsWith('anvil')))
  const out = { schedule: { count: schedule.length, rate: P.denimRate, seconds: P.denimSeconds } }
  for (const n of names) {
    out[n] = await withNode(n, opts, async (node) => {
      await sleep(P.denimWarmupS * 1000)
      const idle = await idleCpu(node, P.denimIdleS)
      const latency = await openLoopReceipts(node, set.raws, schedule, { pollMs: P.denimPollMs, boundMs: 10_000 })
      log(
        `denim ${n}: sealed receipt p50 ${latency.receiptMs.p50} ms, p99 ${latency.receiptMs.p99} ms (${latency.completed}/${latency.count})`,
      )
      const rssBefore = memOf(node.pid).rssMiB
      const mined = await mine(node, P, node.kind === 'anvil' ? P.denimAnvilMineBoundS : P.denimMineBoundS)
      log(
        `denim ${n}: mined ${mined.mined} blocks in ${mined.mineS} s, RSS ${mined.rssSettledMiB} MiB${mined.stopped ? ` (${mined.stopped})` : ''}`,
      )
      const idleAfter = await idleCpu(node, P.denimIdleAfterS)
      return { idle, latency, rssBeforeMiB: rssBefore, mine: mined, idleAfter }
    })
  }
  // What --state costs at 5 blocks a second: idle CPU with a fresh chain, and after P.denimStateBlocks.
  rmSync(DENIM_STATE_FILE, { force: true })
  try {
    out['pcnode(base, --state)'] = await withNode('pcnode(base, --state)', opts, async (node) => {
      await sleep(P.denimWarmupS * 1000)
      const idle = await idleCpu(node, P.denimIdleS)
      const fileBytesFresh = fileBytes(DENIM_STATE_FILE)
      const mined = await mine(node, { ...P, denimMineBlocks: P.denimStateBlocks }, P.denimAnvilMineBoundS)
      const idleAfter = await idleCpu(node, P.denimIdleS)
      return { idle, fileBytesFresh, mine: mined, idleAfter, fileBytes: fileBytes(DENIM_STATE_FILE) }
    })
  } catch (e) {
    out['pcnode(base, --state)'] = { error: String(e.message ?? e).slice(0, 300) }
  } finally {
    rmSync(DENIM_STATE_FILE, { force: true })
  }
  return { denim: out }
}
