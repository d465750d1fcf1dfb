// Following the chain as it moves: eth_subscribe / eth_unsubscribe (WebSocket only), the polling
// filters viem's watch* actions fall back to over HTTP, eth_sendRawTransactionSync (EIP-7966 with
// Base's limits), eth_sendTransactionSync and pcnode_transactionStatus. All of it waits on node
// events (subscriptions.ts).
import { hexKey } from '../../node/bytes.js'
import type { DevNode } from '../../node/node.js'
import { blockMillis } from '../../node/opstack/denim.js'
import { expectArgs, type MethodTable, type RpcContext } from '../dispatch.js'
import { INVALID_PARAMS, invalidParams, METHOD_NOT_FOUND, RpcError, SERVER_ERROR } from '../errors.js'
import { formatReceipt } from '../format.js'
import { parseData, parseHash, parseQuantity, toData, toQuantity } from '../hex.js'
import { isObject, parseCallRequest, parseLogFilter } from '../params.js'
import { PubSub, SUBSCRIPTION_KINDS, type SubscriptionKind, type SubscriptionOptions } from '../pubsub/index.js'

/** Base's MAX_TIMEOUT_SEND_RAW_TX_SYNC_MS: also the default when no timeout is given. */
export const SYNC_SEND_MAX_TIMEOUT_MS = 6000
/** alloy's TransactionConfirmationTimeout code, which reth and Base return. */
export const SYNC_SEND_TIMEOUT_CODE = 4

function connectionOf(ctx: RpcContext) {
  // geth's text and code for subscriptions over a transport that cannot push.
  if (!ctx.connection) throw new RpcError(METHOD_NOT_FOUND, 'notifications not supported')
  return ctx.connection
}

function optionalBool(value: unknown, name: string): boolean | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'boolean') throw invalidParams(`invalid argument ${name}: expected a boolean`)
  return value
}

/**
 * Second eth_subscribe parameter per kind. newFlashblocks takes `{format: "block" | "payload",
 * full?}`: the block object is what Base's code sends, the payload is what Base's docs describe.
 */
function subscriptionOptions(kind: SubscriptionKind, value: unknown): SubscriptionOptions {
  switch (kind) {
    case 'logs':
    case 'pendingLogs': {
      const { addresses, topics } = parseLogFilter(value, 'filter')
      return { filter: { addresses, topics } }
    }
    case 'newPendingTransactions':
      return { full: optionalBool(value, '1') }
    case 'newFlashblockTransactions': {
      // Base's param (base/base crates/execution/flashblocks/src/rpc/types.rs): true/false, or a
      // log filter: full transactions with at least one matching log, all their logs included.
      if (!isObject(value)) return { full: optionalBool(value, '1') }
      const { addresses, topics } = parseLogFilter(value, 'filter')
      return { full: true, txFilter: { addresses, topics } }
    }
    case 'newFlashblocks': {
      if (value === undefined || value === null) return {}
      if (!isObject(value)) throw invalidParams('invalid argument 1: expected {"format": "block" | "payload", "full"?: boolean}')
      const { format, full } = value
      if (format !== undefined && format !== 'block' && format !== 'payload') {
        throw invalidParams(`invalid argument 1: unknown format ${JSON.stringify(format)} (use "block" or "payload")`)
      }
      return { payload: format === 'payload', full: optionalBool(full, '1.full') }
    }
    case 'transactionReceipts':
      return { txHashes: receiptHashes(value) }
    default:
      return {}
  }
}

/** geth's limit on a transactionReceipts filter (eth/filters maxTxHashes). */
export const MAX_RECEIPT_HASHES = 200

/**
 * transactionReceipts' `{transactionHashes}` (geth's TransactionReceiptsQuery): omitted, null or
 * an empty array means every receipt, as in geth; other fields are ignored, as geth's JSON decoding does.
 */
function receiptHashes(value: unknown): Set<string> | undefined {
  if (value === undefined || value === null) return undefined
  if (!isObject(value)) throw invalidParams('invalid argument 1: expected {"transactionHashes"?: [hash, ...]}')
  const list = value.transactionHashes
  if (list === undefined || list === null) return undefined
  if (!Array.isArray(list)) throw invalidParams('invalid argument 1: transactionHashes: expected an array of hashes')
  // Decoded first, as geth decodes the parameter before counting.
  const hashes = list.map((h, i) => hexKey(parseHash(h, `1.transactionHashes[${i}]`)))
  // geth's errExceedMaxTxHashes, a plain error and so -32000.
  if (hashes.length > MAX_RECEIPT_HASHES) {
    throw new RpcError(SERVER_ERROR, 'exceed max number of transaction hashes allowed per transactionReceipts subscription')
  }
  return new Set(hashes)
}

/** The timeout parameter: a JSON number (Rust u64, as Base takes it) or a hex quantity (as viem may send). */
function parseSyncTimeout(value: unknown): number {
  if (value === undefined || value === null) return SYNC_SEND_MAX_TIMEOUT_MS
  const ms = parseQuantity(value, 'timeout')
  if (ms > BigInt(SYNC_SEND_MAX_TIMEOUT_MS)) {
    throw new RpcError(INVALID_PARAMS, `time out too long, timeout: ${ms} ms, max: ${SYNC_SEND_MAX_TIMEOUT_MS} ms`)
  }
  return Number(ms)
}

/** A duration the way Rust's Debug prints it (reth's timeout message uses `{:?}`): 6s, 1.5s, 300ms. */
export function rustDuration(ms: number): string {
  if (ms >= 1000) return `${ms / 1000}s`
  return ms > 0 ? `${ms}ms` : '0ns'
}

