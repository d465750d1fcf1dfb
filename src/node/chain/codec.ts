// The byte stream a cold block is kept as (cold.ts): varint-prefixed items, each either a literal
// or a reference to a value the chain's dictionary already holds. A block's record as objects is
// ~4 KiB of heap (a Uint8Array is ~100 bytes besides its bytes, a bigint ~30); as this stream an
// empty Base block is a few hundred bytes, and values every block repeats (the coinbase, the zero
// bloom, the empty roots, the system deposits' senders…) a byte or two.
import { hexKey, packed } from '../bytes.js'

/** Values shorter than this are cheaper as literals than as dictionary entries (~200 bytes each). */
const MIN_INTERNED = 16
/** Shortest value patched from its slot's template (shorter ones are looked up whole). */
const MIN_PATCHED = 64
/** Longest value compared to its slot's template (raw transactions, calldata). */
const MAX_PATCHED = 4096
/** Most entries a dictionary takes; past it, values stay literals. */
const MAX_ENTRIES = 1 << 16

/**
 * Values that repeat, each kept once. A value is added when it is the one the previous block held
 * in the same slot (the n-th item of its stream): a constant of the chain, not a one-off. A long
 * value whose slot held one of its length in the previous block (a system deposit's envelope) is
 * written as its differences from a template of that slot.
 */
export class Dictionary {
  readonly values: Uint8Array[] = []
  private readonly index = new Map<string, number>()
  /** Per slot: the previous block's value there (hex, or the value when long), and the current block's. */
  private previous: Array<string | Uint8Array> = []
  private current: Array<string | Uint8Array> = []
  private readonly templates: number[] = []

  /** Starts a block's stream: the slots of the one before become the previous ones. */
  startBlock(): void {
    this.previous = this.current
    this.current = []
  }

  /** The reference of `value` at `slot`, adding it when it repeats; undefined: write it otherwise. */
  refOf(value: Uint8Array, slot: number): number | undefined {
    if (value.length < MIN_INTERNED) return undefined
    const key = hexKey(value)
    this.current[slot] = key
    const known = this.index.get(key)
    if (known !== undefined) return known
    if (this.previous[slot] !== key || this.values.length >= MAX_ENTRIES) return undefined
    return this.add(value, key)
  }

  /** The template a long value at `slot` is patched from; undefined when the slot has none of its length. */
  templateOf(value: Uint8Array, slot: number): number | undefined {
    const before = this.previous[slot]
    this.current[slot] = value
    const ref = this.templates[slot]
    if (ref !== undefined && this.values[ref].length === value.length) return ref
    if (!(before instanceof Uint8Array) || before.length !== value.length || this.values.length >= MAX_ENTRIES) return undefined
    this.templates[slot] = this.add(before, undefined)
    return this.templates[slot]
  }

  /** The slot's values drifted from its template: the next block takes a new one. */
  dropTemplate(slot: number): void {
    delete this.templates[slot]
  }

  private add(value: Uint8Array, key: string | undefined): number {
    const ref = this.values.length
    this.values.push(packed(value.slice()))
    if (key !== undefined) this.index.set(key, ref)
    return ref
  }
}

/** Item kinds, in a varint's two low bits. */
const LITERAL = 0
const REF = 1
const PATCH = 2

/** Writes one block's stream. */
export class Writer {
  private buf = new Uint8Array(1024)
  private pos = 0
  private slot = 0

  constructor(private readonly dict: Dictionary) {
    dict.startBlock()
  }

