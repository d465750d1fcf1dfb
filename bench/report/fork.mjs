// The fork table: start, workload and upstream requests of each forker, cold and warm (scenarios/fork.mjs).

export const name = 'fork'

export function table(fork, _results, { line, aim }) {
  const L = []
  L.push(
    '',
    `== fork: --fork-url beside anvil --fork-url, one local anvil upstream (block ${fork.upstreamBlock}) behind a proxy adding ${fork.latencyMs} ms per request`,
    '   workload: 20 eth_call (10 new slots, 10 repeated) and 10 impersonated token transfers, each waited for',
  )
  const r = (kind, phase, key) => fork.runs[kind]?.[phase]?.[key]
  for (const phase of ['cold', 'warm']) {
    L.push(
      line(
        `fork start, ${phase} cache`,
        { name: 'pcnode', value: r('pcnode', phase, 'startMs') },
        [{ name: 'anvil', value: r('anvil', phase, 'startMs') }],
        'ms',
      ),
    )
    const pw = r('pcnode', phase, 'wallMs')
    const aw = r('anvil', phase, 'wallMs')
    L.push(
      line(
        `workload wall time, ${phase} cache`,
        { name: 'pcnode', value: pw },
        [{ name: 'anvil', value: aw }],
        'ms',
        aim(`no slower than anvil (${phase})`, pw == null || aw == null ? null : pw <= aw),
      ),
    )
    const pq = r('pcnode', phase, 'requests')
    const aq = r('anvil', phase, 'requests')
    L.push(
      line(
        `upstream requests, ${phase} (all)`,
        { name: 'pcnode', value: pq },
        [{ name: 'anvil', value: aq }],
        '',
        aim(`fewer requests than anvil (${phase})`, pq == null || aq == null ? null : pq < aq || (pq === 0 && aq === 0)),
      ),
    )
  }
  const kib = (kind) => fork.runs[kind]?.rss?.kibPer1000
  L.push(
    line(
      'RSS per 1000 accounts touched',
      { name: 'pcnode', value: kib('pcnode') },
      [{ name: 'anvil', value: kib('anvil') }],
      'KiB',
    ),
  )
  for (const [kind, runs] of Object.entries(fork.runs)) {
    for (const phase of ['cold', 'warm']) {
      const x = runs[phase]
      if (!x) continue
      const methods = Object.entries(x.byMethod)
        .sort((a, b) => b[1] - a[1])
        .map(([m, n]) => `${m} ${n}`)
        .join(', ')
      L.push(`  ${kind.padEnd(7)} ${phase}: ${x.requestsAtStart} at start + ${x.requestsInWorkload} in the workload (${methods})`)
    }
  }
  return L
}
