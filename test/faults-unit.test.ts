// The pure parts of the fault injector: the restart orders (nonce order kept per sender), the
// drop rate's draws (a function of seed, transaction and attempt) and the settings' bounds.
import { describe, expect, it } from 'vitest'
import { reorder } from '../src/node/faults/order.js'
import { dropDraw, seededRandom } from '../src/node/faults/random.js'
import { checkFaultSettings } from '../src/node/faults/settings.js'
import type { TxRecord } from '../src/node/types.js'
import { testSeed } from './helpers.js'

const tx = (sender: number, nonce: number) => ({
  name: `${'ABCD'[sender]}${nonce}`,
  tx: { from: Uint8Array.of(sender), nonce: BigInt(nonce) } as unknown as TxRecord,
})
const names = (txs: Array<{ name: string }>) => txs.map((t) => t.name)

describe('restart orders', () => {
  const block = [tx(0, 0), tx(0, 1), tx(1, 0), tx(2, 0), tx(0, 2)]

  it('same keeps the block order; reverse reverses it, each sender in nonce order', () => {
    expect(names(reorder(block, 'same', Math.random))).toEqual(['A0', 'A1', 'B0', 'C0', 'A2'])
    // Reversed: A2 C0 B0 A1 A0 → A's places get A0, A1, A2.
    expect(names(reorder(block, 'reverse', Math.random))).toEqual(['A0', 'C0', 'B0', 'A1', 'A2'])
  })

  it('shuffle is a seeded permutation that keeps each sender in nonce order', () => {
    const seed = testSeed('restart shuffle')
    const a = reorder(block, 'shuffle', seededRandom(seed))
    expect(names(reorder(block, 'shuffle', seededRandom(seed)))).toEqual(names(a))
    expect([...names(a)].sort()).toEqual(['A0', 'A1', 'A2', 'B0', 'C0'])
    const aOrder = names(a).filter((n) => n.startsWith('A'))
    expect(aOrder).toEqual(['A0', 'A1', 'A2'])
  })
})

describe('drop draws', () => {
  it('are a function of seed, transaction and attempt, spread over [0, 1)', () => {
    const seed = testSeed('drop draws')
    const random = seededRandom(seed)
    const hashes = Array.from({ length: 4000 }, () => Uint8Array.from({ length: 32 }, () => Math.floor(random() * 256)))
    const draws = hashes.map((h) => dropDraw(seed, h, 0))
    expect(hashes.map((h) => dropDraw(seed, h, 0))).toEqual(draws)
    expect(draws.every((d) => d >= 0 && d < 1)).toBe(true)
    // About a fifth under 0.2 (4000 draws: 0.16..0.24 is six standard deviations either way).
    const share = draws.filter((d) => d < 0.2).length / draws.length
    expect(share).toBeGreaterThan(0.16)
    expect(share).toBeLessThan(0.24)
    // Another attempt, or another seed, draws anew.
    expect(hashes.filter((h, i) => dropDraw(seed, h, 1) !== draws[i]).length).toBeGreaterThan(3990)
    expect(hashes.filter((h, i) => dropDraw(seed + 1, h, 0) !== draws[i]).length).toBeGreaterThan(3990)
  })
})

describe('fault settings', () => {
  it('accepts values in bounds and names the field out of them', () => {
    expect(() => checkFaultSettings({ dropRate: 0, seed: 0xffffffff, jitterMs: 60_000, requeue: true })).not.toThrow()
    expect(() => checkFaultSettings({ dropRate: Number.NaN })).toThrow('invalid dropRate NaN')
    expect(() => checkFaultSettings({ seed: 1.5 })).toThrow('invalid seed 1.5')
    expect(() => checkFaultSettings({ jitterMs: 2.5 })).toThrow('invalid jitterMs 2.5')
    expect(() => checkFaultSettings({ notifyDropped: 'yes' as never })).toThrow('invalid notifyDropped')
  })
})
