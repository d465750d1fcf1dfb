// What alloy-sol-types' validating decoder (SolCall::abi_decode_raw_validate, 1.x) says of a call's
// arguments, which Base's B20 dispatch returns after the selector (AbiDecodeFailed). Decoding walks
// the arguments as alloy's Decoder does (an offset or length whose high 24 bytes are set fails as
// `"offset (usize)"`, anything past the end as an overrun); then the whole argument tuple is type
// checked at once, so a bad word names the tuple's type and alloy's re-encoding of every argument
// (abi::encode of the tuple token: the raw words as sent, dynamic parts laid out canonically).

/** One argument: its ABI type, and for a Solidity enum the number of members at the fork. */
export interface AbiArg {
  type: string
  enumCount?: number
}

const OVERRUN = 'ABI decoding failed: buffer overrun while deserializing'
/** Rust's TryReserveError::CapacityOverflow, as Display prints it (alloy's vec_try_with_capacity). */
const CAPACITY_OVERFLOW = "memory allocation failed because the computed capacity exceeded the collection's maximum"
const ISIZE_MAX = (1n << 63n) - 1n

type Node =
  | { kind: 'word'; valid: (word: Uint8Array) => boolean }
  | { kind: 'bytes'; utf8: boolean }
  | { kind: 'array'; of: Node; size: bigint }
type Token = { word: Uint8Array } | { bytes: Uint8Array } | { items: Token[] }

const zero = (bytes: Uint8Array) => bytes.every((b) => b === 0)
const utf8 = new TextDecoder('utf-8', { fatal: true })
const isUtf8 = (bytes: Uint8Array) => {
  try {
    utf8.decode(bytes)
    return true
  } catch {
    return false
  }
}

