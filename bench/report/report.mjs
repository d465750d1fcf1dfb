// The printed report: one table per scenario that ran, in a fixed order, the other processes'
// share of the CPU while nodes were measured, and the last line counting the aims met and missed.
// It reads only the results (as --json writes them), so --report-from can print it again.
import * as boot from './boot.mjs'
import * as burst from './burst.mjs'
import * as denim from './denim.mjs'
import * as estimate from './estimate.mjs'
import * as fork from './fork.mjs'
import { reportKit } from './kit.mjs'
import * as latency from './latency.mjs'
import * as memory from './memory.mjs'
import * as scale from './scale.mjs'
import * as simulate from './simulate.mjs'
import * as throughput from './throughput.mjs'
import * as trace from './trace.mjs'
import * as userop from './userop.mjs'

const TABLES = [boot, latency, throughput, burst, estimate, simulate, trace, memory, fork, denim, userop]

/** The report of `results`; `skipAnvil` (--no-anvil) leaves the anvil columns out. */
export function buildReport(results, { skipAnvil = false } = {}) {
  const kit = reportKit(skipAnvil)
  const L = []
  for (const t of TABLES) if (results.scenarios[t.name]) L.push(...t.table(results.scenarios[t.name], results, kit))
  L.push(...cpuShares(results))
  if (results.scenarios.scale) L.push(...scale.table(results.scenarios.scale, results, kit))
  L.push('', kit.summary())
  return L.join('\n')
}

/** Noise: CPU that other processes took from this 2-core-class machine while a node was measured. */
function cpuShares(results) {
  const cores = results.machine.cores || 1
  const shares = []
  for (const sc of ['latency', 'throughput', 'burst']) {
    for (const [n, r] of Object.entries(results.scenarios[sc] ?? {})) {
      const c = r?.cpu
      if (c?.otherCpuS != null && c.wallS > 0) shares.push(`${sc} ${n} ${Math.round((100 * c.otherCpuS) / (c.wallS * cores))}%`)
    }
  }
  return shares.length ? ['', `other processes' share of the machine's CPU while measuring: ${shares.join(', ')}`] : []
}