function parseId(value: unknown): string {
  if (typeof value !== 'string') throw invalidParams('invalid argument 0: expected a filter id string')
  return value
}

/** The methods, over one PubSub (tests may pass their own, e.g. with a short filter timeout). */
export function pubsubMethods(node: DevNode, pubsub = new PubSub(node)): MethodTable {
  const { subscriptions, filters, inclusion } = pubsub

  /**
   * The receipt a sync send answers with: the pre-confirmed one, or the sealed one while
   * flashblocks are halted. Looked up right after admission, before waiting: Base's
   * eth_sendRawTransactionSync subscribes only after sending and can miss a flashblock published
   * in between (base/base #3826); waitForInclusion checks and registers in one synchronous step.
   */
  const receiptOf = async (hash: Uint8Array, timeout: number) => {
    const outcome = await inclusion.waitForInclusion(hash, timeout)
    if ('tx' in outcome) return formatReceipt(outcome.tx)
    const hex = toData(hash)
    // Base would time out; failing at once with the sequencer's reason is more useful locally.
    if ('dropped' in outcome) throw new RpcError(SERVER_ERROR, `transaction dropped by the sequencer: ${outcome.dropped}`, hex)
    throw new RpcError(
      SYNC_SEND_TIMEOUT_CODE,
      `Transaction ${hex} was added to the mempool but wasn't confirmed within ${rustDuration(timeout)}.`,
      hex,
    )
  }

  return {
    eth_subscribe: (params, ctx) => {
      const connection = connectionOf(ctx)
      expectArgs(params, 1, 2)
      const kind = params[0]
      if (typeof kind !== 'string' || !(SUBSCRIPTION_KINDS as readonly string[]).includes(kind)) {
        throw new RpcError(METHOD_NOT_FOUND, `no ${JSON.stringify(kind)} subscription in eth namespace`)
      }
      const options = subscriptionOptions(kind as SubscriptionKind, params[1])
      return subscriptions.subscribe(connection, kind as SubscriptionKind, options, ctx.afterReply)
    },
    /** false for an id this connection does not own (reth's answer; geth errors instead). */
    eth_unsubscribe: (params, ctx) => {
      const connection = connectionOf(ctx)
      expectArgs(params, 1, 1)
      if (typeof params[0] !== 'string') throw invalidParams('invalid argument 0: expected a subscription id string')
      return subscriptions.unsubscribe(connection, params[0])
    },

    eth_sendRawTransactionSync: async (params) => {
      expectArgs(params, 1, 2)
      const raw = parseData(params[0], 'transaction')
      // Checked before submitting, as Base does, so a bad timeout sends nothing.
      const timeout = parseSyncTimeout(params[1])
      return receiptOf(await node.sendRawTransaction(raw), timeout)
    },

    /**
     * eth_sendTransaction from a dev account (signed by its key) or an impersonated one, then the
     * wait of eth_sendRawTransactionSync, with its timeout and errors.
     */
    eth_sendTransactionSync: async (params) => {
      expectArgs(params, 1, 2)
      const req = parseCallRequest(params[0])
      const timeout = parseSyncTimeout(params[1])
      return receiptOf(await node.sendTransaction(req), timeout)
    },

    /**
     * pcnode's richer companion to base_transactionStatus (which only says Known/Unknown): pending,
     * preconfirmed, confirmed, or dropped (a pre-confirmation an injected fault took back, until the
     * transaction is in the pool again).
     */
    pcnode_transactionStatus: (params) => {
      expectArgs(params, 1, 1)
      const hash = parseHash(params[0], 'hash')
      // When each stage it reached happened (ms since the epoch): pooledAt, preconfirmedAt, sealedAt, droppedAt.
      const times = node.stages.of(hash)
      const t = node.getReceipt(hash)
      if (t) {
        const out: Record<string, unknown> = {
          status: t.block.sealed ? 'confirmed' : 'preconfirmed',
          blockNumber: toQuantity(t.block.header.number),
        }
        // A Denim block (profile base) is built whole: it has no flashblocks to place the transaction in.
        if (blockMillis(t.block) === undefined) out.flashblockIndex = toQuantity(t.flashblockIndex)
        if (t.block.sealed) out.blockHash = toData(t.block.hash)
        return { ...out, ...times }
      }
      if (node.isPooled(hash)) return { status: 'pending', ...times }
      const drop = node.faults.dropRecord(hash)
      if (drop) {
        return {
          status: 'dropped',
          blockNumber: toQuantity(drop.blockNumber),
          flashblockIndex: toQuantity(drop.flashblockIndex),
          reason: drop.reason,
          requeued: drop.requeued,
          ...times,
        }
      }
      return { status: 'unknown' }
    },

    eth_newFilter: (params) => {
      expectArgs(params, 1, 1)
      return filters.newFilter('logs', parseLogFilter(params[0]))
    },
    eth_newBlockFilter: (params) => {
      expectArgs(params, 0, 0)
      return filters.newFilter('blocks')
    },
    eth_newPendingTransactionFilter: (params) => {
      expectArgs(params, 0, 1)
      return filters.newFilter('pendingTransactions')
    },
    eth_getFilterChanges: (params) => {
      expectArgs(params, 1, 1)
      return filters.filterChanges(parseId(params[0]))
    },
    eth_getFilterLogs: (params) => {
      expectArgs(params, 1, 1)
      return filters.filterLogs(parseId(params[0]))
    },
    eth_uninstallFilter: (params) => {
      expectArgs(params, 1, 1)
      return filters.uninstallFilter(parseId(params[0]))
    },
  }
}
