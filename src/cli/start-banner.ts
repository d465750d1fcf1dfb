// What `pcnode start` shows once the node runs: the anvil-style banner (accounts, keys, wallet,
// chain, predeploys, fork, state file, URLs; the activity log after it is start-log.ts), and the
// fork's statistics on exit. anvil keeps its banner apart from its command too (config.rs, not
// cmd.rs), and so its colours: its title and the values it stresses green, its headings plain.
// chalk comes in from start.ts, which loads it only when there is something to show.
import type { ChalkInstance } from 'chalk'
import type { StartedNode } from '../index.js'
import { artifactsIn } from '../node/decode/artifacts.js'
import { getProfile } from '../node/profile.js'
import { accessLines } from './start-access.js'
import type { RunningApp } from './start-app.js'
import type { StartFlags } from './start-flags.js'
import { describeState, type StateSummary } from './start-progress.js'
import { formatEther } from './units.js'

type Fork = NonNullable<StartedNode['node']['fork']>

export interface BannerFacts {
  /** Each dev account's balance as the node holds it (a state file or a fork may have changed it). */
  balances: bigint[]
  /** The state file as it was before the node loaded it (undefined: there was none yet). */
  loadedState?: StateSummary
  /** The profile came from the fork's upstream, not from --profile. */
  profileFromFork: boolean
  predeploys: { WALLET_FACTORY_ADDRESS: string; WALLET_IMPLEMENTATION_ADDRESS: string }
  app?: RunningApp
}

export function banner(chalk: ChalkInstance, started: StartedNode, flags: StartFlags, facts: BannerFacts): string {
  const lines: string[] = []
  // anvil's palette: its logo and the values it stresses green, its headings plain.
  const value = chalk.green
  lines.push('', chalk.green('                 pcnode — a pre-confirming local devnet'), '')
  lines.push('Available Accounts', '==================')
  for (const [i, a] of started.accounts.entries()) {
    lines.push(`(${i}) ${a.address} (${formatEther(facts.balances[i] ?? flags.balance)} ETH)`)
  }
  lines.push('', 'Private Keys', '==================')
  for (const [i, a] of started.accounts.entries()) lines.push(`(${i}) ${a.privateKey}`)
  lines.push('', 'Wallet', '==================')
  lines.push(`Mnemonic:          ${flags.mnemonic}`, "Derivation path:   m/44'/60'/0'/0/")
  const { options } = started.node
  const fork = started.node.fork
  if (fork) lines.push(...forkBanner(fork))
  lines.push('', 'Chain', '==================')
  lines.push(`Chain ID:          ${value(String(started.chainId))}`)
  const opStack = getProfile(options.profile).opStack
  const why =
    fork && facts.profileFromFork ? ` (the upstream's blocks ${opStack ? 'are' : 'are not'} OP-stack; --profile overrides)` : ''
  lines.push(`Profile:           ${options.profile}${why}`)
  lines.push(...profileLines(options.profile, options.denimTime, started.node.chain.head.header.timestamp))
  lines.push(`Hardfork:          ${flags.hardfork}`)
  if (fork) {
    const head = started.node.chain.head.header
    lines.push(`Block gas limit:   ${head.gasLimit} (the fork block's)`)
    lines.push(`Base fee:          ${head.baseFeePerGas} wei (the fork block's; then the chain's rules)`)
  } else {
    lines.push(`Block gas limit:   ${value(String(flags.gasLimit))}`)
    lines.push(`Base fee:          ${value(String(flags.baseFee))} wei`)
  }
  if (opStack && !fork) {
    // OP-stack blocks (docs/base-blocks.md): every block opens with the L1-info deposit.
    lines.push(
      `L1 fees:           base fee ${flags.l1BaseFee} wei, blob base fee ${flags.l1BlobBaseFee} wei, scalars ${flags.l1FeeScalars.join(',')}`,
    )
  }
  const denim = getProfile(options.profile).denim && started.node.chain.head.header.timestamp >= options.denimTime
  if (flags.mining && denim) {
    lines.push(`Block time:        ${options.blockTime} ms`)
    lines.push('Pre-confirmation:  none (Denim: each block is sealed whole; pending reads latest)')
    lines.push(
      `Safe / finalized:  ${options.safeLag} / ${options.finalizedLag} blocks behind latest (--safe-lag, --finalized-lag)`,
    )
  } else if (flags.mining) {
    lines.push(`Block time:        ${options.blockTime} ms`)
    const each = options.preconfInterval === 0 ? 'each transaction as it arrives' : `every ${options.preconfInterval} ms`
    lines.push(`Pre-confirmation:  ${each}`)
  } else {
    lines.push(`Mining:            off (--no-mining)`)
  }
  const faults = faultsLine(flags)
  if (faults) lines.push(`Faults:            ${faults}`)
  if (opStack) lines.push(`Bundler:           ${started.node.bundler.address} (ERC-4337 on this URL; pays the bundles)`)
  // Genesis predeploys, the same addresses on every chain id (a fork has the upstream's contracts).
  if (!fork) {
    lines.push('', 'Predeploys', '==================')
    lines.push(`Wallet factory:    ${facts.predeploys.WALLET_FACTORY_ADDRESS} (PcnodeWalletFactory)`)
    lines.push(`Wallet impl.:      ${facts.predeploys.WALLET_IMPLEMENTATION_ADDRESS} (PcnodeSmartWallet)`)
    lines.push(`P256VERIFY:        0x0000000000000000000000000000000000000100 (precompile)`)
    if (opStack) {
      lines.push(`L1Block:           0x4200000000000000000000000000000000000015`)
      lines.push(`GasPriceOracle:    0x420000000000000000000000000000000000000F`)
    }
  }
  const stateFile = started.node.dev.stateFile
  if (stateFile) {
    const every = options.stateInterval > 0 ? ` and every ${options.stateInterval} blocks` : ''
    const loaded = facts.loadedState
      ? `loaded (${describeState(facts.loadedState)}); written on exit${every}`
      : `none yet; written on exit${every}`
    lines.push('', `State file:        ${stateFile}`, `                   ${loaded}`)
  }
  lines.push('', `RPC        ${value(started.rpcUrl)}`, `WebSocket  ${value(started.wsUrl)}`)
  if (options.explorer) lines.push(`Explorer   ${value(`${started.rpcUrl}/`)}`)
  if (options.artifacts) {
    // --artifacts: what the explorer names and decodes contracts with (read once, at start).
    const set = artifactsIn(options.artifacts)
    const skipped = set.skipped ? `, ${set.skipped} other JSON files skipped` : ''
    const cut = set.truncated ? ', stopped at the read limits' : ''
    const count = `${set.contracts.length} ${set.contracts.length === 1 ? 'contract' : 'contracts'} with runtime code`
    lines.push(`Artifacts  ${options.artifacts} (${count}${skipped}${cut})`)
  }
  if (facts.app) {
    // The example typed-data app: the page at /, /typed-data/prepare and /typed-data/verify.
    const { app } = facts
    const nonces = app.nonceFile ? `, used nonces in ${app.nonceFile}` : ', used nonces in memory'
    lines.push(`App        ${value(app.url)} (typed-data example, verify mode ${app.verifyMode}${nonces})`)
  }
  lines.push(...accessLines(chalk, options), '')
  return lines.join('\n')
}

