// The OP-stack fee formulas against the reference clients' own test vectors (op-geth
// core/types/rollup_cost_test.go, fastlz_test.go; OP specs jovian/exec-engine.md), and the
// Jovian extraData and base fee.
import { describe, expect, it } from 'vitest'
import { emptyHeader } from '../src/node/header-fields.js'
import { daFootprint, estimatedSizeScaled, fastLzSize, l1Cost, nextBaseFee, operatorFee } from '../src/node/opstack/fees.js'
import { BASE_L1_FEES, decodeExtraData, encodeExtraData, type L1FeeParams } from '../src/node/opstack/params.js'
import { seededRandom, testSeed } from './helpers.js'

const params = (p: Partial<L1FeeParams>): L1FeeParams => ({
  ...BASE_L1_FEES,
  operatorFeeScalar: 0n,
  operatorFeeConstant: 0n,
  ...p,
})

describe('OP-stack fees', () => {
  it('FastLZ sizes: op-geth fastlz_test.go', () => {
    expect(fastLzSize(new Uint8Array())).toBe(0)
    expect(fastLzSize(new Uint8Array(1000).fill(1))).toBe(21)
    expect(fastLzSize(new Uint8Array(1000))).toBe(21)
  })

  it('FastLZ never outputs more than the input plus one byte per 32 (the bound the pool checks first)', () => {
    const random = seededRandom(testSeed('flz bound'))
    for (let n = 0; n < 300; n++) {
      const length = Math.floor(random() * 700)
      // Mostly incompressible bytes, sometimes runs: both sides of the bound.
      const bytes = new Uint8Array(length).map(() => (random() < 0.2 ? 0 : Math.floor(random() * 256)))
      expect(fastLzSize(bytes)).toBeLessThanOrEqual(length + Math.ceil(length / 32))
    }
  })

  it('the Fjord L1 fee and L1 gas: op-geth rollup_cost_test.go', () => {
    // Below the 100-byte minimum: the minimum applies.
    const fjord = params({ baseFee: 1_000_000_000n, blobBaseFee: 10_000_000n, baseFeeScalar: 2n, blobBaseFeeScalar: 3n })
    for (const size of [100, 150, 170]) expect(l1Cost(fjord, size)).toEqual({ fee: 3_203_000n, gasUsed: 1600n })
    // TestFjordL1CostSolidityParity
    const parity = params({ baseFee: 2_000_000n, blobBaseFee: 3_000_000n, baseFeeScalar: 20n, blobBaseFeeScalar: 15n })
    expect(l1Cost(parity, 235)).toEqual({ fee: 105_484n, gasUsed: 2463n })
    expect(estimatedSizeScaled(235)).toBe(153_991_900n)
  })

  it('the Jovian operator fee (gas * scalar * 100 + constant) and DA footprint', () => {
    const p = params({ operatorFeeScalar: 1_439_103_868n, operatorFeeConstant: 1_256_417_826_609_331_460n })
    expect(operatorFee(p, 1618n)).toBe(1_256_650_673_615_173_860n)
    // DA footprint: the estimated size in bytes times the scalar; a zero scalar means 400.
    expect(daFootprint(params({ daFootprintGasScalar: 148n }), 235)).toBe(153n * 148n)
    expect(daFootprint(params({ daFootprintGasScalar: 0n }), 10)).toBe(100n * 400n)
  })

  it("Jovian extraData v1 round-trips Base's values, and the base fee follows it with its minimum", () => {
    const base = { denominator: 100n, elasticity: 5n, minBaseFee: 5_000_000n }
    const extra = encodeExtraData(base)
    expect(Buffer.from(extra).toString('hex')).toBe('01000000640000000500000000004c4b40') // a Base header's
    expect(decodeExtraData(extra)).toEqual(base)
    expect(decodeExtraData(new Uint8Array())).toBeUndefined()
    const parent = emptyHeader({ gasLimit: 400_000_000n, baseFeePerGas: 1_000_000_000n, gasUsed: 80_000_000n })
    expect(nextBaseFee(parent, base)).toBe(1_000_000_000n) // at the target (limit / elasticity)
    expect(nextBaseFee({ ...parent, gasUsed: 0n }, base)).toBe(990_000_000n) // empty: -1/denominator
    expect(nextBaseFee({ ...parent, gasUsed: 400_000_000n }, base)).toBe(1_040_000_000n) // full: +(5-1)/100
    // The DA footprint counts when it exceeds the gas used.
    expect(nextBaseFee({ ...parent, gasUsed: 0n, blobGasUsed: 400_000_000n }, base)).toBe(1_040_000_000n)
    expect(nextBaseFee({ ...parent, baseFeePerGas: 5_000_000n, gasUsed: 0n }, base)).toBe(5_000_000n) // the minimum
  })
})
