// anvil_reset / hardhat_reset with `{forking: {jsonRpcUrl, blockNumber}}`: the node starts again on
// another fork (another block, or another upstream) in place, as anvil's reset does (connected
// before anything changes, so a fork that cannot be reached changes nothing). The node's chain id
// stays: clients hold it. A jsonRpcUrl makes the node fetch a URL its caller chose: only http(s),
// and a node started with allowRemoteReset false (--no-remote-reset) takes none but its own.

import type { NodeContext } from '../context.js'
import { InvalidParamsError, NodeError } from '../errors.js'
import { Fork } from './fork.js'
import { type Alloc, forkStart } from './genesis.js'
import type { ForkOptions } from './options.js'

/** What connecting another fork reads: the current fork, the reset policy, the cache folder and the log. */
export type ConnectReforkParts = Pick<NodeContext, 'fork' | 'options' | 'log'>

/** What starting again on another fork replaces. */
export type ReforkParts = Pick<NodeContext, 'engine' | 'chain' | 'pool' | 'producer' | 'clock' | 'opStack' | 'fork'>

/** Connects the fork `options` name, outside the queue (it may take a while); throws, changing nothing, if it cannot. */
export async function connectRefork(ctx: ConnectReforkParts, options: { url?: string; blockNumber?: bigint }): Promise<Fork> {
  const current = ctx.fork?.options
  if (options.url !== undefined) checkResetUrl(options.url, current?.url, ctx.options.allowRemoteReset)
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

/** anvil_reset named an upstream on a node that takes none (-32602: the parameter is refused). */
export class RemoteResetDisabledError extends InvalidParamsError {}

/**
 * A reset's jsonRpcUrl: an http(s) URL (anvil and Hardhat fetch any URL; other schemes are no
 * JSON-RPC endpoint), and with remote resets off, one of the URLs the node already forks. Errors
 * name the scheme, never the URL: it may hold credentials.
 */
function checkResetUrl(url: string, current: string | string[] | undefined, allowRemote: boolean): void {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new InvalidParamsError('invalid argument 0: forking.jsonRpcUrl is not a URL (expected http:// or https://)')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new InvalidParamsError(
      `invalid argument 0: forking.jsonRpcUrl must be an http:// or https:// URL, not ${parsed.protocol.slice(0, 20)}`,
    )
  const own = current === undefined ? [] : typeof current === 'string' ? [current] : current
  if (!allowRemote && !own.includes(url))
    throw new RemoteResetDisabledError(
      'anvil_reset with forking.jsonRpcUrl is turned off on this node (--no-remote-reset, allowRemoteReset: false); anvil_reset without a URL still resets it',
    )
}

/** Inside the queue: the chain, state, pending block and pool replaced by `fork`'s start. */
export async function refork(ctx: ReforkParts, fork: Fork, alloc: Alloc): Promise<void> {
  const { engine, chain, pool, producer, clock, opStack } = ctx
  if (chain.pending) chain.dropPreconfirmed(chain.pending)
  chain.pending = undefined
  const previous = ctx.fork
  const { record, root } = await forkStart(engine, fork, alloc, opStack !== undefined)
  chain.replaceBlocks([record])
  chain.setStateRootOverride(record, root)
  chain.stateFrom = 0n
  ctx.fork = fork
  pool.replaceAll([])
  opStack?.takeDeposits()
  clock.rebase(fork.timestamp) // the new upstream's clock, as at start
  clock.jumpMs = 0n
  clock.nextTimestamp = undefined
  producer.resync()
  await previous?.close()
}
