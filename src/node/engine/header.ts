// Headers between the node's records (HeaderFields) and ethereumjs: the block a transaction runs
// in, a header's hash and RLP size, and what EIP-1559 and EIP-4844 derive from it.
import { type Block, type BlockHeader, createBlock, createBlockHeader, type HeaderData } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes } from '@ethereumjs/util'
import { EMPTY_REQUESTS_HASH, EMPTY_TRIE_ROOT, emptyHeader, HEADER_FIELDS } from '../header-fields.js'
import type { HeaderFields, Withdrawal } from '../types.js'
import { blockCommon } from './vm/commons.js'

/** ethereumjs' names for the two roots it names differently; every other field shares its name. */
const ETHEREUMJS_NAMES: Partial<Record<keyof HeaderFields, keyof HeaderData>> = {
  transactionsRoot: 'transactionsTrie',
  receiptsRoot: 'receiptTrie',
}

export function toHeaderData(f: HeaderFields): HeaderData {
  const data: Record<string, unknown> = {}
  for (const { name } of HEADER_FIELDS) data[ETHEREUMJS_NAMES[name] ?? name] = f[name]
  return data as HeaderData
}

/** Header fields the Common's current hardfork does not have. */
export function absentHeaderFields(common: Common): Array<keyof HeaderFields> {
  const absent: Array<keyof HeaderFields> = []
  if (!common.isActivatedEIP(1559)) absent.push('baseFeePerGas')
  if (!common.isActivatedEIP(4895)) absent.push('withdrawalsRoot')
  if (!common.isActivatedEIP(4844)) absent.push('blobGasUsed', 'excessBlobGas')
  if (!common.isActivatedEIP(4788)) absent.push('parentBeaconBlockRoot')
  if (!common.isActivatedEIP(7685)) absent.push('requestsHash')
  return absent
}

/** Header data with the fields the Common's current hardfork lacks left out (ethereumjs rejects them). */
export function activeHeaderData(common: Common, data: HeaderData): HeaderData {
  const out = { ...data } as Record<string, unknown>
  for (const field of absentHeaderFields(common)) delete out[ETHEREUMJS_NAMES[field] ?? field]
  // A proof-of-stake hardfork refuses work fields: an older block re-run under it (a call at a
  // block before the merge) runs without them, as its stored hash is used, not recomputed.
  if (common.consensusType() === 'pos') {
    out.difficulty = 0n
    out.nonce = new Uint8Array(8)
  }
  return out as HeaderData
}

/** The node's record of an ethereumjs header (fields a hardfork lacks take neutral values). */
export function headerFieldsOf(h: BlockHeader): HeaderFields {
  return emptyHeader({
    parentHash: h.parentHash,
    number: h.number,
    timestamp: h.timestamp,
    gasLimit: h.gasLimit,
    gasUsed: h.gasUsed,
    baseFeePerGas: h.baseFeePerGas ?? 0n,
    coinbase: h.coinbase.bytes,
    stateRoot: h.stateRoot,
    transactionsRoot: h.transactionsTrie,
    receiptsRoot: h.receiptTrie,
    logsBloom: h.logsBloom,
    difficulty: h.difficulty,
    mixHash: h.mixHash,
    nonce: h.nonce,
    extraData: h.extraData,
    withdrawalsRoot: h.withdrawalsRoot ?? EMPTY_TRIE_ROOT,
    blobGasUsed: h.blobGasUsed ?? 0n,
    excessBlobGas: h.excessBlobGas ?? 0n,
    parentBeaconBlockRoot: h.parentBeaconBlockRoot ?? new Uint8Array(32),
    requestsHash: h.requestsHash ?? EMPTY_REQUESTS_HASH,
  })
}

/**
 * The block a transaction executes in: `header` under the Common's current hardfork. Built once
 * per block (runTx only reads its header), not per transaction.
 */
export class BlockEnv {
  /** @internal the engine's block object. */
  readonly block: Block
  private zeroFee: Block | undefined
  constructor(
    private readonly common: Common,
    readonly header: HeaderFields,
  ) {
    this.block = createBlock(
      { header: activeHeaderData(common, toHeaderData(header)) },
      { common: blockCommon(common), setHardfork: false },
    )
  }

  /**
   * @internal The block with base fee 0, where a deposit runs: it pays no gas price, which
   * ethereumjs' runTx accepts only under a zero base fee (BASEFEE is put back by the caller).
   */
  get zeroFeeBlock(): Block {
    this.zeroFee ??= createBlock(
      { header: activeHeaderData(this.common, toHeaderData({ ...this.header, baseFeePerGas: 0n })) },
      { common: blockCommon(this.common), setHardfork: false },
    )
    return this.zeroFee
  }

  /** EIP-4844 blob base fee of this block. */
  blobGasPrice(): bigint {
    return this.block.header.getBlobGasPrice()
  }
}

/** What the node asks of a header: its hash and size, and the fees of the block after it. */
export class HeaderView {
  private readonly h: BlockHeader
  constructor(
    private readonly common: Common,
    fields: HeaderFields,
  ) {
    this.h = createBlockHeader(activeHeaderData(common, toHeaderData(fields)), {
      common: blockCommon(common),
      setHardfork: false,
    })
  }

  hash(): Uint8Array {
    return this.h.hash()
  }

  /** Bytes of the header's RLP. */
  size(): number {
    return this.h.serialize().length
  }

  nextBaseFee(): bigint {
    return this.h.calcNextBaseFee()
  }

  // The block params (EIP-7918's blobBaseCost…) are in the params-merged Common, not the engine's.
  nextExcessBlobGas(): bigint {
    return this.h.calcNextExcessBlobGas(blockCommon(this.common))
  }

  blobGasPrice(): bigint {
    return this.h.getBlobGasPrice()
  }

  nextBlobGasPrice(): bigint {
    return this.h.calcNextBlobGasPrice(blockCommon(this.common))
  }

  /**
   * Size of the whole block's RLP: [header, transactions (typed ones as byte strings), uncles,
   * withdrawals]. `txs` are the transactions' envelopes and types.
   */
  blockSize(txs: Array<{ raw: Uint8Array; type: number }>, withdrawals: Withdrawal[]): bigint {
    const body = txs.map((t) => (t.type === 0 ? RLP.decode(t.raw) : t.raw))
    const parts: unknown[] = [this.h.raw(), body, []]
    // Blocks before Shanghai have no withdrawals list.
    if (this.common.isActivatedEIP(4895)) parts.push(withdrawals.map(withdrawalRaw))
    return BigInt(RLP.encode(parts as never).length)
  }

  /** The proof-of-work difficulty of a child of `parent` with this header's number and time (ethash). */
  powDifficulty(parent: HeaderView): bigint {
    return this.h.ethashCanonicalDifficulty(parent.h)
  }
}

export function withdrawalRaw(w: Withdrawal): Uint8Array[] {
  return [bigIntToUnpaddedBytes(w.index), bigIntToUnpaddedBytes(w.validatorIndex), w.address, bigIntToUnpaddedBytes(w.amount)]
}
