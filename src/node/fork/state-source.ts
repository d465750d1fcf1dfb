// The fork's state as the engine reads it (engine/store/fork-state.ts ForkSource): accounts, storage
// slots and block hashes at the fork block, each asked of the upstream once. Reads are pinned to
// the fork block by hash (EIP-1898), falling back to its number where the upstream refuses hashes
// (anvil's --fork-state-by-number); never through eth_getProof, which most nodes serve only near
// the head. An account is one eth_getAccountInfo where the upstream serves it (reth, Base's nodes,
// anvil: balance, nonce and code in one answer), else balance, nonce and code asked in parallel,
// as foundry-fork-db does both; concurrent reads of one key share one request; answers go into
// the fork's cache (disk-cache.ts).
import type { Hex } from '../../shared/hex.js'
import { toData, toQuantity } from '../../shared/hex.js'
import { hexKey } from '../bytes.js'
import type { ForkSource, RemoteAccount } from '../engine/index.js'
import { UpstreamError, UpstreamRpcError } from '../errors.js'
import type { ForkCache } from './disk-cache.js'
import type { Upstream } from './upstream.js'

/** JSON-RPC's "method not found". */
const METHOD_NOT_FOUND = -32601

export interface ForkPoint {
  number: bigint
  hash: Hex
}

const fromHex = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'))

export class ForkState implements ForkSource {
  /** Answers served from the cache (disk or an earlier read) instead of the upstream. */
  cacheHits = 0
  private readonly inflight = new Map<string, Promise<unknown>>()
  /** The upstream refused state reads by block hash: read by number from then on. */
  private byNumber = false
  /** Whether the upstream serves eth_getAccountInfo (undefined until the first account read says). */
  private accountInfo: boolean | undefined
  private probing: Promise<unknown> | undefined

  constructor(
    private readonly upstream: Upstream,
    private readonly at: ForkPoint,
    private readonly cache: ForkCache,
    private readonly log: (line: string) => void,
  ) {}

  async account(address: Uint8Array): Promise<RemoteAccount | undefined> {
    const key = hexKey(address)
    const cached = this.cache.account(key)
    if (cached !== undefined) {
      this.cacheHits++
      return cached ? { nonce: BigInt(cached.nonce), balance: BigInt(cached.balance), code: fromHex(cached.code) } : undefined
    }
    return this.once(`a${key}`, async () => {
      const { nonce, balance, code } = await this.fetchAccount(toData(address))
      const account = { nonce: BigInt(nonce), balance: BigInt(balance), code: fromHex(code ?? '0x') }
      const empty = account.nonce === 0n && account.balance === 0n && account.code.length === 0
      this.cache.putAccount(key, empty ? null : { nonce, balance, code: code ?? '0x' })
      return empty ? undefined : account
    })
  }

  /** One eth_getAccountInfo, or the three reads where the upstream does not serve it (the first read finds out). */
  private async fetchAccount(address: Hex): Promise<{ nonce: Hex; balance: Hex; code: Hex }> {
    if (this.accountInfo === undefined && this.probing) await this.probing.catch(() => {})
    if (this.accountInfo !== false) {
      const attempt = this.read<{ nonce: Hex; balance: Hex; code: Hex }>('eth_getAccountInfo', [address])
      if (this.accountInfo === undefined) this.probing = attempt
      try {
        const info = await attempt
        this.accountInfo = true
        return info
      } catch (error) {
        // Refused (not served, or not by this endpoint of a load balancer): the three reads from now on.
        if (!(error instanceof UpstreamError && error.refused)) throw error
        this.accountInfo = false
      } finally {
        this.probing = undefined
      }
    }
    const [balance, nonce, code] = await Promise.all([
      this.read<Hex>('eth_getBalance', [address]),
      this.read<Hex>('eth_getTransactionCount', [address]),
      this.read<Hex>('eth_getCode', [address]),
    ])
    return { balance, nonce, code }
  }

  async storage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const a = hexKey(address)
    const s = hexKey(slot)
    const cached = this.cache.slot(a, s)
    if (cached !== undefined) {
      this.cacheHits++
      return pad32(fromHex(cached))
    }
    return this.once(`s${a}${s}`, async () => {
      const value = await this.read<Hex>('eth_getStorageAt', [toData(address), toData(slot)])
      this.cache.putSlot(a, s, value)
      return pad32(fromHex(value))
    })
  }

  async blockHash(n: bigint): Promise<Uint8Array | undefined> {
    if (n > this.at.number) return undefined
    const cached = this.cache.blockHash(n)
    if (cached !== undefined) {
      this.cacheHits++
      return cached === null ? undefined : fromHex(cached)
    }
    return this.once(`h${n}`, async () => {
      const block = await this.upstream.request<{ hash?: Hex } | null>(
        'eth_getBlockByNumber',
        [toQuantity(n), false],
        `eth_getBlockByNumber(${n}) for BLOCKHASH`,
      )
      const hash = block?.hash ?? null
      this.cache.putBlockHash(n, hash)
      return hash === null ? undefined : fromHex(hash)
    })
  }

  /** One request per key at a time: concurrent readers share it. */
  private once<T>(key: string, fetch: () => Promise<T>): Promise<T> {
    let pending = this.inflight.get(key) as Promise<T> | undefined
    if (!pending) {
      pending = fetch().finally(() => this.inflight.delete(key))
      this.inflight.set(key, pending)
    }
    return pending
  }

  /** A state read pinned to the fork block; errors say which read, where, and why. */
  private async read<T>(method: string, params: unknown[]): Promise<T> {
    const what = `${method}(${params.join(', ')}) at block ${this.at.number}`
    if (!this.byNumber) {
      try {
        return await this.upstream.request<T>(method, [...params, { blockHash: this.at.hash }], what)
      } catch (error) {
        if (!(error instanceof UpstreamRpcError) || error.code === METHOD_NOT_FOUND) throw this.failed(method, params, error)
        // Refused by hash (an EIP-1898 object some nodes do not take): by number, if that works.
        const answer = await this.upstream
          .request<T>(method, [...params, toQuantity(this.at.number)], what)
          .catch(() => undefined)
        if (answer === undefined) throw this.failed(method, params, error)
        this.byNumber = true
        this.log(
          `fork: the upstream refused ${method} at block hash ${this.at.hash} (${error.message}); reading state by block number ${this.at.number} from now on`,
        )
        return answer
      }
    }
    try {
      return await this.upstream.request<T>(method, [...params, toQuantity(this.at.number)], what)
    } catch (error) {
      throw error instanceof UpstreamRpcError ? this.failed(method, params, error) : error
    }
  }

  private failed(method: string, params: unknown[], error: unknown): unknown {
    if (!(error instanceof UpstreamRpcError)) return error
    return new UpstreamError(
      `fork: ${method}(${params.join(', ')}) at block ${this.at.number} failed on upstream ${this.upstream.names.join(', ')}: ${error.message} (code ${error.code}; the upstream must serve the fork block's state: an archive node for an old block)`,
      true,
    )
  }
}

function pad32(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 32) return bytes
  const out = new Uint8Array(32)
  out.set(bytes.subarray(Math.max(0, bytes.length - 32)), 32 - Math.min(32, bytes.length))
  return out
}
