// The idle memory table: RSS growth per empty block (scenarios/memory.mjs).
import { fmt } from './kit.mjs'

export const name = 'memory'

export function table(memory, results, { line }) {
  const L = []
  L.push(
    '',
    `== idle memory: an empty block every 20 ms for ${results.params.memoryS} s (after ${results.params.memoryWarmupS} s)`,
  )
  const k = (n) => memory[n]?.kibPerBlock
  L.push(
    line(
      'RSS growth per empty block',
      { name: 'pcnode', value: k('pcnode(20ms blocks)') },
      // anvil moves old states to disk: its RSS may fall, and a ratio to that means nothing.
      [
        {
          name: 'anvil(bt 0.02)',
          value: k('anvil(bt 0.02)') <= 0 ? `${fmt(k('anvil(bt 0.02)'), 'KiB')} (none)` : k('anvil(bt 0.02)'),
        },
      ],
      'KiB',
    ),
  )
  L.push(line('  with --state-history 256', { name: 'pcnode', value: k('pcnode(20ms, history 256)') }, [], 'KiB'))
  for (const [n, r] of Object.entries(memory)) {
    L.push(`  ${n.padEnd(26)} ${r.blocks} blocks, RSS ${r.from.rssMiB} -> ${r.to.rssMiB} MiB`)
  }
  return L
}
