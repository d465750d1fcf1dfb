// The Otterscan API (ots_*, API level 8, and erigon_getHeaderByNumber), as anvil serves it
// (crates/anvil/src/eth/otterscan/api.rs) so an Otterscan pointed at pcnode attaches: the same
// shapes, numbers where anvil answers JSON numbers, the same search loops. On an OP chain the block
// details add op-erigon's gasUsedDepositTx (Otterscan subtracts it before pricing burnt fees) and
// receipts keep their L1-fee fields, which anvil's receipt conversion would drop.
import type { BlockRecord, IncludedTx } from '../../node/types.js'
import { expectArgs } from '../dispatch.js'
import { invalidParams } from '../errors.js'
import { formatBlock, formatIncludedTx, formatReceipt } from '../format.js'
import { parseAddress, parseHash, parseQuantity, toData, toQuantity } from '../hex.js'
import { contractCreator, type FlatFrame, framesOf, searchAfter, searchBefore } from '../otterscan-trace.js'
import { parseBlockRef } from '../params.js'
import type { MethodGroup } from './group.js'

/** The level Otterscan requires (its MIN_API_LEVEL); anvil and Erigon answer it. */
const API_LEVEL = 8

/** Most transactions one page may ask for (Otterscan asks 25); a block past it is paged. */
const MAX_PAGE_SIZE = 1000

/** Internal operation types (Otterscan's OperationType). */
const OP_TRANSFER = 0
const OP_SELF_DESTRUCT = 1
const OP_CREATE = 2
const OP_CREATE2 = 3

/** The frame kinds alloy's TraceEntry keeps (it drops CREATE, CREATE2 and SELFDESTRUCT). */
const CALL_KINDS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL'])

function parseCount(value: unknown, name: string, max: number): number {
  const n = parseQuantity(value, name)
  if (n > BigInt(max)) throw invalidParams(`invalid argument ${name}: at most ${max}`)
  return Number(n)
}

const isZero = (value: string | undefined) => value === undefined || BigInt(value) === 0n

/** anvil's ots_internal_operations: self-destructs, value-moving CALLs (the top one too) and creations. */
function internalOperation(f: FlatFrame): Record<string, unknown> | undefined {
  const type =
    f.type === 'SELFDESTRUCT'
      ? OP_SELF_DESTRUCT
      : f.type === 'CALL' && !isZero(f.value)
        ? OP_TRANSFER
        : f.type === 'CREATE'
          ? OP_CREATE
          : f.type === 'CREATE2'
            ? OP_CREATE2
            : undefined
  if (type === undefined) return undefined
  return { type, from: f.from, to: f.to ?? toData(new Uint8Array(20)), value: f.value ?? '0x0' }
}

/** alloy's TraceEntry: a STATICCALL moves nothing, a DELEGATECALL shows its caller's msg.value. */
function traceEntry(f: FlatFrame): Record<string, unknown> {
  const value = f.type === 'STATICCALL' ? '0x0' : (f.value ?? (f.type === 'DELEGATECALL' ? f.parentValue : '0x0'))
  return { type: f.type, depth: f.depth, from: f.from, to: f.to, value, input: f.input, output: f.output ?? '0x' }
}

/** A receipt as ots_getBlockTransactions and the searches carry it: the block's timestamp added. */
function otsReceipt(t: IncludedTx): Record<string, unknown> {
  return { ...formatReceipt(t), timestamp: toQuantity(t.block.header.timestamp) }
}

