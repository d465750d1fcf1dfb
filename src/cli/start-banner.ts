// What `pcnode start` shows once the node runs: the anvil-style banner (accounts, keys, wallet,
// chain, predeploys, fork, state file, URLs), then one line per accepted transaction, sealed block,
// dropped transaction and injected fault, and the fork's statistics on exit. anvil keeps its banner
// apart from its command too (config.rs, not cmd.rs). chalk comes in from start.ts, which loads it
// only when there is something to show.
import type { ChalkInstance } from 'chalk'
import type { StartedNode } from '../index.js'
import { blockMillis } from '../node/opstack/denim.js'
import { isSystemDeposit } from '../node/opstack/opstack.js'
import { getProfile } from '../node/profile.js'
import type { ReceiptData } from '../node/types.js'
import { decodeRevertReason } from '../shared/revert.js'
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
  const title = chalk.bold.cyan
  lines.push('', title('                 pcnode — a pre-confirming local devnet'), '')
  lines.push(title('Available Accounts'), title('=================='))
  for (const [i, a] of started.accounts.entries()) {
    lines.push(`(${i}) ${a.address} (${formatEther(facts.balances[i] ?? flags.balance)} ETH)`)
  }
  lines.push('', title('Private Keys'), title('=================='))
  for (const [i, a] of started.accounts.entries()) lines.push(`(${i}) ${a.privateKey}`)
  lines.push('', title('Wallet'), title('=================='))
  lines.push(`Mnemonic:          ${flags.mnemonic}`, "Derivation path:   m/44'/60'/0'/0/")
  const { options } = started.node
  const fork = started.node.fork
  if (fork) lines.push(...forkBanner(chalk, fork))
  lines.push('', title('Chain'), title('=================='))
  lines.push(`Chain ID:          ${started.chainId}`)
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
    lines.push(`Block gas limit:   ${flags.gasLimit}`)
    lines.push(`Base fee:          ${flags.baseFee} wei`)
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
  // Genesis predeploys, the same addresses on every chain id (a fork has the upstream's contracts).
  if (!fork) {
    lines.push('', title('Predeploys'), title('=================='))
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
  lines.push('', `${chalk.green('RPC')}        ${started.rpcUrl}`, `${chalk.green('WebSocket')}  ${started.wsUrl}`)
  if (options.explorer) lines.push(`${chalk.green('Explorer')}   ${started.rpcUrl}/`)
  if (facts.app) {
    // The example typed-data app: the page at /, /typed-data/prepare and /typed-data/verify.
    const { app } = facts
    const nonces = app.nonceFile ? `, used nonces in ${app.nonceFile}` : ', used nonces in memory'
    lines.push(`${chalk.green('App')}        ${app.url} (typed-data example, verify mode ${app.verifyMode}${nonces})`)
  }
  lines.push(...accessLines(chalk, options), '')
  return lines.join('\n')
}

/** The Fork section: the upstream (keys redacted), the fork block, where its reads are kept. */
function forkBanner(chalk: ChalkInstance, fork: Fork): string[] {
  const title = chalk.bold.cyan
  const lines = ['', title('Fork'), title('==================')]
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

/**
 * One line per accepted transaction and per sealed block holding transactions. Lines are written once per turn of the
 * event loop, after the replies: a terminal write per transaction would sit on every send's path.
 */
export function followActivity(chalk: ChalkInstance, started: StartedNode): void {
  const { events } = started.node
  const short = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`
  let queued: Array<() => string> = []
  const log = (at: number, line: () => string) => {
    if (queued.length === 0) setImmediate(flush)
    queued.push(() => `${chalk.dim(time(at))} ${line()}`)
  }
  const flush = () => {
    const lines = queued
    queued = []
    process.stdout.write(`${lines.map((line) => line()).join('\n')}\n`)
  }
  events.on('pendingTx', (info) => {
    const { tx } = info
    log(Date.now(), () => {
      const to = tx.to ? `to ${short(tx.to)}` : 'creates a contract'
      const value = tx.value > 0n ? `, ${formatEther(tx.value)} ETH` : ''
      return `${chalk.yellow('tx')}    ${short(tx.hash)} from ${short(tx.from)} ${to}${value}, nonce ${tx.nonce}`
    })
  })
  events.on('refused', ({ reason, hash, from }) => {
    const which = hash ? short(hash) : from ? `from ${short(from)}` : 'a send'
    log(Date.now(), () => `${chalk.red('refused')} ${which}: ${reason}`)
  })
  // Blocks holding only what every block makes for itself (the OP stack's system deposits) are
  // not printed: an idle chain makes one a second or five (Denim), and they say nothing new.
  events.on('block', ({ block }) => {
    const own = block.txs.filter((t) => !isSystemDeposit(t.tx)).length
    if (own === 0) return
    const h = block.header
    const hash = block.hash
    const millis = blockMillis(block)
    // Denim blocks are whole (no flashblocks) and five share a second: their time says which.
    const how = millis === undefined ? `${block.flashblocks} flashblocks` : `at ${h.timestamp}.${String(millis).padStart(3, '0')}`
    log(Date.now(), () => `${chalk.green('block')} #${h.number} ${short(hash)} ${own} tx, gas ${h.gasUsed}, ${how}`)
    // Each of its transactions' outcome, as anvil prints them as they are mined.
    for (const t of block.txs) {
      if (!isSystemDeposit(t.tx)) log(Date.now(), () => `      ${short(t.tx.hash)} ${outcome(chalk, t.receipt, short)}`)
    }
  })
  events.on('dropped', ({ info, reason }) => {
    log(Date.now(), () => `${chalk.red('drop')}  ${short(info.tx.hash)}: ${reason}`)
  })
  // Each injected pre-confirmation fault, and each change of the settings, on its own line.
  events.on('fault', ({ message }) => {
    log(Date.now(), () => `${chalk.magenta('fault')} ${message}`)
  })
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

function time(at: number): string {
  return new Date(at).toISOString().slice(11, 23)
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

/** A mined transaction's outcome: gas, the contract it created, or why it failed (the revert decoded). */
function outcome(chalk: ChalkInstance, r: ReceiptData, short: (b: Uint8Array) => string): string {
  const gas = `gas ${r.gasUsed}`
  if (r.status === 1) return r.contractAddress ? `created ${short(r.contractAddress)}, ${gas}` : `ok, ${gas}`
  const failure = r.failure
  const output = failure?.output ?? new Uint8Array()
  // A custom error is named by its selector (the log has no ABI to decode it with).
  const custom = output.length >= 4 ? `custom error ${short(output.subarray(0, 4))}` : 'reverted'
  const reason = failure?.error === 'revert' ? (decodeRevertReason(output) ?? custom) : failure?.error
  return `${chalk.red('failed')}${reason ? `: ${reason}` : ''}, ${gas}`
}
