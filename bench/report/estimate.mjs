// The sequential calls table: estimates, view calls and the keccak loop (scenarios/estimate.mjs),
// with the no-op server's floor under them.
import { hexNs } from './kit.mjs'

export const name = 'estimate'

export function table(estimate, results, { ratioAim, beside }) {
  const L = []
  L.push('', `== sequential calls, median of ${results.params.estimateCount} (after ${results.params.warmup} warm-ups)`)
  const e = (n, k) => estimate[n]?.[k]?.latencyMs.p50
  // aimed: [the aim's name, the largest pcnode/anvil ratio]
  const row = (label, k, aimed) =>
    beside(label, (n) => e(n, k), 'ms', aimed && ratioAim(aimed[0], e('pcnode(200ms)', k), e('anvil(automine)', k), aimed[1]))
  L.push(row('eth_estimateGas transfer p50', 'transfer', ['transfer estimate', 2]))
  L.push(row('eth_estimateGas ~200k-gas deploy p50', 'deploy', ['deploy estimate', 3]))
  L.push(row('eth_call view p50', 'call', ['view call', 2]))
  L.push(row(`transfer estimate p50, warm (+${results.params.warmLong})`, 'transferWarm'))
  L.push(row(`eth_call view p50, warm (+${results.params.warmLong})`, 'callWarm'))
  const floor = results.scenarios.callFloor
  if (floor?.warm?.latencyMs != null && floor?.fresh?.latencyMs != null) {
    L.push(
      `  floor: a no-op node:http server answers the same call at p50 ${floor.fresh.latencyMs.p50} ms fresh (as the first rows), ` +
        `${floor.warm.latencyMs.p50} ms warm`,
    )
  }
  const keccak = (n, field) => estimate[n]?.keccak?.[field]
  const keccakRow = (label, field, unit, aimed) => beside(label, (n) => keccak(n, field), unit, aimed)
  const keccakAim = ratioAim(
    'keccak loop',
    keccak('pcnode(200ms)', 'perSecond'),
    keccak('anvil(automine)', 'perSecond'),
    0.25,
    true,
  )
  L.push(keccakRow('eth_call keccak×1000, 16 in flight', 'perSecond', 'calls/s', keccakAim))
  L.push(keccakRow('  node CPU per keccak×1000 call', 'cpuMsPerCall', 'ms'))
  for (const [n, r] of Object.entries(estimate)) {
    L.push(
      `  ${n.padEnd(20)} gas transfer ${hexNs(r.transfer.firstResult)}, deploy ${hexNs(r.deploy.firstResult)}; invalid results ` +
        `${r.transfer.invalidResults + r.deploy.invalidResults + r.call.invalidResults}, errors ${r.transfer.errors.count + r.deploy.errors.count + r.call.errors.count}`,
    )
  }
  return L
}
