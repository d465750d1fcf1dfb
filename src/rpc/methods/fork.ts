// Fork mode over JSON-RPC: what happened at or before the fork block is the upstream's (anvil's
// `predates_fork`, crates/anvil/src/eth/api.rs), passed on as it served it and memoized
// (node/fork/history.ts): blocks, transactions, receipts and logs up to the fork block; state
// reads, calls and estimates at blocks before it (the fork block's own state is local: the dev
// accounts are funded in it). Everything later is the local chain's. Wraps the method table, so a
// node that is not a fork (or not yet: anvil_reset may fork it) answers as it always does.
import type { DevNode } from '../../node/node.js'
import type { BlockRef } from '../../node/types.js'
import { toQuantity } from '../../shared/hex.js'
import type { Handler, MethodTable } from '../dispatch.js'
import { RpcError, SERVER_ERROR } from '../errors.js'
import { headerOfBlock } from '../format.js'
import { parseHash, toData } from '../hex.js'
import { isObject, parseBlockRef, parseLogFilter } from '../params.js'

type Fork = NonNullable<DevNode['fork']>

/** Methods naming a block whose contents (at or before the fork block) are the upstream's: the block parameter's index. */
const CONTENT = {
  eth_getBlockByNumber: 0,
  eth_getBlockByHash: 0,
  eth_getBlockTransactionCountByNumber: 0,
  eth_getBlockTransactionCountByHash: 0,
  eth_getTransactionByBlockNumberAndIndex: 0,
  eth_getTransactionByBlockHashAndIndex: 0,
  eth_getBlockReceipts: 0,
  eth_getUncleCountByBlockNumber: 0,
  eth_getUncleCountByBlockHash: 0,
  eth_getUncleByBlockNumberAndIndex: 0,
  eth_getUncleByBlockHashAndIndex: 0,
  debug_traceBlockByNumber: 0,
  debug_traceBlockByHash: 0,
} as const

/** Methods reading state at a block: before the fork block, the upstream's (at it and after, local). */
const STATE = {
  eth_getAccountInfo: 1,
  eth_getBalance: 1,
  eth_getTransactionCount: 1,
  eth_getCode: 1,
  eth_getStorageAt: 2,
  eth_call: 1,
  eth_estimateGas: 1,
  eth_createAccessList: 1,
  debug_traceCall: 1,
} as const

