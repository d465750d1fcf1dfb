// latency: send -> the first poll (every 1 ms, start to start) that returns a receipt, for
// P.latencyCount sequential transfers at random times: p50/p99. The send times are stratified over
// the 200 ms cycle (one random instant in each slot of the wall clock's 200 ms phase, in random
// order), so the sends cover every phase of a node's 200 ms cadence evenly and the p50 is not at
// the mercy of independent draws (100 of them scatter the p50 by about +-10 ms).
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { ErrorLog, log } from '../lib/log.mjs'
import { cpuMeter } from '../lib/procfs.mjs'
import { withNode } from '../lib/procs.mjs'
import { RpcError } from '../lib/rpc.mjs'
import { now, round, stats } from '../lib/stats.mjs'

export const name = 'latency'
export const selectedBy = ['latency']

/** One random instant in each of n equal slots of [0, period), in random order. */
function stratifiedPhases(n, period) {
  const phases = Array.from({ length: n }, (_, i) => ((i + Math.random()) * period) / n)
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[phases[i], phases[j]] = [phases[j], phases[i]]
  }
  return phases
}

/** Sleeps until the wall clock's phase in a `period` ms cycle is `phase` (0 < sleep <= period). */
async function sleepUntilPhase(phase, period) {
  const t = performance.timeOrigin + now()
  const wait = (((phase - (t % period)) % period) + period) % period
  await sleep(wait < 1 ? wait + period : wait)
}

export async function run({ opts, P, transfers: set }) {
  const names = ['pcnode(interval 0)', 'pcnode(200ms)', 'anvil(automine)', 'anvil(bt 0.2)'].filter(
    (n) => !(opts.noAnvil && n.startsWith('anvil')),
  )
  const out = {}
  for (const name of names) {
    out[name] = await withNode(name, opts, async (node) => {
      const N = P.latencyCount
      const total = []
      const send = []
      const polls = []
      const errs = new ErrorLog()
      let preconfirmed = 0
      let statusOk = 0
      const cpu = cpuMeter(node.pid)
      const phases = stratifiedPhases(N, P.latencyJitterMs)
      const deadline = now() + 300_000
      for (let i = 0; i < N && now() < deadline; i++) {
        await sleepUntilPhase(phases[i], P.latencyJitterMs)
        const t0 = now()
        let hash
        try {
          hash = await node.rpc('eth_sendRawTransaction', [set.raws[i]])
        } catch (e) {
          errs.add(e)
          break
        }
        send.push(now() - t0)
        let receipt = null
        let np = 0
        // First poll right after the send is answered, then every pollMs (start to start), up to 10 s.
        for (; np < 100_000; ) {
          const ps = now()
          np++
          try {
            receipt = await node.rpc('eth_getTransactionReceipt', [hash])
          } catch (e) {
            errs.add(e)
          }
          if (receipt || now() - t0 > 10_000) break
          const w = P.pollMs - (now() - ps)
          if (w > 0) await sleep(w)
        }
        if (!receipt) {
          errs.add(new RpcError(`no receipt for tx ${i} within 10 s`, 'RECEIPT_TIMEOUT'))
          break
        }
        total.push(now() - t0)
        polls.push(np)
        if (receipt.status === '0x1') statusOk++
        if (!receipt.blockHash || /^0x0*$/.test(receipt.blockHash)) preconfirmed++
      }
      const r = {
        count: N,
        completed: total.length,
        receiptMs: stats(total),
        sendRawMs: stats(send),
        pollsPerTx: stats(polls),
        statusOk,
        preconfirmedReceipts: preconfirmed,
        cpu: cpu(),
        errors: errs.toJSON(),
        samplesMs: total.map((x) => round(x, 3)),
      }
      log(`latency ${name}: p50 ${r.receiptMs.p50} ms, p99 ${r.receiptMs.p99} ms (${r.completed}/${N})`)
      return r
    })
  }
  return { latency: out }
}
