// The node's parts, built once in DevNode.create and handed to each service (anvil's EthApi owns
// backend, pool and miner the same way): services depend on the context, never on each other's
// modules through DevNode, so there is no cycle between the facade and its parts.
import type { Chain } from './chain/chain.js'
import type { Cheats } from './dev/cheats.js'
import type { DevClock } from './dev/time.js'
import type { Engine } from './engine/index.js'
import type { NodeEvents } from './events.js'
import type { Fork } from './fork/fork.js'
import type { PreconfHints } from './hints.js'
import type { OpStack } from './opstack/opstack.js'
import type { ResolvedOptions } from './options.js'
import type { TxPool } from './pool/pool.js'
import type { ChainProfile } from './profile.js'
import type { BlockProducer } from './sequencer/producer.js'
import type { Sequencer } from './sequencer/sequencer.js'

export interface NodeContext {
  readonly options: ResolvedOptions
  readonly profile: ChainProfile
  readonly engine: Engine
  readonly chain: Chain
  readonly pool: TxPool
  readonly events: NodeEvents
  readonly producer: BlockProducer
  readonly sequencer: Sequencer
  /** The OP-stack rules (profiles flashblocks and base); undefined on Ethereum. */
  readonly opStack: OpStack | undefined
  /** Block time as dev methods move it (evm_increaseTime, evm_setNextBlockTimestamp). */
  readonly clock: DevClock
  /** Explains reads and sends that trip on pre-confirmations (hints.ts). */
  readonly hints: PreconfHints
  /** Impersonated senders (anvil_impersonateAccount). */
  readonly cheats: Cheats
  /** The live chain this node forks (--fork-url), if any; anvil_reset may move it. */
  fork: Fork | undefined
  /** Where the node's log lines go (nowhere in silent mode). */
  readonly log: (line: string) => void
  /** Where failures nobody awaits go (a sequencer tick, a state-file write): always shown. */
  readonly logError: (line: string) => void
}
