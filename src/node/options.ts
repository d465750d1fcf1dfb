// Node configuration: every CLI flag of `pcnode start` is one of these, with the same default.

export const DEFAULT_MNEMONIC = 'test test test test test test test test test test test junk'
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
  /** Print nothing (library default). */
  silent?: boolean
  /** Where log lines go when not silent. */
  logger?: (line: string) => void
}

export type ResolvedOptions = Required<Omit<NodeOptions, 'logger'>> & { logger?: (line: string) => void }

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
  silent: true,
}

export function resolveOptions(options: NodeOptions = {}): ResolvedOptions {
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined))
  const resolved = { ...DEFAULTS, ...defined } as ResolvedOptions
  if (!Number.isSafeInteger(resolved.chainId) || resolved.chainId <= 0) throw new Error(`invalid chain id: ${resolved.chainId}`)
  if (resolved.blockTime < 0) throw new Error('block time must be >= 0')
  if (resolved.preconfInterval < 0) throw new Error('pre-confirmation interval must be >= 0')
  if (resolved.accounts < 0 || resolved.accounts > 1000) throw new Error('accounts must be between 0 and 1000')
  return resolved
}
