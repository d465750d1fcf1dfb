// Cold blocks: sealed blocks past the recent window kept as one encoded stream each (codec.ts),
// decoded when read. At 200 ms blocks a day is 432,000 of them; as objects (a header of ~20
// values, each transaction's record, receipt and L1 fields, the indexes' hex keys) each took ~4 KiB
// of heap, as a stream a few hundred bytes. Reads decode the block again (tens of µs); the last
// blocks read stay decoded.
import { type Engine, logsBloom } from '../engine/index.js'
import { HEADER_FIELDS } from '../header-fields.js'
import {
  type BlockRecord,
  type HeaderFields,
  type IncludedTx,
  L1_RECEIPT_FIELDS,
  type L1ReceiptFields,
  type ReceiptData,
} from '../types.js'
import { Dictionary, Reader, Writer } from './codec.js'

/** What decoding needs from the engine: sealed transactions decoded when read, and keccak for blooms. */
export type TxRestorer = Pick<Engine, 'lazyTransaction' | 'keccak'>

// Flags of a block and of a transaction, for the fields only some have.
const HIDDEN = 1
const MILLIS = 2
const PAYLOAD_ID = 4
const ABSENT = 8

const IMPERSONATED = 1
const CONTRACT = 2
const BLOB_GAS_USED = 4
const BLOB_GAS_PRICE = 8
const DEPOSIT_NONCE = 16
const L1 = 32
const FAILURE = 64

/** Most decoded blocks kept at once: a page of eth_getLogs or an explorer list reads each a few times. */
const DECODED_KEPT = 256
/** Streams are copied into shared chunks of this size (a Uint8Array of its own costs ~100 bytes more). */
const CHUNK_BYTES = 256 * 1024

/** A chain's cold blocks' shared parts: the dictionary, the chunks and the decoded blocks kept. */
export class ColdStore {
  readonly dict = new Dictionary()
  private chunk = new Uint8Array(CHUNK_BYTES)
  private used = 0
  private readonly decoded = new Map<ColdBlock, DecodedBlock>()

  constructor(readonly restorer: TxRestorer) {}

  /** `block` as a cold block: the same values, read back from its stream. */
  freeze(block: BlockRecord): ColdBlock {
    const stream = encodeBlock(block, new Writer(this.dict))
    let logs = 0
    for (const t of block.txs) logs += t.receipt.logs.length
    const [chunk, offset] = this.keep(stream)
    return new ColdBlock(this, chunk, offset, stream.length, logs)
  }

  /** The decoded form of `block`, decoding it when it is not among the last read. */
  open(block: ColdBlock): DecodedBlock {
    let d = this.decoded.get(block)
    if (d) {
      // Most recently read last: the map's order is the eviction order.
      this.decoded.delete(block)
    } else {
      d = decodeBlock(block, new Reader(block.stream(), this.dict), this.restorer)
      if (this.decoded.size >= DECODED_KEPT) this.decoded.delete(this.decoded.keys().next().value as ColdBlock)
    }
    this.decoded.set(block, d)
    return d
  }

  /** Forgets a block's decoded form (it left the chain). */
  drop(block: ColdBlock): void {
    this.decoded.delete(block)
  }

  /** A copy of `stream` in a chunk: the chunk and the copy's offset in it. */
  private keep(stream: Uint8Array): [Uint8Array, number] {
    if (stream.length > CHUNK_BYTES / 4) return [stream.slice(), 0]
    if (this.used + stream.length > CHUNK_BYTES) {
      this.chunk = new Uint8Array(CHUNK_BYTES)
      this.used = 0
    }
    const offset = this.used
    this.chunk.set(stream, offset)
    this.used += stream.length
    return [this.chunk, offset]
  }
}

interface DecodedBlock {
  hash: Uint8Array
  header: HeaderFields
  txs: IncludedTx[]
  size: bigint
  flashblocks: number
  hidden?: boolean
  millis?: number
  payloadId?: Uint8Array
  absent?: ReadonlyArray<keyof HeaderFields>
}

