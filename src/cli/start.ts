// `pcnode start`: boot the node, print the banner, log transactions and blocks, stop on signals.
import type { ChalkInstance } from 'chalk'
import { type Command, InvalidArgumentError, Option } from 'commander'
import type { StartedNode } from '../index.js'
import { DEFAULTS, genesisChainId, type NodeOptions } from '../node/options.js'
import { getProfile } from '../node/profile.js'
import { installCrashPolicy } from './crash-policy.js'
import { accessLines, collectHost, collectOrigin } from './start-access.js'
import { type AppFlags, AppStartError, parseAppPort, parseVerifyMode, type RunningApp, startAppForNode } from './start-app.js'
import { formatEther, parseAmount, parseBigInt, parseDuration, parseFraction, parseInteger, parseMilliseconds } from './units.js'

interface StartFlags extends AppFlags {
  port: number
  host: string
  chainId: number
  accounts: number
  balance: bigint
  mnemonic: string
  blockTime: number
  preconfInterval: number
  mining: boolean
  gasLimit: bigint
  baseFee: bigint
  hardfork: string
  state?: string
  stateInterval: number
  stateHistory: number
  dataDir?: string
  silent?: boolean
  json?: boolean
  profile: string
  genesis?: string
  import?: string
  l1BaseFee: bigint
  l1BlobBaseFee: bigint
  l1FeeScalars: [bigint, bigint]
  forkUrl: string[]
  forkBlockNumber?: bigint
  forkChainId?: number
  forkCache: boolean
  remoteReset: boolean
  preconfDropRate: number
  preconfSeed: number
  preconfJitter: number
  preconfRequeue?: boolean
  preconfDropNotify?: boolean
}

/**
 * Flags left at their default take the profile's value (block times) and the genesis file's chain
 * id; on a fork, the upstream's chain id and profile (so the block times wait for it too).
 */
function applyProfileDefaults(flags: StartFlags, command: Command): Array<keyof StartFlags> {
  const unset = (name: string) => command.getOptionValueSource(name) === 'default'
  if (flags.forkUrl.length > 0) {
    const fromFork: Array<keyof StartFlags> = []
    for (const name of ['chainId', 'profile', 'blockTime', 'preconfInterval', 'gasLimit', 'baseFee'] as const) {
      if (unset(name)) fromFork.push(name)
    }
    return fromFork
  }
  const profile = getProfile(flags.profile)
  if (unset('blockTime')) flags.blockTime = profile.blockTime
  if (unset('preconfInterval')) flags.preconfInterval = Math.min(profile.preconfInterval, flags.blockTime)
  if (flags.genesis && unset('chainId')) flags.chainId = genesisChainId(flags.genesis)
  return []
}