export function withFork(node: DevNode, table: MethodTable): MethodTable {
  const out: MethodTable = { ...table }
  const wrap = (method: string, forked: (fork: Fork, params: unknown[], local: (params: unknown[]) => unknown) => unknown) => {
    const local: Handler | undefined = table[method]
    if (!local) return
    out[method] = (params, ctx) => {
      const fork = node.fork
      return fork ? forked(fork, params, (p) => local(p, ctx)) : local(params, ctx)
    }
  }

  /** The upstream block number `value` names when it is at or before `limit`; undefined: a local block. */
  const upstreamNumber = async (fork: Fork, value: unknown, limit: bigint): Promise<bigint | undefined> => {
    const ref: BlockRef = parseBlockRef(value)
    if ('number' in ref) return ref.number <= limit ? ref.number : undefined
    if ('tag' in ref) {
      // Block 0 is the upstream's unless the fork is at it (state reads stop before the fork block).
      if (ref.tag === 'earliest') return limit >= 0n ? 0n : undefined
      if (ref.tag === 'pending') return undefined
      const head = node.blockNumber()
      return head <= limit ? head : undefined
    }
    const local = node.getBlock(ref)
    if (local) return local.header.number <= limit ? local.header.number : undefined
    const n = await fork.history.numberOf(toData(ref.hash))
    return n !== undefined && n <= limit ? n : undefined
  }
  const isHash = (value: unknown) =>
    (typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value)) || (isObject(value) && value.blockHash !== undefined)
  /** `params` with the block at `index` as the upstream is asked for it: a hash as given, else the number. */
  const at = (params: unknown[], index: number, n: bigint) => {
    const copy = [...params]
    while (copy.length <= index) copy.push(undefined)
    if (!isHash(copy[index])) copy[index] = toQuantity(n)
    return copy
  }

  for (const [method, index] of Object.entries(CONTENT)) {
    wrap(method, async (fork, params, local) => {
      const n = await upstreamNumber(fork, params[index], fork.number)
      return n === undefined ? local(params) : fork.history.request(method, at(params, index, n))
    })
  }
  // Headers of the upstream's blocks, cut from its block objects: every client serves those (anvil
  // has no eth_getHeaderBy*), and they share the block methods' memo.
  const HEADERS = { eth_getHeaderByNumber: 'eth_getBlockByNumber', eth_getHeaderByHash: 'eth_getBlockByHash' } as const
  for (const [method, blockMethod] of Object.entries(HEADERS)) {
    wrap(method, async (fork, params, local) => {
      const n = await upstreamNumber(fork, params[0], fork.number)
      // A hash where a number goes (or the reverse) is the local method's -32602.
      if (n === undefined || isHash(params[0]) !== (method === 'eth_getHeaderByHash')) return local(params)
      const block = await fork.history.request<Record<string, unknown> | null>(blockMethod, [
        ...at(params, 0, n).slice(0, 1),
        false,
      ])
      return block ? headerOfBlock(block, node.profile.headerSize) : null
    })
  }
  for (const [method, index] of Object.entries(STATE)) {
    wrap(method, async (fork, params, local) => {
      const n = await upstreamNumber(fork, params[index], fork.number - 1n)
      return n === undefined ? local(params) : fork.history.request(method, at(params, index, n))
    })
  }

  // Transactions by hash: the local chain's and pool's first, then the upstream's up to the fork block.
  for (const method of ['eth_getTransactionByHash', 'eth_getTransactionReceipt']) {
    wrap(method, async (fork, params, local) => {
      const mine = await local(params)
      if (mine !== null && mine !== undefined) return mine
      return upstreamTx(fork, method, params)
    })
  }
  const upstreamTx = async (fork: Fork, method: string, params: unknown[]) => {
    const hash = parseHash(params[0], 'hash')
    if (node.isPooled(hash)) return null
    const found = await fork.history.request<{ blockNumber?: unknown } | null>(method, [toData(hash)])
    return found && fork.history.inHistory(found.blockNumber) ? found : null
  }
  wrap('debug_traceTransaction', async (fork, params, local) => {
    const hash = parseHash(params[0], 'hash')
    if (node.getTransaction(hash) || !(await upstreamTx(fork, 'eth_getTransactionByHash', [params[0]]))) return local(params)
    return fork.history.request('debug_traceTransaction', params)
  })

  // eth_getLogs: the range up to the fork block from the upstream, the rest from the local chain.
  wrap('eth_getLogs', async (fork, params, local) => {
    const filter = parseLogFilter(params[0])
    const raw = params[0] as Record<string, unknown>
    if (filter.blockHash) {
      const n = await upstreamNumber(fork, raw.blockHash, fork.number)
      return n === undefined ? local(params) : fork.history.request('eth_getLogs', params)
    }
    const from = numberOf(node, filter.fromBlock)
    const to = numberOf(node, filter.toBlock)
    if (from > fork.number || to < from) return local(params)
    const upTo = to < fork.number ? to : fork.number
    const older = await fork.history.request<unknown[]>('eth_getLogs', [
      { ...raw, fromBlock: toQuantity(from), toBlock: toQuantity(upTo) },
    ])
    if (to <= fork.number) return older
    const newer = (await local([{ ...raw, fromBlock: toQuantity(fork.number + 1n) }])) as unknown[]
    return [...older, ...newer]
  })

  // eth_getProof: the fork block's (and older) from the upstream; later state roots are pcnode's own.
  wrap('eth_getProof', async (fork, params) => {
    const n = await upstreamNumber(fork, params[2], fork.number)
    if (n === undefined) {
      throw new RpcError(
        SERVER_ERROR,
        `eth_getProof is served on a fork only at or before the fork block ${fork.number} (from the upstream): later state roots are pcnode's own`,
      )
    }
    return fork.history.request('eth_getProof', at(params, 2, n))
  })

  out.pcnode_forkStats = () => {
    const fork = node.fork
    if (!fork) throw new RpcError(SERVER_ERROR, 'this node is not a fork (start it with --fork-url)')
    const s = fork.stats()
    return {
      upstream: fork.upstream.names,
      chainId: fork.chainId,
      forkBlockNumber: toQuantity(fork.number),
      forkBlockHash: fork.point.hash,
      cache: fork.cache.file ?? null,
      upstreamRequests: s.upstreamRequests,
      byMethod: s.byMethod,
      cacheHits: s.cacheHits,
      bytesRead: s.bytesRead,
      retries: s.retries,
      failures: s.failures,
    }
  }
  return out
}

/** A log filter's block as a number (tags by the local chain; "earliest" is block 0). */
function numberOf(node: DevNode, ref: BlockRef | undefined): bigint {
  if (!ref) return node.blockNumber()
  if ('number' in ref) return ref.number
  if ('tag' in ref && ref.tag === 'earliest') return 0n
  const block = node.getBlock(ref)
  return block ? block.header.number : node.blockNumber()
}
