// Real-time fan-out of the node's events: eth_subscribe notifications over WebSocket, the HTTP
// polling filters (eth_newFilter and friends) and the waiters behind eth_sendRawTransactionSync.
// Everything is fed by NodeEvents, never by polling. A node listener is attached only while some
// subscription, filter or waiter needs that event, so idle connections cost nothing per event, and
// each notification's JSON is built once per event and shared by every subscriber.
import { randomBytes } from 'node:crypto'
import type { NodeEventMap } from '../node/events.js'
import type { DevNode } from '../node/node.js'
import type { BlockRecord, IncludedTx, LogEntry, LogFilter, PoolTxInfo } from '../node/types.js'
import type { RpcConnection } from './dispatch.js'
import { RpcError, SERVER_ERROR } from './errors.js'
import { formatBlock, formatIncludedTx, formatLog, formatMatchedLog, formatPoolTx, formatReceipt } from './format.js'
import { toData, toFixed, toQuantity } from './hex.js'

export const SUBSCRIPTION_KINDS = [
  'newHeads',
  'logs',
  'newPendingTransactions',
  'newFlashblocks',
  'newFlashblockTransactions',
  'pendingLogs',
] as const
export type SubscriptionKind = (typeof SUBSCRIPTION_KINDS)[number]

export interface SubscriptionOptions {
  /** newPendingTransactions / newFlashblockTransactions: full objects instead of hashes; newFlashblocks: full txs in the block. */
  full?: boolean
  /** newFlashblocks: the raw flashblock payload instead of the pre-confirmed block object. */
  payload?: boolean
  /** logs / pendingLogs: address and topics (block ranges are ignored, as for geth's logs subscription). */
  filter?: LogFilter
}

/** geth's filter lifetime: a filter not polled for this long is removed. */
export const FILTER_TIMEOUT_MS = 5 * 60_000
/** A filter whose unread backlog passes this is removed, as a slow WebSocket client is dropped. */
const MAX_FILTER_BACKLOG = 100_000
/** Notifications held for a subscription whose id has not reached its client yet. */
const MAX_HELD = 10_000

type EventName = keyof NodeEventMap
type Demand = Record<EventName, number>

/** 0x + 16 random bytes, the form geth's and reth's subscription and filter ids take. */
export function newId(): string {
  return `0x${randomBytes(16).toString('hex')}`
}

const key = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')

/** A predicate for one log against a filter's addresses and topics (same rules as eth_getLogs). */
export function logMatcher(filter: LogFilter | undefined): (log: LogEntry) => boolean {
  const addresses = filter?.addresses?.length ? new Set(filter.addresses.map(key)) : undefined
  const topics = filter?.topics?.map((alts) => (alts?.length ? new Set(alts.map(key)) : null))
  if (!addresses && !topics?.some((t) => t)) return () => true
  return (log) => {
    if (addresses && !addresses.has(key(log.address))) return false
    if (topics) {
      for (let p = 0; p < topics.length; p++) {
        const alts = topics[p]
        if (!alts) continue
        const topic = log.topics[p]
        if (!topic || !alts.has(key(topic))) return false
      }
    }
    return true
  }
}

/** geth's header object (newHeads): the block object without body fields. */
export function formatHeader(node: DevNode, block: BlockRecord): Record<string, unknown> {
  const { transactions: _t, uncles: _u, withdrawals: _w, size: _s, ...header } = formatBlock(node, block, false)
  return header
}

/** A pre-confirmed transaction with its logs and receipt fields, as Base's newFlashblockTransactions sends it. */
export function formatTxWithReceipt(t: IncludedTx): Record<string, unknown> {
  const r = formatReceipt(t)
  return {
    ...formatIncludedTx(t),
    logs: r.logs,
    status: r.status,
    gasUsed: r.gasUsed,
    cumulativeGasUsed: r.cumulativeGasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    contractAddress: r.contractAddress,
    logsBloom: r.logsBloom,
  }
}