export function registerStart(program: Command): void {
  program
    .command('start')
    .description('start a local pre-confirming devnet')
    .option('-p, --port <port>', 'JSON-RPC port (HTTP and WebSocket); 0 picks a free one', parseInteger('port'), DEFAULTS.port)
    .option('--host <host>', 'address to listen on', DEFAULTS.host)
    // Who may call the node besides loopback pages and names (start-access.ts, docs/security.md).
    .option('--allow-origin <origin>', 'let web pages of this origin call the node (repeatable; * = any page)', collectOrigin, [])
    .option('--allow-host <name>', 'answer requests for this Host name too (repeatable; * = any)', collectHost, [])
    .option('--chain-id <id>', 'chain id', parseInteger('chain id', 1), DEFAULTS.chainId)
    .option('-a, --accounts <n>', 'number of funded dev accounts', parseInteger('accounts'), DEFAULTS.accounts)
    .addOption(
      bigintOption(
        '--balance <amount>',
        'balance of each dev account (e.g. 10000eth)',
        parseAmount,
        DEFAULTS.balance,
        '10000eth',
      ),
    )
    .option('-m, --mnemonic <words>', 'mnemonic the dev accounts derive from', DEFAULTS.mnemonic)
    .addOption(
      new Option('-b, --block-time <time>', 'time between sealed blocks: seconds or e.g. 500ms')
        .argParser(parseDuration('block time'))
        .default(DEFAULTS.blockTime, `${DEFAULTS.blockTime / 1000}s`),
    )
    .addOption(
      new Option(
        '--preconf-interval <time>',
        'time between flashblocks: e.g. 200ms or 0.2; 0 pre-confirms each transaction as it arrives',
      )
        .argParser(parseDuration('pre-confirmation interval'))
        .default(DEFAULTS.preconfInterval, `${DEFAULTS.preconfInterval}ms`),
    )
    .option('--no-mining', 'produce no blocks (transactions wait in the pool)')
    .addOption(bigintOption('--gas-limit <gas>', 'block gas limit', parseBigInt('gas limit'), DEFAULTS.gasLimit))
    .addOption(
      bigintOption(
        '--base-fee <wei>',
        'base fee of the first block, in wei (or e.g. 1gwei)',
        parseAmount,
        DEFAULTS.baseFee,
        '1gwei',
      ),
    )
    .option('--hardfork <name>', 'hardfork (prague, osaka)', DEFAULTS.hardfork)
    .option(
      '--state <file>',
      'load state from this file at start if it exists; write it on exit and every --state-interval blocks',
    )
    .option(
      '--state-interval <blocks>',
      'sealed blocks between state-file writes; 0 = on exit only',
      parseInteger('state interval'),
      DEFAULTS.stateInterval,
    )
    .option(
      '--state-history <blocks>',
      "sealed blocks whose state stays readable (older blocks' is deleted); 0 = keep all",
      parseInteger('state history'),
      DEFAULTS.stateHistory,
    )
    .option('--data-dir <dir>', 'folder for kept data; without --state the state file is <dir>/state.json')
    // The example typed-data app (src/app, start-app.ts); it keeps its used nonces in --data-dir too.
    .option('--app-port <port>', 'port of the example typed-data app; 0 picks a free one (default: 3001)', parseAppPort)
    .option('--no-app', 'do not start the example typed-data app')
    .option('--verify-mode <mode>', "the app's verification: full or simple", parseVerifyMode, 'full')
    .option('--profile <name>', 'chain profile: base (2 s blocks, 200 ms pre-confirmations) or ethereum (geth: 12 s)', 'base')
    // The OP stack's L1 values (profile base): what the L1-info deposits carry and the L1 data fee uses.
    .addOption(
      bigintOption(
        '--l1-base-fee <wei>',
        'profile base: the L1 base fee, in wei (or e.g. 1gwei)',
        parseAmount,
        DEFAULTS.l1BaseFee,
      ),
    )
    .addOption(
      bigintOption('--l1-blob-base-fee <wei>', 'profile base: the L1 blob base fee, in wei', parseAmount, DEFAULTS.l1BlobBaseFee),
    )
    .addOption(
      new Option('--l1-fee-scalars <base,blob>', "profile base: the L1 fee scalars (Base's by default)")
        .argParser(parseScalars)
        .default(
          [DEFAULTS.l1BaseFeeScalar, DEFAULTS.l1BlobBaseFeeScalar],
          `${DEFAULTS.l1BaseFeeScalar},${DEFAULTS.l1BlobBaseFeeScalar}`,
        ),
    )
    // Fork mode (README "Fork a live chain"): the node starts from a live chain's block, reading its state lazily.
    .option(
      '--fork-url <url>',
      'fork the chain at this JSON-RPC URL (repeat it: the URLs share the load and take over from one that fails)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--fork-block-number <n>',
      "the block to fork at; negative: the upstream's latest minus n (default: its latest)",
      parseForkBlock,
    )
    .option(
      '--fork-chain-id <id>',
      "the upstream's chain id, not asked: with the fork block cached the node starts with no upstream at all",
      parseInteger('fork chain id', 1),
    )
    .option('--no-fork-cache', 'keep nothing read from the fork on disk')
    .option('--no-remote-reset', "refuse anvil_reset onto a URL other than the fork's own (the node would fetch it)")
    // Pre-confirmation faults (src/node/faults, README "Pre-confirmation faults"): each one is logged as it happens.
    .option(
      '--preconf-drop-rate <rate>',
      'fraction of pre-confirmed transactions left out of the block as it seals, 0 to 1 (seeded)',
      parseFraction('drop rate'),
      DEFAULTS.preconfDropRate,
    )
    .option(
      '--preconf-seed <n>',
      "seed of the faults' random choices: the same seed drops the same transactions",
      parseInteger('seed'),
      DEFAULTS.preconfSeed,
    )
    .option(
      '--preconf-jitter <ms>',
      'flashblock intervals vary by up to this many ms either way (blocks get more or fewer flashblocks)',
      parseMilliseconds('jitter'),
      DEFAULTS.preconfJitter,
    )
    .option('--preconf-requeue', 'a dropped pre-confirmed transaction goes back to the pool once its block seals')
    .option('--preconf-drop-notify', "tell pendingLogs / newFlashblockTransactions subscribers of drops (Base's RPC does not)")
    .option('--genesis <file>', 'start from this geth-format genesis file (its chain id, fork schedule and alloc)')
    .option('--import <file>', 'with --genesis: import these concatenated RLP blocks at start; the last is the head')
    .option('--silent', 'print nothing but errors')
    .option('--json', 'print one JSON line with the node details once ready (for scripts)')
    .action(async (flags: StartFlags, command: Command) => {
      const fromFork = applyProfileDefaults(flags, command)
      await runStart(flags, fromFork)
    })
}

