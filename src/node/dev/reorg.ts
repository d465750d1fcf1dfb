// anvil_reorg (anvil/src/eth/api.rs): the last `depth` sealed blocks leave the chain and `depth` new
// blocks take their heights, with new hashes (faults/replace.ts builds them). anvil's rules: a depth
// past the chain's height is refused, the transactions of the dropped blocks are gone unless given
// again, a request object is signed by its dev account at the sender's nonce in the common block,
// a transaction that fails is left out. The pool keeps what it holds.
import type { Admission } from '../admission/admission.js'
import { hexKey } from '../bytes.js'
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

/** anvil_reorg, inside the queue: the new blocks, each holding its transactions from prepareReorg. */
export async function reorg(ctx: ReorgParts, prepared: TxRecord[][]): Promise<void> {
  await replaceBlocks(
    ctx,
    prepared.map((txs) => ({ txs })),
  )
}
