// The boot table: spawn -> first answered request, pcnode beside anvil (scenarios/boot.mjs).

export const name = 'boot'

export function table(boot, results, { line, aim }) {
  const L = []
  L.push('', `== boot: spawn -> first answered request, median of ${results.params.bootRuns} (after 1 untimed warm-up)`)
  const p = boot.pcnode?.chainId.p50
  const a = boot.anvil?.chainId.p50
  L.push(
    line(
      'boot -> eth_chainId',
      { name: 'pcnode', value: p },
      [{ name: 'anvil', value: a }],
      'ms',
      aim('≤ 500 ms', p == null ? null : p <= 500),
    ),
  )
  L.push(
    line(
      'boot -> eth_getBalance (engine ready)',
      { name: 'pcnode', value: boot.pcnode?.engineReady.p50 },
      [{ name: 'anvil', value: boot.anvil?.engineReady.p50 }],
      'ms',
    ),
  )
  return L
}
