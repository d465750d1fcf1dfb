// memory: an idle node sealing an empty block every 20 ms for P.memoryS (after P.memoryWarmupS):
// RSS growth per block, also with a 256-block --state-history so pruning shows within the run.
import { setTimeout as sleep } from 'node:timers/promises'
import { log } from '../lib/log.mjs'
import { memOf } from '../lib/procfs.mjs'
import { withNode } from '../lib/procs.mjs'
import { hexN, round } from '../lib/stats.mjs'

export const name = 'memory'
export const selectedBy = ['memory']

export async function run({ opts, P }) {
  const names = ['pcnode(20ms blocks)', 'pcnode(20ms, history 256)', 'anvil(bt 0.02)'].filter(
    (n) => !(opts.noAnvil && n.startsWith('anvil')),
  )
  const out = {}
  for (const name of names) {
    out[name] = await withNode(name, opts, async (node) => {
      await sleep(P.memoryWarmupS * 1000)
      const sample = async () => ({ ...memOf(node.pid), block: hexN(await node.rpc('eth_blockNumber', [])) })
      const a = await sample()
      await sleep(P.memoryS * 1000)
      const b = await sample()
      const blocks = b.block - a.block
      const kibPerBlock = blocks > 0 ? round(((b.rssMiB - a.rssMiB) * 1024) / blocks, 2) : null
      log(`memory ${name}: ${blocks} blocks, RSS ${a.rssMiB} -> ${b.rssMiB} MiB, ${kibPerBlock} KiB/block`)
      return { from: a, to: b, blocks, kibPerBlock }
    })
  }
  return { memory: out }
}
