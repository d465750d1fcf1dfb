// Speed fixes around ethereumjs' Common, the object every header, transaction and EVM consults
// for hardfork rules and gas parameters. Both answer exactly what upstream answers.
import { paramsBlock } from '@ethereumjs/block'
import type { Common, ParamsDict } from '@ethereumjs/common'
import { paramsTx } from '@ethereumjs/tx'

/**
 * The interpreter asks `isActivatedEIP(6800)` and `(7864)` on every opcode; upstream answers
 * with `Array.includes` over every EIP of every hardfork so far (~100), about half the time of a
 * contract run. A Set per EIP list answers the same. `this`-based, so `common.copy()` (which
 * copies own properties) keeps it; the list is replaced, never mutated, when the hardfork moves.
 */
export function indexActivatedEips(common: Common): void {
  type Indexed = { _activatedEIPsCache: number[]; eipSource?: number[]; eipSet?: Set<number> }
  common.isActivatedEIP = function (this: Common, eip: number): boolean {
    const self = this as unknown as Indexed
    if (self.eipSource !== self._activatedEIPsCache) {
      self.eipSource = self._activatedEIPsCache
      self.eipSet = new Set(self.eipSource)
    }
    return self.eipSet!.has(eip)
  }
}

const shared = new WeakMap<Common, Map<ParamsDict, Common>>()

/**
 * A copy of `common` with `params` merged, handed to every header or transaction built with it.
 * Each header and tx constructor copies its common and merges its params into it again (JSON
 * deep copies and a param-cache rebuild, ~0.17 ms: most of the cost of an eth_call or of a
 * simulated transfer); this copy hands out itself and skips the re-merge. Only for objects that
 * never move their common's hardfork (headers built with `setHardfork: false`, call and received
 * transactions); when `common`'s hardfork moves (a genesis file's fork schedule), a new copy.
 */
function withParams(common: Common, params: ParamsDict): Common {
  let byParams = shared.get(common)
  if (!byParams) shared.set(common, (byParams = new Map()))
  const cached = byParams.get(params)
  if (cached && cached.hardfork() === common.hardfork()) return cached
  const copy = common.copy()
  copy.updateParams(params)
  const merge = copy.updateParams.bind(copy)
  Object.assign(copy, {
    copy: () => copy,
    updateParams: (more: ParamsDict) => {
      if (more !== params) merge(more)
    },
  })
  byParams.set(params, copy)
  return copy
}

/** The common for transactions that keep their hardfork: call transactions and received sends. */
export const txCommon = (common: Common): Common => withParams(common, paramsTx)

/** The common for headers and blocks built with `setHardfork: false`. */
export const blockCommon = (common: Common): Common => withParams(common, paramsBlock)
