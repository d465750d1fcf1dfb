// `pcnode start`'s flags as the node's options: the type of the parsed flags, derived from NodeOptions
// (a field with the same name passes through as it is, so a new option is added in one place),
// the flags named otherwise, their parsers, and the checks of flags that make no sense together.
import { InvalidArgumentError, Option } from 'commander'
import type { NodeOptions } from '../node/options.js'
import type { AppFlags } from './start-app.js'

/** NodeOptions fields whose flag has the same name (camelCased): passed on as they are. */
const AS_OPTIONS = [
  'port',
  'host',
  'chainId',
  'accounts',
  'balance',
  'mnemonic',
  'blockTime',
  'preconfInterval',
  'mining',
  'gasLimit',
  'baseFee',
  'hardfork',
  'stateHistory',
  'profile',
  'l1BaseFee',
  'l1BlobBaseFee',
  'preconfDropRate',
  'preconfSeed',
  'preconfJitter',
] as const
/** The same, but without a default: commander leaves them undefined unless given. */
const AS_OPTIONS_UNSET = [
  'dataDir',
  'stateInterval',
  'denimTime',
  'berylTime',
  'cobaltTime',
  'preconfRequeue',
  'preconfDropNotify',
  'safeLag',
  'finalizedLag',
  'artifacts',
] as const

/** The flags: NodeOptions' own fields, those named otherwise on the command line, and the app's. */
export type StartFlags = Required<Pick<NodeOptions, (typeof AS_OPTIONS)[number]>> &
  Pick<NodeOptions, (typeof AS_OPTIONS_UNSET)[number]> &
  AppFlags & {
    state?: string
    genesis?: string
    import?: string
    l1FeeScalars: [bigint, bigint]
    forkUrl: string[]
    forkBlockNumber?: bigint
    forkChainId?: number
    forkCache: boolean
    /** --no-remote-reset: allowRemoteReset. */
    remoteReset: boolean
    /** --no-explorer: explorer. */
    explorer: boolean
    bundlerUnsafe?: boolean
    silent?: boolean
    /** -q, -qq: how many times given (LogLevel). */
    quiet: number
    json?: boolean
  }

/**
 * How much `pcnode start` prints: 0 everything; 1 (`-q`) the banner and only what went wrong or
 * needs a look (failed, refused and dropped transactions, faults, reorgs, hints, console.log);
 * 2 (`-qq`) the URL line and errors; 3 (`--silent`) errors only.
 */
export type LogLevel = 0 | 1 | 2 | 3

/** The level the flags ask for: --silent is the quietest, then each -q counts one. */
export function logLevel(flags: { silent?: boolean; quiet?: number }): LogLevel {
  if (flags.silent) return 3
  return Math.min(flags.quiet ?? 0, 3) as LogLevel
}

/** The node's options from the flags (the library's names for the renamed ones). */
export function nodeOptions(flags: StartFlags, quiet: boolean): NodeOptions {
  const same = Object.fromEntries([...AS_OPTIONS, ...AS_OPTIONS_UNSET].map((name) => [name, flags[name]]))
  return {
    ...same,
    stateFile: flags.state,
    genesisFile: flags.genesis,
    importFile: flags.import,
    l1BaseFeeScalar: flags.l1FeeScalars[0],
    l1BlobBaseFeeScalar: flags.l1FeeScalars[1],
    fork:
      flags.forkUrl.length > 0
        ? { url: flags.forkUrl, blockNumber: flags.forkBlockNumber, chainId: flags.forkChainId, cache: flags.forkCache }
        : undefined,
    allowOrigins: flags.allowOrigin,
    allowHosts: flags.allowHost,
    allowRemoteReset: flags.remoteReset,
    explorer: flags.explorer,
    bundlerUnsafe: flags.bundlerUnsafe === true,
    silent: quiet, // the library stays silent by default; the CLI shows hints and console.log
    logger: (line) => console.error(line),
  }
}

/**
 * The hardforks a dev chain runs: Base's Isthmus and Jovian are Prague-based, and Osaka is next.
 * (Earlier forks only come from a --genesis file's schedule.)
 */
export const HARDFORKS = ['prague', 'osaka']

export function parseHardfork(value: string): string {
  const name = value.toLowerCase()
  if (!HARDFORKS.includes(name)) {
    throw new InvalidArgumentError(`pcnode runs ${HARDFORKS.join(' or ')} (Base's Isthmus and Jovian are Prague-based)`)
  }
  return name
}

/** Flags each valid alone that make no sense together. */
export function conflictingFlags(flags: StartFlags, fromFork: Array<keyof StartFlags>): string | undefined {
  // On a fork a block time left unset is the upstream's profile's: known once connected.
  const blockTimeKnown = !fromFork.includes('blockTime')
  if (flags.mining && blockTimeKnown && flags.blockTime > 0 && flags.preconfInterval > flags.blockTime) {
    return `--preconf-interval ${flags.preconfInterval} ms is longer than --block-time ${flags.blockTime} ms: flashblocks come within a block (pick at most ${flags.blockTime}ms, or a longer --block-time)`
  }
  return undefined
}

/** --fork-block-number: an integer, negative meaning the upstream's latest minus that many. */
export function parseForkBlock(value: string): bigint {
  if (!/^-?(?:\d+|0x[0-9a-fA-F]+)$/.test(value))
    throw new InvalidArgumentError(`fork block number must be an integer, got ${value}`)
  return value.startsWith('-') ? -BigInt(value.slice(1)) : BigInt(value)
}

/** `--l1-fee-scalars BASE,BLOB`: two uint32 (decimal or 0x hex). */
export function parseScalars(value: string): [bigint, bigint] {
  const parts = value.split(',').map((p) => p.trim())
  const valid = (p: string) => /^(?:\d+|0x[0-9a-fA-F]+)$/.test(p) && BigInt(p) < 2n ** 32n
  if (parts.length !== 2 || !parts.every(valid)) {
    throw new InvalidArgumentError(`expected two uint32 scalars BASE,BLOB (e.g. 2269,1055762), got ${value}`)
  }
  return [BigInt(parts[0]), BigInt(parts[1])]
}

/** A repeatable flag: its values in a list, empty by default (shown as "none", not commander's "[]"). */
export function listOption(flags: string, description: string, add: (value: string, previous: string[]) => string[]): Option {
  return new Option(flags, description).argParser(add).default([], 'none')
}

/** commander prints defaults with JSON.stringify, which throws on bigint: give it the text to show. */
export function bigintOption(
  flags: string,
  description: string,
  parse: (value: string) => bigint,
  value: bigint,
  shown = String(value),
): Option {
  return new Option(flags, description).argParser(parse).default(value, shown)
}
