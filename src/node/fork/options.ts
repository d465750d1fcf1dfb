// What `startNode({ fork })` and `pcnode start --fork-url …` take (docs/fork.md).
// Types only: node/options.ts names them without loading the fork's code.

export interface ForkOptions {
  /** The upstream's JSON-RPC URL; more than one share the load and take over from one that fails. */
  url: string | string[]
  /** The fork block: a number, or negative for the upstream's latest minus that many. Default: its latest. */
  blockNumber?: bigint | number
  /**
   * The upstream's chain id, so it need not be asked (anvil's --fork-chain-id): with the fork
   * block cached (and `blockNumber`, or the newest cached block) the node starts with no upstream.
   */
  chainId?: number
  /** Keep what is read from the upstream on disk between runs (default true; --no-fork-cache). */
  cache?: boolean
  /** The cache's folder; default `<dataDir>/fork-cache`, or the per-user cache folder without a data dir. */
  cacheDir?: string
  /** The upstream client's limits (requests in flight, retries, backoff, timeout). */
  upstream?: UpstreamOptions
}

export interface UpstreamOptions {
  /** Requests in flight at once, over all URLs (Hardhat's MAX_PARALLEL_REQUESTS is 20). */
  concurrency?: number
  /** Retries of a rate-limited request (anvil's --retries is 5; rate limits deserve patience). */
  rateLimitRetries?: number
  /** Retries on one URL of a request that failed in transport (connection refused, 5xx). */
  transportRetries?: number
  /** First backoff in ms, doubled each retry (anvil's --fork-retry-backoff is 1000; viem's 150). */
  backoffMs?: number
  /** Longest backoff (and longest Retry-After honoured), ms. */
  maxBackoffMs?: number
  /** Per attempt (anvil's --timeout is 45 s). */
  timeoutMs?: number
}
