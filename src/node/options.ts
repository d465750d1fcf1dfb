// Node configuration: every CLI flag of `pcnode start` is one of these, with the same default.

import { readFileSync, statSync } from 'node:fs'
import { checkAllowHosts, checkAllowOrigins } from '../shared/access.js'
import { DEFAULT_MNEMONIC } from './accounts.js'
import { checkFaultSettings, DEFAULT_FAULT_SETTINGS, type PreconfFaultSettings } from './faults/settings.js'
import type { ForkOptions } from './fork/options.js'
import { BASE_L1_FEES } from './opstack/params.js'
import { getProfile } from './profile.js'

export { DEFAULT_MNEMONIC }
export const ETHER = 10n ** 18n
export const GWEI = 10n ** 9n

export interface NodeOptions {
  /** Port for HTTP and WebSocket JSON-RPC; 0 picks a free one. */
  port?: number
  host?: string
  chainId?: number
  /** Number of funded dev accounts derived from the mnemonic. */
  accounts?: number
  /** Balance of each dev account, in wei. */
  balance?: bigint
  mnemonic?: string
  /** Milliseconds between sealed blocks; 0 seals after every flashblock. */
  blockTime?: number
  /** Milliseconds between flashblocks; 0 pre-confirms each transaction as it arrives. */
  preconfInterval?: number
  /** false: produce no blocks at all (transactions wait in the pool). */
  mining?: boolean
  gasLimit?: bigint
  /** Base fee of the first block, in wei. */
  baseFee?: bigint
  hardfork?: string
  /**
   * State file: loaded at start when it exists, written on stop() and every `stateInterval` blocks
   * (docs/state-file.md). '' = none, or `<dataDir>/state.json` when `dataDir` is set.
   */
  stateFile?: string
  /** Sealed blocks between state-file writes; 0 writes only on stop(). */
  stateInterval?: number
  /** Sealed blocks whose state (balances, code, storage) stays readable; 0 keeps every block's. */
  stateHistory?: number
  /** Folder for everything a user wants kept (the state file, the app server's data). '' = none. */
  dataDir?: string
  /** Blocks the `safe` tag trails `latest` (an OP chain's safe head waits for its batch on L1); 0 = latest. */
  safeLag?: number
  /** Blocks the `finalized` tag trails `latest` (never less than safeLag: finalized never passes safe); 0 = latest. */
  finalizedLag?: number
  /**
   * Chain profile (profile.ts): 'flashblocks' (default: 2 s blocks, 200 ms pre-confirmations),
   * 'base' (Base since Denim: 200 ms blocks) or 'ethereum'; sets the block-time defaults.
   */
  profile?: string
  /**
   * Profile base: when Base's Denim upgrade activates, in unix seconds (0, the default: from
   * genesis). Blocks before it follow the flashblocks rules. A fork of Base takes Base's time.
   */
  denimTime?: bigint
  /**
   * Profiles flashblocks and base: when Base's Beryl upgrade (the B20 precompiles) activates, in unix
   * seconds (0, the default: from genesis); a local chain that starts before it gets them in its first
   * block at or after it. Cobalt's time likewise (composite policies, the stored activation admin;
   * never before Beryl's). Base's pair precedes Denim.
   */
  berylTime?: bigint
  cobaltTime?: bigint
  /** geth-format genesis file to start from instead of the dev genesis ('' = none; genesis-file.ts). */
  genesisFile?: string
  /** Concatenated RLP blocks to import on top of genesisFile at start ('' = none; chain-import.ts). */
  importFile?: string
  /** OP stack (profiles flashblocks and base): the L1 base fee the L1-info deposits carry, in wei (default Base's recent value). */
  l1BaseFee?: bigint
  /** OP stack: the L1 blob base fee, in wei. */
  l1BlobBaseFee?: bigint
  /** OP stack: the L1 fee scalars (Ecotone and later), Base's by default. */
  l1BaseFeeScalar?: bigint
  l1BlobBaseFeeScalar?: bigint
  /**
   * Fork a live chain (docs/fork.md): start from its block, read its state lazily.
   * The chain id and profile default to the upstream's; gasLimit and baseFee come from the block.
   */
  fork?: ForkOptions
  /** Pre-confirmation faults (docs/faults.md): the fraction of pre-confirmed transactions left out of their block, 0..1. */
  preconfDropRate?: number
  /** Seed of the faults' random choices (uint32): the same seed drops the same transactions. */
  preconfSeed?: number
  /** Flashblock intervals vary by up to this many ms either way (0 = regular). */
  preconfJitter?: number
  /** A dropped pre-confirmed transaction goes back to the pool once its block seals (else it is discarded). */
  preconfRequeue?: boolean
  /** pcnode's explicit drop notification to pendingLogs / newFlashblockTransactions subscribers (Base sends none). */
  preconfDropNotify?: boolean
  /**
   * Browser origins allowed to call the node besides loopback pages (docs/security.md), e.g.
   * `https://app.example`; `*` allows every web page (geth's --http.corsdomain / --ws.origins).
   */
  allowOrigins?: string[]
  /** Host names the node answers to besides localhost and IP addresses; `*` any (geth's --http.vhosts). */
  allowHosts?: string[]
  /**
   * anvil_reset may name a new upstream (`forking.jsonRpcUrl`), which the node then fetches
   * (default true, as anvil and Hardhat do); false refuses any URL but the fork's own
   * (--no-remote-reset). anvil_reset without a URL works either way.
   */
  allowRemoteReset?: boolean
  /** Serve the explorer page (docs/explorer.md) at GET / on the node's port (default true; --no-explorer). */
  explorer?: boolean
  /**
   * A directory of compiled contracts (Foundry's out/, Hardhat's artifacts/): contracts deployed on
   * the node whose runtime code is one of them are named and decoded with its ABI (docs/explorer.md).
   */
  artifacts?: string
  /** The built-in bundler skips ERC-7562's validation rules, as alto's and rundler's unsafe modes do (--bundler-unsafe). */
  bundlerUnsafe?: boolean
  /** Print nothing (library default). */
  silent?: boolean
  /** Where log lines go when not silent. */
  logger?: (line: string) => void
}

