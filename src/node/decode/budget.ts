// A guard against ABI "bombs" before viem decodes: data whose offsets make tails overlap, so that a
// short input decodes to a huge value (n offsets to n overlapping byte strings of length L decode n×L
// bytes out of about L). viem's cursor bounds re-reads of one position (8,192) but not overlapping
// tails at distinct positions, and decoding runs on the node's event loop. This walk follows the
// heads and tails decodeAbiParameters would follow (the ABI spec's layout), adding up the bytes each
// value's decoding reads, and gives up past a small multiple of the input: a canonical encoding
// (Solidity's, viem's) reads each byte once. It decodes no value; viem does that afterwards.
import type { AbiParameter } from 'viem'

const WORD = 32
const ARRAY = /^(.*)\[(\d*)\]$/

class OverBudget extends Error {}

type Param = AbiParameter & { components?: readonly AbiParameter[] }

const elementOf = (p: Param, type: string): Param => ({ ...p, type })

function isDynamic(p: Param): boolean {
  const array = ARRAY.exec(p.type)
  if (array) return array[2] === '' || isDynamic(elementOf(p, array[1]))
  if (p.type === 'string' || p.type === 'bytes') return true
  return p.type === 'tuple' && (p.components ?? []).some(isDynamic)
}

/** The bytes a value takes in its head: a dynamic one's offset, else the whole static value. */
function headSize(p: Param): number {
  if (isDynamic(p)) return WORD
  const array = ARRAY.exec(p.type)
  if (array) return Number(array[2]) * headSize(elementOf(p, array[1]))
  if (p.type === 'tuple') return (p.components ?? []).reduce((n, c) => n + headSize(c), 0)
  return WORD
}

class Walk {
  private spent = 0
  constructor(
    private readonly data: Uint8Array,
    private readonly limit: number,
  ) {}

  spend(bytes: number): void {
    this.spent += bytes
    if (!(this.spent <= this.limit)) throw new OverBudget()
  }

  /** A word read as an offset or a length: one past the data fails here as it would in viem. */
  word(at: number): number {
    if (!Number.isSafeInteger(at) || at < 0 || at + WORD > this.data.length) throw new OverBudget()
    for (let i = at; i < at + WORD - 6; i++) if (this.data[i] !== 0) throw new OverBudget()
    return this.data.subarray(at + WORD - 6, at + WORD).reduce((n, b) => n * 256 + b, 0)
  }

  /** n values of the same kinds laid out from `start` (a tuple's components, an array's items). */
  params(list: (i: number) => Param, count: number, start: number): void {
    let at = start
    for (let i = 0; i < count; i++) {
      const p = list(i)
      const size = headSize(p)
      this.spend(size)
      if (isDynamic(p)) this.tail(p, start + this.word(at))
      at += size
    }
  }

  tail(p: Param, at: number): void {
    if (p.type === 'string' || p.type === 'bytes') {
      this.spend(WORD + this.word(at))
      return
    }
    const array = ARRAY.exec(p.type)
    const components = p.components ?? []
    if (!array) this.params((i) => components[i], components.length, at)
    else if (array[2] !== '') this.params(() => elementOf(p, array[1]), Number(array[2]), at)
    else {
      this.spend(WORD)
      this.params(() => elementOf(p, array[1]), this.word(at), at + WORD)
    }
  }
}

/** Whether decoding `data` (no selector) as `params` stays within a few times its size. */
export function withinBudget(params: readonly AbiParameter[], data: Uint8Array): boolean {
  try {
    new Walk(data, 2 * data.length + 1024).params((i) => params[i], params.length, 0)
    return true
  } catch (error) {
    if (error instanceof OverBudget) return false
    throw error
  }
}