/** --fork-block-number: an integer, negative meaning the upstream's latest minus that many. */
function parseForkBlock(value: string): bigint {
  if (!/^-?(?:\d+|0x[0-9a-fA-F]+)$/.test(value))
    throw new InvalidArgumentError(`fork block number must be an integer, got ${value}`)
  return value.startsWith('-') ? -BigInt(value.slice(1)) : BigInt(value)
}

async function runStart(flags: StartFlags, fromFork: Array<keyof StartFlags> = []): Promise<void> {
  const quiet = flags.silent || flags.json
  // chalk and ora load only when there is something to show: boot time is measured with --silent.
  // The spinner only draws on a terminal; piped (CI logs), its lines print plainly, without ora (~35 ms).
  const spinner =
    quiet || !process.stdout.isTTY
      ? undefined
      : (await import('ora')).default({ text: 'Starting pcnode…', stream: process.stdout }).start()
  const options: NodeOptions = {
    port: flags.port,
    host: flags.host,
    chainId: flags.chainId,
    accounts: flags.accounts,
    balance: flags.balance,
    mnemonic: flags.mnemonic,
    blockTime: flags.blockTime,
    preconfInterval: flags.preconfInterval,
    mining: flags.mining,
    gasLimit: flags.gasLimit,
    baseFee: flags.baseFee,
    hardfork: flags.hardfork,
    stateFile: flags.state,
    stateInterval: flags.stateInterval,
    stateHistory: flags.stateHistory,
    dataDir: flags.dataDir,
    profile: flags.profile,
    genesisFile: flags.genesis,
    importFile: flags.import,
    l1BaseFee: flags.l1BaseFee,
    l1BlobBaseFee: flags.l1BlobBaseFee,
    l1BaseFeeScalar: flags.l1FeeScalars[0],
    l1BlobBaseFeeScalar: flags.l1FeeScalars[1],
    fork:
      flags.forkUrl.length > 0
        ? {
            url: flags.forkUrl,
            blockNumber: flags.forkBlockNumber,
            chainId: flags.forkChainId,
            cache: flags.forkCache,
          }
        : undefined,
    preconfDropRate: flags.preconfDropRate,
    preconfSeed: flags.preconfSeed,
    preconfJitter: flags.preconfJitter,
    preconfRequeue: flags.preconfRequeue ?? false,
    preconfDropNotify: flags.preconfDropNotify ?? false,
    allowOrigins: flags.allowOrigin,
    allowHosts: flags.allowHost,
    allowRemoteReset: flags.remoteReset,
    silent: Boolean(quiet), // the library stays silent by default; the CLI shows hints and console.log
    logger: (line) => console.error(line),
  }
  // On a fork these come from the upstream (chain id, profile) and its block (gas limit, base fee).
  for (const name of fromFork) delete (options as Record<string, unknown>)[name]
  let started: StartedNode
  try {
    const { startNode } = await import('../index.js')
    started = await startNode(options)
  } catch (error) {
    failStart(spinner, error, (error as NodeJS.ErrnoException).code === 'EADDRINUSE')
  }
  let app: RunningApp | undefined
  try {
    app = await startAppForNode(flags, started, (line) => console.error(line))
  } catch (error) {
    await started.stop().catch(() => {})
    failStart(spinner, error, error instanceof AppStartError && error.code === 'EADDRINUSE')
  }
  // Before anything is printed: a script that stops the node as soon as it reads the banner (or the
  // --json line) must find the handler there, or the signal's default kills it mid-write.
  const stop = async (signal: string) => {
    if (!quiet) console.log(`\n${signal} received, stopping…`)
    try {
      await app?.stop()
      await started.stop() // writes the state file (--state / --data-dir) and the fork's cache
    } catch (error) {
      console.error(`pcnode: ${(error as Error).message}`)
      process.exit(1)
    }
    const fork = started.node.fork
    if (fork && !flags.silent) console.log(forkStatsLine(fork))
    process.exit(0)
  }
  process.once('SIGINT', () => void stop('SIGINT'))
  process.once('SIGTERM', () => void stop('SIGTERM'))
  // An error nothing caught: logged and served on, or (uncaught exception) the node stops as on a signal, writing --state.
  installCrashPolicy(async () => {
    await app?.stop()
    await started.stop()
  })
  if (spinner) spinner.succeed(`pcnode listening on ${started.rpcUrl}`)
  else if (!quiet) console.log(`pcnode listening on ${started.rpcUrl}`)
  if (flags.json) {
    const fork = started.node.fork
    console.log(
      JSON.stringify({
        rpcUrl: started.rpcUrl,
        wsUrl: started.wsUrl,
        chainId: started.chainId,
        accounts: started.accounts,
        appUrl: app?.url,
        ...(fork
          ? {
              fork: {
                upstream: fork.upstream.names,
                blockNumber: Number(fork.number),
                blockHash: fork.point.hash,
                cache: fork.cache.file ?? null,
              },
            }
          : {}),
      }),
    )
  } else if (!flags.silent) {
    const chalk = (await import('chalk')).default
    console.log(banner(chalk, started, flags, await import('../contracts/index.js'), app))
    followActivity(chalk, started)
  }
}

