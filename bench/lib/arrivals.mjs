// Open-loop load: transactions sent at Poisson arrival times (the same seeded schedule for every
// node), each timed from its send's start until a polled receipt carries a sealed block's hash.
import { setTimeout as sleep } from 'node:timers/promises'
import { ErrorLog } from './log.mjs'
import { RpcError } from './rpc.mjs'
import { now, round, stats } from './stats.mjs'

/**
 * Send offsets (ms from the start) of a Poisson process at `perSecond` for `seconds`, at most `max`,
 * drawn from the node's own mulberry32 (loaded from dist/ when a run needs it, so the bench's usage
 * and its missing-build message work without it): one seeded schedule for pcnode and anvil.
 */
export async function poissonSchedule(perSecond, seconds, max, seed = 1) {
  const { seededRandom } = await import('../../dist/node/faults/random.js')
  const rnd = seededRandom(seed)
  const out = []
  let t = 0
  for (;;) {
    t += (-Math.log(1 - rnd()) / perSecond) * 1000
    if (t >= seconds * 1000 || out.length >= max) return out
    out.push(t)
  }
}

const sealed = (r) => r?.blockHash && !/^0x0*$/.test(r.blockHash)

/**
 * Sends raws[i] at schedule[i] (ms after the start), then polls eth_getTransactionReceipt every
 * `pollMs` (start to start) until the receipt has a non-zero blockHash, at most `boundMs` a
 * transaction. Sends overlap as their arrivals do; every one is timed the same way on every node.
 */
export async function openLoopReceipts(node, raws, schedule, { pollMs, boundMs }) {
  const errs = new ErrorLog()
  const total = []
  const send = []
  let lateStarts = 0
  const t0 = now()
  const one = async (i) => {
    const wait = t0 + schedule[i] - now()
    if (wait > 0) await sleep(wait)
    else if (wait < -5) lateStarts++
    const s = now()
    let hash
    try {
      hash = await node.rpc('eth_sendRawTransaction', [raws[i]])
    } catch (e) {
      errs.add(e)
      return
    }
    send.push(now() - s)
    for (let n = 0; n < 1_000_000; n++) {
      const ps = now()
      let r = null
      try {
        r = await node.rpc('eth_getTransactionReceipt', [hash])
      } catch (e) {
        errs.add(e)
      }
      if (sealed(r)) {
        total.push(now() - s)
        return
      }
      if (now() - s > boundMs) {
        errs.add(new RpcError(`no sealed receipt within ${boundMs} ms`, 'RECEIPT_TIMEOUT'))
        return
      }
      const w = pollMs - (now() - ps)
      if (w > 0) await sleep(w)
    }
  }
  await Promise.all(schedule.map((_, i) => one(i)))
  return {
    count: schedule.length,
    completed: total.length,
    receiptMs: stats(total),
    sendRawMs: stats(send),
    lateStarts,
    errors: errs.toJSON(),
    samplesMs: total.map((x) => round(x, 2)),
  }
}
