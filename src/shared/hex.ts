// Bytes and quantities as 0x hex, for the wire and for files: one encoder for the RPC layer and
// the state file. Buffer's hex codec is native (faster than a lookup table for anything longer
// than a hash, which matters on the receipt and block paths).

export type Hex = `0x${string}`

export function toQuantity(value: bigint | number): Hex {
  return `0x${value.toString(16)}`
}

export function toData(bytes: Uint8Array): Hex {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`
}

/** Fixed-width data (hashes, addresses, blooms): left-padded to `size` bytes. */
export function toFixed(bytes: Uint8Array, size: number): Hex {
  if (bytes.length === size) return toData(bytes)
  const out = new Uint8Array(size)
  out.set(bytes.subarray(Math.max(0, bytes.length - size)), Math.max(0, size - bytes.length))
  return toData(out)
}