/**
 * The raw flashblock payload Base's builder streams (base/node-reth `FlashblocksPayloadV1`):
 * `base` on index 0 only, a `diff` with cumulative roots and gas but only the new transactions,
 * and the legacy `metadata.receipts` (internally tagged by `type`). `new_account_balances` is left
 * out: Base removed it in Azul, and reading balances would need the execution queue.
 * `diff.block_hash` is the hash the pre-confirmed block object shows, so the two forms correlate.
 */
export function formatFlashblockPayload(
  node: DevNode,
  block: BlockRecord,
  index: number,
  txs: IncludedTx[],
): Record<string, unknown> {
  const h = block.header
  const out: Record<string, unknown> = { payload_id: toData(h.mixHash.subarray(0, 8)), index }
  if (index === 0) {
    out.base = {
      parent_beacon_block_root: toData(h.parentBeaconBlockRoot),
      parent_hash: toData(h.parentHash),
      fee_recipient: toData(h.coinbase),
      prev_randao: toData(h.mixHash),
      block_number: toQuantity(h.number),
      gas_limit: toQuantity(h.gasLimit),
      timestamp: toQuantity(h.timestamp),
      extra_data: toData(h.extraData),
      base_fee_per_gas: toQuantity(h.baseFeePerGas),
    }
  }
  const roots = node.flashblockRoots(block)
  out.diff = {
    state_root: toData(h.stateRoot),
    receipts_root: toData(roots.receiptsRoot),
    logs_bloom: toData(roots.logsBloom),
    gas_used: toQuantity(h.gasUsed),
    block_hash: toData(node.blockHash(block)),
    transactions: txs.map((t) => toData(t.tx.raw)),
    withdrawals: [],
    withdrawals_root: toData(h.withdrawalsRoot),
    blob_gas_used: toQuantity(h.blobGasUsed),
  }
  const receipts: Record<string, unknown> = {}
  for (const t of txs) {
    receipts[toData(t.tx.hash)] = {
      type: toQuantity(t.tx.type),
      status: toQuantity(t.receipt.status),
      cumulativeGasUsed: toQuantity(t.receipt.cumulativeGasUsed),
      logs: t.receipt.logs.map((l) => ({
        address: toData(l.address),
        topics: l.topics.map((topic) => toFixed(topic, 32)),
        data: toData(l.data),
      })),
    }
  }
  out.metadata = { block_number: Number(h.number), receipts }
  return out
}

interface Connection {
  connection: RpcConnection
  subs: Map<string, Subscription>
}

interface Subscription {
  id: string
  kind: SubscriptionKind
  owner: Connection
  full: boolean
  payload: boolean
  match: (log: LogEntry) => boolean
  /** Notifications held until the eth_subscribe reply has been sent (geth does the same). */
  held?: string[]
}

interface FilterItemLog {
  log: LogEntry
  logIndex: number
  tx: IncludedTx
}

interface Filter {
  id: string
  type: 'logs' | 'blocks' | 'pendingTransactions'
  items: Array<string | FilterItemLog>
  lastUsed: number
  criteria: LogFilter
  match: (log: LogEntry) => boolean
}

/** How an eth_sendRawTransactionSync wait ended. */
export type InclusionResult = { tx: IncludedTx } | { dropped: string } | { timeout: true }

interface Waiter {
  done(result: InclusionResult): void
}

const EVENTS_OF: Record<SubscriptionKind, EventName> = {
  newHeads: 'block',
  logs: 'block',
  newPendingTransactions: 'pendingTx',
  newFlashblocks: 'flashblock',
  newFlashblockTransactions: 'flashblock',
  pendingLogs: 'flashblock',
}

const FILTER_EVENT: Record<Filter['type'], EventName> = { logs: 'block', blocks: 'block', pendingTransactions: 'pendingTx' }