/** The Fork section: the upstream (keys redacted), the fork block, where its reads are kept. */
function forkBanner(fork: Fork): string[] {
  const lines = ['', 'Fork', '==================']
  for (const name of fork.upstream.names) lines.push(`Upstream:          ${name}`)
  lines.push(`Fork block:        ${fork.number} (${fork.point.hash})`)
  lines.push(`Upstream chain ID: ${fork.chainId}`)
  const { accounts, slots } = fork.cache.loaded
  lines.push(
    fork.cache.file
      ? `Cache:             ${fork.cache.file} (${accounts} accounts, ${slots} slots from earlier runs)`
      : 'Cache:             off (--no-fork-cache)',
  )
  return lines
}

/** What the fork asked its upstream, printed on exit (and served by pcnode_forkStats). */
export function forkStatsLine(fork: Fork): string {
  const s = fork.stats()
  const methods = Object.entries(s.byMethod)
    .sort((a, b) => b[1] - a[1])
    .map(([m, n]) => `${m} ${n}`)
    .join(', ')
  return `fork: ${s.upstreamRequests} upstream requests${methods ? ` (${methods})` : ''}, ${s.cacheHits} cache hits, ${(s.bytesRead / 1024).toFixed(1)} KiB read${s.retries ? `, ${s.retries} retries` : ''}${s.failures ? `, ${s.failures} failed` : ''}`
}

/** The banner's line for the fault flags, when any is set. */
function faultsLine(flags: StartFlags): string | undefined {
  const parts: string[] = []
  if (flags.preconfDropRate > 0) {
    const fate = flags.preconfRequeue ? 'back to the pool' : 'discarded'
    parts.push(`drop rate ${flags.preconfDropRate} (seed ${flags.preconfSeed}, ${fate})`)
  }
  if (flags.preconfJitter > 0) parts.push(`flashblock jitter ±${flags.preconfJitter} ms`)
  if (flags.preconfDropNotify) parts.push('drop notifications to subscribers')
  return parts.length ? parts.join(', ') : undefined
}

/** What the profile imitates: the flashblocks one names Base's current profile; base says when Denim started. */
function profileLines(profile: string, denimTime: bigint, head: bigint): string[] {
  if (profile === 'flashblocks') {
    return ['                   Base before Denim and rollup-boost chains (flashblocks); --profile base runs Base since Denim']
  }
  if (profile !== 'base') return []
  if (head >= denimTime) return ['                   Base since Denim: 200 ms blocks, millisecond time, no flashblocks']
  const at = new Date(Number(denimTime) * 1000).toISOString()
  return [`                   Base before Denim (flashblocks) until ${at}, then 200 ms blocks`]
}
