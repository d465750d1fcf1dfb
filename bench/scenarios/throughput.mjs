// throughput: P.throughputCount pre-signed transfers from one dev account, consecutive nonces,
// P.inFlight in flight: the acceptance rate, the time until every receipt is served, losses, RSS.
// (noop.mjs sends the same transactions to a no-op server: the ceiling of any Node.js server here.)
import { setTimeout as sleep } from 'node:timers/promises'
import { DEV, verifyReceipts, waitReceipt } from '../lib/accounts.mjs'
import { ErrorLog, log, short } from '../lib/log.mjs'
import { runPool } from '../lib/measure.mjs'
import { cpuMeter, memOf } from '../lib/procfs.mjs'
import { withNode } from '../lib/procs.mjs'
import { hexN, now, round, stats } from '../lib/stats.mjs'

export const name = 'throughput'
export const selectedBy = ['throughput']

export async function run({ opts, P, transfers: set }) {
  const names = ['pcnode(200ms)', 'anvil(bt 0.2)', 'anvil(automine)'].filter((n) => !(opts.noAnvil && n.startsWith('anvil')))
  const out = {}
  for (const name of names) {
    out[name] = await withNode(name, opts, async (node) => {
      const N = P.throughputCount
      const lat = new Array(N).fill(Number.NaN)
      const ok = new Array(N).fill(false)
      const errs = new ErrorLog()
      let mismatched = 0
      const cpu = cpuMeter(node.pid)
      const t0 = now()
      const lastHash = set.hashes[N - 1]
      let inclusion = null
      const deadline = t0 + 180_000
      // Inclusion: one sender's transactions are included in nonce order, so the receipt of the
      // highest nonce means all are served. Its poller starts once that send has been answered.
      const startInclusionPoll = () => {
        inclusion = waitReceipt(node, lastHash, Math.max(1000, deadline - now()), 2).then(
          (r) => ({ ms: now() - t0, receipt: r }),
          (e) => ({ ms: null, error: e }),
        )
      }
      await runPool(N, P.inFlight, deadline, async (i) => {
        const s = now()
        try {
          const h = await node.rpc('eth_sendRawTransaction', [set.raws[i]])
          lat[i] = now() - s
          ok[i] = true
          if (String(h).toLowerCase() !== set.hashes[i]) mismatched++
        } catch (e) {
          lat[i] = now() - s
          errs.add(e)
        }
        if (i === N - 1) startInclusionPoll()
      })
      const submitMs = now() - t0
      if (!inclusion) startInclusionPoll()
      const inc = await inclusion
      const cpuUse = cpu()
      const accepted = ok.filter(Boolean).length
      // Untimed checks: every receipt, the sender's nonce.
      const verify = await verifyReceipts(node, set.hashes.slice(0, N), 120_000)
      const pendingNonce = await node.rpc('eth_getTransactionCount', [DEV[0].address, 'pending']).then(hexN, () => null)
      let latestNonce = null
      const until = now() + 6000
      for (let i = 0; i < 200 && now() < until; i++) {
        latestNonce = await node.rpc('eth_getTransactionCount', [DEV[0].address, 'latest']).then(hexN, () => null)
        if (latestNonce === N) break
        await sleep(50)
      }
      const mem = memOf(node.pid)
      const r = {
        count: N,
        inFlight: P.inFlight,
        accepted,
        rejected: errs.count,
        hashMismatches: mismatched,
        submitMs: round(submitMs),
        acceptTps: round(accepted / (submitMs / 1000), 1),
        sendRawMs: stats(lat.filter((_, i) => ok[i])),
        sendRawSamplesMs: lat.map((x) => round(x)),
        allServedMs: inc.ms == null ? null : round(inc.ms),
        allServedError: inc.error ? short(inc.error.message) : null,
        servedTps: inc.ms == null ? null : round(N / (inc.ms / 1000), 1),
        receipts: verify,
        noneLost: verify.present === N && verify.success === N && pendingNonce === N && latestNonce === N,
        pendingNonce,
        latestNonce,
        memory: mem,
        cpu: cpuUse,
        errors: errs.toJSON(),
      }
      log(
        `throughput ${name}: accepted ${accepted}/${N} at ${r.acceptTps} tx/s, all served after ${r.allServedMs} ms, ` +
          `receipts ${verify.success}/${N} ok, nonce ${pendingNonce}/${latestNonce}, RSS ${mem.rssMiB} MiB`,
      )
      return r
    })
  }
  return { throughput: out }
}
