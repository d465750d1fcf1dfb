// Following the chain as it moves: WebSocket subscriptions, HTTP polling filters and the
// eth_sendRawTransactionSync waits, each its own service over the node's events.
import type { DevNode } from '../../node/node.js'
import { FILTER_TIMEOUT_MS, Filters } from './filters.js'
import { InclusionWaiters } from './inclusion.js'
import { WsSubscriptions } from './subscriptions.js'

export { SUBSCRIPTION_KINDS, type SubscriptionKind, type SubscriptionOptions } from './subscriptions.js'

export interface PubSubOptions {
  /** Lifetime of an unpolled filter; geth's 5 minutes by default. */
  filterTimeoutMs?: number
}

export class PubSub {
  readonly subscriptions: WsSubscriptions
  readonly filters: Filters
  readonly inclusion: InclusionWaiters

  constructor(node: DevNode, options: PubSubOptions = {}) {
    this.subscriptions = new WsSubscriptions(node)
    this.filters = new Filters(node, options.filterTimeoutMs ?? FILTER_TIMEOUT_MS)
    this.inclusion = new InclusionWaiters(node)
  }

  /** Live subscriptions, filters and sync waiters (for tests and diagnostics). */
  get size(): { subscriptions: number; filters: number; waiters: number } {
    return { subscriptions: this.subscriptions.size, filters: this.filters.size, waiters: this.inclusion.size }
  }
}