export interface SubscriptionsOptions {
  /** Lifetime of an unpolled filter; geth's 5 minutes by default. */
  filterTimeoutMs?: number
}

export class Subscriptions {
  private readonly connections = new Map<number, Connection>()
  private readonly byKind = new Map<SubscriptionKind, Set<Subscription>>(SUBSCRIPTION_KINDS.map((k) => [k, new Set()]))
  private readonly filters = new Map<string, Filter>()
  private readonly waiters = new Map<string, Set<Waiter>>()
  private readonly demand: Demand = { flashblock: 0, block: 0, pendingTx: 0, dropped: 0 }
  private readonly filterTimeoutMs: number
  private sweeper: NodeJS.Timeout | undefined

  private readonly listeners: { [E in EventName]: (...args: NodeEventMap[E]) => void } = {
    flashblock: (e) => this.onFlashblock(e.block, e.index, e.txs),
    block: (e) => this.onBlock(e.block),
    pendingTx: (info) => this.onPendingTx(info),
    dropped: (e) => this.onDropped(e.info, e.reason),
  }

  constructor(
    private readonly node: DevNode,
    options: SubscriptionsOptions = {},
  ) {
    this.filterTimeoutMs = options.filterTimeoutMs ?? FILTER_TIMEOUT_MS
  }

  /** Live subscriptions, filters and sync waiters (for tests and diagnostics). */
  get size(): { subscriptions: number; filters: number; waiters: number } {
    let subscriptions = 0
    for (const set of this.byKind.values()) subscriptions += set.size
    let waiters = 0
    for (const set of this.waiters.values()) waiters += set.size
    return { subscriptions, filters: this.filters.size, waiters }
  }

  // --- node listeners, attached only while needed --------------------------------------------

  private acquire(event: EventName): void {
    if (this.demand[event]++ === 0) this.node.events.on(event, this.listeners[event] as never)
  }

  private release(event: EventName): void {
    if (--this.demand[event] === 0) this.node.events.off(event, this.listeners[event] as never)
  }

  // --- WebSocket subscriptions ---------------------------------------------------------------

  /**
   * Adds a subscription for a connection. Notifications are held until `afterReply` runs (the
   * transport calls it once the reply carrying the id is out), so a client never sees an id it
   * has not been told yet; without the hook, they start on the next turn of the event loop.
   */
  subscribe(
    connection: RpcConnection,
    kind: SubscriptionKind,
    options: SubscriptionOptions = {},
    afterReply?: (fn: () => void) => void,
  ): string {
    let owner = this.connections.get(connection.id)
    if (!owner) {
      const created: Connection = { connection, subs: new Map() }
      this.connections.set(connection.id, created)
      connection.onClose(() => this.dropConnection(created))
      owner = created
    }
    const sub: Subscription = {
      id: newId(),
      kind,
      owner,
      full: options.full ?? kind === 'newFlashblocks',
      payload: options.payload ?? false,
      match: logMatcher(options.filter),
      held: [],
    }
    owner.subs.set(sub.id, sub)
    this.byKind.get(kind)?.add(sub)
    this.acquire(EVENTS_OF[kind])
    const activate = () => {
      const held = sub.held ?? []
      sub.held = undefined
      if (owner.subs.has(sub.id)) for (const message of held) connection.send(message)
    }
    if (afterReply) afterReply(activate)
    else setImmediate(activate)
    return sub.id
  }

  /** Removes one of this connection's subscriptions; false when it has none by that id. */
  unsubscribe(connection: RpcConnection, id: string): boolean {
    const sub = this.connections.get(connection.id)?.subs.get(id)
    if (!sub) return false
    this.remove(sub)
    return true
  }

  private remove(sub: Subscription): void {
    // The connection's entry stays until it closes: one close hook per connection, however
    // often a client subscribes and unsubscribes.
    sub.owner.subs.delete(sub.id)
    this.byKind.get(sub.kind)?.delete(sub)
    sub.held = undefined
    this.release(EVENTS_OF[sub.kind])
  }

