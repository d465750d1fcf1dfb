// The bundler's mempool-wide rules on their own: STO-041's hold (an op that used storage in another
// waiting op's sender, with its sender's later nonces, and nothing else) and GREP-040's penalty in the
// reputation table (opsSeen BAN_OPS_SEEN_PENALTY, opsIncluded 0: banned).
import type { Address, Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { ENTRY_POINTS } from '../src/node/bundler/entry-points.js'
import type { OpRecord } from '../src/node/bundler/mempool.js'
import { ReputationTable } from '../src/node/bundler/reputation.js'
import { heldByStorage } from '../src/node/bundler/roles.js'
import type { UserOp } from '../src/node/bundler/user-op.js'

const entryPoint = ENTRY_POINTS[0] as (typeof ENTRY_POINTS)[number]
const TOKEN: Address = '0x00000000000000000000000000000000000070c4'
const HOLDER: Address = '0x00000000000000000000000000000000000000a1'
const OTHER: Address = '0x00000000000000000000000000000000000000b2'

function record(sender: Address, nonce: bigint, touched?: string[]): OpRecord {
  return {
    hash: `0x${(BigInt(sender) + nonce).toString(16).padStart(64, '0')}` as Hex,
    op: { sender, nonce } as UserOp,
    entryPoint,
    status: 'pending',
    receivedAt: 0,
    ...(touched ? { touched } : {}),
  }
}

describe('STO-041 at bundling', () => {
  it("holds an op that used a waiting sender's storage, and its sender's later nonces in the same key", () => {
    const token = record(TOKEN, 0n)
    const first = record(HOLDER, 0n, [TOKEN.toLowerCase()])
    const second = record(HOLDER, 1n)
    const otherKey = record(HOLDER, 1n << 64n)
    const other = record(OTHER, 0n, ['0x00000000000000000000000000000000000000ff'])
    const held = heldByStorage([token, first, second, otherKey, other])
    expect([...held]).toEqual([first, second])
  })

  it('holds nothing once the sender whose storage was used has no op waiting', () => {
    expect(heldByStorage([record(HOLDER, 0n, [TOKEN.toLowerCase()])]).size).toBe(0)
  })
})

describe('GREP-040 in the reputation table', () => {
  it('bans an entity outright: opsSeen 10000, opsIncluded 0', () => {
    const table = new ReputationTable(() => 0n)
    table.set(entryPoint.address, [{ address: TOKEN, opsSeen: 3n, opsIncluded: 3n }])
    table.penalize(entryPoint.address, TOKEN)
    expect(table.get(entryPoint.address, TOKEN)).toMatchObject({ opsSeen: 10_000n, opsIncluded: 0n })
    expect(table.status(entryPoint.address, TOKEN)).toBe('banned')
  })
})
