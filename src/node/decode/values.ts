// Decoded ABI values as JSON: viem's values (bigint, tuples as objects or arrays, nested arrays)
// turned into a tree that names each field and keeps its type, so a client (the explorer page)
// renders tuples, arrays of tuples and nested dynamic values without an ABI of its own.
import type { AbiParameter } from 'viem'

/** One decoded value: a scalar's `value`, an array's `items`, a tuple's `fields`. */
export interface DecodedArg {
  name: string
  type: string
  value?: string | boolean
  items?: DecodedArg[]
  fields?: DecodedArg[]
  /** Items past the first MAX_ITEMS, left out. */
  more?: number
  /** An indexed dynamic event argument: only its keccak256 is in the topic. */
  hashed?: boolean
}

/** Items of one array shown in full; the rest are counted. */
export const MAX_ITEMS = 50

const ARRAY = /^(.*)\[(\d*)\]$/

export function toDecodedArg(param: AbiParameter, value: unknown, name: string): DecodedArg {
  const array = ARRAY.exec(param.type)
  if (array && Array.isArray(value)) {
    const inner = { ...param, type: array[1] } as AbiParameter
    const out: DecodedArg = { name, type: param.type, items: value.slice(0, MAX_ITEMS).map((v) => toDecodedArg(inner, v, '')) }
    if (value.length > MAX_ITEMS) out.more = value.length - MAX_ITEMS
    return out
  }
  if (param.type === 'tuple' && 'components' in param && typeof value === 'object' && value !== null) {
    const fields = param.components.map((c, i) => {
      const v = Array.isArray(value) ? value[i] : (value as Record<string, unknown>)[c.name ?? '']
      return toDecodedArg(c, v, c.name || String(i))
    })
    return { name, type: param.type, fields }
  }
  if (typeof value === 'boolean') return { name, type: param.type, value }
  return { name, type: param.type, value: typeof value === 'bigint' ? value.toString() : String(value) }
}

/** The arguments in order: viem gives them as an array, or (events with named inputs) an object. */
export function decodedArgs(params: readonly AbiParameter[], args: unknown): DecodedArg[] {
  return params.map((p, i) => {
    const value = Array.isArray(args) ? args[i] : (args as Record<string, unknown> | undefined)?.[p.name ?? '']
    return toDecodedArg(p, value, p.name || `arg${i}`)
  })
}
