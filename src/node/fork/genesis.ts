// A fork's first local block: the fork block itself, its header and hash the upstream's, and over
// the upstream's state the dev accounts funded (their upstream nonce and code kept, as anvil keeps
// them). Later blocks follow it on the node's own clock.
import type { Chain } from '../chain/chain.js'
import type { Engine } from '../engine/index.js'
import type { NodeOptions } from '../options.js'
import type { Fork } from './fork.js'

/** The options a fork changes: the chain id and profile default to the upstream's. */
export function forkDefaults(input: NodeOptions, fork: Fork): NodeOptions {
  return {
    ...input,
    chainId: input.chainId ?? fork.chainId,
    profile: input.profile ?? (fork.opStack ? 'base' : 'ethereum'),
  }
}

/** Attaches the engine to `fork` and puts its block on `chain`, with the dev accounts funded in its state. */
export async function writeForkGenesis(
  engine: Engine,
  chain: Chain,
  fork: Fork,
  alloc: Array<{ address: Uint8Array; balance: bigint }>,
): Promise<void> {
  engine.attachFork(fork.state)
  const { live } = engine
  // Read together (three upstream requests each, in parallel), then funded one by one.
  await Promise.all(alloc.map(({ address }) => live.account(address)))
  await live.checkpoint()
  for (const { address, balance } of alloc) await live.putAccount(address, { balance })
  await live.commit()
  const record = fork.record()
  chain.addSealed(record)
  // The block keeps the upstream's header (and so its hash); reads at it see the local state.
  chain.setStateRootOverride(record, await live.root())
}
