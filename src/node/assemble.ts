// The composition root (anvil's lib.rs try_spawn): builds the engine, the chain and its genesis, the
// pool, the block producer and sequencer, and the services over them, and wires how they hear of
// each other. DevNode.create calls it once; nothing else constructs these parts.
import { type DevAccount, devAccounts } from './accounts.js'
import { Admission } from './admission/admission.js'
import { berylUpgrades } from './b20/upgrades.js'
import { type BundlerAccount, bundlerAccount } from './bundler/account.js'
import { Chain } from './chain/chain.js'
import type { NodeContext } from './context.js'
import { Cheats } from './dev/cheats.js'
import { DevControl } from './dev/control.js'
import { DevClock } from './dev/time.js'
import { Engine } from './engine/index.js'
import { NodeEvents } from './events.js'
import { Executor } from './execution/executor.js'
import { PreconfFaults } from './faults/faults.js'
import { Fork } from './fork/fork.js'
import { type Alloc, forkDefaults, forkLog } from './fork/genesis.js'
import { l1FeesOf, writeGenesis } from './genesis/genesis.js'
import { PreconfHints } from './hints.js'
import { OpStack } from './opstack/opstack.js'
import { faultSettingsOf, type NodeOptions, resolveOptions } from './options.js'
import { TxPool } from './pool/pool.js'
import { getProfile } from './profile.js'
import { BlockProducer } from './sequencer/producer.js'
import { Sequencer } from './sequencer/sequencer.js'
import { Persistence } from './storage/persistence.js'
import { StatePruner } from './storage/pruning.js'
import { formatConsoleLog } from './tracing/console-log.js'
import { Debugger } from './tracing/debug.js'

/** Everything DevNode fronts. */
export interface NodeParts {
  ctx: NodeContext
  accounts: DevAccount[]
  /** The built-in bundler's account, funded at genesis beside the dev accounts. */
  bundlerAccount: BundlerAccount
  executor: Executor
  admission: Admission
  persistence: Persistence
  dev: DevControl
  debug: Debugger
  pruner: StatePruner | undefined
  faults: PreconfFaults
}

