// The latency table: send -> served receipt at each pre-confirmation interval (scenarios/latency.mjs).

export const name = 'latency'

export function table(latency, results, { line, aim }) {
  const L = []
  L.push(
    '',
    `== send -> served receipt, ${results.params.latencyCount} sequential transfers at random times stratified over 200 ms, 1 ms polls`,
  )
  const get = (n, q) => latency[n]?.receiptMs?.[q]
  const anv = (q) => [
    { name: 'anvil(automine)', value: get('anvil(automine)', q) },
    { name: 'anvil(bt 0.2)', value: get('anvil(bt 0.2)', q) },
  ]
  const p0 = get('pcnode(interval 0)', 'p50')
  const p2 = get('pcnode(200ms)', 'p50')
  const p2q = get('pcnode(200ms)', 'p99')
  L.push(
    line(
      'send→receipt p50 (interval 0)',
      { name: 'pcnode', value: p0 },
      anv('p50'),
      'ms',
      aim('≤ 5 ms', p0 == null ? null : p0 <= 5),
    ),
  )
  L.push(line('send→receipt p99 (interval 0)', { name: 'pcnode', value: get('pcnode(interval 0)', 'p99') }, anv('p99'), 'ms'))
  L.push(
    line(
      'send→receipt p50 (interval 200ms)',
      { name: 'pcnode', value: p2 },
      anv('p50'),
      'ms',
      aim('≤ 105 ms', p2 == null ? null : p2 <= 105),
    ),
  )
  L.push(
    line(
      'send→receipt p99 (interval 200ms)',
      { name: 'pcnode', value: p2q },
      anv('p99'),
      'ms',
      aim('≤ 205 ms', p2q == null ? null : p2q <= 205),
    ),
  )
  L.push(
    line(
      'eth_sendRawTransaction p50 (interval 0)',
      { name: 'pcnode', value: latency['pcnode(interval 0)']?.sendRawMs.p50 },
      [{ name: 'anvil(automine)', value: latency['anvil(automine)']?.sendRawMs.p50 }],
      'ms',
    ),
  )
  for (const [n, r] of Object.entries(latency)) {
    L.push(
      `  ${n.padEnd(20)} ${r.completed}/${r.count} receipts, ${r.statusOk} status 0x1, ${r.preconfirmedReceipts} pre-confirmed (zero blockHash), ` +
        `${r.errors.count} errors${r.errors.count ? `: ${r.errors.top[0].example}` : ''}`,
    )
  }
  return L
}
