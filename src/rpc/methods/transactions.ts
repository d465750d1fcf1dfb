// Submitting and looking up transactions.
import { expectArgs } from '../dispatch.js'
import { RpcError, SERVER_ERROR } from '../errors.js'
import { formatReceipt, formatTx, formatUnsignedTx } from '../format.js'
import { parseData, parseHash, parseQuantity, toData } from '../hex.js'
import { isObject, parseCallRequest } from '../params.js'
import type { MethodGroup } from './group.js'

/** geth's setDefaults check (internal/ethapi/transaction_args.go) of a chainId the request names. */
function checkChainId(value: unknown, want: bigint): void {
  if (!isObject(value) || value.chainId === undefined || value.chainId === null) return
  const have = parseQuantity(value.chainId, 'transaction.chainId')
  if (have !== want) throw new RpcError(SERVER_ERROR, `chainId does not match node's (have=${have}, want=${want})`)
}

export const transactionMethods: MethodGroup = (node) => ({
  eth_sendRawTransaction: async (params) => {
    expectArgs(params, 1, 1)
    return toData(await node.sendRawTransaction(parseData(params[0], 'transaction')))
  },
  eth_sendTransaction: async (params) => {
    expectArgs(params, 1, 1)
    return toData(await node.sendTransaction(parseCallRequest(params[0])))
  },
  /**
   * geth's eth_fillTransaction: the defaults eth_sendTransaction would fill (pending nonce, gas
   * estimated at "pending", fees), unsigned, as `{raw, tx}`. viem's prepareTransactionRequest asks
   * for it before filling fields itself (viem PR #4098).
   */
  eth_fillTransaction: async (params) => {
    expectArgs(params, 1, 1)
    const req = parseCallRequest(params[0])
    checkChainId(params[0], node.chainId)
    const tx = await node.fillTransaction(req)
    return { raw: toData(tx.raw), tx: formatUnsignedTx(tx) }
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