export const otterscanMethods: MethodGroup = (node) => {
  const includedTx = (value: unknown, name = 'hash') => node.chain.getTx(parseHash(value, name))

  const blockDetails = (block: BlockRecord | undefined) => {
    if (!block) return null
    const { transactions: _t, ...header } = formatBlock(node, block, false)
    let totalFees = 0n
    let depositGas = 0n
    for (const t of block.txs) {
      // Deposits buy no gas (op-erigon leaves them out of totalFees and counts their gas apart).
      if (t.tx.deposit) depositGas += t.receipt.gasUsed
      else totalFees += t.receipt.gasUsed * t.receipt.effectiveGasPrice
    }
    const out: Record<string, unknown> = {
      block: { ...header, transactionCount: block.txs.length },
      // No block reward on a devnet (nor on an OP chain): anvil's zeros.
      issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' },
      totalFees: toQuantity(totalFees),
    }
    if (node.profile.opStack) out.gasUsedDepositTx = toQuantity(depositGas)
    return out
  }

  const searchResult = (page: { hashes: Uint8Array[]; firstPage: boolean; lastPage: boolean }) => {
    const found = page.hashes.map((h) => node.chain.getTx(h)).filter((t): t is IncludedTx => t !== undefined)
    return {
      txs: found.map(formatIncludedTx),
      receipts: found.map(otsReceipt),
      firstPage: page.firstPage,
      lastPage: page.lastPage,
    }
  }

  const searchArgs = (params: unknown[]) => {
    expectArgs(params, 3, 3)
    return [
      toData(parseAddress(params[0], 'address')),
      parseQuantity(params[1], 'blockNumber'),
      parseCount(params[2], 'pageSize', MAX_PAGE_SIZE),
    ] as const
  }

  return {
    ots_getApiLevel: (params) => {
      expectArgs(params, 0, 0)
      return API_LEVEL
    },
    /** Otterscan's probe and new-block poll; anvil answers the whole eth_getBlockByNumber(n, false). */
    erigon_getHeaderByNumber: (params) => {
      expectArgs(params, 1, 1)
      const ref = parseBlockRef(params[0], 'blockNumber')
      if ('hash' in ref) throw invalidParams('invalid argument 0: expected a block number or tag, not a hash')
      const block = node.getBlock(ref)
      return block ? formatBlock(node, block, false) : null
    },
    ots_hasCode: async (params) => {
      expectArgs(params, 2, 2)
      const code = await node.getCode(parseAddress(params[0], 'address'), parseBlockRef(params[1], 'blockNumber'))
      return code.length > 0
    },
    ots_getInternalOperations: async (params) => {
      expectArgs(params, 1, 1)
      const t = includedTx(params[0])
      // anvil answers -32603 "Required data unavailable"; geth's text for an unknown transaction instead.
      if (!t) throw invalidParams('transaction not found')
      const frames = await framesOf(node, t)
      return frames.map(internalOperation).filter((op) => op !== undefined)
    },
    ots_traceTransaction: async (params) => {
      expectArgs(params, 1, 1)
      const t = includedTx(params[0])
      if (!t) return []
      const frames = await framesOf(node, t)
      return frames.filter((f) => CALL_KINDS.has(f.type)).map(traceEntry)
    },
    ots_getTransactionError: async (params) => {
      expectArgs(params, 1, 1)
      const t = includedTx(params[0])
      if (!t || t.receipt.status === 1) return '0x'
      const [top] = await framesOf(node, t)
      return top?.output ?? '0x'
    },
    ots_getBlockDetails: (params) => {
      expectArgs(params, 1, 1)
      const ref = parseBlockRef(params[0], 'blockNumber')
      if ('hash' in ref) throw invalidParams('invalid argument 0: expected a block number or tag, not a hash')
      return blockDetails(node.getBlock(ref))
    },
    ots_getBlockDetailsByHash: (params) => {
      expectArgs(params, 1, 1)
      return blockDetails(node.getBlock({ hash: parseHash(params[0], 'blockHash') }))
    },
    ots_getBlockTransactions: (params) => {
      expectArgs(params, 3, 3)
      const number = parseQuantity(params[0], 'blockNumber')
      const page = parseCount(params[1], 'pageNumber', Number.MAX_SAFE_INTEGER)
      const size = parseCount(params[2], 'pageSize', MAX_PAGE_SIZE)
      const block = node.getBlock({ number })
      if (!block) return null
      const txs = block.txs.slice(page * size, (page + 1) * size)
      const { transactions: _t, ...header } = formatBlock(node, block, false)
      // Input cut to its selector (Otterscan's list shows the method only).
      const transactions = txs.map((t) => {
        const tx = formatIncludedTx(t)
        return { ...tx, input: (tx.input as string).slice(0, 10) }
      })
      // The whole block's count, as Erigon answers: Otterscan pages the block by it (anvil gives the page's).
      return { fullblock: { ...header, transactions, transactionCount: block.txs.length }, receipts: txs.map(otsReceipt) }
    },
    ots_searchTransactionsBefore: async (params) => searchResult(await searchBefore(node, ...searchArgs(params))),
    ots_searchTransactionsAfter: async (params) => searchResult(await searchAfter(node, ...searchArgs(params))),
    ots_getTransactionBySenderAndNonce: (params) => {
      expectArgs(params, 2, 2)
      const sender = toData(parseAddress(params[0], 'address'))
      const nonce = parseQuantity(params[1], 'nonce')
      for (let n = node.blockNumber(); n > node.chain.first; n--) {
        for (const t of node.chain.byNumber(n)?.txs ?? []) {
          if ((t.receipt.depositNonce ?? t.tx.nonce) === nonce && toData(t.tx.from) === sender) return toData(t.tx.hash)
        }
      }
      return null
    },
    ots_getContractCreator: async (params) => {
      expectArgs(params, 1, 1)
      const address = parseAddress(params[0], 'address')
      // No code, no creator (the spec's and Erigon's rule): an EOA costs no scan.
      if ((await node.getCode(address, { tag: 'latest' })).length === 0) return null
      return contractCreator(node, toData(address))
    },
  }
}