export type ResolvedOptions = Required<Omit<NodeOptions, 'logger' | 'fork'>> & {
  logger?: (line: string) => void
  fork?: ForkOptions
}

export const DEFAULTS: ResolvedOptions = {
  port: 8545,
  host: '127.0.0.1',
  chainId: 31337,
  accounts: 10,
  balance: 10_000n * ETHER,
  mnemonic: DEFAULT_MNEMONIC,
  blockTime: 2000,
  preconfInterval: 200,
  mining: true,
  gasLimit: 60_000_000n,
  baseFee: 1n * GWEI,
  hardfork: 'osaka',
  stateFile: '',
  stateInterval: 10,
  stateHistory: 8192,
  dataDir: '',
  safeLag: 0,
  finalizedLag: 0,
  profile: 'flashblocks',
  denimTime: 0n,
  berylTime: 0n,
  cobaltTime: 0n,
  genesisFile: '',
  importFile: '',
  l1BaseFee: BASE_L1_FEES.baseFee,
  l1BlobBaseFee: BASE_L1_FEES.blobBaseFee,
  l1BaseFeeScalar: BASE_L1_FEES.baseFeeScalar,
  l1BlobBaseFeeScalar: BASE_L1_FEES.blobBaseFeeScalar,
  preconfDropRate: DEFAULT_FAULT_SETTINGS.dropRate,
  preconfSeed: DEFAULT_FAULT_SETTINGS.seed,
  preconfJitter: DEFAULT_FAULT_SETTINGS.jitterMs,
  preconfRequeue: DEFAULT_FAULT_SETTINGS.requeue,
  preconfDropNotify: DEFAULT_FAULT_SETTINGS.notifyDropped,
  allowOrigins: [],
  allowHosts: [],
  allowRemoteReset: true,
  explorer: true,
  artifacts: '',
  bundlerUnsafe: false,
  silent: true,
}

/** The fault settings the options start the node with (faults/settings.ts). */
export function faultSettingsOf(o: ResolvedOptions): Partial<PreconfFaultSettings> {
  return {
    dropRate: o.preconfDropRate,
    seed: o.preconfSeed,
    jitterMs: o.preconfJitter,
    requeue: o.preconfRequeue,
    notifyDropped: o.preconfDropNotify,
  }
}

