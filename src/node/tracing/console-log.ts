// Solidity console.log calls decoded into the line Hardhat and anvil print: the arguments of
// console.sol's log(...) overloads (uint256, int256, string, bool, address, bytes, bytesN, with the
// old uint/int spellings of their selectors too), the first string used as a format string
// (util.format: %s, %d, %i, %o) as Hardhat does.
import { format } from 'node:util'
import { type AbiParameter, decodeAbiParameters, getAddress, toFunctionSelector } from 'viem'

type Signature = { name: string; types: string[] }

let table: Map<string, Signature> | undefined

function signatures(): Map<string, Signature> {
  if (table) return table
  table = new Map()
  const add = (name: string, types: string[]) => {
    const sig = { name, types }
    table?.set(toFunctionSelector(`${name}(${types.join(',')})`).slice(2), sig)
    // console.sol before 2022 spelled uint256/int256 as uint/int in the signature it hashed.
    const old = types.map((t) => (t === 'uint256' ? 'uint' : t === 'int256' ? 'int' : t))
    if (old.some((t, i) => t !== types[i])) table?.set(toFunctionSelector(`${name}(${old.join(',')})`).slice(2), sig)
  }
  add('log', [])
  for (const [name, type] of [
    ['logInt', 'int256'],
    ['logUint', 'uint256'],
    ['logString', 'string'],
    ['logBool', 'bool'],
    ['logAddress', 'address'],
    ['logBytes', 'bytes'],
  ]) {
    add(name, [type])
  }
  for (let n = 1; n <= 32; n++) add(`logBytes${n}`, [`bytes${n}`])
  for (const type of ['uint256', 'int256', 'string', 'bool', 'address', 'bytes']) add('log', [type])
  const base = ['uint256', 'string', 'bool', 'address']
  const combine = (n: number): string[][] => (n === 0 ? [[]] : combine(n - 1).flatMap((c) => base.map((t) => [...c, t])))
  for (let n = 2; n <= 4; n++) for (const types of combine(n)) add('log', types)
  return table
}

function show(value: unknown, type: string): string | number {
  if (type === 'address') return getAddress(value as string)
  if (type === 'bool') return value ? 'true' : 'false'
  return typeof value === 'bigint' ? value.toString() : String(value)
}

/** The printed line of a console.log call's calldata, or undefined when it is not one. */
export function formatConsoleLog(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined
  const hex = Buffer.from(data).toString('hex')
  const sig = signatures().get(hex.slice(0, 8))
  if (!sig) return undefined
  let values: readonly unknown[]
  try {
    values = decodeAbiParameters(
      sig.types.map((type) => ({ type }) as AbiParameter),
      `0x${hex.slice(8)}`,
    )
  } catch {
    return undefined
  }
  const shown = values.map((v, i) => show(v, sig.types[i]))
  if (sig.types[0] === 'string') return format(shown[0] as string, ...shown.slice(1))
  return shown.join(' ')
}
