// eth_subscribe over WebSocket (geth's and reth's pubsub, transactionReceipts as execution-apis defines it, plus Base's flashblock kinds). Fed by
// the node's events, never by polling; each notification's JSON is built once per event and shared
// by every subscriber.
//
// Pre-confirmation faults (node/faults/): a restarted stream shows on newFlashblocks (flashblock 0
// again), but its transactions and logs that were already announced are not sent again. A dropped
// pre-confirmation is announced nowhere by default, as Base's RPC announces nothing (its followers
// see the sealed block without it); with the node's notifyDropped setting, pendingLogs sends its
// logs again with `removed: true` (geth's reorg flag) and newFlashblockTransactions sends it with
// `removed: true` and the reason.
import { hexKey } from '../../node/bytes.js'
import type { NodeEventMap } from '../../node/events.js'
import type { DevNode } from '../../node/node.js'
import type { BlockRecord, IncludedTx, LogEntry, LogFilter, PoolTxInfo } from '../../node/types.js'
import type { RpcConnection } from '../dispatch.js'
import { formatFlashblockPayload } from '../flashblock-payload.js'
import { formatBlock, formatHeader, formatLog, formatPoolTx, formatReceipt, formatTxWithReceipt } from '../format.js'
import { toData, toQuantity } from '../hex.js'
import { EventDemand, type EventName } from './demand.js'
import { blockLogs, type IndexedLog, logMatcher, newId } from './logs.js'

export const SUBSCRIPTION_KINDS = [
  'newHeads',
  'logs',
  'newPendingTransactions',
  'newFlashblocks',
  'newFlashblockTransactions',
  'pendingLogs',
  'transactionReceipts',
  'pcnodeFaults',
] as const
export type SubscriptionKind = (typeof SUBSCRIPTION_KINDS)[number]

export interface SubscriptionOptions {
  /** newPendingTransactions / newFlashblockTransactions: full objects instead of hashes; newFlashblocks: full txs in the block. */
  full?: boolean
  /** newFlashblocks: the raw flashblock payload instead of the pre-confirmed block object. */
  payload?: boolean
  /** logs / pendingLogs: address and topics (block ranges are ignored, as for geth's logs subscription). */
  filter?: LogFilter
  /** newFlashblockTransactions with a log filter: full transactions with at least one matching log. */
  txFilter?: LogFilter
  /** transactionReceipts: only these transactions' receipts (hex keys); none or empty = every receipt. */
  txHashes?: ReadonlySet<string>
}

/** Notifications held for a subscription whose id has not reached its client yet. */
const MAX_HELD = 10_000

const EVENTS_OF: Record<SubscriptionKind, EventName[]> = {
  newHeads: ['block'],
  logs: ['block'],
  newPendingTransactions: ['pendingTx'],
  newFlashblocks: ['flashblock'],
  newFlashblockTransactions: ['flashblock', 'preconfDropped'],
  pendingLogs: ['flashblock', 'preconfDropped'],
  transactionReceipts: ['block'],
  pcnodeFaults: ['fault'],
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
  /** newFlashblockTransactions with a log filter: whether a transaction has a matching log. */
  txMatch?: (t: IncludedTx) => boolean
  /** transactionReceipts with a filter: the hashes (hex keys) whose receipts it wants. */
  txHashes?: ReadonlySet<string>
  /** Notifications held until the eth_subscribe reply has been sent (geth does the same). */
  held?: string[]
}

export class WsSubscriptions {
  private readonly connections = new Map<number, Connection>()
  private readonly byKind = new Map<SubscriptionKind, Set<Subscription>>(SUBSCRIPTION_KINDS.map((k) => [k, new Set()]))
  private readonly demand: EventDemand

  constructor(private readonly node: DevNode) {
    this.demand = new EventDemand(node.events, {
      flashblock: (e) => this.onFlashblock(e.block, e.index, e.txs, e.replayed),
      block: (e) => this.onBlock(e.block),
      pendingTx: (info) => this.onPendingTx(info),
      preconfDropped: (e) => {
        if (e.notify) this.onPreconfDropped(e.tx, e.reason, e.requeued)
      },
      fault: (e) => this.onFault(e),
    })
  }