  private dropConnection(owner: Connection): void {
    for (const sub of [...owner.subs.values()]) this.remove(sub)
    this.connections.delete(owner.connection.id)
  }

  private notify(sub: Subscription, result: string): void {
    const message = `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${sub.id}","result":${result}}}`
    if (sub.held) {
      if (sub.held.length < MAX_HELD) sub.held.push(message)
      return
    }
    sub.owner.connection.send(message)
  }

  // --- event handlers ------------------------------------------------------------------------

  private onBlock(block: BlockRecord): void {
    const heads = this.byKind.get('newHeads') as Set<Subscription>
    if (heads.size > 0) {
      const json = JSON.stringify(formatHeader(this.node, block))
      for (const sub of heads) this.notify(sub, json)
    }
    const logSubs = this.byKind.get('logs') as Set<Subscription>
    let logs: FilterItemLog[] | undefined
    if (logSubs.size > 0) {
      logs = blockLogs(block.txs)
      this.notifyLogs(logSubs, logs)
    }
    if (this.filters.size > 0) {
      const hash = toData(block.hash)
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
  }

  /** One notification per matching log; each log's JSON is built once for all subscriptions. */
  private notifyLogs(subs: Set<Subscription>, logs: FilterItemLog[]): void {
    const json = new Map<FilterItemLog, string>()
    for (const sub of subs) {
      for (const item of logs) {
        if (!sub.match(item.log)) continue
        let text = json.get(item)
        if (text === undefined) json.set(item, (text = JSON.stringify(formatLog(item.log, item.tx, item.logIndex))))
        this.notify(sub, text)
      }
    }
  }

  private onFlashblock(block: BlockRecord, index: number, txs: IncludedTx[]): void {
    const blocks = this.byKind.get('newFlashblocks') as Set<Subscription>
    if (blocks.size > 0) {
      const cache: Partial<Record<'payload' | 'full' | 'hashes', string>> = {}
      for (const sub of blocks) {
        const form = sub.payload ? 'payload' : sub.full ? 'full' : 'hashes'
        const json = (cache[form] ??= JSON.stringify(
          form === 'payload'
            ? formatFlashblockPayload(this.node, block, index, txs)
            : formatBlock(this.node, block, form === 'full'),
        ))
        this.notify(sub, json)
      }
    }
    if (txs.length === 0) return
    const txSubs = this.byKind.get('newFlashblockTransactions') as Set<Subscription>
    if (txSubs.size > 0) {
      let hashes: string[] | undefined
      let full: string[] | undefined
      for (const sub of txSubs) {
        const list = sub.full
          ? (full ??= txs.map((t) => JSON.stringify(formatTxWithReceipt(t))))
          : (hashes ??= txs.map((t) => `"${toData(t.tx.hash)}"`))
        for (const json of list) this.notify(sub, json)
      }
    }
    const logSubs = this.byKind.get('pendingLogs') as Set<Subscription>
    if (logSubs.size > 0) this.notifyLogs(logSubs, blockLogs(txs))
    if (this.waiters.size > 0) {
      for (const t of txs) {
        const waiting = this.waiters.get(key(t.tx.hash))
        if (waiting) for (const w of [...waiting]) w.done({ tx: t })
      }
    }
  }

  private onPendingTx(info: PoolTxInfo): void {
    const subs = this.byKind.get('newPendingTransactions') as Set<Subscription>
    if (subs.size > 0) {
      const hash = `"${toData(info.tx.hash)}"`
      let full: string | undefined
      for (const sub of subs) this.notify(sub, sub.full ? (full ??= JSON.stringify(formatPoolTx(info))) : hash)
    }
    if (this.filters.size > 0) {
      const hash = toData(info.tx.hash)
      for (const filter of this.filters.values()) if (filter.type === 'pendingTransactions') this.push(filter, [hash])
    }
  }

  private onDropped(info: PoolTxInfo, reason: string): void {
    const waiting = this.waiters.get(key(info.tx.hash))
    if (waiting) for (const w of [...waiting]) w.done({ dropped: reason })
  }

  // --- eth_sendRawTransactionSync -------------------------------------------------------------

  /**
   * Resolves when the transaction is pre-confirmed (at once if it already is), when the sequencer
   * drops it, or after `timeoutMs`. The check and the registration happen in one synchronous step,
   * and the node indexes a flashblock's receipts before it announces it, so no inclusion is missed.
   */
  waitForInclusion(hash: Uint8Array, timeoutMs: number): Promise<InclusionResult> {
    const included = this.node.getReceipt(hash)
    if (included) return Promise.resolve({ tx: included })
    return new Promise((resolve) => {
      const k = key(hash)
      let set = this.waiters.get(k)
      if (!set) this.waiters.set(k, (set = new Set()))
      this.acquire('flashblock')
      this.acquire('dropped')
      const waiter: Waiter = {
        done: (result) => {
          clearTimeout(timer)
          const current = this.waiters.get(k)
          if (!current?.delete(waiter)) return
          if (current.size === 0) this.waiters.delete(k)
          this.release('flashblock')
          this.release('dropped')
          resolve(result)
        },
      }
      set.add(waiter)
      const timer = setTimeout(() => waiter.done({ timeout: true }), timeoutMs)
      timer.unref?.()
    })
  }

  // --- HTTP filters ---------------------------------------------------------------------------

  newFilter(type: Filter['type'], criteria: LogFilter = {}): string {
    const filter: Filter = {
      id: newId(),
      type,
      items: [],
      lastUsed: Date.now(),
      criteria,
      match: logMatcher(criteria),
    }
    this.filters.set(filter.id, filter)
    this.acquire(FILTER_EVENT[type])
    if (!this.sweeper) {
      this.sweeper = setInterval(() => this.sweep(), Math.max(10, Math.min(this.filterTimeoutMs / 4, 30_000)))
      this.sweeper.unref?.()
    }
    return filter.id
  }

  uninstallFilter(id: string): boolean {
    const filter = this.filters.get(id)
    if (!filter) return false
    this.filters.delete(id)
    this.release(FILTER_EVENT[filter.type])
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
    return filter.type === 'logs' ? (items as FilterItemLog[]).map((i) => formatLog(i.log, i.tx, i.logIndex)) : items
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

  private push(filter: Filter, items: Array<string | FilterItemLog>): void {
    if (items.length === 0) return
    for (const item of items) filter.items.push(item)
    if (filter.items.length > MAX_FILTER_BACKLOG) this.uninstallFilter(filter.id)
  }

  private sweep(): void {
    const cutoff = Date.now() - this.filterTimeoutMs
    for (const filter of [...this.filters.values()]) if (filter.lastUsed < cutoff) this.uninstallFilter(filter.id)
  }
}

function filterNotFound(): RpcError {
  return new RpcError(SERVER_ERROR, 'filter not found')
}

/** The logs of these transactions, with block-wide log indexes. */
function blockLogs(txs: IncludedTx[]): FilterItemLog[] {
  const out: FilterItemLog[] = []
  for (const tx of txs) {
    tx.receipt.logs.forEach((log, i) => {
      out.push({ log, logIndex: tx.receipt.firstLogIndex + i, tx })
    })
  }
  return out
}

/** A log filter's numeric fromBlock/toBlock bound new blocks; tags leave that end open. */
function inRange(criteria: LogFilter, n: bigint): boolean {
  if (criteria.blockHash) return false
  if (criteria.fromBlock && 'number' in criteria.fromBlock && n < criteria.fromBlock.number) return false
  if (criteria.toBlock && 'number' in criteria.toBlock && n > criteria.toBlock.number) return false
  return true
}
