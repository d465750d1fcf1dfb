// The faults page's fixture app (docs/faults.md, examples/preconf-fallback.mjs), run as a user runs it against a node
// started as `pcnode start --preconf-drop-rate 0.2 --preconf-seed 1`: the pre-confirmations the seed
// drops are noticed and sent again, and every transfer ends up sealed.
import { describe, expect, it } from 'vitest'
import { dropDraw } from '../src/node/faults/random.js'
import { runNode } from './cli.js'
import { useTestNode } from './helpers.js'

describe('examples/preconf-fallback.mjs', () => {
  // The faults page's flags; shorter blocks so the run is quick (the drops do not depend on timing).
  const node = useTestNode({ preconfDropRate: 0.2, preconfSeed: 1, blockTime: 300, preconfInterval: 50 })

  it('notices each dropped pre-confirmation, sends it again, and gets every transfer sealed', async () => {
    const run = await runNode(['examples/preconf-fallback.mjs'], ['--rpc-url', node.rpcUrl, '--count', '10'], 120_000)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const lines = run.stdout.trim().split('\n')
    const dropLines = lines.filter((l) => l.includes('dropped: its receipt is gone'))
    expect(dropLines.length).toBeGreaterThan(0)
    for (const l of dropLines)
      expect(l).toMatch(/\(pcnode: left out as block \d+ sealed \(drop rate 0\.2, seed 1\)\); sending it again$/)
    expect(lines.filter((l) => /sealed in block \d+$/.test(l))).toHaveLength(10)
    expect(lines.at(-1)).toBe(
      `10 transfers sealed; ${dropLines.length} pre-confirmation${dropLines.length === 1 ? ' was' : 's were'} dropped and sent again.`,
    )
    // The node injected exactly the drops the app noticed.
    expect((await node.rpc('pcnode_getPreconfFaults')).result.injected.dropped).toBe(dropLines.length)
  })

  it('--json: the same run as data; the seed decides which transfers drop', async () => {
    const run = await runNode(['examples/preconf-fallback.mjs'], ['--rpc-url', node.rpcUrl, '--count', '4', '--json'], 120_000)
    expect(run.code).toBe(0)
    const result = JSON.parse(run.stdout)
    expect(result.sealed).toBe(4)
    for (const t of result.transfers) {
      let expected = 0
      while (dropDraw(1, Buffer.from(t.hash.slice(2), 'hex'), expected) < 0.2) expected++
      expect(t.drops).toBe(expected)
      expect(t.block).toBeGreaterThan(0)
    }
  })
})
