// `pcnode start`: its flag table (the flags as options, their parsers and checks: start-flags.ts),
// then booting the node with progress for the slow steps (start-progress.ts), the banner
// (start-banner.ts), the activity log and its --quiet levels (start-log.ts), and stopping on
// signals (start-stop.ts).
import { type Command, Option } from 'commander'
import type { StartedNode } from '../index.js'
import { DEFAULTS, genesisChainId } from '../node/options.js'
import { getProfile } from '../node/profile.js'
import { installCrashPolicy } from './crash-policy.js'
import { collectHost, collectOrigin } from './start-access.js'
import { AppStartError, parseAppPort, parseVerifyMode, type RunningApp, startAppForNode } from './start-app.js'
import {
  bigintOption,
  conflictingFlags,
  HARDFORKS,
  listOption,
  logLevel,
  nodeOptions,
  parseForkBlock,
  parseHardfork,
  parseScalars,
  type StartFlags,
} from './start-flags.js'
import { describeState, Progress, type StateSummary, summarizeStateFile } from './start-progress.js'
import { stopOnSignals } from './start-stop.js'
import { parseAmount, parseBigInt, parseDuration, parseFraction, parseInteger, parseMilliseconds } from './units.js'

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
    .addOption(
      listOption(
        '--allow-origin <origin>',
        'let web pages of this origin call the node (repeatable; * = any page)',
        collectOrigin,
      ),
    )
    .addOption(listOption('--allow-host <name>', 'answer requests for this Host name too (repeatable; * = any)', collectHost))
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
    .option('--hardfork <name>', `hardfork: ${HARDFORKS.join(' or ')}`, parseHardfork, DEFAULTS.hardfork)
    .option(
      '--state <file>',
      'load state from this file at start if it exists; write it on exit and every --state-interval blocks',
    )
    // Left unset unless given: the profile's default applies (options.ts).
    .option(
      '--state-interval <blocks>',
      "sealed blocks between state-file writes; 0 = on exit only (default: the profile's: 10, base 100)",
      parseInteger('state interval'),
    )
    .option(
      '--state-history <blocks>',
      "sealed blocks whose state stays readable (older blocks' is deleted); 0 = keep all",
      parseInteger('state history'),
      DEFAULTS.stateHistory,
    )
    // Left unset unless given: the profile's default applies (options.ts).
    .option(
      '--safe-lag <blocks>',
      'blocks the "safe" tag trails "latest" (default: the profile\'s: 0, base 600)',
      parseInteger('safe lag'),
    )
    .option(
      '--finalized-lag <blocks>',
      'blocks the "finalized" tag trails "latest" (default: the profile\'s: 0, base 6000)',
      parseInteger('finalized lag'),
    )
    .option('--data-dir <dir>', 'folder for kept data; without --state the state file is <dir>/state.json')
    // The example typed-data app (src/app, start-app.ts); it keeps its used nonces in --data-dir too.
    .option('--app-port <port>', 'port of the example typed-data app; 0 picks a free one (default: 3001)', parseAppPort)
    .option('--no-app', 'do not start the example typed-data app')
    .option('--verify-mode <mode>', "the app's verification: full or simple", parseVerifyMode, 'full')
    .option(
      '--profile <name>',
      'chain profile: flashblocks (Base before Denim, rollup-boost chains: 2 s blocks, 200 ms pre-confirmations), base (Base since Denim: 200 ms blocks) or ethereum (geth: 12 s)',
      'flashblocks',
    )
    .addOption(
      new Option(
        '--denim-time <seconds>',
        "profile base: when Denim activates, in unix seconds (default: from genesis; a fork of Base: Base's)",
      ).argParser(parseBigInt('Denim time')),
    )
    .addOption(
      new Option(
        '--beryl-time <seconds>',
        'OP profiles (flashblocks, base): when Beryl (the B20 precompiles) activates, in unix seconds (default: from genesis)',
      ).argParser(parseBigInt('Beryl time')),
    )
    .addOption(
      new Option(
        '--cobalt-time <seconds>',
        "OP profiles: when Cobalt (composite policies, the stored activation admin) activates, in unix seconds (default: Beryl's)",
      ).argParser(parseBigInt('Cobalt time')),
    )
    // The OP stack's L1 values (profiles flashblocks and base): what the L1-info deposits carry and the L1 data fee uses.
    .addOption(
      bigintOption(
        '--l1-base-fee <wei>',
        'OP profiles (flashblocks, base): the L1 base fee, in wei (or e.g. 1gwei)',
        parseAmount,
        DEFAULTS.l1BaseFee,
      ),
    )
    .addOption(
      bigintOption(
        '--l1-blob-base-fee <wei>',
        'OP profiles (flashblocks, base): the L1 blob base fee, in wei',
        parseAmount,
        DEFAULTS.l1BlobBaseFee,
      ),
    )
    .addOption(
      new Option('--l1-fee-scalars <base,blob>', "OP profiles (flashblocks, base): the L1 fee scalars (Base's by default)")
        .argParser(parseScalars)
        .default(
          [DEFAULTS.l1BaseFeeScalar, DEFAULTS.l1BlobBaseFeeScalar],
          `${DEFAULTS.l1BaseFeeScalar},${DEFAULTS.l1BlobBaseFeeScalar}`,
        ),
    )
    // Fork mode (docs/fork.md): the node starts from a live chain's block, reading its state lazily.
    .addOption(
      listOption(
        '--fork-url <url>',
        'fork the chain at this JSON-RPC URL (repeat it: the URLs share the load and take over from one that fails)',
        (value, previous) => [...previous, value],
      ),
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
    .option('--no-explorer', 'serve no explorer page at GET / on the node port')
    .option(
      '--artifacts <dir>',
      "Foundry's out/ or Hardhat's artifacts/: the explorer names and decodes the contracts deployed from them",
    )
    .option('--bundler-unsafe', "the built-in bundler skips ERC-7562's validation rules (alto's and rundler's unsafe mode)")
    .option('--no-remote-reset', "refuse anvil_reset onto a URL other than the fork's own (the node would fetch it)")
    // Pre-confirmation faults (src/node/faults, docs/faults.md): each one is logged as it happens.
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
    // Levels as a counted flag (-q, -qq), anvil's -q being all or nothing: start-log.ts LogLevel.
    .option(
      '-q, --quiet',
      'print less: -q the banner and only what went wrong (failed, refused, dropped transactions, faults, hints, console.log); -qq only the URL line and errors',
      (_: string, count: number) => count + 1,
      0,
    )
    .option('--silent', 'print nothing but errors')
    .option('--json', 'print one JSON line with the node details once ready (for scripts)')
    // Flags that make no sense exit 2, as anvil's (clap's) do.
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
    .addHelpText('after', '\nExit codes: 0 stopped by a signal, 1 the start failed, 2 bad flags, 98 the port is in use.')
    .action(async (flags: StartFlags, command: Command) => {
      const fromFork = applyProfileDefaults(flags, command)
      const conflict = conflictingFlags(flags, fromFork)
      if (conflict) command.error(`error: ${conflict}`, { exitCode: 2, code: 'pcnode.conflict' })
      await runStart(flags, fromFork)
    })
}

