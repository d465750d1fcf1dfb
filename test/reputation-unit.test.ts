// ERC-7562's reputation table on its own: the status thresholds at their edges, UREP-020's share of the
// mempool for an unstaked entity (the bundler spec tests' numbers), and the hourly decay driven by a clock.
import type { Address } from 'viem'
import { describe, expect, it } from 'vitest'
import { ReputationTable } from '../src/node/bundler/reputation.js'

const EP: Address = '0x0000000071727De22E5E9d8BAf0edAc6f37da032'
const A: Address = '0x00000000000000000000000000000000000000A1'

function table(opsSeen: bigint, opsIncluded: bigint, clock = { now: 0n }) {
  const t = new ReputationTable(() => clock.now)
  t.set(EP, [{ address: A, opsSeen, opsIncluded }])
  return t
}

describe('ReputationTable', () => {
  it('is OK up to opsSeen // 10 = opsIncluded + 10, throttled past it, banned past opsIncluded + 50', () => {
    // The bundler spec tests' thresholds: (included + slack) * 10 + 9 is the last value before the status moves.
    expect(table(119n, 1n).status(EP, A)).toBe('ok')
    expect(table(120n, 1n).status(EP, A)).toBe('throttled')
    expect(table(519n, 1n).status(EP, A)).toBe('throttled')
    expect(table(520n, 1n).status(EP, A)).toBe('banned')
    expect(new ReputationTable(() => 0n).status(EP, A)).toBe('ok')
    // Kept per EntryPoint.
    expect(table(520n, 1n).status('0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108', A)).toBe('ok')
  })

  it('lets an unstaked entity have 10 + inclusionRate × min(opsIncluded, 10000) ops waiting', () => {
    expect(new ReputationTable(() => 0n).underUnstakedShare(EP, A, 9)).toBe(true)
    expect(new ReputationTable(() => 0n).underUnstakedShare(EP, A, 10)).toBe(false)
    // opsSeen 10, opsIncluded 1: 10.1 allowed, so an 11th op is taken and a 12th is not.
    expect(table(10n, 1n).underUnstakedShare(EP, A, 10)).toBe(true)
    expect(table(10n, 1n).underUnstakedShare(EP, A, 11)).toBe(false)
    // Every op included: 10 + min(opsIncluded, 10000).
    expect(table(20_000n, 20_000n).underUnstakedShare(EP, A, 10_009)).toBe(true)
    expect(table(20_000n, 20_000n).underUnstakedShare(EP, A, 10_010)).toBe(false)
  })

  it('decays both counters by 23/24 per whole hour of the clock, and forgets an entity once both are zero', () => {
    const clock = { now: 1_000n }
    const t = table(240n, 24n, clock)
    clock.now += 3599n
    expect(t.get(EP, A)).toMatchObject({ opsSeen: 240n, opsIncluded: 24n })
    clock.now += 1n
    expect(t.get(EP, A)).toMatchObject({ opsSeen: 230n, opsIncluded: 23n })
    clock.now += 2n * 3600n
    expect(t.get(EP, A)).toMatchObject({ opsSeen: 210n, opsIncluded: 21n })
    // A clock that goes back (evm_revert) restarts the count without decaying.
    clock.now -= 10_000n
    expect(t.get(EP, A)).toMatchObject({ opsSeen: 210n, opsIncluded: 21n })
    clock.now += 400n * 3600n
    expect(t.dump(EP)).toEqual([])
  })
})
