// The Common speed fixes (src/node/commons.ts) must answer exactly what upstream answers.
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { describe, expect, it } from 'vitest'
import { blockCommon, indexActivatedEips, txCommon } from '../src/node/engine/vm/commons.js'

const EIPS = Array.from({ length: 8000 }, (_, i) => i + 1)
const answers = (common: Common) => EIPS.filter((eip) => common.isActivatedEIP(eip))

describe('Common speed fixes', () => {
  it('isActivatedEIP answers as upstream at every hardfork, also on copies and after a hardfork move', () => {
    const indexed = new Common({ chain: Mainnet, hardfork: Hardfork.Chainstart })
    indexActivatedEips(indexed)
    for (const { name: hardfork } of Mainnet.hardforks) {
      const upstream = new Common({ chain: Mainnet, hardfork })
      indexed.setHardfork(hardfork)
      expect(answers(indexed), hardfork).toEqual(answers(upstream))
      expect(answers(indexed.copy()), hardfork).toEqual(answers(upstream))
    }
    expect(answers(indexed)).toContain(7702) // at the last hardfork: Prague's and later EIPs
  })

  it('hands out one shared copy per params set, and a new one when the hardfork moves', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun })
    const block = blockCommon(common)
    expect(blockCommon(common)).toBe(block)
    expect(block.copy()).toBe(block)
    expect(txCommon(common)).not.toBe(block)
    expect(block.param('elasticityMultiplier')).toBe(2n) // the block params are merged
    expect(txCommon(common).param('txGas')).toBe(21000n)
    common.setHardfork(Hardfork.Prague)
    const moved = blockCommon(common)
    expect(moved).not.toBe(block)
    expect(moved.hardfork()).toBe(Hardfork.Prague)
    expect(block.hardfork()).toBe(Hardfork.Cancun)
  })
})
