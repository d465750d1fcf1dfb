// The signatures the explorer page decodes inputs and logs with, by 4-byte selector and by event topic:
// ERC-20, ERC-721 and ERC-1155 (viem's ABIs), the preinstalls viem has ABIs for (ERC-4337's EntryPoint
// v0.6, v0.7 and v0.8, Multicall3), and every contract pcnode compiles (contracts/*.sol: the B20
// precompiles, the wallet factory and smart wallet, the paymasters, the OP predeploys). Built here in
// Node (the page has no keccak) and embedded in the page's script as JSON. The page decodes
// fixed-size values, strings, bytes and arrays of fixed-size values; tuples are named by type.
import {
  type Abi,
  type AbiEvent,
  type AbiFunction,
  erc20Abi,
  erc721Abi,
  erc1155Abi,
  multicall3Abi,
  toEventSelector,
  toFunctionSelector,
} from 'viem'
import { entryPoint06Abi, entryPoint07Abi, entryPoint08Abi } from 'viem/account-abstraction'
import * as artifacts from '../contracts/artifacts.js'

interface Param {
  name: string
  type: string
  indexed?: boolean
}
interface Signature {
  name: string
  inputs: Param[]
}

const COMPILED = Object.values(artifacts).flatMap((a) => (typeof a === 'object' && 'abi' in a ? [a.abi as Abi] : []))
// The first ABI to name a selector wins: the standards' argument names before pcnode's own.
const ABIS: readonly Abi[] = [
  erc20Abi,
  erc721Abi,
  erc1155Abi,
  entryPoint07Abi,
  entryPoint08Abi,
  entryPoint06Abi,
  multicall3Abi,
  ...COMPILED,
]

function table(): { functions: Record<string, Signature>; events: Record<string, Signature[]> } {
  const functions: Record<string, Signature> = {}
  const events: Record<string, Signature[]> = {}
  const params = (inputs: readonly { name?: string; type: string; indexed?: boolean }[]) =>
    inputs.map((p, i) => ({ name: p.name || `arg${i}`, type: p.type, ...(p.indexed ? { indexed: true } : {}) }))
  for (const abi of ABIS) {
    for (const item of abi as readonly (AbiFunction | AbiEvent | { type: string })[]) {
      if (item.type === 'function') {
        const f = item as AbiFunction
        functions[toFunctionSelector(f)] ??= { name: f.name, inputs: params(f.inputs) }
      } else if (item.type === 'event') {
        const e = item as AbiEvent
        // ERC-20's and ERC-721's Transfer share a topic; the count of indexed arguments tells them apart.
        const list = (events[toEventSelector(e)] ??= [])
        const indexed = e.inputs.filter((p) => p.indexed).length
        if (!list.some((s) => s.inputs.filter((p) => p.indexed).length === indexed)) {
          list.push({ name: e.name, inputs: params(e.inputs) })
        }
      }
    }
  }
  return { functions, events }
}

export const ABI_TABLE_JSON = JSON.stringify(table())
