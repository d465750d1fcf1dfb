// Bytes as Map keys: lowercase hex without 0x, read through a view of the bytes (no copy).

export function hexKey(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}
