// The debug_traceTransaction table: callTracer and struct logger (scenarios/trace.mjs).

export const name = 'trace'

export function table(trace, results, { line }) {
  const L = []
  const pc = trace['pcnode(200ms)']
  L.push(
    '',
    `== debug_traceTransaction of a ${pc?.gasUsed ?? '~200k'}-gas, ${pc?.steps ?? '~54k'}-step transaction, median of ${results.params.traceCount}`,
  )
  const t = (n, k) => trace[n]?.[k]?.latencyMs.p50
  for (const [label, k] of [
    ['callTracer p50', 'call'],
    ['struct logger p50', 'structLogs'],
  ]) {
    L.push(
      line(
        label,
        { name: 'pcnode', value: t('pcnode(200ms)', k) },
        [{ name: 'anvil(steps)', value: t('anvil(steps tracing)', k) }],
        'ms',
      ),
    )
  }
  for (const [n, r] of Object.entries(trace)) {
    L.push(
      `  ${n.padEnd(20)} ${r.steps} steps; invalid results ${r.call.invalidResults + r.structLogs.invalidResults}, errors ${r.call.errors.count + r.structLogs.errors.count}`,
    )
  }
  return L
}
