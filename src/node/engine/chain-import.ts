// Start from a geth genesis file (--genesis) and import a chain of concatenated RLP blocks on top of
// it (--import): each block is executed with runBlock({ generate: false }), so its state root,
// receipts root, bloom, gas used and requests hash are checked against the header. Every imported
// block becomes a sealed BlockRecord (header, transactions, receipts, logs) and keeps its state.
import { readFileSync } from 'node:fs'
import { type Block, createBlockFromRLP } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, equalsBytes } from '@ethereumjs/util'
import { runBlock } from '@ethereumjs/vm'
import { effectiveGasPrice } from '../fees.js'
import type { BlockRecord, IncludedTx } from '../types.js'
import type { Engine } from './engine.js'
import { writeGenesisFileState } from './genesis-file.js'
import { absentHeaderFields, headerFieldsOf } from './header.js'
import { recordOf } from './tx/record.js'

/** A block that did not import: which one and why. */
export class ChainImportError extends Error {
  override name = 'ChainImportError'
}

/** Writes the genesis file's state; returns its genesis block. */
export async function genesisFileBlock(engine: Engine): Promise<BlockRecord> {
  if (!engine.genesisFile) throw new Error('the engine was not created from a genesis file')
  const block = await writeGenesisFileState(engine.genesisFile, engine.common, engine.state)
  return recordOfBlock(block, [])
}

/** Splits concatenated RLP items (geth's export format: no separators). */
export function splitRlpBlocks(bytes: Uint8Array): Uint8Array[] {
  const items: Uint8Array[] = []
  let rest = bytes
  while (rest.length > 0) {
    let remainder: Uint8Array
    try {
      remainder = (RLP.decode(rest, true) as { remainder: Uint8Array }).remainder
    } catch (error) {
      throw new ChainImportError(`chain file: item ${items.length + 1} is not valid RLP: ${(error as Error).message}`)
    }
    items.push(rest.subarray(0, rest.length - remainder.length))
    rest = remainder
  }
  return items
}

/**
 * Imports the blocks of `file` on top of `head`, handing each to `onBlock` as it is executed (the
 * next one builds on it); returns how many.
 */
export async function importChainFile(
  engine: Engine,
  file: string,
  head: BlockRecord,
  onBlock: (block: BlockRecord) => void,
): Promise<number> {
  let bytes: Uint8Array
  try {
    bytes = new Uint8Array(readFileSync(file))
  } catch (error) {
    throw new ChainImportError(`cannot read chain file ${file}: ${(error as Error).message}`)
  }
  const items = splitRlpBlocks(bytes)
  const { common } = engine
  const vm = engine.live.vm
  let parent = head
  for (const [i, item] of items.entries()) {
    let block: Block
    try {
      block = createBlockFromRLP(item, { common, setHardfork: true })
    } catch (error) {
      throw new ChainImportError(
        `block ${parent.header.number + 1n} (item ${i + 1} of ${file}) does not decode: ${(error as Error).message}`,
      )
    }
    const name = `block ${block.header.number} (${bytesToHex(block.hash())}, ${block.common.hardfork()})`
    const fail = (reason: string) => new ChainImportError(`cannot import ${name}: ${reason}`)
    if (block.header.number !== parent.header.number + 1n) {
      throw fail(`expected block ${parent.header.number + 1n} after the head`)
    }
    if (!equalsBytes(block.header.parentHash, parent.hash)) {
      throw fail(`parentHash ${bytesToHex(block.header.parentHash)} is not the head's hash ${bytesToHex(parent.hash)}`)
    }
    if (block.header.timestamp <= parent.header.timestamp && block.header.number > 0n) {
      throw fail(`timestamp ${block.header.timestamp} is not after the parent's ${parent.header.timestamp}`)
    }
    let result: Awaited<ReturnType<typeof runBlock>>
    // runBlock validates the body (transactions, trie roots, uncles, withdrawals) and, with
    // generate: false, checks the state root, receipts root, bloom, gas used and requests hash.
    try {
      result = await runBlock(vm, { block, generate: false, setHardfork: true, skipHeaderValidation: true })
    } catch (error) {
      throw fail((error as Error).message)
    }
    parent = recordOfBlock(
      block,
      result.results.map((r, k) => ({ r, receipt: result.receipts[k] })),
    )
    onBlock(parent)
  }
  return items.length
}

type Executed = {
  r: Awaited<ReturnType<typeof runBlock>>['results'][number]
  receipt: Awaited<ReturnType<typeof runBlock>>['receipts'][number]
}

function recordOfBlock(block: Block, executed: Executed[]): BlockRecord {
  const header = headerFieldsOf(block.header)
  const record: BlockRecord = {
    header,
    hash: block.hash(),
    sealed: true,
    txs: [],
    flashblocks: 0,
    size: BigInt(block.serialize().length),
  }
  const absent = absentHeaderFields(block.common)
  if (absent.length > 0) record.absent = absent
  let logIndex = 0
  const blobGasPrice = block.common.isActivatedEIP(4844) ? block.header.getBlobGasPrice() : undefined
  const blobGasPerBlob = block.common.isActivatedEIP(4844) ? block.common.param('blobGasPerBlob') : 0n
  for (const [index, tx] of block.transactions.entries()) {
    const { r, receipt } = executed[index]
    const logs = receipt.logs.map(([address, topics, data]) => ({ address, topics, data }))
    const txRecord = recordOf(tx, tx.serialize(), tx.hash(), tx.getSenderAddress().bytes)
    const blobGas = txRecord.blobVersionedHashes ? BigInt(txRecord.blobVersionedHashes.length) * blobGasPerBlob : undefined
    const t: IncludedTx = {
      tx: txRecord,
      index,
      flashblockIndex: 0,
      preconfirmedAt: 0,
      block: record,
      receipt: {
        status: 'status' in receipt ? (receipt.status as 0 | 1) : r.execResult.exceptionError ? 0 : 1,
        gasUsed: r.totalGasSpent,
        cumulativeGasUsed: receipt.cumulativeBlockGasUsed,
        effectiveGasPrice: effectiveGasPrice(txRecord, header.baseFeePerGas),
        contractAddress: r.createdAddress?.bytes,
        logs,
        logsBloom: receipt.bitvector,
        blobGasUsed: blobGas,
        blobGasPrice: blobGas ? blobGasPrice : undefined,
        firstLogIndex: logIndex,
      },
    }
    logIndex += logs.length
    record.txs.push(t)
  }
  return record
}
