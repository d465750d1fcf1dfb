// The key preimages a state dump reads back (engine/store/preimages.ts): keys recorded after a dump has
// hashed the earlier ones (more slots of a known address, a new address) are found by the next.
import { keccak_256 } from '@noble/hashes/sha3.js'
import { describe, expect, it } from 'vitest'
import { hexKey } from '../src/node/bytes.js'
import { Preimages } from '../src/node/engine/store/preimages.js'

const keccak = (data: Uint8Array) => keccak_256(data)
const bytes = (n: number, size: number) => {
  const out = new Uint8Array(size)
  out[size - 1] = n
  return out
}
const hashOf = (data: Uint8Array) => hexKey(keccak(data))

describe('key preimages', () => {
  it('find addresses and slots recorded before and after an earlier lookup', () => {
    const p = new Preimages()
    const [a, b] = [bytes(0xa, 20), bytes(0xb, 20)]
    p.slot(a, bytes(1, 32))
    p.slot(a, bytes(2, 32))
    expect(p.addressOf(hashOf(a), keccak)).toBe(hexKey(a))
    expect(p.slotOf(hexKey(a), hashOf(bytes(2, 32)), keccak)).toBe(hexKey(bytes(2, 32)))
    // After that lookup hashed everything: one more slot of a, a new address with a slot, a repeat.
    p.slot(a, bytes(3, 32))
    p.slot(a, bytes(1, 32))
    p.account(b)
    p.slot(b, bytes(4, 32))
    expect(p.addressOf(hashOf(b), keccak)).toBe(hexKey(b))
    for (const n of [1, 2, 3]) expect(p.slotOf(hexKey(a), hashOf(bytes(n, 32)), keccak)).toBe(hexKey(bytes(n, 32)))
    expect(p.slotOf(hexKey(b), hashOf(bytes(4, 32)), keccak)).toBe(hexKey(bytes(4, 32)))
    expect(p.slotOf(hexKey(b), hashOf(bytes(1, 32)), keccak)).toBeUndefined()
  })

  it('hash each key once: a dump looks up every key, and lookups with nothing new recorded hash nothing', () => {
    const p = new Preimages()
    let hashed = 0
    const counting = (data: Uint8Array) => {
      hashed++
      return keccak(data)
    }
    for (let i = 0; i < 50; i++) p.account(bytes(i, 20))
    p.slot(bytes(1, 20), bytes(7, 32))
    for (let i = 0; i < 50; i++) expect(p.addressOf(hashOf(bytes(i, 20)), counting)).toBe(hexKey(bytes(i, 20)))
    expect(hashed).toBe(51)
    p.slot(bytes(1, 20), bytes(8, 32))
    expect(p.slotOf(hexKey(bytes(1, 20)), hashOf(bytes(8, 32)), counting)).toBe(hexKey(bytes(8, 32)))
    expect(hashed).toBe(52)
  })
})
