// The report's table for the scale scenario (scenarios/scale.mjs).
import { round } from '../lib/stats.mjs'

export const name = 'scale'

/** pcnode beside anvil, as ratios; the aims are ratios to anvil, and the memory of an empty block. */
export function table(scale, _results, { line, aim, ratioAim }) {
  const pc = scale['pcnode(200ms)']
  const anvil = scale['anvil(automine)']
  if (!pc) return ['']
  const a = (f) => (anvil ? [{ name: 'anvil', value: f(anvil) }] : [])
  // Rates, not totals: a phase stops at its time bound, so the nodes may reach different counts.
  const per = (n, total, each) => (n > 0 && total !== undefined ? round((total * each) / n) : undefined)
  // [label, value, unit, aim(pcnode's value, anvil's)]
  const rows = [
    ['RSS at start (MiB)', (r) => r.rssStartMiB, 'MiB', (p, a) => ratioAim('RSS at start', p, a, 2)],
    [
      'set accounts: ms per 1,000',
      (r) => per(r.accounts?.count, r.accounts?.seconds, 1e6),
      'ms',
      (p, a) => ratioAim('setting accounts', p, a, 3),
    ],
    ['RSS after the accounts (MiB)', (r) => r.accounts?.rssMiB, 'MiB', (p, a) => ratioAim('RSS after the accounts', p, a, 2)],
    ['eth_getBalance p50 (ms)', (r) => r.balanceReadP50Ms, 'ms'],
    ['transfer send -> receipt p50 (ms)', (r) => r.transferP50Ms, 'ms'],
    ['anvil_mine 1,000 blocks (s)', (r) => r.mine1000S, 's'],
    ['anvil_dumpState (s)', (r) => r.dump?.seconds, 's'],
    ['anvil_dumpState size (MiB)', (r) => r.dump?.MiB, 'MiB'],
    ['set storage slots: ms per 1,000', (r) => per(r.storage?.slots, r.storage?.seconds, 1e6), 'ms'],
    ['eth_call of a random slot p50 (ms)', (r) => r.storage?.callP50Ms, 'ms'],
    ['anvil_mine empty blocks: ms per block', (r) => per(r.emptyBlocks?.blocks, r.emptyBlocks?.seconds, 1e3), 'ms'],
    // No more than on anvil, ~4.5 KiB (anvil rarely finishes the phase, so not as a ratio).
    [
      'RSS per empty block (KiB)',
      (r) => r.emptyBlocks?.kibPerBlock,
      'KiB',
      (p) => aim('RSS per empty block ≤ 4.5 KiB', p == null ? null : p <= 4.5),
    ],
  ]
  return [
    '',
    '== scale: accounts, storage and blocks that grow (each phase bounded)',
    ...Object.entries({ pcnode: pc, anvil }).flatMap(([name, r]) =>
      r
        ? [
            `  ${name}: reached ${r.accounts?.count ?? 0} accounts, ${r.storage?.slots ?? 0} slots, ${r.emptyBlocks?.blocks ?? 0} empty blocks`,
          ]
        : [],
    ),
    ...rows.map(([label, f, unit, aimed]) =>
      line(label, { name: 'pcnode', value: f(pc) }, a(f), unit, aimed?.(f(pc), anvil && f(anvil))),
    ),
    ...(anvil?.blocksError ? [`  anvil(automine)      empty blocks: ${anvil.blocksError}`] : []),
  ]
}