/**
 * A sealed block kept as its stream. It is a BlockRecord whose fields are read from its decoded
 * form; sealed records are never written, so it has no setters.
 */
export class ColdBlock implements BlockRecord {
  // The stream as its chunk and place in it: a view of its own would cost ~100 bytes a block.
  constructor(
    private readonly store: ColdStore,
    private readonly chunk: Uint8Array,
    private readonly offset: number,
    private readonly length: number,
    /** How many logs its receipts hold: log queries skip blocks without any, undecoded. */
    readonly logCount: number,
  ) {}

  /** The encoded block. */
  stream(): Uint8Array {
    return this.chunk.subarray(this.offset, this.offset + this.length)
  }

  get sealed(): boolean {
    return true
  }
  get header(): HeaderFields {
    return this.store.open(this).header
  }
  get hash(): Uint8Array {
    return this.chunk.subarray(this.offset, this.offset + 32)
  }
  get txs(): IncludedTx[] {
    return this.store.open(this).txs
  }
  get size(): bigint {
    return this.store.open(this).size
  }
  get flashblocks(): number {
    return this.store.open(this).flashblocks
  }
  get hidden(): boolean | undefined {
    return this.store.open(this).hidden
  }
  get millis(): number | undefined {
    return this.store.open(this).millis
  }
  get payloadId(): Uint8Array | undefined {
    return this.store.open(this).payloadId
  }
  get absent(): ReadonlyArray<keyof HeaderFields> | undefined {
    return this.store.open(this).absent
  }
}

function encodeBlock(block: BlockRecord, w: Writer): Uint8Array {
  // The hash first, its 32 bytes at offset 0: ColdBlock.hash reads it in place.
  w.fixed(block.hash)
  const flags =
    (block.hidden ? HIDDEN : 0) |
    (block.millis !== undefined ? MILLIS : 0) |
    (block.payloadId ? PAYLOAD_ID : 0) |
    (block.absent?.length ? ABSENT : 0)
  w.varint(flags)
  w.quantity(block.size)
  w.varint(block.flashblocks)
  if (block.millis !== undefined) w.varint(block.millis)
  if (block.payloadId) w.bytes(block.payloadId)
  if (block.absent?.length) {
    w.varint(block.absent.length)
    for (const name of block.absent) w.varint(HEADER_FIELDS.findIndex((f) => f.name === name))
  }
  const h = block.header
  for (const { name, kind } of HEADER_FIELDS) {
    if (kind === 'quantity') w.quantity(h[name] as bigint)
    else w.bytes(h[name] as Uint8Array)
  }
  w.varint(block.txs.length)
  for (const t of block.txs) encodeTx(t, w)
  return w.finish()
}

function encodeTx(t: IncludedTx, w: Writer): void {
  const { tx, receipt: r } = t
  w.bytes(tx.raw)
  w.bytes(tx.hash)
  w.bytes(tx.from)
  const flags =
    (tx.impersonated ? IMPERSONATED : 0) |
    (r.contractAddress ? CONTRACT : 0) |
    (r.blobGasUsed !== undefined ? BLOB_GAS_USED : 0) |
    (r.blobGasPrice !== undefined ? BLOB_GAS_PRICE : 0) |
    (r.depositNonce !== undefined ? DEPOSIT_NONCE : 0) |
    (r.l1 ? L1 : 0) |
    (r.failure ? FAILURE : 0)
  w.varint(flags)
  w.varint(t.flashblockIndex)
  w.varint(r.status)
  w.quantity(r.gasUsed)
  w.quantity(r.cumulativeGasUsed)
  w.quantity(r.effectiveGasPrice)
  if (r.contractAddress) w.bytes(r.contractAddress)
  if (r.blobGasUsed !== undefined) w.quantity(r.blobGasUsed)
  if (r.blobGasPrice !== undefined) w.quantity(r.blobGasPrice)
  if (r.depositNonce !== undefined) w.quantity(r.depositNonce)
  if (r.l1) for (const k of L1_RECEIPT_FIELDS) w.quantity(r.l1[k])
  if (r.failure) {
    w.bytes(new TextEncoder().encode(r.failure.error))
    w.bytes(r.failure.output)
  }
  w.varint(r.logs.length)
  for (const log of r.logs) {
    w.bytes(log.address)
    w.varint(log.topics.length)
    for (const topic of log.topics) w.bytes(topic)
    w.bytes(log.data)
  }
}

