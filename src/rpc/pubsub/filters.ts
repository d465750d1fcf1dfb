// The HTTP polling filters (eth_newFilter and friends) viem's watch* actions fall back to: what
// arrived since the last poll, kept until polled, with geth's 5-minute expiry.
import type { DevNode } from '../../node/node.js'
import type { BlockRecord, LogEntry, LogFilter, PoolTxInfo } from '../../node/types.js'
import { RpcError, SERVER_ERROR } from '../errors.js'
import { formatLog, formatMatchedLog } from '../format.js'
import { toData } from '../hex.js'
import { EventDemand, type EventName } from './demand.js'
import { blockLogs, type IndexedLog, logMatcher, newId } from './logs.js'

/** geth's filter lifetime: a filter not polled for this long is removed. */
export const FILTER_TIMEOUT_MS = 5 * 60_000
/** A filter whose unread backlog passes this is removed, as a slow WebSocket client is dropped. */
const MAX_FILTER_BACKLOG = 100_000

export type FilterType = 'logs' | 'blocks' | 'pendingTransactions'

interface Filter {
  id: string
  type: FilterType
  items: Array<string | IndexedLog>
  lastUsed: number
  criteria: LogFilter
  match: (log: LogEntry) => boolean
}

const FILTER_EVENT: Record<FilterType, EventName> = { logs: 'block', blocks: 'block', pendingTransactions: 'pendingTx' }

export class Filters {
  private readonly filters = new Map<string, Filter>()
  private readonly demand: EventDemand
  private sweeper: NodeJS.Timeout | undefined

  constructor(
    private readonly node: DevNode,
    /** Lifetime of an unpolled filter; geth's 5 minutes by default. */
    private readonly timeoutMs = FILTER_TIMEOUT_MS,
  ) {
    this.demand = new EventDemand(node.events, {
      block: (e) => this.onBlock(e.block),
      pendingTx: (info) => this.onPendingTx(info),
    })
  }

  get size(): number {
    return this.filters.size
  }

  newFilter(type: FilterType, criteria: LogFilter = {}): string {
    const filter: Filter = { id: newId(), type, items: [], lastUsed: Date.now(), criteria, match: logMatcher(criteria) }
    this.filters.set(filter.id, filter)
    this.demand.acquire(FILTER_EVENT[type])
    if (!this.sweeper) {
      this.sweeper = setInterval(() => this.sweep(), Math.max(10, Math.min(this.timeoutMs / 4, 30_000)))
      this.sweeper.unref?.()
    }
    return filter.id
  }

  uninstallFilter(id: string): boolean {
    const filter = this.filters.get(id)
    if (!filter) return false
    this.filters.delete(id)
    this.demand.release(FILTER_EVENT[filter.type])
    if (this.filters.size === 0 && this.sweeper) {
      clearInterval(this.sweeper)
      this.sweeper = undefined
    }
    return true
  }

  /** What arrived since the last poll: block hashes, transaction hashes or log objects. */
  filterChanges(id: string): unknown[] {
    const filter = this.filter(id)
    const items = filter.items
    filter.items = []
    return filter.type === 'logs' ? (items as IndexedLog[]).map((i) => formatLog(i.log, i.tx, i.logIndex)) : items
  }

  /** eth_getFilterLogs: every log the filter's criteria match now (log filters only, as geth). */
  filterLogs(id: string): unknown[] {
    const filter = this.filter(id)
    if (filter.type !== 'logs') throw filterNotFound()
    return this.node.getLogs(filter.criteria).map(formatMatchedLog)
  }

  private filter(id: string): Filter {
    const filter = this.filters.get(id)
    if (!filter) throw filterNotFound()
    filter.lastUsed = Date.now()
    return filter
  }

  private onBlock(block: BlockRecord): void {
    const hash = toData(block.hash)
    let logs: IndexedLog[] | undefined
    for (const filter of this.filters.values()) {
      if (filter.type === 'blocks') this.push(filter, [hash])
      else if (filter.type === 'logs' && inRange(filter.criteria, block.header.number)) {
        logs ??= blockLogs(block.txs)
        this.push(
          filter,
          logs.filter((item) => filter.match(item.log)),
        )
      }
    }
  }

  private onPendingTx(info: PoolTxInfo): void {
    const hash = toData(info.tx.hash)
    for (const filter of this.filters.values()) if (filter.type === 'pendingTransactions') this.push(filter, [hash])
  }

  private push(filter: Filter, items: Array<string | IndexedLog>): void {
    if (items.length === 0) return
    for (const item of items) filter.items.push(item)
    if (filter.items.length > MAX_FILTER_BACKLOG) this.uninstallFilter(filter.id)
  }

  private sweep(): void {
    const cutoff = Date.now() - this.timeoutMs
    for (const filter of [...this.filters.values()]) if (filter.lastUsed < cutoff) this.uninstallFilter(filter.id)
  }
}

function filterNotFound(): RpcError {
  return new RpcError(SERVER_ERROR, 'filter not found')
}

/** A log filter's numeric fromBlock/toBlock bound new blocks; tags leave that end open. */
function inRange(criteria: LogFilter, n: bigint): boolean {
  if (criteria.blockHash) return false
  if (criteria.fromBlock && 'number' in criteria.fromBlock && n < criteria.fromBlock.number) return false
  if (criteria.toBlock && 'number' in criteria.toBlock && n > criteria.toBlock.number) return false
  return true
}
