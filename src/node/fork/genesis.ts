// A fork's first local block: the fork block itself, its header and hash the upstream's, and over
// the upstream's state the dev accounts funded (their upstream nonce and code kept, as anvil keeps
// them). Later blocks follow it on the node's own clock. anvil_reset with `forking` starts again
// this way on another fork (refork.ts).
import type { Chain } from '../chain/chain.js'
import type { Engine } from '../engine/index.js'
import { EMPTY_TRIE_ROOT } from '../header-fields.js'
import { FEE_VAULTS } from '../opstack/opstack.js'
import type { NodeOptions } from '../options.js'
import type { BlockRecord } from '../types.js'
import type { Fork } from './fork.js'

/** The dev accounts and what each is funded with. */
export type Alloc = Array<{ address: Uint8Array; balance: bigint }>

/** Where a fork's notices go while connecting (nowhere when silent, the library's default). */
export function forkLog(input: NodeOptions): (line: string) => void {
  if (input.silent ?? true) return () => {}
  return input.logger ?? ((line: string) => console.error(`pcnode: ${line}`))
}

/**
 * The options a fork changes: the chain id, the profile and Denim's time default to the
 * upstream's (Base's rules for a Base chain, the flashblocks rules for another OP-stack chain).
 */
export function forkDefaults(input: NodeOptions, fork: Fork): NodeOptions {
  const denimTime = fork.denimTime
  const profile = denimTime !== undefined ? 'base' : fork.opStack ? 'flashblocks' : 'ethereum'
  return {
    ...input,
    chainId: input.chainId ?? fork.chainId,
    profile: input.profile ?? profile,
    denimTime: input.denimTime ?? denimTime,
  }
}

/** Attaches the engine to `fork` and puts its block on `chain`, with the dev accounts funded in its state. */
export async function writeForkGenesis(engine: Engine, chain: Chain, fork: Fork, alloc: Alloc, opStack: boolean): Promise<void> {
  const { record, root } = await forkStart(engine, fork, alloc, opStack)
  chain.addSealed(record)
  // The block keeps the upstream's header (and so its hash); reads at it see the local state.
  chain.setStateRootOverride(record, root)
}

/**
 * The engine on `fork`, the live state empty but for the dev accounts' funding; the fork block's
 * record and the state root reads at it use. `opStack`: blocks pay fees into the OP fee vaults.
 * Inside the queue, or before it runs.
 */
export async function forkStart(
  engine: Engine,
  fork: Fork,
  alloc: Alloc,
  opStack: boolean,
): Promise<{ record: BlockRecord; root: Uint8Array }> {
  engine.attachFork(fork.state)
  const { live } = engine
  await live.setRoot(EMPTY_TRIE_ROOT)
  // Read together (in parallel), then funded one by one. What every block writes to is read
  // meanwhile: the system contracts, and on an OP stack the fee vaults its transactions pay into.
  // Otherwise the first flashblock with a transaction reads them from the upstream one by one
  // inside the serial queue, and every send and read waits behind it.
  const vaults = opStack ? Object.values(FEE_VAULTS) : []
  await Promise.all([
    ...alloc.map(({ address }) => live.account(address)),
    ...vaults.map((address) => live.account(address)),
    engine.prefetchSystemContracts(live),
  ])
  await live.checkpoint()
  for (const { address, balance } of alloc) await live.putAccount(address, { balance })
  await live.commit()
  return { record: fork.record(), root: await live.root() }
}
