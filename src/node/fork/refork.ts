// anvil_reset / hardhat_reset with `{forking: {jsonRpcUrl, blockNumber}}`: the node starts again on
// another fork (another block, or another upstream) in place, as anvil's reset does (its PR #15919
// made it atomic: here the new upstream is connected before anything changes). The node's chain id
// stays: clients hold it.

import type { NodeContext } from '../context.js'
import { NodeError } from '../errors.js'
import { replacePool } from '../snapshot.js'
import { Fork } from './fork.js'
import { type Alloc, forkStart } from './genesis.js'
import type { ForkOptions } from './options.js'

/** Connects the fork `options` name, outside the queue (it may take a while); throws, changing nothing, if it cannot. */
export async function connectRefork(ctx: NodeContext, options: { url?: string; blockNumber?: bigint }): Promise<Fork> {
  const current = ctx.fork?.options
  const url = options.url ?? current?.url
  if (url === undefined) throw new NodeError('anvil_reset: forking.jsonRpcUrl is needed (this node is not a fork)')
  const next: ForkOptions = { ...current, url, blockNumber: options.blockNumber, chainId: undefined }
  // The new fork loads its cache file now: what this fork read is written first, in case it is
  // the same file (the same block and URL), or the old fork's last write would be lost.
  await ctx.fork?.cache.save()
  try {
    return await Fork.connect(next, ctx.options.dataDir, ctx.log)
  } catch (error) {
    throw error instanceof NodeError ? error : new NodeError((error as Error).message)
  }
}

/** Inside the queue: the chain, state, pending block and pool replaced by `fork`'s start. */
export async function refork(ctx: NodeContext, fork: Fork, alloc: Alloc): Promise<void> {
  const { engine, chain, pool, producer, clock, opStack } = ctx
  if (chain.pending) chain.dropPreconfirmed(chain.pending)
  chain.pending = undefined
  const previous = ctx.fork
  const { record, root } = await forkStart(engine, fork, alloc)
  chain.replaceBlocks([record])
  chain.setStateRootOverride(record, root)
  chain.stateFrom = 0n
  ctx.fork = fork
  replacePool(pool, [])
  opStack?.takeDeposits()
  clock.offset = 0n
  clock.nextTimestamp = undefined
  producer.resync()
  await previous?.close()
}