  get size(): number {
    let n = 0
    for (const set of this.byKind.values()) n += set.size
    return n
  }

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
      txHashes: options.txHashes?.size ? options.txHashes : undefined,
      held: [],
    }
    if (options.txFilter) {
      const match = logMatcher(options.txFilter)
      sub.txMatch = (t) => t.receipt.logs.some(match)
    }
    owner.subs.set(sub.id, sub)
    this.byKind.get(kind)?.add(sub)
    for (const event of EVENTS_OF[kind]) this.demand.acquire(event)
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
    for (const event of EVENTS_OF[sub.kind]) this.demand.release(event)
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

  private onBlock(block: BlockRecord): void {
    const heads = this.byKind.get('newHeads') as Set<Subscription>
    if (heads.size > 0) {
      const json = JSON.stringify(formatHeader(this.node, block))
      for (const sub of heads) this.notify(sub, json)
    }
    const logSubs = this.byKind.get('logs') as Set<Subscription>
    if (logSubs.size > 0) this.notifyLogs(logSubs, blockLogs(block.txs))
    const receiptSubs = this.byKind.get('transactionReceipts') as Set<Subscription>
    if (receiptSubs.size > 0 && block.txs.length > 0) this.notifyReceipts(receiptSubs, block.txs)
  }

  /**
   * geth's transactionReceipts (eth/filters filterReceipts): per sealed block, one array of its
   * receipts in block order (eth_getBlockReceipts' objects), or of the filter's matches; nothing
   * when none match. Each receipt's JSON is built once for all subscriptions.
   */
  private notifyReceipts(subs: Set<Subscription>, txs: IncludedTx[]): void {
    const json = new Map<IncludedTx, string>()
    const once = (t: IncludedTx) => {
      let text = json.get(t)
      if (text === undefined) json.set(t, (text = JSON.stringify(formatReceipt(t))))
      return text
    }
    let all: string | undefined
    for (const sub of subs) {
      const wanted = sub.txHashes
      if (!wanted) {
        this.notify(sub, (all ??= `[${txs.map(once).join(',')}]`))
        continue
      }
      const matched = txs.filter((t) => wanted.has(hexKey(t.tx.hash)))
      if (matched.length > 0) this.notify(sub, `[${matched.map(once).join(',')}]`)
    }
  }

  /** One notification per matching log; each log's JSON is built once for all subscriptions. */
  private notifyLogs(subs: Set<Subscription>, logs: IndexedLog[]): void {
    const json = new Map<IndexedLog, string>()
    for (const sub of subs) {
      for (const item of logs) {
        if (!sub.match(item.log)) continue
        let text = json.get(item)
        if (text === undefined) json.set(item, (text = JSON.stringify(formatLog(item.log, item.tx, item.logIndex))))
        this.notify(sub, text)
      }
    }
  }

  private onFlashblock(block: BlockRecord, index: number, txs: IncludedTx[], replayed?: ReadonlySet<string>): void {
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
    // A restarted stream carries again what its followers were told of: each item once per block.
    const fresh = replayed ? txs.filter((t) => !replayed.has(hexKey(t.tx.hash))) : txs
    if (fresh.length === 0) return
    this.notifyTxs(
      fresh,
      (t) => formatTxWithReceipt(t),
      (t) => toData(t.tx.hash),
    )
    const logSubs = this.byKind.get('pendingLogs') as Set<Subscription>
    if (logSubs.size > 0) this.notifyLogs(logSubs, blockLogs(fresh))
  }

  /** newFlashblockTransactions: a hash, or the full object (with a log filter: if one of its logs matches). */
  private notifyTxs(txs: IncludedTx[], full: (t: IncludedTx) => unknown, hash: (t: IncludedTx) => unknown): void {
    const txSubs = this.byKind.get('newFlashblockTransactions') as Set<Subscription>
    if (txSubs.size === 0) return
    const fullJson = new Map<IncludedTx, string>()
    const hashJson = new Map<IncludedTx, string>()
    const once = (cache: Map<IncludedTx, string>, t: IncludedTx, make: (t: IncludedTx) => unknown) => {
      let json = cache.get(t)
      if (json === undefined) cache.set(t, (json = JSON.stringify(make(t))))
      return json
    }
    for (const sub of txSubs) {
      for (const t of txs) {
        if (sub.txMatch && !sub.txMatch(t)) continue
        this.notify(sub, sub.full ? once(fullJson, t, full) : once(hashJson, t, hash))
      }
    }
  }

  /** pcnode's explicit drop notification (opt-in, see the top of this file). */
  private onPreconfDropped(t: IncludedTx, reason: string, requeued: boolean): void {
    const dropped = { removed: true, reason, requeued }
    this.notifyTxs(
      [t],
      (x) => ({ ...formatTxWithReceipt(x), ...dropped }),
      (x) => ({ hash: toData(x.tx.hash), ...dropped }),
    )
    const logSubs = this.byKind.get('pendingLogs') as Set<Subscription>
    if (logSubs.size === 0) return
    const logs = blockLogs([t])
    for (const sub of logSubs) {
      for (const item of logs) {
        if (sub.match(item.log))
          this.notify(sub, JSON.stringify({ ...formatLog(item.log, item.tx, item.logIndex), removed: true }))
      }
    }
  }

  /**
   * pcnode's pcnodeFaults: each injected fault (drop, halt, resume, restart, cadence, reorg), each change
   * of the fault settings and anvil_reorg as the node emits it, with its terminal-log message, the time
   * (ms since the epoch) and, for a drop, the transaction's hash, block, flashblock, reason and whether it was requeued.
   */
  private onFault(e: NodeEventMap['fault'][0]): void {
    const subs = this.byKind.get('pcnodeFaults') as Set<Subscription>
    if (subs.size === 0) return
    const out: Record<string, unknown> = { kind: e.kind, message: e.message, at: Date.now() }
    if (e.hash) {
      out.hash = toData(e.hash)
      // Recorded before the event: where the drop was, why, and whether it goes back to the pool.
      const drop = this.node.faults.dropRecord(e.hash)
      if (drop) {
        out.blockNumber = toQuantity(drop.blockNumber)
        out.flashblockIndex = toQuantity(drop.flashblockIndex)
        out.reason = drop.reason
        out.requeued = drop.requeued
      }
    }
    const json = JSON.stringify(out)
    for (const sub of subs) this.notify(sub, json)
  }

  private onPendingTx(info: PoolTxInfo): void {
    const subs = this.byKind.get('newPendingTransactions') as Set<Subscription>
    const hash = `"${toData(info.tx.hash)}"`
    let full: string | undefined
    for (const sub of subs) this.notify(sub, sub.full ? (full ??= JSON.stringify(formatPoolTx(info))) : hash)
  }
}
