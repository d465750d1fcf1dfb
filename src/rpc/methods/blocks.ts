// Blocks and what is in them. "pending" is the pre-confirmed block.
import type { BlockRef } from '../../node/types.js'
import { expectArgs } from '../dispatch.js'
import { invalidParams } from '../errors.js'
import { formatBlock, formatHeaderWithSize, formatIncludedTx, formatReceipt } from '../format.js'
import { parseHash, parseQuantity, toQuantity } from '../hex.js'
import { parseBlockRef } from '../params.js'
import type { MethodGroup } from './group.js'

function parseBool(value: unknown, name: string): boolean {
  if (value === undefined || value === null) return false
  if (typeof value !== 'boolean') throw invalidParams(`invalid argument ${name}: expected a boolean`)
  return value
}

function numberRef(value: unknown): BlockRef {
  const ref = parseBlockRef(value, 'blockNumber')
  if ('hash' in ref) throw invalidParams('invalid argument 0: expected a block number or tag, not a hash')
  return ref
}

export const blockMethods: MethodGroup = (node) => {
  const byNumber = (value: unknown) => node.getBlock(numberRef(value))
  const byHash = (value: unknown) => node.getBlock({ hash: parseHash(value, 'blockHash') })
  return {
    eth_blockNumber: () => toQuantity(node.blockNumber()),
    eth_getBlockByNumber: (params) => {
      expectArgs(params, 1, 2)
      const block = byNumber(params[0])
      return block ? formatBlock(node, block, parseBool(params[1], 'fullTransactions')) : null
    },
    eth_getBlockByHash: (params) => {
      expectArgs(params, 1, 2)
      const block = byHash(params[0])
      return block ? formatBlock(node, block, parseBool(params[1], 'fullTransactions')) : null
    },
    /** geth's and reth's header methods: the block object without its body; null for an unknown block. */
    eth_getHeaderByNumber: (params) => {
      expectArgs(params, 1, 1)
      const block = byNumber(params[0])
      return block ? formatHeaderWithSize(node, block) : null
    },
    eth_getHeaderByHash: (params) => {
      expectArgs(params, 1, 1)
      const block = byHash(params[0])
      return block ? formatHeaderWithSize(node, block) : null
    },
    eth_getBlockTransactionCountByNumber: (params) => {
      expectArgs(params, 1, 1)
      const block = byNumber(params[0])
      return block ? toQuantity(block.txs.length) : null
    },
    eth_getBlockTransactionCountByHash: (params) => {
      expectArgs(params, 1, 1)
      const block = byHash(params[0])
      return block ? toQuantity(block.txs.length) : null
    },
    eth_getTransactionByBlockNumberAndIndex: (params) => {
      expectArgs(params, 2, 2)
      const t = byNumber(params[0])?.txs[Number(parseQuantity(params[1], 'index'))]
      return t ? formatIncludedTx(t) : null
    },
    eth_getTransactionByBlockHashAndIndex: (params) => {
      expectArgs(params, 2, 2)
      const t = byHash(params[0])?.txs[Number(parseQuantity(params[1], 'index'))]
      return t ? formatIncludedTx(t) : null
    },
    eth_getBlockReceipts: (params) => {
      expectArgs(params, 1, 1)
      const block = node.getBlock(parseBlockRef(params[0]))
      return block ? block.txs.map(formatReceipt) : null
    },
    eth_getUncleCountByBlockNumber: (params) => (byNumber(params[0]) ? '0x0' : null),
    eth_getUncleCountByBlockHash: (params) => (byHash(params[0]) ? '0x0' : null),
    eth_getUncleByBlockNumberAndIndex: () => null,
    eth_getUncleByBlockHashAndIndex: () => null,
  }
}
