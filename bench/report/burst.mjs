// The burst table: many senders' pre-signed transfers, drained or stalled (scenarios/burst.mjs).
import { fmt } from './kit.mjs'

export const name = 'burst'

export function table(burst, results, { aim, besideBoth }) {
  const L = []
  const N = results.params.burstCount
  L.push(
    '',
    `== burst: ${N} pre-signed transfers from ${results.params.burstSenders} senders, ${results.params.inFlight} in flight`,
  )
  const b = (n) => burst[n]
  const row = (label, f, unit, aimObj) => besideBoth(burst, label, f, unit, aimObj)
  const desc = (r) =>
    !r ? null : r.drained ? `drained ${fmt(r.drainMs / 1000, 's')}` : `stalled: ${r.minedLatest} of ${r.count} mined`
  const pc = b('pcnode(200ms)')
  L.push(row('accepted tx/s', (r) => r?.acceptTps, 'tx/s'))
  L.push(row('time to drain (s from 1st send)', (r) => (r?.drainMs == null ? null : r.drainMs / 1000), 's'))
  L.push(row('outcome', desc, '', aim('drains completely', pc ? pc.drained : null)))
  L.push(row('peak RSS (MiB)', (r) => r?.memory.peakRssMiB, 'MiB'))
  for (const [n, r] of Object.entries(burst)) {
    L.push(
      `  ${n.padEnd(20)} accepted ${r.accepted}/${r.count}, ${r.receipts ? `receipts ${r.receipts.present} present / ${r.receipts.success} status 0x1 in ${r.receipts.blocks} blocks` : `${r.sendersNotDrained} senders not drained at the bound`}` +
        `, in sealed blocks (latest nonces) ${r.minedLatest}${r.memGuard ? `, ${r.memGuard}` : ''}${r.errors.count ? `, ${r.errors.count} send errors: ${r.errors.top[0].example}` : ''}`,
    )
  }
  return L
}
