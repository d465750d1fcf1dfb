// The estimate and simulate scenarios, which share one node per configuration: one start each, and
// simulate measured on the node the estimate rows have warmed. Around them, the no-op server's
// answer to the same view call: the floor under the call figures.
import { withNode } from '../lib/procs.mjs'
import { now } from '../lib/stats.mjs'
import * as estimate from './estimate.mjs'
import { noopCallLatency } from './noop.mjs'
import * as simulate from './simulate.mjs'

export const name = 'calls'
export const selectedBy = [estimate.name, simulate.name]

export async function run({ opts, P }) {
  const which = opts.only
  const names = ['pcnode(200ms)', 'anvil(automine)'].filter((n) => !(opts.noAnvil && n.startsWith('anvil')))
  const estimates = {}
  const simulations = {}
  const deployRaw = await estimate.signViewDeploy()
  // The warm floor first: it also warms this process's own HTTP client, which otherwise would be
  // cold for the first node measured (pcnode) and warm for the next (anvil).
  const floorWarm = which.includes('estimate') ? await noopCallLatency(P, P.warmLong) : undefined
  for (const name of names) {
    await withNode(name, opts, async (node) => {
      const deadline = now() + 300_000
      if (which.includes('estimate')) estimates[name] = await estimate.measure(node, P, deadline, deployRaw)
      if (which.includes('simulate')) simulations[name] = await simulate.measure(node, P, deadline)
      return {}
    })
  }
  const entries = {}
  if (which.includes('estimate')) {
    entries.estimate = estimates
    entries.callFloor = { warm: floorWarm, fresh: await noopCallLatency(P, P.warmup) }
  }
  if (which.includes('simulate')) entries.simulate = simulations
  return entries
}
