// Measuring loops: a bounded worker pool, sequential latencies and an in-flight call rate.
import { ErrorLog, short } from './log.mjs'
import { cpuOf } from './procfs.mjs'
import { now, round, stats } from './stats.mjs'

/** Runs fn(i) for i in 0..count-1 with at most `concurrency` in flight, handing out no work after `deadline`. */
export async function runPool(count, concurrency, deadline, fn) {
  let next = 0
  const worker = async () => {
    while (next < count && now() < deadline) await fn(next++)
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker))
  return next
}

export async function seqLatency(count, warmup, deadline, fn, check) {
  const lat = []
  const errs = new ErrorLog()
  let bad = 0
  let first
  for (let w = 0; w < warmup && now() < deadline; w++) {
    try {
      const r = await fn(w)
      first ??= r
    } catch (e) {
      if (w === 0) return { unsupported: e.code === -32601, error: short(`[${e.code}] ${e.message}`, 300), latencyMs: stats([]) }
      errs.add(e)
    }
  }
  let i = 0
  for (; i < count && now() < deadline; i++) {
    const s = now()
    try {
      const r = await fn(i)
      lat.push(now() - s)
      first ??= r
      if (check && !check(r)) bad++
    } catch (e) {
      errs.add(e)
    }
  }
  return {
    count,
    completed: lat.length,
    latencyMs: stats(lat),
    samplesMs: lat.map((x) => round(x, 3)),
    invalidResults: bad,
    firstResult: typeof first === 'string' ? first : first === undefined ? null : short(JSON.stringify(first), 200),
    errors: errs.toJSON(),
  }
}

/**
 * `fn` kept `inFlight` deep for `seconds` (after one second of the same, untimed): completed calls
 * per second, and the node's CPU per call (a node may spread calls over cores: anvil does).
 */
export async function inFlightRate(node, seconds, inFlight, fn) {
  const run = async (ms) => {
    const end = now() + ms
    let done = 0
    let failed = 0
    let first
    const worker = async () => {
      while (now() < end) {
        try {
          const r = await fn()
          first ??= r
          done++
        } catch {
          failed++
        }
      }
    }
    await Promise.all(Array.from({ length: inFlight }, worker))
    return { done, failed, first }
  }
  await run(1_000)
  const cpu0 = cpuOf(node.pid)
  const t0 = now()
  const { done, failed, first } = await run(seconds * 1_000)
  const wallS = (now() - t0) / 1000
  const cpuS = cpuOf(node.pid) - cpu0
  return {
    calls: done,
    errors: failed,
    perSecond: round(done / wallS, 0),
    cpuMsPerCall: done ? round((cpuS * 1000) / done, 3) : null,
    result: typeof first === 'string' ? first.slice(0, 18) : null,
  }
}
