// A fork of a live chain (pcnode start --fork-url): the upstream, the fork block, and what is read
// from it (state: state-source.ts; history: history.ts; both kept in disk-cache.ts). Connecting
// asks the upstream what anvil asks at start (crates/anvil/src/config.rs): its chain id (unless
// given), its latest block number (unless a block is given) and the fork block's header. With the
// chain id given and the fork block cached, it asks nothing: an offline start.
import type { Hex } from '../../shared/hex.js'
import { toQuantity } from '../../shared/hex.js'
import { hexKey } from '../bytes.js'
import { UpstreamError } from '../errors.js'
import { PREDEPLOYS } from '../opstack/params.js'
import type { BlockRecord } from '../types.js'
import { cacheRoot, ForkCache, newestCachedBlock } from './disk-cache.js'
import { forkBlockRecord } from './header.js'
import { ForkHistory } from './history.js'
import type { ForkOptions } from './options.js'
import { type ForkPoint, ForkState } from './state-source.js'
import { Upstream } from './upstream.js'

/** What pcnode_forkStats answers and the node prints on exit. */
export interface ForkStats {
  upstreamRequests: number
  byMethod: Record<string, number>
  cacheHits: number
  bytesRead: number
  retries: number
  failures: number
}

/** Base, Base Sepolia, OP Mainnet, OP Sepolia. */
const OP_STACK_CHAIN_IDS: ReadonlySet<number> = new Set([8453, 84532, 10, 11155420])

/** Denim's activation on Base (docs.base.org, upgrades/denim): mainnet and Sepolia. */
const DENIM_TIMES: ReadonlyMap<number, bigint> = new Map([
  [8453, 1_793_901_600n],
  [84532, 1_792_605_600n],
])

export class Fork {
  private constructor(
    readonly options: ForkOptions,
    readonly upstream: Upstream,
    readonly chainId: number,
    readonly point: ForkPoint,
    /** The fork block as the upstream served it. */
    readonly block: Record<string, unknown>,
    readonly cache: ForkCache,
    readonly state: ForkState,
    readonly history: ForkHistory,
  ) {}

  static async connect(options: ForkOptions, dataDir: string, log: (line: string) => void): Promise<Fork> {
    const urls = typeof options.url === 'string' ? [options.url] : options.url
    const upstream = new Upstream(urls, options.upstream)
    // Transport failures already name the upstream and the request; the upstream's own errors do not.
    const named = (what: string, error: unknown) =>
      new Error(
        error instanceof UpstreamError
          ? `${error.message} (${what})`
          : `fork: ${what} from ${upstream.names.join(', ')}: ${(error as Error).message}`,
      )
    const chainId =
      options.chainId ??
      Number(
        await upstream.request<Hex>('eth_chainId', []).catch((error) => {
          throw named('reading the chain id', error)
        }),
      )
    if (!Number.isSafeInteger(chainId) || chainId <= 0) throw new Error(`fork: invalid chain id ${chainId}`)
    const root = options.cache === false ? undefined : (options.cacheDir ?? cacheRoot(dataDir))
    const number = await forkNumber(options, upstream, root, chainId, urls[0]).catch((error) => {
      throw named('reading the latest block number', error)
    })
    const cache = ForkCache.at(root, chainId, number, urls[0], upstream.names[0])
    let block = cache.block
    // Online, the fork block is asked even when cached: a local upstream restarted at the same URL
    // (anvil, Hardhat, a pcnode) has the same chain id and other blocks, and its cache must go.
    // With --fork-chain-id nothing is asked (the offline start).
    if (!block || options.chainId === undefined) {
      const served = await upstream
        .request<Record<string, unknown> | null>('eth_getBlockByNumber', [toQuantity(number), false])
        .catch((error) => {
          throw named(`reading the fork block ${number}`, error)
        })
      if (!served) throw new Error(`fork: ${upstream.names[0]} has no block ${number} (is it beyond its head?)`)
      if (block && block.hash !== served.hash) {
        log(
          `fork: the cached block ${number} (${block.hash}) is not ${upstream.names[0]}'s (${served.hash}): its chain changed (a restarted local node?), so the cache of that block starts again`,
        )
        cache.clear()
      }
      if (!block || block.hash !== served.hash) cache.putBlock(served)
      block = served
    }
    const point = { number, hash: block.hash as Hex }
    const state = new ForkState(upstream, point, cache, log)
    return new Fork(options, upstream, chainId, point, block, cache, state, new ForkHistory(upstream, cache, number))
  }

  /** The fork block's number: blocks up to it are the upstream's. */
  get number(): bigint {
    return this.point.number
  }

  /** A fresh record of the fork block for the local chain's first block. */
  record(): BlockRecord {
    return forkBlockRecord(this.block)
  }

  /**
   * Whether the upstream is an OP-stack chain: its blocks' fee recipient is the SequencerFeeVault,
   * as on Base, or its chain id is Base's or OP's (the chains Foundry's alloy-chains marks OP-stack
   * among them). The chain id settles what one block cannot: an anvil forking Base mines its own
   * blocks with its own coinbase, and an anvil started with Base Sepolia's id stands in for it.
   */
  get opStack(): boolean {
    const miner = this.block.miner
    if (typeof miner === 'string' && miner.slice(2).toLowerCase() === hexKey(PREDEPLOYS.SequencerFeeVault)) return true
    return OP_STACK_CHAIN_IDS.has(this.chainId)
  }

  /**
   * When Denim activates on the upstream's chain: Base's and Base Sepolia's published times, or,
   * for another chain whose fork block carries Denim's `timestampMs` (its BaseTime deposit ran),
   * from genesis. Undefined: the upstream does not run Base's rules.
   */
  get denimTime(): bigint | undefined {
    const known = DENIM_TIMES.get(this.chainId)
    if (known !== undefined) return known
    return typeof this.block.timestampMs === 'string' ? 0n : undefined
  }

  /** The fork block's timestamp: the local chain's clock continues from it (as anvil's does). */
  get timestamp(): bigint {
    return BigInt(this.block.timestamp as string)
  }

  stats(): ForkStats {
    const s = this.upstream.stats
    return {
      upstreamRequests: s.requests,
      byMethod: { ...s.byMethod },
      cacheHits: this.state.cacheHits + this.history.cacheHits,
      bytesRead: s.bytesRead,
      retries: s.retries,
      failures: s.failures,
    }
  }

  /** Writes what was read to the cache. */
  async close(): Promise<void> {
    this.cache.close()
    await this.cache.save()
  }
}

/** The fork block the options name: a number, latest − N, or the latest (an offline start: the newest cached). */
async function forkNumber(
  options: ForkOptions,
  upstream: Upstream,
  root: string | undefined,
  chainId: number,
  url: string,
): Promise<bigint> {
  const given = options.blockNumber === undefined ? undefined : BigInt(options.blockNumber)
  if (given !== undefined && given >= 0n) return given
  if (given === undefined && options.chainId !== undefined && root) {
    const cached = newestCachedBlock(root, chainId, url)
    if (cached !== undefined) return cached
  }
  const latest = BigInt(await upstream.request<Hex>('eth_blockNumber', []))
  const n = latest + (given ?? 0n)
  if (n < 0n) throw new Error(`block ${given} is before the upstream's first block (its latest is ${latest})`)
  return n
}
