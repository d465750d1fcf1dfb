// The functions patches/ rewrites in ethereumjs (for speed, see architecture.test.ts) must answer
// as before, byte for byte. Each is checked on seeded random inputs against viem's own encoder or
// decoder, an implementation that shares no code with ethereumjs.
import { RLP } from '@ethereumjs/rlp'
import { bigIntToBytes, hexToBytes, isHexString, stripHexPrefix, unpadArray, unpadBytes, unpadHex } from '@ethereumjs/util'
import { bytesToHex, isHex, numberToBytes, toRlp, trim, hexToBytes as viemHexToBytes } from 'viem'
import { describe, expect, it } from 'vitest'
import { seededRandom, testSeed } from './helpers.js'

type Tree = Uint8Array | Tree[]

// Around every boundary of RLP's length header: 1 byte (< 0x80 or not), 55/56, one and two length bytes.
const LEAF_LENGTHS = [0, 1, 1, 1, 2, 20, 32, 55, 56, 57, 255, 256, 1024, 65535, 65536]

describe('patched ethereumjs functions', () => {
  it('RLP.encode: the same bytes as viem toRlp for nested lists of every length class', () => {
    const seed = testSeed('rlp encode')
    const rnd = seededRandom(seed)
    let budget = 0 // bytes a tree may still hold, so a few long lists of long leaves stay small
    const leaf = (): Uint8Array => {
      const length = LEAF_LENGTHS[Math.floor(rnd() * LEAF_LENGTHS.length)]
      const bytes = new Uint8Array(length <= budget ? length : Math.min(budget, 20))
      budget -= bytes.length
      // Half the bytes under 0x80, so single-byte leaves take both branches.
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rnd() * (rnd() < 0.5 ? 0x80 : 0x100))
      return bytes
    }
    const tree = (depth: number): Tree => {
      if (depth > 3 || rnd() < 0.4) return leaf()
      // Now and then a long list, so list payloads pass 55 bytes on their own count too.
      const items = Math.floor(rnd() * (rnd() < 0.1 ? 80 : 6))
      return Array.from({ length: items }, () => tree(depth + 1))
    }
    for (let i = 0; i < 100; i++) {
      budget = 128 * 1024
      const input = tree(0)
      expect(bytesToHex(RLP.encode(input)), `seed ${seed}, input ${i}`).toBe(toRlp(input))
    }
  })

  it('RLP.encode: numbers, bigints, strings and nullish leaves as before', () => {
    const cases: Array<[Parameters<typeof RLP.encode>[0], string]> = [
      [0, '0x80'],
      [127, '0x7f'],
      [128, '0x8180'],
      [1024, '0x820400'],
      [2n ** 200n, `0x9a01${'00'.repeat(25)}`],
      ['0x', '0x80'],
      ['0x0abc', '0x820abc'],
      ['dog', '0x83646f67'],
      [null, '0x80'],
      [['cat', ['dog', []]], '0xca83636174c583646f67c0'],
    ]
    for (const [input, encoded] of cases) expect(bytesToHex(RLP.encode(input))).toBe(encoded)
    expect(() => RLP.encode(-1)).toThrow(/unsigned/)
  })

  it('bigIntToBytes, hexToBytes and isHexString answer as viem does', () => {
    const seed = testSeed('util hex')
    const rnd = seededRandom(seed)
    for (let i = 0; i < 2000; i++) {
      let value = 0n
      for (let bits = Math.floor(rnd() * 260); bits > 0; bits -= 16) value = (value << 16n) | BigInt(Math.floor(rnd() * 65536))
      const at = `seed ${seed}, value ${value}`
      expect(bytesToHex(bigIntToBytes(value)), at).toBe(bytesToHex(numberToBytes(value)))
      const hex = bytesToHex(numberToBytes(value))
      expect(bytesToHex(hexToBytes(hex)), at).toBe(bytesToHex(viemHexToBytes(hex)))
    }
    // An odd digit count is padded at the front, as before.
    expect(bytesToHex(hexToBytes('0xabc'))).toBe('0x0abc')
    for (const bad of ['0xzz', '0x0x12', 'ab']) expect(() => hexToBytes(bad as `0x${string}`), bad).toThrow()
    for (const text of ['0x', '0xAb09', '0xg1', '0X12', 'ab', '', '0', 'x0x']) {
      expect(isHexString(text), text).toBe(isHex(text, { strict: true }))
      expect(stripHexPrefix(text), text).toBe(isHex(text, { strict: true }) ? text.slice(2) : text)
    }
    expect(isHexString('0x1234', 2)).toBe(true)
    expect(isHexString('0x1234', 3)).toBe(false)
  })

  it('unpadBytes, unpadArray and unpadHex strip leading zeros as before', () => {
    const seed = testSeed('util unpad')
    const rnd = seededRandom(seed)
    for (let i = 0; i < 2000; i++) {
      const zeros = Math.floor(rnd() * 34)
      const tail = Array.from({ length: Math.floor(rnd() * 34) }, () => Math.floor(rnd() * 256))
      if (tail.length > 0 && tail[0] === 0) tail[0] = 1
      const input = Uint8Array.from([...new Array(zeros).fill(0), ...tail])
      const at = `seed ${seed}, input ${bytesToHex(input)}`
      const out = unpadBytes(input)
      // viem's trim keeps one byte of an all-zero input; ethereumjs answers an empty array.
      expect(bytesToHex(out), at).toBe(tail.length === 0 ? '0x' : bytesToHex(trim(input, { dir: 'left' })))
      if (zeros === 0)
        expect(out, at).toBe(input) // nothing to strip: the same array, as before
      else {
        out.fill(0xff) // a copy, as before: the input keeps its bytes
        expect(
          input.subarray(zeros).every((b, k) => b === tail[k]),
          at,
        ).toBe(true)
      }
      expect(unpadArray([...input]), at).toEqual(tail)
      const hex = bytesToHex(input)
      expect(unpadHex(hex), at).toBe(`0x${hex.slice(2).replace(/^0+/, '')}`)
    }
  })
})
