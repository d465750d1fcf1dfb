// Bytes as Map keys (lowercase hex without 0x, read through a view of the bytes: no copy), and bytes
// kept for long packed into shared chunks.

/**
 * Node's own hex encoder, the one Buffer#toString('hex') ends in (lib/buffer.js), applied to the
 * Uint8Array itself: a Buffer view per key cost half of each lookup of the state's caches and
 * node store (~0.5 µs against ~0.2). Undocumented, so checked, with the public path as fallback.
 */
const hexSlice = (Buffer.prototype as unknown as { hexSlice?: (this: Uint8Array, start: number, end: number) => string }).hexSlice

export const hexKey: (bytes: Uint8Array) => string =
  typeof hexSlice === 'function' && hexSlice.call(Uint8Array.of(0xab, 0x01), 0, 2) === 'ab01'
    ? (bytes) => hexSlice.call(bytes, 0, bytes.length)
    : (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')

/** Whether two byte arrays hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

// Bytes kept for long (sealed records, dev edits waiting for a reader) as views into shared
// chunks: a Uint8Array of its own holds an ArrayBuffer and a backing store (~250 bytes besides
// its bytes), a view into a chunk only itself (~100). Views are copies: never written in place.

/** Byte arrays up to this long move into a chunk; longer ones keep their own buffer. */
const MAX_PACKED_BYTES = 1024
const CHUNK_BYTES = 64 * 1024

/** The chunk bytes are copied into now, and how much of it is used. */
let chunk = new Uint8Array(CHUNK_BYTES)
let used = 0
/** Every chunk's buffer: bytes already in one stay where they are. */
const chunkBuffers = new WeakSet<ArrayBufferLike>([chunk.buffer])

/** `bytes` as a view into a chunk (a copy; the same array when it is in one already or long). */
export function packed(bytes: Uint8Array): Uint8Array {
  if (bytes.length > MAX_PACKED_BYTES || chunkBuffers.has(bytes.buffer)) return bytes
  if (used + bytes.length > CHUNK_BYTES) {
    chunk = new Uint8Array(CHUNK_BYTES)
    chunkBuffers.add(chunk.buffer)
    used = 0
  }
  const view = chunk.subarray(used, used + bytes.length)
  view.set(bytes)
  used += bytes.length
  return view
}