/**
 * Says why the start failed and exits at once: whatever the half-started node still holds (a
 * timer, the engine loading) must not keep the process alive. 98 when the port is taken (as
 * EADDRINUSE is errno 98 on Linux), 1 otherwise.
 */
function failStart(spinner: { fail(text: string): unknown } | undefined, error: unknown, portInUse: boolean): never {
  const message = `pcnode failed to start: ${(error as Error).message}`
  if (spinner) spinner.fail(message)
  else console.error(message)
  process.exit(portInUse ? 98 : 1)
}

function banner(
  chalk: ChalkInstance,
  started: StartedNode,
  flags: StartFlags,
  predeploys: { WALLET_FACTORY_ADDRESS: string; WALLET_IMPLEMENTATION_ADDRESS: string },
  app?: RunningApp,
): string {
  const lines: string[] = []
  const title = chalk.bold.cyan
  lines.push('', title('                 pcnode — a pre-confirming local devnet'), '')
  lines.push(title('Available Accounts'), title('=================='))
  for (const [i, a] of started.accounts.entries()) lines.push(`(${i}) ${a.address} (${formatEther(flags.balance)} ETH)`)
  lines.push('', title('Private Keys'), title('=================='))
  for (const [i, a] of started.accounts.entries()) lines.push(`(${i}) ${a.privateKey}`)
  lines.push('', title('Wallet'), title('=================='))
  lines.push(`Mnemonic:          ${flags.mnemonic}`, "Derivation path:   m/44'/60'/0'/0/")
  const { options } = started.node
  const fork = started.node.fork
  if (fork) lines.push(...forkBanner(chalk, fork))
  lines.push('', title('Chain'), title('=================='))
  lines.push(`Chain ID:          ${started.chainId}`)
  lines.push(`Profile:           ${options.profile}`)
  lines.push(`Hardfork:          ${flags.hardfork}`)
  if (fork) {
    const head = started.node.chain.head.header
    lines.push(`Block gas limit:   ${head.gasLimit} (the fork block's)`)
    lines.push(`Base fee:          ${head.baseFeePerGas} wei (the fork block's; then the chain's rules)`)
  } else {
    lines.push(`Block gas limit:   ${flags.gasLimit}`)
    lines.push(`Base fee:          ${flags.baseFee} wei`)
  }
  if (getProfile(options.profile).opStack && !fork) {
    // OP-stack blocks (README "Base blocks"): every block opens with the L1-info deposit.
    lines.push(
      `L1 fees:           base fee ${flags.l1BaseFee} wei, blob base fee ${flags.l1BlobBaseFee} wei, scalars ${flags.l1FeeScalars.join(',')}`,
    )
  }
  if (flags.mining) {
    lines.push(`Block time:        ${options.blockTime} ms`)
    lines.push(
      `Pre-confirmation:  ${options.preconfInterval === 0 ? 'each transaction as it arrives' : `every ${options.preconfInterval} ms`}`,
    )
  } else {
    lines.push(`Mining:            off (--no-mining)`)
  }
  const faults = faultsLine(flags)
  if (faults) lines.push(`Faults:            ${faults}`)
  // Genesis predeploys (src/node/predeploys.ts), the same addresses on every chain id (a fork has the upstream's contracts).
  if (!fork) {
    lines.push('', title('Predeploys'), title('=================='))
    lines.push(`Wallet factory:    ${predeploys.WALLET_FACTORY_ADDRESS} (PcnodeWalletFactory)`)
    lines.push(`Wallet impl.:      ${predeploys.WALLET_IMPLEMENTATION_ADDRESS} (PcnodeSmartWallet)`)
    lines.push(`P256VERIFY:        0x0000000000000000000000000000000000000100 (precompile)`)
    if (getProfile(options.profile).opStack) {
      lines.push(`L1Block:           0x4200000000000000000000000000000000000015`)
      lines.push(`GasPriceOracle:    0x420000000000000000000000000000000000000F`)
    }
  }
  if (started.node.dev.stateFile) lines.push('', `State file:        ${started.node.dev.stateFile}`)
  lines.push('', `${chalk.green('RPC')}        ${started.rpcUrl}`, `${chalk.green('WebSocket')}  ${started.wsUrl}`, '')
  if (app) {
    // The example typed-data app: the page at /, /typed-data/prepare and /typed-data/verify.
    const nonces = app.nonceFile ? `, used nonces in ${app.nonceFile}` : ', used nonces in memory'
    lines.splice(
      lines.length - 1,
      0,
      `${chalk.green('App')}        ${app.url} (typed-data example, verify mode ${app.verifyMode}${nonces})`,
    )
  }
  lines.splice(lines.length - 1, 0, ...accessLines(chalk, options))
  return lines.join('\n')
}

