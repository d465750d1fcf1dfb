// boot: spawn -> first answered eth_chainId, and -> first eth_getBalance (the execution engine
// ready), for the bare `pcnode start` and `anvil` commands; the median of P.bootRuns each, after one
// untimed warm-up spawn each (file cache), the two interleaved.
import { log, short } from '../lib/log.mjs'
import { startNode, waitForChainId, waitForEngine } from '../lib/procs.mjs'
import { round, stats } from '../lib/stats.mjs'

export const name = 'boot'
export const selectedBy = ['boot']

export async function run({ opts, P }) {
  const pairs = [
    ['pcnode', 'pcnode(boot)'],
    ['anvil', 'anvil(automine)'],
  ].filter(([k]) => !(opts.noAnvil && k === 'anvil'))
  const out = {}
  for (const [k] of pairs) out[k] = { chainIdMs: [], engineReadyMs: [], errors: [] }
  // One untimed warm-up spawn each (file cache), then interleaved runs.
  for (let run = -1; run < P.bootRuns; run++) {
    for (const [k, name] of pairs) {
      const node = await startNode(name, opts, { waitReady: false })
      try {
        const chainIdMs = await waitForChainId(node, 30_000)
        const readyMs = await waitForEngine(node, 30_000)
        if (run >= 0) {
          out[k].chainIdMs.push(round(chainIdMs, 1))
          out[k].engineReadyMs.push(round(readyMs, 1))
        }
      } catch (e) {
        out[k].errors.push(short(e.message, 300))
      } finally {
        await node.stop()
      }
    }
  }
  for (const k of Object.keys(out)) {
    out[k].chainId = stats(out[k].chainIdMs)
    out[k].engineReady = stats(out[k].engineReadyMs)
  }
  log(
    `boot: ${Object.entries(out)
      .map(([k, v]) => `${k} ${v.chainId.p50} ms`)
      .join(', ')}`,
  )
  return { boot: out }
}
