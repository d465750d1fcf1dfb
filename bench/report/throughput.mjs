// The throughput table: one sender's pre-signed transfers, accepted and served (scenarios/throughput.mjs),
// against the no-op server's ceiling (scenarios/noop.mjs).
import { fmt } from './kit.mjs'

export const name = 'throughput'

export function table(throughput, results, { aim, besideBoth }) {
  const L = []
  const N = results.params.throughputCount
  L.push('', `== throughput: ${N} pre-signed transfers, 1 sender, consecutive nonces, ${results.params.inFlight} in flight`)
  const t = (n) => throughput[n]
  const row = (label, f, unit, aimObj) => besideBoth(throughput, label, f, unit, aimObj)
  const pcTps = t('pcnode(200ms)')?.acceptTps
  const anvTps = Math.max(t('anvil(bt 0.2)')?.acceptTps ?? 0, t('anvil(automine)')?.acceptTps ?? 0) || null
  L.push(
    row(
      'accepted tx/s (all sends answered)',
      (r) => r?.acceptTps,
      'tx/s',
      aim('≥ anvil', pcTps == null || anvTps == null ? null : pcTps >= anvTps),
    ),
  )
  const ceiling = results.scenarios.noopCeiling?.acceptTps
  if (ceiling != null) {
    const pct = (v) => (v == null ? 'n/a' : `${Math.round((100 * v) / ceiling)}%`)
    L.push(
      `  ceiling: a no-op node:http server answers the same sends at ${fmt(ceiling)} req/s;` +
        ` pcnode reaches ${pct(pcTps)} of it, anvil(bt 0.2) ${pct(t('anvil(bt 0.2)')?.acceptTps)}`,
    )
  }
  L.push(row('eth_sendRawTransaction p50', (r) => r?.sendRawMs.p50, 'ms'))
  L.push(row('eth_sendRawTransaction p99', (r) => r?.sendRawMs.p99, 'ms'))
  const pc = t('pcnode(200ms)')
  L.push(
    row(
      'all receipts served (s from 1st send)',
      (r) => (r?.allServedMs == null ? null : r.allServedMs / 1000),
      's',
      aim('all pre-confirmed, none lost', pc ? pc.noneLost && pc.allServedMs != null : null),
    ),
  )
  L.push(row('served tx/s', (r) => r?.servedTps, 'tx/s'))
  L.push(row('RSS at end (MiB)', (r) => r?.memory.rssMiB, 'MiB'))
  L.push(row('node CPU during scenario (s)', (r) => r?.cpu.nodeCpuS, 's'))
  L.push(
    row('bench / other procs CPU meanwhile (s)', (r) => (r ? `${fmt(r.cpu.benchCpuS)} / ${fmt(r.cpu.otherCpuS)}` : null), 's'),
  )
  for (const [n, r] of Object.entries(throughput)) {
    L.push(
      `  ${n.padEnd(20)} accepted ${r.accepted}/${r.count}, receipts ${r.receipts.present} present / ${r.receipts.success} status 0x1 ` +
        `in ${r.receipts.blocks} blocks, nonce pending ${r.pendingNonce} latest ${r.latestNonce}, ${r.noneLost ? 'none lost' : 'LOSSES'}` +
        `${r.allServedError ? `, ${r.allServedError}` : ''}${r.errors.count ? `, ${r.errors.count} send errors: ${r.errors.top[0].example}` : ''}`,
    )
  }
  return L
}
