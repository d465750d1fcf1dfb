// eth_simulateV1: parse the payload (naming the offending field), run it on the node, and shape
// each simulated block as a full block object plus its `calls`, as geth and reth serve them.
import type { SimulatedBlock, SimulatedCall, SimulateInput } from '../../node/execution/simulate/index.js'
import type { DevNode } from '../../node/node.js'
import type { CallRequest, IncludedTx } from '../../node/types.js'
import { expectArgs } from '../dispatch.js'
import { invalidParams } from '../errors.js'
import { formatBlock, formatIncludedTx } from '../format.js'
import { toData, toFixed, toQuantity } from '../hex.js'
import { isObject, parseBlockOverrides, parseBlockRef, parseCallRequest, parseStateOverrides } from '../params.js'
import type { MethodGroup } from './group.js'

const PAYLOAD_FIELDS = new Set(['blockStateCalls', 'traceTransfers', 'validation', 'returnFullTransactions'])
const BLOCK_FIELDS = new Set(['blockOverrides', 'stateOverrides', 'calls'])

export interface SimulatePayload extends SimulateInput {
  returnFullTransactions: boolean
}

function parseFlag(value: unknown, name: string): boolean {
  if (value === undefined || value === null) return false
  if (typeof value !== 'boolean') throw invalidParams(`invalid argument 0: ${name}: expected a boolean`)
  return value
}

export function parseSimulatePayload(value: unknown): SimulatePayload {
  if (!isObject(value)) throw invalidParams('invalid argument 0: expected a simulation payload object')
  for (const key of Object.keys(value)) {
    if (!PAYLOAD_FIELDS.has(key)) throw invalidParams(`invalid argument 0: unknown field "${key}"`)
  }
  const raw = value.blockStateCalls
  if (raw === undefined || raw === null) throw invalidParams('invalid argument 0: missing field "blockStateCalls"')
  if (!Array.isArray(raw)) throw invalidParams('invalid argument 0: blockStateCalls: expected an array')
  // An empty array is geth's -32602 "empty input"; the node raises it (after the other limits).
  const blocks = raw.map((entry, i) => {
    const name = `blockStateCalls[${i}]`
    if (!isObject(entry)) throw invalidParams(`invalid argument 0: ${name}: expected an object`)
    for (const key of Object.keys(entry)) {
      if (!BLOCK_FIELDS.has(key)) throw invalidParams(`invalid argument 0: ${name}: unknown field "${key}"`)
    }
    let calls: CallRequest[] = []
    if (entry.calls !== undefined && entry.calls !== null) {
      if (!Array.isArray(entry.calls)) throw invalidParams(`invalid argument 0: ${name}.calls: expected an array`)
      calls = entry.calls.map((call, j) => parseCallRequest(call, `${name}.calls[${j}]`))
    }
    const blockOverrides = parseBlockOverrides(entry.blockOverrides, `${name}.blockOverrides`)
    return {
      blockOverrides,
      stateOverrides: parseStateOverrides(entry.stateOverrides, `${name}.stateOverrides`),
      calls,
    }
  })
  return {
    blocks,
    traceTransfers: parseFlag(value.traceTransfers, 'traceTransfers'),
    validation: parseFlag(value.validation, 'validation'),
    returnFullTransactions: parseFlag(value.returnFullTransactions, 'returnFullTransactions'),
  }
}

function formatCall(call: SimulatedCall, t: IncludedTx, blockHash: string): Record<string, unknown> {
  const h = t.block.header
  const out: Record<string, unknown> = {
    returnData: toData(call.returnData),
    logs: call.logs.map((log, i) => ({
      address: toData(log.address),
      topics: log.topics.map((topic) => toFixed(topic, 32)),
      data: toData(log.data),
      blockNumber: toQuantity(h.number),
      blockHash,
      blockTimestamp: toQuantity(h.timestamp),
      transactionHash: toData(t.tx.hash),
      transactionIndex: toQuantity(t.index),
      logIndex: toQuantity(call.firstLogIndex + i),
      removed: false,
    })),
    gasUsed: toQuantity(call.gasUsed),
    maxUsedGas: toQuantity(call.maxUsedGas),
    status: toQuantity(call.status),
  }
  if (call.error) {
    out.error =
      call.error.data === undefined
        ? { message: call.error.message, code: call.error.code }
        : { message: call.error.message, code: call.error.code, data: toData(call.error.data) }
  }
  return out
}

export function formatSimulatedBlock(node: DevNode, sim: SimulatedBlock, fullTransactions: boolean): Record<string, unknown> {
  const { block } = sim
  const out = formatBlock(node, block, false)
  if (fullTransactions) {
    // Unsigned calls: geth reports zero signature values and the simulated sender.
    out.transactions = block.txs.map((t) => ({
      ...formatIncludedTx(t),
      v: '0x0',
      r: '0x0',
      s: '0x0',
      ...(t.tx.type === 0 ? {} : { yParity: '0x0' }),
    }))
  }
  if (out.withdrawals)
    out.withdrawals = sim.withdrawals.map((w) => ({
      index: toQuantity(w.index),
      validatorIndex: toQuantity(w.validatorIndex),
      address: toData(w.address),
      amount: toQuantity(w.amount),
    }))
  const hash = toData(block.hash)
  out.calls = sim.calls.map((call, i) => formatCall(call, block.txs[i], hash))
  return out
}

export const simulateMethods: MethodGroup = (node) => ({
  eth_simulateV1: async (params) => {
    expectArgs(params, 1, 2)
    const payload = parseSimulatePayload(params[0])
    const blocks = await node.simulate(payload, parseBlockRef(params[1]))
    return blocks.map((b) => formatSimulatedBlock(node, b, payload.returnFullTransactions))
  },
})
