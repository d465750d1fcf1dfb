// Hex and quantity handling for the wire, in one place. Parsers throw -32602 naming the parameter.
import { invalidParams } from './errors.js'

export { type Hex, toData, toFixed, toQuantity } from '../shared/hex.js'

// Linear patterns only: a repeated group such as /^0x([0-9a-fA-F]{2})*$/ keeps a backtracking entry
// per repetition and overflows V8's regexp stack on megabytes of data (a stack-size RangeError).
const HEX_DATA = /^0x[0-9a-fA-F]*$/
const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/

export function hexToBytes(hex: string): Uint8Array {
  const body = hex.slice(2)
  return new Uint8Array(Buffer.from(body.length % 2 ? `0${body}` : body, 'hex'))
}

export function parseQuantity(value: unknown, name: string): bigint {
  if (typeof value === 'string') {
    // geth accepts leading zeros in some places; be lenient on those, strict on the 0x prefix.
    if (/^0x[0-9a-fA-F]+$/.test(value)) return BigInt(value)
    if (value === '0x') throw invalidParams(`invalid argument ${name}: hex string "0x"`)
    throw invalidParams(`invalid argument ${name}: hex string without 0x prefix or with invalid characters`)
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value)
  throw invalidParams(`invalid argument ${name}: expected a hex quantity`)
}

export function isStrictQuantity(value: string): boolean {
  return QUANTITY.test(value)
}

export function parseData(value: unknown, name: string): Uint8Array {
  // Odd-length hex is accepted by geth for some fields; accept it too (hexToBytes pads it).
  if (typeof value !== 'string' || !HEX_DATA.test(value))
    throw invalidParams(`invalid argument ${name}: expected 0x-prefixed hex data`)
  return hexToBytes(value)
}

export function parseFixed(value: unknown, size: number, name: string): Uint8Array {
  const bytes = parseData(value, name)
  if (bytes.length !== size)
    throw invalidParams(`invalid argument ${name}: hex string has length ${bytes.length * 2}, want ${size * 2}`)
  return bytes
}

export const parseAddress = (value: unknown, name: string) => parseFixed(value, 20, name)
export const parseHash = (value: unknown, name: string) => parseFixed(value, 32, name)

/** Storage slot / key: any hex up to 32 bytes, left-padded. */
export function parseSlot(value: unknown, name: string): Uint8Array {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{0,64}$/.test(value))
    throw invalidParams(`invalid argument ${name}: expected a 32-byte hex slot`)
  const bytes = hexToBytes(value)
  const out = new Uint8Array(32)
  out.set(bytes, 32 - bytes.length)
  return out
}