export function resolveOptions(options: NodeOptions = {}): ResolvedOptions {
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined))
  const profile = getProfile((defined.profile as string | undefined) ?? DEFAULTS.profile)
  const fromGenesis = defined.genesisFile ? { chainId: genesisChainId(defined.genesisFile as string) } : {}
  // A block time given without an interval caps the profile's interval: flashblocks are never
  // longer than blocks (--block-time 0 on the ethereum profile pre-confirms and seals at once).
  const blockTime = (defined.blockTime as number | undefined) ?? profile.blockTime
  const profileDefaults = {
    blockTime,
    preconfInterval: Math.min(profile.preconfInterval, blockTime),
    safeLag: profile.safeLag,
    finalizedLag: profile.finalizedLag,
    stateInterval: profile.stateInterval,
  }
  const resolved = { ...DEFAULTS, ...profileDefaults, ...fromGenesis, ...defined } as ResolvedOptions
  if (resolved.importFile && !resolved.genesisFile) throw new Error('--import needs --genesis')
  if (resolved.fork && resolved.genesisFile) throw new Error('--fork-url and --genesis cannot be used together')
  if (resolved.fork) checkFork(resolved.fork)
  if (fromGenesis.chainId !== undefined && resolved.chainId !== fromGenesis.chainId) {
    throw new Error(`--chain-id ${resolved.chainId} differs from the genesis file's chain id ${fromGenesis.chainId}`)
  }
  if (!Number.isSafeInteger(resolved.chainId) || resolved.chainId <= 0) throw new Error(`invalid chain id: ${resolved.chainId}`)
  if (resolved.denimTime < 0n) throw new Error(`invalid Denim time: ${resolved.denimTime}`)
  if (resolved.berylTime < 0n) throw new Error(`invalid Beryl time: ${resolved.berylTime}`)
  if (resolved.cobaltTime < 0n) throw new Error(`invalid Cobalt time: ${resolved.cobaltTime}`)
  if (resolved.blockTime < 0) throw new Error('block time must be >= 0')
  if (resolved.preconfInterval < 0) throw new Error('pre-confirmation interval must be >= 0')
  if (resolved.accounts < 0 || resolved.accounts > 1000) throw new Error('accounts must be between 0 and 1000')
  if (!Number.isSafeInteger(resolved.stateInterval) || resolved.stateInterval < 0) throw new Error('state interval must be >= 0')
  if (!Number.isSafeInteger(resolved.stateHistory) || resolved.stateHistory < 0) throw new Error('state history must be >= 0')
  checkLags(resolved)
  if (resolved.artifacts && !isDirectory(resolved.artifacts))
    throw new Error(`--artifacts ${resolved.artifacts}: not a directory`)
  checkL1Fees(resolved)
  resolved.allowOrigins = checkAllowOrigins(resolved.allowOrigins)
  resolved.allowHosts = checkAllowHosts(resolved.allowHosts)
  checkFaultSettings(faultSettingsOf(resolved))
  return resolved
}

function checkFork(fork: ForkOptions): void {
  const urls = typeof fork.url === 'string' ? [fork.url] : fork.url
  if (!Array.isArray(urls) || urls.length === 0 || !urls.every((u) => typeof u === 'string' && u.length > 0)) {
    throw new Error('fork: a URL is needed (--fork-url)')
  }
  const n = fork.blockNumber
  if (n !== undefined && !(typeof n === 'bigint' || Number.isSafeInteger(n))) throw new Error(`fork: invalid block number ${n}`)
  if (fork.chainId !== undefined && (!Number.isSafeInteger(fork.chainId) || fork.chainId <= 0)) {
    throw new Error(`fork: invalid chain id ${fork.chainId}`)
  }
}

/** The tags' lags are block counts. */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

function checkLags(o: ResolvedOptions): void {
  for (const [name, lag] of [
    ['safe', o.safeLag],
    ['finalized', o.finalizedLag],
  ] as const) {
    if (!Number.isSafeInteger(lag) || lag < 0) throw new Error(`${name} lag must be a whole number of blocks >= 0, got ${lag}`)
  }
  // Reads at `finalized` need its state: a history shorter than the lag would prune it away.
  const lag = Math.max(o.safeLag, o.finalizedLag)
  if (o.stateHistory > 0 && o.stateHistory <= lag) {
    throw new Error(
      `--state-history ${o.stateHistory} keeps less state than the tags' lag (${lag} blocks): reads at safe/finalized would find it pruned (raise it, or lower --finalized-lag)`,
    )
  }
}

/** The L1 values fit L1Block's fields: fees in a uint256, scalars in a uint32. */
function checkL1Fees(o: ResolvedOptions): void {
  const fits = (value: bigint, bits: bigint) => value >= 0n && value < 1n << bits
  if (!fits(o.l1BaseFee, 256n)) throw new Error(`invalid L1 base fee: ${o.l1BaseFee}`)
  if (!fits(o.l1BlobBaseFee, 256n)) throw new Error(`invalid L1 blob base fee: ${o.l1BlobBaseFee}`)
  if (!fits(o.l1BaseFeeScalar, 32n)) throw new Error(`invalid L1 base fee scalar: ${o.l1BaseFeeScalar} (a uint32)`)
  if (!fits(o.l1BlobBaseFeeScalar, 32n)) throw new Error(`invalid L1 blob base fee scalar: ${o.l1BlobBaseFeeScalar} (a uint32)`)
}

/** `config.chainId` of a geth-format genesis file: the chain id when --chain-id is not given. */
export function genesisChainId(file: string): number {
  let genesis: { config?: { chainId?: unknown } }
  try {
    genesis = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new Error(`cannot read genesis file ${file}: ${(error as Error).message}`)
  }
  const id = Number(genesis.config?.chainId)
  if (!Number.isSafeInteger(id) || id <= 0) throw new Error(`genesis file ${file} has no valid config.chainId`)
  return id
}
