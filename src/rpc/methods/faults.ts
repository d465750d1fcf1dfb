// pcnode's pre-confirmation fault injection (docs/faults.md): drop a pre-confirmed
// transaction, a seeded drop rate, halted and restarted flashblock streams, an irregular cadence,
// a seeded rate of replaced (reorged) head blocks.
// The node side is src/node/faults/.
import type { FaultSummary } from '../../node/faults/faults.js'
import { RESTART_ORDERS, type RestartOrder } from '../../node/faults/order.js'
import { checkFaultSettings, FAULT_SETTING_NAMES, type PreconfFaultSettings } from '../../node/faults/settings.js'
import { expectArgs } from '../dispatch.js'
import { invalidParams } from '../errors.js'
import { parseHash, parseQuantity, toData, toQuantity } from '../hex.js'
import { isObject } from '../params.js'
import type { MethodGroup } from './group.js'

/** A uint32 or a duration in ms: a JSON number or a hex quantity, as the other pcnode_* setters take them. */
function parseNumber(value: unknown, name: string): number {
  if (typeof value === 'number') return value
  const n = parseQuantity(value, name)
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.POSITIVE_INFINITY : Number(n)
}

function parseBool(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw invalidParams(`invalid argument ${name}: expected a boolean`)
  return value
}

/** `{ dropRate?, seed?, jitterMs?, requeue?, notifyDropped?, reorgRate?, reorgDepth? }`, each checked against its bounds. */
function parseFaultSettings(value: unknown): Partial<PreconfFaultSettings> {
  if (!isObject(value)) throw invalidParams(`invalid argument 0: expected an object of ${FAULT_SETTING_NAMES.join(', ')}`)
  const out: Partial<PreconfFaultSettings> = {}
  for (const [key, raw] of Object.entries(value)) {
    switch (key) {
      case 'dropRate':
      case 'reorgRate':
        if (typeof raw !== 'number') throw invalidParams(`invalid argument 0: ${key} must be a JSON number from 0 to 1`)
        out[key] = raw
        break
      case 'seed':
      case 'jitterMs':
      case 'reorgDepth':
        out[key] = parseNumber(raw, `0.${key}`)
        break
      case 'requeue':
      case 'notifyDropped':
        out[key] = parseBool(raw, `0.${key}`)
        break
      default:
        throw invalidParams(`invalid argument 0: unknown field ${key} (expected ${FAULT_SETTING_NAMES.join(', ')})`)
    }
  }
  try {
    checkFaultSettings(out)
  } catch (error) {
    throw invalidParams(`invalid argument 0: ${(error as Error).message}`)
  }
  return out
}

/** pcnode_dropPreconfirmed's options: `{ requeue? }`. */
function parseDropOptions(value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined
  if (!isObject(value)) throw invalidParams('invalid argument 1: expected {"requeue"?: boolean}')
  for (const key of Object.keys(value)) {
    if (key !== 'requeue') throw invalidParams(`invalid argument 1: unknown field ${key} (expected requeue)`)
  }
  return value.requeue === undefined ? undefined : parseBool(value.requeue, '1.requeue')
}

/** pcnode_restartFlashblocks' options: `{ order?: "same" | "reverse" | "shuffle" }`. */
function parseRestartOrder(value: unknown): RestartOrder {
  if (value === undefined || value === null) return 'same'
  const expected = RESTART_ORDERS.map((o) => JSON.stringify(o)).join(', ')
  if (!isObject(value)) throw invalidParams(`invalid argument 0: expected {"order"?: ${expected}}`)
  for (const key of Object.keys(value)) {
    if (key !== 'order') throw invalidParams(`invalid argument 0: unknown field ${key} (expected order)`)
  }
  const order = value.order ?? 'same'
  if (!(RESTART_ORDERS as readonly unknown[]).includes(order)) {
    throw invalidParams(`invalid argument 0: unknown order ${JSON.stringify(order)} (expected ${expected})`)
  }
  return order as RestartOrder
}

function formatSummary(s: FaultSummary): FaultSummary {
  return { ...s, injected: { ...s.injected } }
}

export const faultMethods: MethodGroup = (node) => ({
  /**
   * Leaves a pre-confirmed transaction out of its block: the open block runs again without it (and
   * its sender's later transactions). Answers `{blockNumber, dropped: [hashes], requeued}`.
   */
  pcnode_dropPreconfirmed: async (params) => {
    expectArgs(params, 1, 2)
    const hash = parseHash(params[0], 'hash')
    const out = await node.faults.dropPreconfirmed(hash, parseDropOptions(params[1]))
    return { blockNumber: toQuantity(out.blockNumber), dropped: out.dropped.map(toData), requeued: out.requeued }
  },
  /** Any subset of the settings; answers what pcnode_getPreconfFaults answers. */
  pcnode_setPreconfFaults: (params) => {
    expectArgs(params, 1, 1)
    return formatSummary(node.faults.configure(parseFaultSettings(params[0])))
  },
  /** The settings, whether flashblocks are halted, and the count of faults injected so far. */
  pcnode_getPreconfFaults: (params) => {
    expectArgs(params, 0, 0)
    return formatSummary(node.faults.summary())
  },
  /** true when this call halted them, false when they were halted already. */
  pcnode_haltFlashblocks: (params) => {
    expectArgs(params, 0, 0)
    return node.faults.halt()
  },
  /** true when this call resumed them, false when they were not halted. */
  pcnode_resumeFlashblocks: async (params) => {
    expectArgs(params, 0, 0)
    return node.faults.resume()
  },
  /** The open block's stream starts again; answers `{blockNumber, payloadId, transactions, order}`. */
  pcnode_restartFlashblocks: async (params) => {
    expectArgs(params, 0, 1)
    const out = await node.faults.restart(parseRestartOrder(params[0]))
    return {
      blockNumber: toQuantity(out.blockNumber),
      payloadId: toData(out.payloadId),
      transactions: out.transactions,
      order: out.order,
    }
  },
})