  varint(n: number): void {
    this.room(10)
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 0x80) | 0x80
      n = Math.floor(n / 0x80)
    }
    this.buf[this.pos++] = n
  }

  bytes(value: Uint8Array): void {
    const slot = this.slot++
    if (value.length < MIN_PATCHED) {
      const ref = this.dict.refOf(value, slot)
      if (ref !== undefined) {
        this.varint(ref * 4 + REF)
        return
      }
    } else if (value.length <= MAX_PATCHED && this.patch(value, slot)) {
      return
    }
    this.varint(value.length * 4 + LITERAL)
    this.raw(value)
  }

  quantity(q: bigint): void {
    if (q < 0x1000000000000n) {
      // Unpadded big-endian bytes, as RLP and the header carry quantities.
      let n = Number(q)
      let len = 0
      for (let m = n; m > 0; m = Math.floor(m / 256)) len++
      this.varint(len * 4 + LITERAL)
      this.room(len)
      for (let i = len - 1; i >= 0; i--) {
        this.buf[this.pos + i] = n % 256
        n = Math.floor(n / 256)
      }
      this.pos += len
      this.slot++
      return
    }
    let hex = q.toString(16)
    if (hex.length % 2) hex = `0${hex}`
    this.bytes(Uint8Array.from(Buffer.from(hex, 'hex')))
  }

  /** Bytes as they are, no item around them: a field of a known size at a known offset. */
  fixed(value: Uint8Array): void {
    this.raw(value)
  }

  /** The stream so far (a view of the writer's buffer). */
  finish(): Uint8Array {
    return this.buf.subarray(0, this.pos)
  }

  /**
   * `value` as its differences from the slot's template: runs of [equal bytes, different bytes,
   * the different bytes]. Declined when the patch is not much shorter than the value.
   */
  private patch(value: Uint8Array, slot: number): boolean {
    const ref = this.dict.templateOf(value, slot)
    if (ref === undefined) return false
    const template = this.dict.values[ref]
    const start = this.pos
    this.varint(ref * 4 + PATCH)
    let i = 0
    while (i < value.length) {
      let same = i
      while (same < value.length && value[same] === template[same]) same++
      if (same === value.length) break
      let end = same
      // A run of differences ends at 4 equal bytes (shorter gaps cost more as two runs).
      while (end < value.length && !(value[end] === template[end] && equalRun(value, template, end, 4))) end++
      this.varint(same - i)
      this.varint(end - same)
      this.raw(value.subarray(same, end))
      i = end
      if (this.pos - start > value.length / 2) {
        this.pos = start
        this.dict.dropTemplate(slot)
        return false
      }
    }
    this.varint(value.length - i)
    this.varint(0)
    return true
  }

  private raw(value: Uint8Array): void {
    this.room(value.length)
    this.buf.set(value, this.pos)
    this.pos += value.length
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n))
    grown.set(this.buf.subarray(0, this.pos))
    this.buf = grown
  }
}

function equalRun(a: Uint8Array, b: Uint8Array, from: number, n: number): boolean {
  for (let i = from; i < from + n && i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** Reads a block's stream. Literals are views of it: records are never written in place. */
export class Reader {
  private pos = 0

  constructor(
    private readonly buf: Uint8Array,
    private readonly dict: Dictionary,
  ) {}

  varint(): number {
    let n = 0
    let scale = 1
    for (;;) {
      const b = this.buf[this.pos++]
      n += (b & 0x7f) * scale
      if (b < 0x80) return n
      scale *= 0x80
    }
  }

  /** `n` bytes written with Writer.fixed. */
  fixed(n: number): Uint8Array {
    this.pos += n
    return this.buf.subarray(this.pos - n, this.pos)
  }

  bytes(): Uint8Array {
    const item = this.varint()
    const kind = item % 4
    const n = Math.floor(item / 4)
    if (kind === REF) return this.dict.values[n]
    if (kind === PATCH) return this.patched(this.dict.values[n])
    this.pos += n
    return this.buf.subarray(this.pos - n, this.pos)
  }

  quantity(): bigint {
    const b = this.bytes()
    if (b.length > 6) return BigInt(`0x${hexKey(b)}`)
    let n = 0
    for (const x of b) n = n * 256 + x
    return BigInt(n)
  }

  private patched(template: Uint8Array): Uint8Array {
    const out = template.slice()
    let i = 0
    for (;;) {
      i += this.varint()
      const n = this.varint()
      if (n === 0) return out
      out.set(this.buf.subarray(this.pos, this.pos + n), i)
      this.pos += n
      i += n
    }
  }
}
