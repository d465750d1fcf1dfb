// Names in a drawn trace (`pcnode trace`), as `cast run` labels the addresses and decodes the calls
// it knows: pcnode's genesis contracts by name (the OP predeploys, the preinstalls such as Multicall3,
// Permit2, CreateX, the EntryPoints and the Safe singleton factory, the wallet factory), Solidity
// console.log calls as the line the node prints, and the functions, events and errors of the ABIs at
// hand (viem's standard ones and pcnode's own contracts). Loaded only when a trace is drawn.
import {
  type Abi,
  type AbiEvent,
  type AbiFunction,
  decodeAbiParameters,
  decodeErrorResult,
  decodeEventLog,
  decodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  multicall3Abi,
  toEventSelector,
  toFunctionSelector,
} from 'viem'
import { entryPoint06Abi, entryPoint07Abi, entryPoint08Abi } from 'viem/account-abstraction'
import { GasPriceOracle, L1Block, PcnodeSmartWallet, PcnodeWalletFactory } from '../contracts/artifacts.js'
import { P256_VERIFY_ADDRESS, WALLET_FACTORY_ADDRESS, WALLET_IMPLEMENTATION_ADDRESS } from '../contracts/index.js'
import { ENTRYPOINT_V08, PREINSTALLS } from '../contracts/preinstalls.js'
import { PERMIT2_ADDRESS } from '../node/genesis/opstack.js'
import { DEPOSITOR_ACCOUNT, PREDEPLOYS } from '../node/opstack/params.js'
import { formatConsoleLog } from '../node/tracing/console-log.js'

/** Hardhat's console.sol address (the bytes of "console.log"). */
export const CONSOLE_ADDRESS = '0x000000000000000000636f6e736f6c652e6c6f67'

const hexOf = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`

/** Lower-case address → name, for every contract pcnode puts in its genesis. */
function knownAddresses(): Map<string, string> {
  const names = new Map<string, string>()
  for (const [name, address] of Object.entries(PREDEPLOYS)) names.set(hexOf(address), name)
  for (const { name, address } of PREINSTALLS) names.set(address.toLowerCase(), name)
  names.set(PERMIT2_ADDRESS.toLowerCase(), 'Permit2')
  names.set(ENTRYPOINT_V08.address.toLowerCase(), ENTRYPOINT_V08.name)
  names.set(hexOf(DEPOSITOR_ACCOUNT), 'L1AttributesDepositor')
  names.set(WALLET_FACTORY_ADDRESS.toLowerCase(), 'PcnodeWalletFactory')
  names.set(WALLET_IMPLEMENTATION_ADDRESS.toLowerCase(), 'PcnodeSmartWallet')
  names.set(P256_VERIFY_ADDRESS.toLowerCase(), 'P256VERIFY')
  names.set(CONSOLE_ADDRESS, 'console')
  return names
}

/** The ABIs whose functions, events and errors a trace can name. */
const ABIS: readonly Abi[] = [
  erc20Abi,
  multicall3Abi,
  entryPoint06Abi,
  entryPoint07Abi,
  entryPoint08Abi,
  GasPriceOracle.abi,
  L1Block.abi,
  PcnodeSmartWallet.abi,
  PcnodeWalletFactory.abi,
]

export interface Labels {
  /** The contract's name, when pcnode knows the address. */
  name(address: string): string | undefined
  /** `name(args)` of calldata whose selector is known, with the function to decode its output. */
  call(input: string): { text: string; output: (data: string) => string | undefined } | undefined
  /** The console.log line of calldata to the console address. */
  consoleLog(input: string): string | undefined
  /** `Name(arg: value, …)` of a log whose event is known. */
  event(topics: string[], data: string): string | undefined
  /** `Name(args)` of revert data that is a known custom error. */
  error(data: string): string | undefined
}

export function loadLabels(): Labels {
  const names = knownAddresses()
  const functions = new Map<string, AbiFunction>()
  const events = new Map<string, AbiEvent>()
  const errors: Abi = []
  for (const abi of ABIS) {
    for (const item of abi) {
      if (item.type === 'function') functions.set(toFunctionSelector(item), item)
      else if (item.type === 'event') events.set(toEventSelector(item), item)
      else if (item.type === 'error') (errors as unknown[]).push(item)
    }
  }
  return {
    name: (address) => names.get(address.toLowerCase()),
    call(input) {
      const fn = functions.get(input.slice(0, 10).toLowerCase())
      if (!fn) return undefined
      try {
        const { args } = decodeFunctionData({ abi: [fn], data: input as Hex })
        const text = `${fn.name}(${(args ?? []).map(show).join(', ')})`
        const output = (data: string) => {
          if (fn.outputs.length === 0 || data === '0x') return undefined
          try {
            return decodeAbiParameters(fn.outputs, data as Hex)
              .map(show)
              .join(', ')
          } catch {
            return undefined
          }
        }
        return { text, output }
      } catch {
        return undefined
      }
    },
    consoleLog: (input) => formatConsoleLog(Buffer.from(input.slice(2), 'hex')),
    event(topics, data) {
      const event = topics[0] && events.get(topics[0].toLowerCase())
      if (!event) return undefined
      try {
        const decoded = decodeEventLog({ abi: [event], topics: topics as [Hex, ...Hex[]], data: data as Hex })
        const args = decoded.args as Record<string, unknown> | readonly unknown[] | undefined
        const shown = Array.isArray(args)
          ? args.map(show)
          : Object.entries(args ?? {}).map(([key, value]) => `${key}: ${show(value)}`)
        return `${event.name}(${shown.join(', ')})`
      } catch {
        return undefined
      }
    },
    error(data) {
      try {
        const { errorName, args } = decodeErrorResult({ abi: errors, data: data as Hex })
        return `${errorName}(${(args ?? []).map(show).join(', ')})`
      } catch {
        return undefined
      }
    },
  }
}

/** A decoded value the way cast prints one: addresses checksummed, strings quoted, lists bracketed. */
function show(value: unknown): string {
  if (typeof value === 'string') {
    if (/^0x[0-9a-fA-F]{40}$/.test(value)) return getAddress(value)
    return value.startsWith('0x') ? value : JSON.stringify(value)
  }
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`
  if (value && typeof value === 'object') {
    return `(${Object.entries(value)
      .map(([key, v]) => `${key}: ${show(v)}`)
      .join(', ')})`
  }
  return String(value)
}
