// burst: P.burstCount pre-signed transfers from P.burstSenders funded senders, P.inFlight in
// flight: does the node drain them all, or stall (and grow) until the bound?
import { setTimeout as sleep } from 'node:timers/promises'
import { verifyReceipts, waitReceipt } from '../lib/accounts.mjs'
import { ErrorLog, log, short } from '../lib/log.mjs'
import { runPool } from '../lib/measure.mjs'
import { cpuMeter, memOf } from '../lib/procfs.mjs'
import { withNode } from '../lib/procs.mjs'
import { hexN, now, round, stats } from '../lib/stats.mjs'

export const name = 'burst'
export const selectedBy = ['burst']

export async function run({ opts, P, burst }) {
  // anvil automine last: it is the one expected to stall (and grow), and it is killed at the bound.
  const names = ['pcnode(200ms)', 'anvil(bt 0.2)', 'anvil(automine)'].filter((n) => !(opts.noAnvil && n.startsWith('anvil')))
  const boundS = opts.burstBoundS ?? P.burstBoundS
  const out = {}
  for (const name of names) out[name] = await withNode(name, opts, (node) => burstOn(node, P, burst, boundS))
  return { burst: out }
}

/** The burst on a started node: funding (untimed), the sends, the drain, then the checks. */
async function burstOn(node, P, burst, boundS) {
  const name = node.name
  const N = burst.raws.length
  // Fund the senders (untimed), in nonce order, and wait for the last funding receipt, so that the
  // pool's balance checks see the funds.
  let lastFund
  for (const raw of burst.funding) lastFund = await node.rpc('eth_sendRawTransaction', [raw])
  const fr = await waitReceipt(node, lastFund, 30_000, 5)
  if (fr.status !== '0x1') throw new Error(`${name}: funding failed`)
  const ok = new Array(N).fill(false)
  const lat = new Array(N).fill(Number.NaN)
  const errs = new ErrorLog()
  const cpu = cpuMeter(node.pid)
  const t0 = now()
  const deadline = t0 + boundS * 1000
  await runPool(N, P.inFlight, deadline, async (k) => {
    const s = now()
    try {
      await node.rpc('eth_sendRawTransaction', [burst.raws[k]], 30_000)
      ok[k] = true
    } catch (e) {
      errs.add(e)
    }
    lat[k] = now() - s
  })
  const submitMs = now() - t0
  const accepted = ok.filter(Boolean).length
  log(`burst ${name}: ${accepted}/${N} accepted in ${round(submitMs)} ms; waiting for the drain (bound ${boundS} s)`)
  const { drainedMs, remaining, peakRss, memGuard } = await drain(node, burst, t0, deadline)
  const cpuUse = cpu()
  const { mined, minedError } = await minedCount(node, burst.keys)
  const verify = drainedMs != null ? await verifyReceipts(node, burst.hashes, 120_000) : null
  const mem = memOf(node.pid)
  const r = {
    count: N,
    senders: burst.keys.length,
    inFlight: P.inFlight,
    boundS,
    accepted,
    rejected: errs.count,
    submitMs: round(submitMs),
    acceptTps: round(accepted / (submitMs / 1000), 1),
    sendRawMs: stats(lat.filter((_, i) => ok[i])),
    sendRawSamplesMs: lat.map((x) => round(x)),
    drained: drainedMs != null && verify?.present === N,
    drainMs: drainedMs == null ? null : round(drainedMs),
    sendersNotDrained: remaining.size,
    minedLatest: mined,
    minedError,
    memGuard,
    receipts: verify,
    memory: { ...mem, peakRssSeenMiB: Math.max(peakRss, mem.rssMiB ?? 0) },
    cpu: cpuUse,
    errors: errs.toJSON(),
  }
  log(
    `burst ${name}: ${r.drained ? `drained in ${r.drainMs} ms` : `stalled: ${mined} of ${N} mined`}, ` +
      `RSS ${mem.rssMiB} MiB (peak ${mem.peakRssMiB})`,
  )
  return r
}

/**
 * Polls each sender's last transaction until every one has a receipt, or the deadline, or the
 * node's RSS passes 8 GiB; `drainedMs` counts from `t0`, the first send.
 */
async function drain(node, burst, t0, deadline) {
  const remaining = new Set(burst.tails.map((k) => burst.hashes[k]))
  let drainedMs = null
  let memGuard = null
  let lastProgress = now()
  let peakRss = 0
  for (let round_ = 0; round_ < 1_000_000 && now() < deadline; round_++) {
    const s = now()
    await Promise.all(
      [...remaining].map((h) =>
        node
          .rpc('eth_getTransactionReceipt', [h], 10_000)
          .then((r) => r && remaining.delete(h))
          .catch(() => {}),
      ),
    )
    if (remaining.size === 0) {
      drainedMs = now() - t0
      break
    }
    const mem = memOf(node.pid)
    peakRss = Math.max(peakRss, mem.rssMiB ?? 0)
    if ((mem.rssMiB ?? 0) > 8192) {
      memGuard = `stopped waiting: node RSS ${mem.rssMiB} MiB > 8 GiB`
      break
    }
    if (now() - lastProgress > 10_000) {
      lastProgress = now()
      log(
        `burst ${node.name}: ${remaining.size} senders not drained after ${round((now() - t0) / 1000, 1)} s, RSS ${mem.rssMiB} MiB`,
      )
    }
    const w = 20 - (now() - s)
    if (w > 0) await sleep(w)
  }
  return { drainedMs, remaining, peakRss, memGuard }
}

/** Mined = the sum of the senders' 'latest' nonces (they start at 0). */
async function minedCount(node, keys) {
  let mined = 0
  let minedError = null
  for (const key of keys) {
    try {
      mined += hexN(await node.rpc('eth_getTransactionCount', [key.address, 'latest'], 10_000))
    } catch (e) {
      minedError = short(e.message)
    }
  }
  return { mined, minedError }
}
