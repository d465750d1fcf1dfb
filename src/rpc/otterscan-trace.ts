// The call frames behind the Otterscan API (ots_* in methods/otterscan.ts): a transaction's
// callTracer tree flattened in execution order, and the address searches anvil runs over them
// (crates/anvil/src/eth/otterscan/api.rs). A sealed transaction's frames are kept once traced (a
// WeakMap on its record, so blocks a revert or reset drops take theirs along): a search walks every
// block and would otherwise re-execute the whole chain on each page.
import type { DevNode } from '../node/node.js'
import { parseTraceConfig } from '../node/tracing/config.js'
import type { BlockRecord, IncludedTx } from '../node/types.js'
import { toData } from './hex.js'

/** A callTracer frame as node/tracing/call-tracer.ts writes it (the fields read here). */
interface CallFrameJson {
  type: string
  from: string
  to?: string
  value?: string
  input: string
  output?: string
  error?: string
  calls?: CallFrameJson[]
}

/** One frame in execution order, with its depth (0: the transaction itself). */
export interface FlatFrame {
  type: string
  depth: number
  from: string
  /** undefined: a CREATE that failed (geth's callTracer drops its address). */
  to: string | undefined
  /** The frame's value as callTracer gives it; undefined for STATICCALL (and DELEGATECALL). */
  value: string | undefined
  /** The value the caller's frame carried (anvil gives it to a DELEGATECALL). */
  parentValue: string
  input: string
  output: string | undefined
  error: string | undefined
}

const CALL_TRACER = parseTraceConfig({ tracer: 'callTracer' }, 1)
const cache = new WeakMap<IncludedTx, FlatFrame[]>()

function flatten(frame: CallFrameJson, depth: number, parentValue: string, out: FlatFrame[]): void {
  out.push({
    type: frame.type,
    depth,
    from: frame.from.toLowerCase(),
    to: frame.to?.toLowerCase(),
    value: frame.value,
    parentValue,
    input: frame.input,
    output: frame.output,
    error: frame.error,
  })
  for (const call of frame.calls ?? []) flatten(call, depth + 1, frame.value ?? parentValue, out)
}

/** The frames of a transaction the chain holds (sealed or pre-confirmed). */
export async function framesOf(node: DevNode, t: IncludedTx): Promise<FlatFrame[]> {
  const kept = cache.get(t)
  if (kept) return kept
  const top = (await node.debug.traceTransaction(t.tx.hash, CALL_TRACER)) as CallFrameJson
  const out: FlatFrame[] = []
  flatten(top, 0, '0x0', out)
  if (t.block.sealed) cache.set(t, out)
  return out
}

/** The hashes of a block's transactions that touch `address` (sent, received, or in any frame), newest first. */
async function touching(node: DevNode, block: BlockRecord, address: string): Promise<Uint8Array[]> {
  const found: Uint8Array[] = []
  for (const t of [...block.txs].reverse()) {
    const frames = await framesOf(node, t)
    if (frames.some((f) => f.from === address || f.to === address)) found.push(t.tx.hash)
  }
  return found
}

export interface SearchPage {
  hashes: Uint8Array[]
  firstPage: boolean
  lastPage: boolean
}

/** The first block a search reaches: after genesis, or after the fork block (earlier ones are the upstream's). */
const floorOf = (node: DevNode) => node.chain.first + 1n

/**
 * ots_searchTransactionsBefore, anvil's loop: from the block before `blockNumber` (the head when 0)
 * down, whole blocks, stopping at the first block that starts once `pageSize` hashes are in.
 */
export async function searchBefore(node: DevNode, address: string, blockNumber: bigint, pageSize: number): Promise<SearchPage> {
  const best = node.blockNumber()
  const from = blockNumber === 0n ? best : blockNumber - 1n
  const to = floorOf(node)
  const firstPage = from >= best
  let lastPage = false
  const hashes: Uint8Array[] = []
  for (let n = from; n >= to; n--) {
    const block = node.chain.byNumber(n)
    if (block) {
      const found = await touching(node, block, address)
      if (hashes.length >= pageSize) break
      hashes.push(...found)
    }
    if (n === to) lastPage = true
  }
  return { hashes, firstPage, lastPage }
}

/**
 * ots_searchTransactionsAfter, anvil's loop: from the block after `blockNumber` (the first when 0)
 * up, then reversed, so blocks come newest first (and, as on anvil, a block's own transactions in order).
 */
export async function searchAfter(node: DevNode, address: string, blockNumber: bigint, pageSize: number): Promise<SearchPage> {
  const best = node.blockNumber()
  const firstBlock = floorOf(node)
  const from = blockNumber === 0n ? firstBlock : blockNumber + 1n
  let firstPage = from >= best
  let lastPage = false
  const hashes: Uint8Array[] = []
  for (let n = from; n <= best; n++) {
    if (n === firstBlock) lastPage = true
    const block = node.chain.byNumber(n)
    if (block) {
      const found = await touching(node, block, address)
      if (hashes.length >= pageSize) break
      hashes.push(...found)
    }
    if (n === best) firstPage = true
  }
  return { hashes: hashes.reverse(), firstPage, lastPage }
}

/** ots_getContractCreator: the latest CREATE/CREATE2 frame that made `address`, newest block first. */
export async function contractCreator(node: DevNode, address: string): Promise<{ hash: string; creator: string } | null> {
  for (let n = node.blockNumber(); n >= node.chain.first; n--) {
    const block = node.chain.byNumber(n)
    if (!block) continue
    for (const t of [...block.txs].reverse()) {
      // A top-level creation needs no trace: its receipt names the address.
      const made = t.receipt.contractAddress
      if (made && toData(made) === address) return { hash: toData(t.tx.hash), creator: toData(t.tx.from) }
      const frames = await framesOf(node, t)
      const create = frames.findLast((f) => (f.type === 'CREATE' || f.type === 'CREATE2') && f.to === address)
      if (create) return { hash: toData(t.tx.hash), creator: create.from }
    }
  }
  return null
}