/** The node's parts; with `connected` (startNode connects first, to know the chain id), that fork's. */
export async function assemble(input: NodeOptions, connected?: Fork): Promise<NodeParts> {
  const fork = connected ?? (input.fork ? await Fork.connect(input.fork, input.dataDir ?? '', forkLog(input)) : undefined)
  const options = resolveOptions(fork ? forkDefaults(input, fork) : input)
  const engine = await Engine.create(options)
  const accounts = await devAccounts(options.mnemonic, options.accounts)
  const chain = new Chain()
  // The tags `safe` and `finalized` trail `latest` by these (chain.ts resolve).
  chain.lags = { safe: BigInt(options.safeLag), finalized: BigInt(options.finalizedLag) }
  // The dev accounts, then the built-in bundler's account (bundler/account.ts), funded alike.
  const bundler = bundlerAccount(options.mnemonic)
  const alloc: Alloc = [...accounts, bundler].map((a) => ({
    address: Uint8Array.from(Buffer.from(a.address.slice(2), 'hex')),
    balance: options.balance,
  }))
  const profile = getProfile(options.profile)
  const denimTime = profile.denim ? options.denimTime : undefined
  // Base's Beryl and Cobalt (b20/upgrades.ts): the registries run the logic of each block's upgrade.
  const b20 = berylUpgrades(profile, { ...options, denimTime })
  engine.b20Forks.cobalt = b20?.cobalt
  engine.b20Forks.denim = denimTime
  await writeGenesis(engine, chain, options, alloc, profile.opStack, denimTime, fork)
  const logError = options.logger ?? ((line: string) => console.error(`pcnode: ${line}`))
  const log = options.silent ? () => {} : logError
  // Solidity console.log in transactions and calls, printed as anvil and Hardhat do.
  engine.consoleLog = (data) => {
    const line = formatConsoleLog(data)
    if (line !== undefined) log(`console.log: ${line}`)
  }
  // BLOCKHASH: sealed blocks only, within the opcode's 256-block window (checked by the EVM).
  engine.blockHashes.lookup = (n) => chain.byNumber(n)?.hash
  const events = new NodeEvents()
  const pool = new TxPool()
  const opStack = profile.opStack ? new OpStack(l1FeesOf(options), denimTime) : undefined
  const clock = new DevClock()
  // A fork's blocks continue from the fork block's time, as anvil's do: a fork of an old block is
  // not thrown past an upgrade by the wall clock.
  if (fork) clock.rebase(fork.timestamp)
  const producer = new BlockProducer(engine, chain, events, opStack, clock)
  // A dev chain that starts before Beryl gets its precompiles in Beryl's first block; a fork keeps
  // the upstream's, a --genesis chain its file's.
  if (!fork && !engine.genesisFile) producer.berylUpgrades = b20
  const sequencer = new Sequencer(engine, chain, pool, producer, events, options, logError)
  if (denimTime !== undefined) sequencer.crossesDenim()
  // What enters the pool (or the deposit queue) is announced once, then the sequencer hears of it
  // (anvil's miner listens to its pool the same way); a pool put back as it was is not announced again.
  pool.onAdded((info, arrival) => {
    if (arrival === 'new') events.emit('pendingTx', info)
    sequencer.notify()
  })
  opStack?.onDepositQueued((tx) => {
    events.emit('pendingTx', { tx, receivedAt: performance.now() })
    sequencer.notify()
  })
  const hints = new PreconfHints(chain, log)
  const ctx: NodeContext = {
    options,
    profile,
    opStack,
    engine,
    chain,
    pool,
    events,
    producer,
    sequencer,
    clock,
    hints,
    cheats: new Cheats(),
    fork,
    log,
    logError,
  }
  const executor = new Executor({
    engine,
    chain,
    profile,
    opStack,
    hints,
    blockTime: options.blockTime,
    nextBaseFee: (parent) => producer.nextFees(parent).baseFee,
  })
  const pendingBaseFee = () => (chain.pending?.header ?? producer.nextHeaderFields()).baseFeePerGas
  const admissionParts = {
    engine,
    chain,
    pool,
    opStack,
    hints,
    profile,
    impersonating: (a: Uint8Array) => ctx.cheats.impersonating(a),
  }
  const admission = new Admission(admissionParts, accounts, {
    // At "pending", the pooled transactions count too (geth's pending nonce).
    pendingNonce: async (from) => pool.pendingNonce(from, await executor.atBlock({ tag: 'pending' }, (view) => view.nonce(from))),
    estimateGas: (req) => executor.estimateGas(req, { tag: 'pending' }),
    pendingBaseFee,
    nextHeader: () => producer.nextHeaderFields(),
  })
  const persistence = new Persistence(ctx)
  const dev = new DevControl(ctx, persistence, admission, alloc)
  const pruner = startPruning(ctx, () => dev.snapshots.heldStateRoots())
  const debug = new Debugger(ctx, (block) => executor.blockHash(block))
  const faults = new PreconfFaults(ctx, faultSettingsOf(options))
  return { ctx, accounts, bundlerAccount: bundler, executor, admission, persistence, dev, debug, pruner, faults }
}

/** --state-history: old blocks' state is deleted as new blocks are sealed (storage/pruning.ts). */
function startPruning(
  ctx: Pick<NodeContext, 'engine' | 'chain' | 'events' | 'options' | 'log'>,
  heldStateRoots: () => Uint8Array[],
): StatePruner | undefined {
  const { engine, chain, events, options, log } = ctx
  if (options.stateHistory === 0) return undefined
  const pruner = new StatePruner(engine, chain, options.stateHistory, heldStateRoots, log)
  chain.pruning = pruner
  events.on('block', () => pruner.blockSealed())
  return pruner
}
