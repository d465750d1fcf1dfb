// Submitting and looking up transactions.
import { expectArgs } from '../dispatch.js'
import { formatReceipt, formatTx } from '../format.js'
import { parseData, parseHash, toData } from '../hex.js'
import { parseCallRequest } from '../params.js'
import type { MethodGroup } from './context.js'

export const transactionMethods: MethodGroup = (node) => ({
  eth_sendRawTransaction: async (params) => {
    expectArgs(params, 1, 1)
    return toData(await node.sendRawTransaction(parseData(params[0], 'transaction')))
  },
  eth_sendTransaction: async (params) => {
    expectArgs(params, 1, 1)
    return toData(await node.sendTransaction(parseCallRequest(params[0])))
  },
  eth_getTransactionByHash: (params) => {
    expectArgs(params, 1, 1)
    const found = node.getTransaction(parseHash(params[0], 'hash'))
    return found ? formatTx(found) : null
  },
  eth_getTransactionReceipt: (params) => {
    expectArgs(params, 1, 1)
    const t = node.getReceipt(parseHash(params[0], 'hash'))
    return t ? formatReceipt(t) : null
  },
  /** Base's method: Known while the node has the transaction in its pool, else Unknown. */
  base_transactionStatus: (params) => {
    expectArgs(params, 1, 1)
    return { status: node.isPooled(parseHash(params[0], 'hash')) ? 'Known' : 'Unknown' }
  },
})