function decodeBlock(block: ColdBlock, r: Reader, restorer: TxRestorer): DecodedBlock {
  const hash = r.fixed(32)
  const flags = r.varint()
  const out: DecodedBlock = { hash, header: {} as HeaderFields, txs: [], size: r.quantity(), flashblocks: r.varint() }
  if (flags & HIDDEN) out.hidden = true
  if (flags & MILLIS) out.millis = r.varint()
  if (flags & PAYLOAD_ID) out.payloadId = r.bytes()
  if (flags & ABSENT) out.absent = Array.from({ length: r.varint() }, () => HEADER_FIELDS[r.varint()].name)
  const header = out.header as unknown as Record<string, bigint | Uint8Array>
  for (const { name, kind } of HEADER_FIELDS) header[name] = kind === 'quantity' ? r.quantity() : r.bytes()
  const count = r.varint()
  let firstLogIndex = 0
  for (let index = 0; index < count; index++) {
    const t = decodeTx(r, restorer, block, index, firstLogIndex)
    firstLogIndex += t.receipt.logs.length
    out.txs.push(t)
  }
  return out
}

function decodeTx(r: Reader, restorer: TxRestorer, block: BlockRecord, index: number, firstLogIndex: number): IncludedTx {
  const raw = r.bytes()
  const hash = r.bytes()
  const from = r.bytes()
  const flags = r.varint()
  const flashblockIndex = r.varint()
  const receipt: ReceiptData = {
    status: r.varint() as 0 | 1,
    gasUsed: r.quantity(),
    cumulativeGasUsed: r.quantity(),
    effectiveGasPrice: r.quantity(),
    logs: [],
    logsBloom: EMPTY_BLOOM,
    firstLogIndex,
  }
  if (flags & CONTRACT) receipt.contractAddress = r.bytes()
  if (flags & BLOB_GAS_USED) receipt.blobGasUsed = r.quantity()
  if (flags & BLOB_GAS_PRICE) receipt.blobGasPrice = r.quantity()
  if (flags & DEPOSIT_NONCE) receipt.depositNonce = r.quantity()
  if (flags & L1) {
    const l1 = {} as Record<keyof L1ReceiptFields, bigint>
    for (const k of L1_RECEIPT_FIELDS) l1[k] = r.quantity()
    receipt.l1 = l1
  }
  if (flags & FAILURE) receipt.failure = { error: new TextDecoder().decode(r.bytes()), output: r.bytes() }
  const logCount = r.varint()
  for (let i = 0; i < logCount; i++) {
    const address = r.bytes()
    const topics = Array.from({ length: r.varint() }, () => r.bytes())
    receipt.logs.push({ address, topics, data: r.bytes() })
  }
  // Derived from the logs, as runTx builds it.
  if (logCount > 0) receipt.logsBloom = logsBloom(receipt.logs, restorer.keccak)
  let tx = restorer.lazyTransaction(raw, hash, from)
  if (flags & IMPERSONATED) tx = Object.assign(tx, { impersonated: true })
  return { tx, index, flashblockIndex, receipt, preconfirmedAt: 0, block }
}

/** The bloom of no logs, one array for every receipt without any (records are never written in place). */
const EMPTY_BLOOM = new Uint8Array(256)
