// The denim table: pcnode --profile base beside anvil --block-time 0.2 (scenarios/denim.mjs):
// sealed-receipt latency under Poisson arrivals, idle CPU, a day of 200 ms blocks mined, and what
// --state costs at this block rate.
import { fmt } from './kit.mjs'

export const name = 'denim'

const GiB = 1024
// The mine's chunks, one in ten and the last.
const every10 = (chunks) => chunks.filter((_, i) => i % 10 === 9 || i === chunks.length - 1)

export function table(denim, results, { line, aim, ratioAim }) {
  const P = results.params
  const L = []
  const pc = denim['pcnode(base)']
  const an = denim['anvil(bt 0.2)']
  const row = (label, f, unit, aimed) =>
    line(label, { name: 'pcnode', value: f(pc) }, [{ name: 'anvil(bt 0.2)', value: f(an) }], unit, aimed)
  const s = denim.schedule
  L.push(
    '',
    `== denim: pcnode --profile base beside anvil --block-time 0.2; ${s?.count} transfers at Poisson arrivals, ${s?.rate}/s for ${s?.seconds} s, ` +
      `${P.denimPollMs} ms receipt polls until a non-zero blockHash`,
  )
  const q = (k) => (r) => r?.latency?.receiptMs?.[k]
  L.push(row('send→sealed receipt p50', q('p50'), 'ms', ratioAim('sealed receipt p50', q('p50')(pc), q('p50')(an), 1.1)))
  L.push(row('send→sealed receipt p99', q('p99'), 'ms', ratioAim('sealed receipt p99', q('p99')(pc), q('p99')(an), 1.1)))
  L.push(row('eth_sendRawTransaction p50', (r) => r?.latency?.sendRawMs?.p50, 'ms'))
  const idle = pc?.idle?.pctOfCore
  L.push(
    row(
      `idle CPU, ${P.denimIdleS} s (% of a core)`,
      (r) => r?.idle?.pctOfCore,
      '%',
      aim('idle ≤ 5% of a core', idle == null ? null : idle <= 5),
    ),
  )
  L.push(row('  blocks a second meanwhile', (r) => r?.idle?.blocksPerS, '/s'))
  const m = (r) => r?.mine
  L.push(row('blocks mined by anvil_mine', (r) => m(r)?.mined, ''))
  L.push(row('anvil_mine time (s)', (r) => m(r)?.mineS, 's'))
  L.push(row('  per block', (r) => m(r)?.msPerBlock, 'ms'))
  const rss = m(pc)?.rssSettledMiB
  const anRss = m(an)?.rssSettledMiB
  const mined = m(pc)?.mined
  L.push(
    row(
      `RSS after the mine (+${P.denimSettleS} s)`,
      (r) => m(r)?.rssSettledMiB,
      'MiB',
      aim(
        '432,000 blocks: RSS < 1 GiB and ≤ anvil',
        rss == null || mined !== 432_000 ? null : rss < GiB && (anRss == null || rss <= anRss),
      ),
    ),
  )
  L.push(row('  peak RSS', (r) => m(r)?.peakRssMiB, 'MiB'))
  L.push(row(`idle CPU after ${P.denimIdleAtBlock} mined`, (r) => m(r)?.idleAfterFirst?.pctOfCore, '%'))
  L.push(row('idle CPU after the mine', (r) => r?.idleAfter?.pctOfCore, '%'))
  for (const [n, r] of Object.entries(denim)) {
    if (!r?.latency) continue
    L.push(
      `  ${n.padEnd(14)} ${r.latency.completed}/${r.latency.count} sealed receipts, ${r.latency.lateStarts} late sends, ` +
        `${r.latency.errors.count} errors${r.latency.errors.count ? ` (${r.latency.errors.top[0].example})` : ''}; ` +
        `mined ${r.mine.mined} to head ${r.mine.head}${r.mine.stopped ? ` (stopped: ${r.mine.stopped})` : ''}; RSS ${r.rssBeforeMiB} → ` +
        `${every10(r.mine.chunks)
          .map((c) => `${c.mined}: ${c.rssMiB} MiB, ${fmt(c.ms / 1000, 's')}`)
          .join('; ')} (blocks mined: RSS, that chunk's time)`,
    )
  }
  const st = denim['pcnode(base, --state)']
  if (st?.error) L.push(`  pcnode --state failed: ${st.error}`)
  else if (st) {
    const mb = (b) => (b == null ? 'n/a' : `${fmt(b / 1e6)} MB`)
    L.push(
      `  pcnode --state (written every 10 blocks = 2 s): idle ${fmt(st.idle?.pctOfCore, '%')} of a core (file ${mb(st.fileBytesFresh)}); ` +
        `after ${st.mine.mined} blocks mined (${fmt(st.mine.mineS, 's')}${st.mine.stopped ? `, stopped: ${st.mine.stopped}` : ''}): ` +
        `idle ${fmt(st.idleAfter?.pctOfCore, '%')} (file ${mb(st.fileBytes)}, RSS ${fmt(st.mine.rssSettledMiB, 'MiB')})`,
    )
  }
  return L
}
