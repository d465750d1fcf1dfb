// The eth_simulateV1 table (scenarios/simulate.mjs).
import { short } from '../lib/log.mjs'

export const name = 'simulate'

export function table(simulate, results, { ratioAim, beside }) {
  const L = []
  L.push('', `== eth_simulateV1, 1 block x ${results.params.simulateCalls} transfers, median of ${results.params.simulateCount}`)
  const s = (n) => {
    const r = simulate[n]
    if (!r) return null
    if (r.unsupported) return 'n/a (-32601)'
    if (r.error) return `error: ${short(r.error, 40)}`
    return r.latencyMs.p50
  }
  L.push(beside('eth_simulateV1 1x100 p50', s, 'ms', ratioAim('simulate', s('pcnode(200ms)'), s('anvil(automine)'), 3)))
  const warm = (n) => simulate[n]?.warm?.latencyMs?.p50 ?? null
  L.push(beside(`eth_simulateV1 1x100 p50, warm (+${results.params.simulateWarm})`, warm, 'ms'))
  for (const [n, r] of Object.entries(simulate)) {
    if (!r.unsupported && !r.error) L.push(`  ${n.padEnd(20)} invalid results ${r.invalidResults}, errors ${r.errors.count}`)
  }
  return L
}
