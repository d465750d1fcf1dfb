// The JSON forms geth's tracers print values in: hexutil (0x, lowercase, quantities without leading
// zeros), and Go's encoding/json habits (map keys sorted, HTML characters escaped in strings).
export const hex = (bytes: Uint8Array): string =>
  `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`

export const quantity = (value: bigint | number): string => `0x${value.toString(16)}`

/** A 32-byte word (common.Hash) from a stack value or bytes. */
export function word(value: bigint | Uint8Array): string {
  if (typeof value === 'bigint') return `0x${value.toString(16).padStart(64, '0')}`
  return `0x${Buffer.from(value).toString('hex').padStart(64, '0')}`
}

/** A Go map marshalled by encoding/json: keys in sorted order. */
export function sortedObject<T>(entries: Iterable<[string, T]>): Record<string, T> {
  const out: Record<string, T> = {}
  for (const [key, value] of [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out[key] = value
  return out
}

/** Bytes encoding/json spends on a string: JSON.stringify's plus its escapes of <, > and & (\u003c…). */
export function goJsonLength(json: string): number {
  let extra = 0
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i)
    if (c === 0x3c || c === 0x3e || c === 0x26) extra += 5
  }
  return Buffer.byteLength(json) + extra
}