/** The decoder node of `type`; undefined for a type this check does not cover (tuples, fixed arrays). */
function nodeOf(type: string, enumCount?: number): Node | undefined {
  if (type.endsWith('[]')) {
    const of = nodeOf(type.slice(0, -2), enumCount)
    // Rust's in-memory size of the element token (WordToken, PackedSeqToken, DynSeqToken).
    return of && { kind: 'array', of, size: of.kind === 'word' ? 32n : of.kind === 'bytes' ? 16n : 24n }
  }
  if (type === 'string' || type === 'bytes') return { kind: 'bytes', utf8: type === 'string' }
  if (type === 'address') return { kind: 'word', valid: (w) => zero(w.subarray(0, 12)) }
  if (type === 'bool') return { kind: 'word', valid: (w) => zero(w.subarray(0, 31)) }
  const uint = /^uint(\d+)$/.exec(type)
  if (uint) {
    const high = 32 - Number(uint[1]) / 8
    if (enumCount !== undefined) return { kind: 'word', valid: (w) => zero(w.subarray(0, 31)) && w[31] < enumCount }
    return { kind: 'word', valid: (w) => zero(w.subarray(0, high)) }
  }
  const int = /^int(\d+)$/.exec(type)
  if (int) {
    const msb = 32 - Number(int[1]) / 8
    return { kind: 'word', valid: (w) => w.subarray(0, msb).every((b) => b === ((w[msb] & 0x80) === 0 ? 0 : 0xff)) }
  }
  const fixed = /^bytes(\d+)$/.exec(type)
  if (fixed) return { kind: 'word', valid: (w) => zero(w.subarray(Number(fixed[1]))) }
  return undefined
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
class DecodeError extends Error {}

/** alloy's Decoder over `buf` from `offset`. */
class Decoder {
  constructor(
    readonly buf: Uint8Array,
    public offset = 0,
  ) {}
  word(): Uint8Array {
    if (this.offset + 32 > this.buf.length) throw new DecodeError(OVERRUN)
    const word = this.buf.subarray(this.offset, this.offset + 32)
    this.offset += 32
    return word
  }
  /** utils::as_offset: a usize, its high 24 bytes zero. */
  offsetWord(): bigint {
    const word = this.word()
    if (!zero(word.subarray(0, 24))) throw new DecodeError(`type check failed for "offset (usize)" with data: ${hex(word)}`)
    return BigInt(`0x${hex(word.subarray(24))}`)
  }
  child(at: bigint): Decoder {
    if (at > BigInt(this.buf.length)) throw new DecodeError(OVERRUN)
    return new Decoder(this.buf.subarray(Number(at)))
  }
}

function decode(node: Node, dec: Decoder): Token {
  if (node.kind === 'word') return { word: dec.word() }
  const child = dec.child(dec.offsetWord())
  const length = child.offsetWord()
  if (node.kind === 'bytes') {
    if (BigInt(child.offset) + length > BigInt(child.buf.length)) throw new DecodeError(OVERRUN)
    return { bytes: child.buf.subarray(child.offset, child.offset + Number(length)) }
  }
  if (length * node.size > ISIZE_MAX) throw new DecodeError(CAPACITY_OVERFLOW)
  const elements = child.child(BigInt(child.offset))
  const items: Token[] = []
  for (let i = 0n; i < length; i++) items.push(decode(node.of, elements))
  return { items }
}

function valid(node: Node, token: Token): boolean {
  if (node.kind === 'word') return node.valid((token as { word: Uint8Array }).word)
  if (node.kind === 'bytes') return !node.utf8 || isUtf8((token as { bytes: Uint8Array }).bytes)
  return (token as { items: Token[] }).items.every((item) => valid(node.of, item))
}

const u256 = (n: number) => {
  const word = new Uint8Array(32)
  new DataView(word.buffer).setUint32(28, n)
  return word
}
const padded = (bytes: Uint8Array) => {
  const out = new Uint8Array(Math.ceil(bytes.length / 32) * 32)
  out.set(bytes)
  return out
}

/** encode_sequence: heads (a word, or an offset from the sequence's start), then the tails in order. */
function encodeSequence(nodes: readonly Node[], tokens: readonly Token[]): Uint8Array[] {
  const heads: Uint8Array[] = []
  const tails: Uint8Array[] = []
  let tailSize = 32 * nodes.length
  nodes.forEach((node, i) => {
    if (node.kind === 'word') {
      heads.push((tokens[i] as { word: Uint8Array }).word)
      return
    }
    heads.push(u256(tailSize))
    const tail = encodeTail(node, tokens[i])
    tails.push(...tail)
    tailSize += tail.reduce((sum, part) => sum + part.length, 0)
  })
  return [...heads, ...tails]
}

function encodeTail(node: Node, token: Token): Uint8Array[] {
  if (node.kind === 'bytes') {
    const bytes = (token as { bytes: Uint8Array }).bytes
    return [u256(bytes.length), padded(bytes)]
  }
  const items = (token as { items: Token[] }).items
  const of = (node as { of: Node }).of
  return [
    u256(items.length),
    ...encodeSequence(
      items.map(() => of),
      items,
    ),
  ]
}

/**
 * alloy's error text for `args` (the calldata after the selector) against `inputs`, or undefined
 * when they decode and type check (or when an input's type is not covered here).
 */
export function abiDecodeError(inputs: readonly AbiArg[], args: Uint8Array): string | undefined {
  const nodes: Node[] = []
  for (const input of inputs) {
    const node = nodeOf(input.type, input.enumCount)
    if (!node) return undefined
    nodes.push(node)
  }
  const dec = new Decoder(args)
  let tokens: Token[]
  try {
    tokens = nodes.map((node) => decode(node, dec))
  } catch (error) {
    if (error instanceof DecodeError) return error.message
    throw error
  }
  if (nodes.every((node, i) => valid(node, tokens[i]))) return undefined
  // type_check_fail_token::<(T…)>: abi::encode wraps the tuple once more, an offset first when it is dynamic.
  const body = encodeSequence(nodes, tokens)
  const parts = nodes.some((node) => node.kind !== 'word') ? [u256(32), ...body] : body
  const data = parts.map(hex).join('')
  return `type check failed for "(${inputs.map((i) => i.type).join(',')})" with data: ${data}`
}
