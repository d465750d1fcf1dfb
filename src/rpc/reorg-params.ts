// anvil_reorg's parameters: `[depth, [[tx, blockOffset], ...]]`, each tx a signed raw transaction
// (hex) or a request object a dev account signs, as anvil's ReorgOptions reads them
// (anvil-core types.rs, TransactionData: a JSON request or raw bytes).
import type { ReorgPair } from '../node/dev/reorg.js'
import { invalidParams } from './errors.js'
import { parseData, parseQuantity } from './hex.js'
import { isObject, parseCallRequest } from './params.js'

/** Most transactions one anvil_reorg places: each is built and run while the chain waits. */
export const MAX_REORG_TXS = 10_000

/** The pairs; a request without `from` is sent by `defaultFrom` (anvil: the first dev account). */
export function parseReorgPairs(value: unknown, defaultFrom: Uint8Array | undefined): ReorgPair[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw invalidParams('invalid argument 1: expected an array of [transaction, blockOffset] pairs')
  if (value.length > MAX_REORG_TXS) throw invalidParams(`invalid argument 1: at most ${MAX_REORG_TXS} transactions`)
  return value.map((pair, i) => {
    const name = `1.${i}`
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw invalidParams(`invalid argument ${name}: expected a [transaction, blockOffset] pair`)
    }
    const [tx, offset] = pair
    const at = parseQuantity(offset, `${name}.blockOffset`)
    if (typeof tx === 'string') return { tx: { raw: parseData(tx, `${name}.transaction`) }, offset: at }
    if (!isObject(tx)) {
      throw invalidParams(`invalid argument ${name}: expected a raw transaction (hex) or a transaction request object`)
    }
    const request = parseCallRequest(tx, `${name}.transaction`)
    request.from ??= defaultFrom
    if (!request.from) throw invalidParams(`invalid argument ${name}: the request has no from and the node holds no dev accounts`)
    return { tx: { request }, offset: at }
  })
}
