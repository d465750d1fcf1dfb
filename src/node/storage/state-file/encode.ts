// Saving: what the state file takes from the node (inside the engine queue) and its text (outside).

import { type Hex, toData as hex, toQuantity as qty } from '../../../shared/hex.js'
import type { Chain } from '../../chain/chain.js'
import type { AccountDump, Engine } from '../../engine/index.js'
import { HEADER_FIELDS } from '../../header-fields.js'
import { isL1InfoDeposit } from '../../opstack/l1-block.js'
import type { TxPool } from '../../pool/pool.js'
import type { BlockRecord, HeaderFields, ReceiptData, TxRecord } from '../../types.js'
import {
  type AccountJson,
  type BlockJson,
  type ForkJson,
  type HeaderJson,
  type PoolJson,
  type ReceiptJson,
  STATE_FORMAT,
  STATE_VERSION,
  type StateFileJson,
} from './format.js'

/** What a save takes from the node inside the engine queue; rendering to text happens outside it. */
export interface StateCapture {
  chainId: bigint
  hardfork: string
  timeOffset: bigint
  stateRoot: Uint8Array
  /** Sorted by address (account state changes under the queue, so it is read there). */
  accounts: AccountDump[]
  /** Sealed records never change, so these render outside the queue. */
  blocks: BlockRecord[]
  pool: PoolJson[]
  fork?: ForkJson
  /** Other parts of the node's entries by key (persistence.ts StateSection), written after the pool. */
  sections?: Record<string, unknown[]>
}

/** Inside the engine queue: the head's state, the history and the pool (with the open block's transactions). */
export async function captureState(
  { engine, chain, pool, fork }: { engine: Engine; chain: Chain; pool: TxPool; fork?: { point: { number: bigint; hash: Hex } } },
  timeOffset: bigint,
): Promise<StateCapture> {
  const stateRoot = await chain.settledRootOf(chain.head)
  // The open block's L1-info deposit is not kept: the next block makes its own.
  const pending: PoolJson[] = (chain.pending?.txs ?? []).filter((t) => !isL1InfoDeposit(t.tx)).map((t) => poolJson(t.tx))
  const pooled = pool.all().map((info) => poolJson(info.tx))
  return {
    chainId: engine.chainId,
    hardfork: engine.hardfork(),
    timeOffset,
    stateRoot,
    accounts: await engine.dumpAccounts(stateRoot),
    blocks: chain.blocks.slice(),
    pool: [...pending, ...pooled],
    ...(fork ? { fork: { blockNumber: qty(fork.point.number), blockHash: fork.point.hash } } : {}),
  }
}

function poolJson(tx: TxRecord): PoolJson {
  const entry: PoolJson = { hash: hex(tx.hash), from: hex(tx.from), raw: hex(tx.raw) }
  if (tx.impersonated) entry.impersonated = true
  return entry
}

function accountJson(a: AccountDump): AccountJson {
  if (a.deleted) return { nonce: '0x0', balance: '0x0', deleted: true }
  const entry: AccountJson = { nonce: qty(a.nonce), balance: qty(a.balance) }
  if (a.code.length > 0) entry.code = hex(a.code)
  if (a.storage.length > 0) entry.storage = Object.fromEntries(a.storage.map(([slot, value]) => [hex(slot), hex(value)]))
  return entry
}

/** Rendered blocks, kept per sealed record: periodic saves then only render what is new. */
const renderedBlocks = new WeakMap<BlockRecord, string>()

function renderBlock(block: BlockRecord): string {
  let text = renderedBlocks.get(block)
  if (text === undefined) {
    text = JSON.stringify(blockJson(block))
    renderedBlocks.set(block, text)
  }
  return text
}

export function headerJson(h: HeaderFields): HeaderJson {
  const out = {} as HeaderJson
  for (const { name } of HEADER_FIELDS) {
    const value = h[name]
    out[name] = typeof value === 'bigint' ? qty(value) : hex(value)
  }
  return out
}

function blockJson(block: BlockRecord): BlockJson {
  return {
    hash: hex(block.hash),
    size: qty(block.size),
    flashblocks: qty(block.flashblocks),
    header: headerJson(block.header),
    transactions: block.txs.map((t) => ({
      hash: hex(t.tx.hash),
      from: hex(t.tx.from),
      raw: hex(t.tx.raw),
      flashblockIndex: qty(t.flashblockIndex),
      receipt: receiptJson(t.receipt),
    })),
  }
}

function receiptJson(r: ReceiptData): ReceiptJson {
  const out: ReceiptJson = {
    status: qty(r.status),
    gasUsed: qty(r.gasUsed),
    cumulativeGasUsed: qty(r.cumulativeGasUsed),
    effectiveGasPrice: qty(r.effectiveGasPrice),
    logs: r.logs.map((l) => ({ address: hex(l.address), topics: l.topics.map(hex), data: hex(l.data) })),
  }
  if (r.contractAddress) out.contractAddress = hex(r.contractAddress)
  if (r.blobGasUsed !== undefined) out.blobGasUsed = qty(r.blobGasUsed)
  if (r.blobGasPrice !== undefined) out.blobGasPrice = qty(r.blobGasPrice)
  if (r.depositNonce !== undefined) out.depositNonce = qty(r.depositNonce)
  if (r.l1) out.l1 = Object.fromEntries(Object.entries(r.l1).map(([k, v]) => [k, qty(v)])) as ReceiptJson['l1']
  return out
}

/** The file's text: valid JSON with one account, block or pool entry per line (greppable, diffable). */
export function renderState(c: StateCapture): string {
  const head = c.blocks[c.blocks.length - 1]
  const top: Omit<StateFileJson, 'accounts' | 'blocks' | 'pool'> = {
    format: STATE_FORMAT,
    version: STATE_VERSION,
    chainId: qty(c.chainId),
    hardfork: c.hardfork,
    savedAt: new Date().toISOString(),
    timeOffset: Number(c.timeOffset),
    blockNumber: qty(head.header.number),
    blockHash: hex(head.hash),
    stateRoot: hex(c.stateRoot),
    ...(c.fork ? { fork: c.fork } : {}),
  }
  const parts: string[] = [JSON.stringify(top).slice(0, -1), ',\n"accounts":{']
  c.accounts.forEach((account, i) => {
    parts.push(`${i ? ',' : ''}\n${JSON.stringify(hex(account.address))}:${JSON.stringify(accountJson(account))}`)
  })
  parts.push('\n},\n"blocks":[')
  c.blocks.forEach((block, i) => {
    parts.push(`${i ? ',' : ''}\n${renderBlock(block)}`)
  })
  parts.push('\n],\n"pool":[')
  c.pool.forEach((entry, i) => {
    parts.push(`${i ? ',' : ''}\n${JSON.stringify(entry)}`)
  })
  parts.push('\n]')
  for (const [key, entries] of Object.entries(c.sections ?? {})) {
    parts.push(`,\n${JSON.stringify(key)}:[`)
    entries.forEach((entry, i) => {
      parts.push(`${i ? ',' : ''}\n${JSON.stringify(entry)}`)
    })
    parts.push('\n]')
  }
  parts.push('}\n')
  return parts.join('')
}