async function runStart(flags: StartFlags, fromFork: Array<keyof StartFlags> = []): Promise<void> {
  const level = logLevel(flags)
  // No progress, stop lines or node log lines (hints, console.log): --json's stdout is its one line.
  const quiet = Boolean(flags.json) || level >= 2
  // chalk and ora load only when there is something to show: boot time is measured with --silent.
  // The spinner only draws on a terminal; piped (CI logs), its lines print plainly, without ora (~35 ms).
  const ora = quiet || !process.stdout.isTTY ? undefined : (await import('ora')).default
  const progress = new Progress(ora?.({ text: 'Starting pcnode…', stream: process.stdout }).start(), quiet)
  const options = nodeOptions(flags, quiet)
  // On a fork these come from the upstream (chain id, profile) and its block (gas limit, base fee).
  for (const name of fromFork) delete (options as Record<string, unknown>)[name]
  const loadedState = await announceSlowSteps(progress, flags)
  let started: StartedNode
  try {
    const { startNode } = await import('../index.js')
    started = await startNode(options)
  } catch (error) {
    failStart(progress, error, (error as NodeJS.ErrnoException).code === 'EADDRINUSE')
  }
  const fork = started.node.fork
  if (fork) progress.done(`Forked ${fork.upstream.names[0]} at block ${fork.number} (${fork.point.hash})`)
  if (loadedState) progress.done(`Loaded state from ${loadedState.file} (${describeState(loadedState)}) in ${progress.elapsed()}`)
  let app: RunningApp | undefined
  try {
    app = await startAppForNode(flags, started, (line) => console.error(line))
  } catch (error) {
    await started.stop().catch(() => {})
    failStart(progress, error, error instanceof AppStartError && error.code === 'EADDRINUSE')
  }
  // Before anything is printed: a script that stops the node as soon as it reads the banner (or the
  // --json line) must find the handler there, or the signal's default kills it mid-write.
  const spinner = ora && ((text: string) => ora({ text, stream: process.stdout }).start())
  stopOnSignals({ started, app, quiet, silent: level === 3, spinner })
  // An error nothing caught: logged and served on, or (uncaught exception) the node stops as on a signal, writing --state.
  installCrashPolicy(async () => {
    await app?.stop()
    await started.stop()
  })
  progress.end(true, `pcnode listening on ${started.rpcUrl}`)
  if (level === 2 && !flags.json) console.log(`pcnode listening on ${started.rpcUrl}`)
  if (flags.json) {
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
  } else if (level <= 1) {
    const [chalk, predeploys, { banner }, { followActivity }] = await Promise.all([
      import('chalk').then((m) => m.default),
      import('../contracts/index.js'),
      import('./start-banner.js'),
      import('./start-log.js'),
    ])
    const latest = { tag: 'latest' } as const
    const balances = await Promise.all(
      started.accounts.map((a) => started.node.getBalance(Buffer.from(a.address.slice(2), 'hex'), latest)),
    )
    const profileFromFork = fromFork.includes('profile')
    console.log(banner(chalk, started, flags, { balances, loadedState, profileFromFork, predeploys, app }))
    followActivity(chalk, started, level)
  }
}

