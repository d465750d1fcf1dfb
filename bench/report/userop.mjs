// The userop table (scenarios/userop.mjs): a user operation's send → receipt through pcnode's
// built-in bundler (pre-confirmed) beside alto in front of anvil --block-time 0.2.
export const name = 'userop'

export function table(u, _results, { line, aim }) {
  const pc = u['pcnode(base)']
  const an = u['alto+anvil(bt 0.2)']
  const row = (label, f, unit, aimed) =>
    line(label, { name: 'pcnode', value: f(pc) }, [{ name: 'alto+anvil(bt 0.2)', value: f(an) }], unit, aimed)
  const q = (k) => (r) => r?.receiptMs?.[k]
  const p50 = q('p50')(pc)
  const p50Alto = q('p50')(an)
  return [
    '',
    `== userop: Simple7702Account v0.8 ops, one after another, ${u.count} each; eth_sendUserOperation → ` +
      `eth_getUserOperationReceipt served (polled every ${u.pollMs} ms); pcnode --profile base's bundler beside alto (unsafe) + anvil --block-time 0.2`,
    row(
      'send→receipt p50',
      q('p50'),
      'ms',
      aim(
        "pcnode p50 under one interval + 50 ms (250 ms) and under alto+anvil's",
        p50 == null ? null : p50 < 250 && (p50Alto == null || p50 < p50Alto),
      ),
    ),
    row('send→receipt p99', q('p99'), 'ms'),
    row('eth_sendUserOperation p50', (r) => r?.sendMs?.p50, 'ms'),
    row('ops that failed', (r) => r?.failed, ''),
    ...(an?.error ? [`  alto+anvil: ${an.error}`] : []),
  ]
}