/** The Fork section: the upstream (keys redacted), the fork block, where its reads are kept. */
function forkBanner(chalk: ChalkInstance, fork: NonNullable<StartedNode['node']['fork']>): string[] {
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
function forkStatsLine(fork: NonNullable<StartedNode['node']['fork']>): string {
  const s = fork.stats()
  const methods = Object.entries(s.byMethod)
    .sort((a, b) => b[1] - a[1])
    .map(([m, n]) => `${m} ${n}`)
    .join(', ')
  return `fork: ${s.upstreamRequests} upstream requests${methods ? ` (${methods})` : ''}, ${s.cacheHits} cache hits, ${(s.bytesRead / 1024).toFixed(1)} KiB read${s.retries ? `, ${s.retries} retries` : ''}${s.failures ? `, ${s.failures} failed` : ''}`
}

/**
 * One line per accepted transaction and per sealed block. Lines are written once per turn of the
 * event loop, after the replies: a terminal write per transaction would sit on every send's path.
 */
function followActivity(chalk: ChalkInstance, started: StartedNode): void {
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
    log(Date.now(), () => `${chalk.yellow('tx')}    ${short(info.tx.hash)} from ${short(info.tx.from)} nonce ${info.tx.nonce}`)
  })
  events.on('block', ({ block }) => {
    if (block.txs.length === 0) return
    const h = block.header
    const hash = block.hash
    log(
      Date.now(),
      () =>
        `${chalk.green('block')} #${h.number} ${short(hash)} ${block.txs.length} tx, gas ${h.gasUsed}, ${block.flashblocks} flashblocks`,
    )
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

/** commander prints defaults with JSON.stringify, which throws on bigint: give it the text to show. */
/** `--l1-fee-scalars BASE,BLOB`: two uint32 (decimal or 0x hex). */
function parseScalars(value: string): [bigint, bigint] {
  const parts = value.split(',').map((p) => p.trim())
  const valid = (p: string) => /^(?:\d+|0x[0-9a-fA-F]+)$/.test(p) && BigInt(p) < 2n ** 32n
  if (parts.length !== 2 || !parts.every(valid)) {
    throw new InvalidArgumentError(`expected two uint32 scalars BASE,BLOB (e.g. 2269,1055762), got ${value}`)
  }
  return [BigInt(parts[0]), BigInt(parts[1])]
}

function bigintOption(
  flags: string,
  description: string,
  parse: (value: string) => bigint,
  value: bigint,
  shown = String(value),
): Option {
  return new Option(flags, description).argParser(parse).default(value, shown)
}