/**
 * Says, before the node starts, what will take a while: connecting to a fork's upstream, loading a
 * state file (its size and what it holds). Returns the state file's summary when there is one.
 */
async function announceSlowSteps(progress: Progress, flags: StartFlags): Promise<StateSummary | undefined> {
  const [{ stateFilePath }, { redactUrl }] = await Promise.all([
    import('../node/storage/state-file/format.js'),
    import('../node/fork/redact.js'),
  ])
  const file = stateFilePath({ stateFile: flags.state ?? '', dataDir: flags.dataDir ?? '' })
  const state = file ? await summarizeStateFile(file) : undefined
  const steps: string[] = []
  if (flags.forkUrl.length > 0) {
    const more = flags.forkUrl.length > 1 ? ` (and ${flags.forkUrl.length - 1} more)` : ''
    steps.push(`connecting to the fork's upstream ${redactUrl(flags.forkUrl[0])}${more}`)
  }
  if (state) steps.push(`loading state from ${state.file} (${describeState(state)})`)
  if (steps.length > 0) progress.step(`${steps.join(', then ')}…`.replace(/^./, (c) => c.toUpperCase()))
  return state
}

/**
 * Says why the start failed and exits at once: whatever the half-started node still holds (a
 * timer, the engine loading) must not keep the process alive. 98 when the port is taken (as
 * EADDRINUSE is errno 98 on Linux), 1 otherwise.
 */
function failStart(progress: Progress, error: unknown, portInUse: boolean): never {
  progress.end(false, `pcnode failed to start: ${(error as Error).message}`)
  process.exit(portInUse ? 98 : 1)
}
