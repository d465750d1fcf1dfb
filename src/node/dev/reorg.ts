// anvil_reorg (anvil/src/eth/api.rs): the last `depth` sealed blocks leave the chain and `depth` new
// blocks take their heights, with new hashes (faults/replace.ts builds them). anvil's rules: a depth
// past the chain's height is refused, the transactions of the dropped blocks are gone unless given
// again, a request object is signed by its dev account at the sender's nonce in the common block,
// a transaction that fails is left out. The pool keeps what it holds.
import type { Admission } from '../admission/admission.js'
import { hexKey } from '../bytes.js'
import type { NodeContext } from '../context.js'
import { InvalidParamsError, NodeError } from '../errors.js'
import { commonBlock, type ReorgParts, replaceBlocks } from '../faults/replace.js'
import type { CallRequest, TxRecord } from '../types.js'
import { MAX_MINE_BLOCKS } from './blocks.js'

/** One of anvil_reorg's transactions: a signed one, or a request a dev account signs. */
export type ReorgTx = { raw: Uint8Array } | { request: CallRequest }

/** A transaction and the offset of the new block it goes in (0 = the first replaced height). */
export interface ReorgPair {
  tx: ReorgTx
  offset: bigint
}

/**
 * anvil_reorg's transactions, by new block: raw ones decoded, requests filled and signed (outside
 * the queue: filling estimates gas in it). Requests take their sender's nonce in the common block,
 * counted up in block order, as anvil does.
 */
export async function prepareReorg(
  ctx: Pick<ReorgParts, 'engine' | 'chain'>,
  admission: Pick<Admission, 'buildSigned'>,
  depth: bigint,
  pairs: ReorgPair[],
): Promise<TxRecord[][]> {
  const { engine, chain } = ctx
  const common = commonBlock(chain, depth)
  // Each new block is built while the chain waits: anvil_mine's bound.
  if (depth > MAX_MINE_BLOCKS) throw new InvalidParamsError(`at most ${MAX_MINE_BLOCKS} blocks per call`)
  const late = pairs.find((p) => p.offset >= depth)
  if (late) {
    throw new InvalidParamsError(
      `Block number for reorg tx will exceed the reorged chain height. Block number ${late.offset} must not exceed (depth-1) ${depth - 1n}`,
    )
  }
  const blocks: TxRecord[][] = Array.from({ length: Number(depth) }, () => [])
  const nonces = new Map<string, bigint>()
  const sorted = pairs
    .map((p, i) => ({ ...p, i }))
    .sort((a, b) => (a.offset === b.offset ? a.i - b.i : a.offset < b.offset ? -1 : 1))
  for (const { tx, offset, i } of sorted) {
    let record: TxRecord
    if ('raw' in tx) {
      try {
        record = await engine.decodeTransaction(tx.raw)
      } catch (error) {
        if (!(error instanceof NodeError)) throw error
        throw new InvalidParamsError(`invalid argument 1: transaction ${i}: ${error.message}`)
      }
      if (record.deposit) {
        throw new InvalidParamsError(`invalid argument 1: transaction ${i} is a deposit: deposits come from L1, not from a reorg`)
      }
    } else {
      const from = tx.request.from as Uint8Array
      const key = hexKey(from)
      let nonce = nonces.get(key)
      if (nonce === undefined) {
        nonce = await engine.queue.run(async () => (await engine.viewAt(await chain.settledRootOf(common))).nonce(from))
      }
      record = await admission.buildSigned(tx.request, tx.request.nonce ?? nonce)
      nonces.set(key, nonce + 1n)
    }
    blocks[Number(offset)].push(record)
  }
  return blocks
}

/**
 * anvil_reorg, inside the queue: the new blocks, each holding its transactions from prepareReorg.
 * Announced as a fault line (the CLI's log): the heights replaced, old and new hashes, and the
 * transactions of the old blocks that none of the new ones holds (anvil says only "Mined reorg block").
 */
export async function reorg(ctx: ReorgParts & Pick<NodeContext, 'events'>, prepared: TxRecord[][]): Promise<void> {
  const old = ctx.chain.blocks.slice(ctx.chain.blocks.length - prepared.length)
  const sealed = await replaceBlocks(
    ctx,
    prepared.map((txs) => ({ txs })),
  )
  const kept = new Set(sealed.flatMap((b) => b.txs.map((t) => hexKey(t.tx.hash))))
  const gone = old.flatMap((b) => b.txs.filter((t) => !t.tx.deposit && !kept.has(hexKey(t.tx.hash))).map((t) => hex(t.tx.hash)))
  const first = old[0]?.header.number
  if (first === undefined) return
  const last = first + BigInt(old.length) - 1n
  const heights = old.length > 1 ? `blocks ${first}..${last}` : `block ${first}`
  ctx.events.emit('fault', {
    kind: 'reorg',
    message: `reorg: ${heights} replaced by anvil_reorg (${old.map((b) => hex(b.hash)).join(', ')} -> ${sealed.map((b) => hex(b.hash)).join(', ')}); ${gone.length ? `left out: ${gone.join(', ')}` : 'no transaction left out'}`,
  })
}

const hex = (bytes: Uint8Array) => `0x${hexKey(bytes)}`
