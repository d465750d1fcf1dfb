// EIP-5792's wallet methods for the accounts the node holds: wallet_getCapabilities,
// wallet_sendCalls, wallet_getCallsStatus, wallet_showCallsStatus. The requests are parsed here;
// node/wallet-calls/ sends the calls and reads their statuses back.
import type { CallInput, CapabilityRequests } from '../../node/wallet-calls/wallet-calls.js'
import { expectArgs } from '../dispatch.js'
import { invalidParams } from '../errors.js'
import { formatReceipt } from '../format.js'
import { parseAddress, parseData, parseQuantity, toQuantity } from '../hex.js'
import { isObject, parseBoundedQuantity } from '../params.js'
import type { MethodGroup } from './group.js'

/** The EIP's limit on a bundle id. */
const MAX_ID_BYTES = 4096

function parseId(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw invalidParams(`invalid argument ${name}: expected a bundle id string`)
  if (Buffer.byteLength(value) > MAX_ID_BYTES) throw invalidParams(`invalid argument ${name}: longer than ${MAX_ID_BYTES} bytes`)
  return value
}

function parseCapabilities(value: unknown, name: string): CapabilityRequests | undefined {
  if (value === undefined || value === null) return undefined
  if (!isObject(value)) throw invalidParams(`invalid argument ${name}: expected an object`)
  for (const [key, entry] of Object.entries(value)) {
    if (!isObject(entry)) throw invalidParams(`invalid argument ${name}.${key}: expected an object`)
  }
  return value as CapabilityRequests
}

function parseCall(value: unknown, name: string): CallInput {
  if (!isObject(value)) throw invalidParams(`invalid argument ${name}: expected a call object`)
  const present = (key: string) => value[key] !== undefined && value[key] !== null
  return {
    to: present('to') ? parseAddress(value.to, `${name}.to`) : undefined,
    data: present('data') ? parseData(value.data, `${name}.data`) : undefined,
    value: present('value') ? parseBoundedQuantity(value.value, `${name}.value`, 256) : undefined,
    capabilities: parseCapabilities(value.capabilities, `${name}.capabilities`),
  }
}

export const walletMethods: MethodGroup = (node) => ({
  wallet_getCapabilities: async (params) => {
    expectArgs(params, 0, 2)
    const [address, chainIds] = params
    const account = address === undefined || address === null ? undefined : parseAddress(address, 'address')
    if (chainIds !== undefined && chainIds !== null && !Array.isArray(chainIds)) {
      throw invalidParams('invalid argument 1: expected an array of chain ids')
    }
    const ids = chainIds?.map((c, i) => parseQuantity(c, `chainIds[${i}]`))
    return await node.walletCalls.capabilities(account, ids)
  },
  wallet_sendCalls: async (params) => {
    expectArgs(params, 1, 1)
    const req = params[0]
    if (!isObject(req)) throw invalidParams('invalid argument 0: expected a calls request object')
    if (typeof req.version !== 'string') throw invalidParams('invalid argument 0: missing version')
    if (!Array.isArray(req.calls) || req.calls.length === 0)
      throw invalidParams('invalid argument 0: expected a non-empty calls array')
    if (req.atomicRequired !== undefined && typeof req.atomicRequired !== 'boolean') {
      throw invalidParams('invalid argument 0: atomicRequired must be a boolean')
    }
    const id = await node.walletCalls.sendCalls({
      chainId: parseQuantity(req.chainId, 'chainId'),
      from: req.from === undefined || req.from === null ? undefined : parseAddress(req.from, 'from'),
      id: req.id === undefined || req.id === null ? undefined : parseId(req.id, 'id'),
      atomicRequired: req.atomicRequired === true,
      calls: req.calls.map((c, i) => parseCall(c, `calls[${i}]`)),
      capabilities: parseCapabilities(req.capabilities, 'capabilities'),
    })
    return { id }
  },
  wallet_getCallsStatus: (params) => {
    expectArgs(params, 1, 1)
    const s = node.walletCalls.status(parseId(params[0], 'id'))
    return {
      version: '2.0.0',
      id: s.id,
      chainId: toQuantity(s.chainId),
      status: s.status,
      atomic: s.atomic,
      receipts: s.receipts.map(formatReceipt),
    }
  },
  /** A node has no screen: the status goes to the node's log, and the answer is null. */
  wallet_showCallsStatus: (params) => {
    expectArgs(params, 1, 1)
    node.walletCalls.show(parseId(params[0], 'id'))
    return null
  },
})
