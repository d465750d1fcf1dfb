// Whether a contract's runtime code is an artifact's deployedBytecode, as Sourcify and Blockscout
// match a "partial" verification: the CBOR metadata trailer solc (and Vyper) append is left out of
// both sides (its hash changes with comments, paths and compiler settings, not the code), and the
// bytes the deployment writes are masked: immutables (solc's immutableReferences, where the artifact
// gives them, else every PUSH32 whose operand is all zeros, which is how solc leaves an immutable's
// slot in deployedBytecode) and linked libraries' addresses (linkReferences, and any `__…__`
// placeholder left in the object).

/** A byte range [start, start + length) of the runtime code. */
export interface ByteRange {
  start: number
  length: number
}

/** An artifact's runtime code prepared for matching: its body (no metadata), zeros where masked. */
export interface CodeShape {
  body: Uint8Array
  masks: readonly ByteRange[]
}

const PUSH1 = 0x60
const PUSH32 = 0x7f

/** The code without its CBOR metadata trailer: the last two bytes give the trailer's length. */
export function stripMetadata(code: Uint8Array): Uint8Array {
  if (code.length < 2) return code
  const length = (code[code.length - 2] << 8) | code[code.length - 1]
  const start = code.length - 2 - length
  // A CBOR map (solc: a1…bf) or array (Vyper: 80…9f) opens the trailer.
  if (length === 0 || start < 0 || code[start] < 0x80 || code[start] > 0xbf) return code
  return code.subarray(0, start)
}

/** The operands of PUSH32s that are all zeros: solc's unfilled immutables. */
export function zeroPush32s(body: Uint8Array): ByteRange[] {
  const out: ByteRange[] = []
  for (let pc = 0; pc < body.length; pc++) {
    const op = body[pc]
    if (op < PUSH1 || op > PUSH32) continue
    const size = op - PUSH1 + 1
    if (op === PUSH32 && pc + 32 < body.length && body.subarray(pc + 1, pc + 33).every((b) => b === 0)) {
      out.push({ start: pc + 1, length: 32 })
    }
    pc += size
  }
  return out
}

function masked(code: Uint8Array, masks: readonly ByteRange[]): Uint8Array {
  const copy = Uint8Array.from(code)
  for (const { start, length } of masks) copy.fill(0, start, Math.min(start + length, copy.length))
  return copy
}

/** An artifact's runtime code and the ranges it names (undefined immutables: found by zeroPush32s). */
export function shapeOf(code: Uint8Array, immutables: ByteRange[] | undefined, links: readonly ByteRange[]): CodeShape {
  const body = stripMetadata(code)
  const masks = [...(immutables ?? zeroPush32s(body)), ...links].filter((r) => r.start < body.length)
  return { body: masked(body, masks), masks }
}

/** Whether runtime code on the chain is this artifact's code. */
export function matches(shape: CodeShape, code: Uint8Array): boolean {
  const body = stripMetadata(code)
  if (body.length !== shape.body.length) return false
  return Buffer.from(masked(body, shape.masks)).equals(Buffer.from(shape.body))
}
