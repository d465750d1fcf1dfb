// History at and before the fork block, from the upstream (anvil's `predates_fork` delegation):
// blocks, transactions, receipts, logs, and calls and state reads at older blocks. Answers are
// passed on as the upstream served them (a transaction type pcnode does not know, an OP deposit,
// comes through whole) and memoized: that history never changes, so each question is asked once,
// and kept in the fork's cache across runs.
import type { Hex } from '../../shared/hex.js'
import type { ForkCache } from './disk-cache.js'
import type { Upstream } from './upstream.js'

export class ForkHistory {
  /** Answers served without asking the upstream. */
  cacheHits = 0
  private readonly inflight = new Map<string, Promise<unknown>>()

  constructor(
    private readonly upstream: Upstream,
    private readonly cache: ForkCache,
    /** The fork block: history up to it is the upstream's. */
    readonly forkNumber: bigint,
  ) {}

  /** `method(params)` on the upstream, memoized; the upstream's errors are passed on (not memoized). */
  request<T = unknown>(method: string, params: unknown[]): Promise<T> {
    const key = `${method} ${JSON.stringify(params)}`
    if (this.cache.hasAnswer(key)) {
      this.cacheHits++
      return Promise.resolve(this.cache.answer(key) as T)
    }
    let pending = this.inflight.get(key) as Promise<T> | undefined
    if (!pending) {
      pending = this.upstream.request<T>(method, params).then((answer) => {
        this.cache.putAnswer(key, answer)
        return answer
      })
      pending.finally(() => this.inflight.delete(key)).catch(() => {})
      this.inflight.set(key, pending)
    }
    return pending
  }

  /**
   * The number of the upstream block `hash` names, when it is at or before the fork block (a
   * later upstream block is no part of this chain): undefined otherwise.
   */
  async numberOf(hash: Hex): Promise<bigint | undefined> {
    const block = await this.request<{ number?: Hex } | null>('eth_getBlockByHash', [hash, false])
    if (!block?.number) return undefined
    const n = BigInt(block.number)
    return n <= this.forkNumber ? n : undefined
  }

  /** Whether an upstream answer naming `blockNumber` belongs to this chain's history. */
  inHistory(blockNumber: unknown): boolean {
    return typeof blockNumber === 'string' && /^0x[0-9a-f]+$/i.test(blockNumber) && BigInt(blockNumber) <= this.forkNumber
  }
}
