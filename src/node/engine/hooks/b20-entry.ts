// What Base's B20 dispatch answers before any token, factory or registry logic runs, where pcnode's
// Solidity would answer otherwise (base/base precompiles macros.rs base_precompile /
// decode_precompile_call, the versions' abi_decode_validate, precompile-storage error.rs): value sent
// to a token or the factory reverts NonPayable() before the calldata is charged; calldata that a
// known selector's validating decoder refuses (overrun, a dirty address or integer word, a bool or
// enum out of range, a string that is not UTF-8) reverts with the selector followed by alloy's error
// text (b20-abi-check.ts; Solidity reverts with nothing). The decoder is the surface of the block's
// upgrade and the token's variant: a selector that surface lacks is left to the contract's own
// unknown-selector answer. The code returned here runs in the frame in place of the implementation,
// under b20-gas.ts' metering, so it costs nothing.
import { toFunctionSelector, toHex } from 'viem'
import {
  B20ActivationRegistry,
  B20ActivationRegistryBeryl,
  B20Factory,
  B20PolicyRegistry,
  B20PolicyRegistryBeryl,
  B20PolicyRegistryCobalt,
  B20Token,
  B20TokenBeryl,
  B20TokenCobalt,
} from '../../../contracts/artifacts.js'
import { type AbiArg, abiDecodeError } from './b20-abi-check.js'
import type { B20Fork } from './b20-forks.js'

/** What a frame runs: pcnode's implementation of a token, the factory, or a registry. */
export type B20Kind = 'token' | 'factory' | 'registry'

/** DelegateCallNotAllowed(): a precompile reached by DELEGATECALL or CALLCODE (base/base macros.rs). */
const DELEGATE_CALL_NOT_ALLOWED = Uint8Array.of(0x0d, 0x89, 0x43, 0x8e)

/** NonPayable(): the token's and the factory's (base/base common/abi/v1.rs, b20_factory/abi/v1.rs). */
const NON_PAYABLE = Uint8Array.of(0x6f, 0xb1, 0xb0, 0xe9)
/**
 * SolInterface::abi_decode_validate refuses calldata shorter than the interface's shortest call
 * (MIN_DATA_LENGTH + 4) with Error::type_check_fail(data, NAME): every factory function takes an
 * argument, so under 36 bytes; a token has argument-less calls, so never (base/base common/abi/v2.rs
 * interface_name_is_frozen: the name is on the wire).
 */
const FACTORY_MIN = 4 + 32
const typeCheckFail = (data: Uint8Array) =>
  `type check failed for "IB20FactoryCalls" with data: ${Buffer.from(data).toString('hex')}`

/** Members of the contracts' enums at Beryl, Cobalt and Denim (Base's sol! enums: a value past them fails the type check). */
const ENUM_MEMBERS: Record<string, readonly [number, number, number]> = {
  'enum B20TokenBase.PausableFeature': [3, 4, 4],
  'enum B20PolicyRegistryLogic.PolicyType': [2, 4, 4],
}
/** The factory's variant is Base's B20Variant enum (ASSET, STABLECOIN); pcnode's ABI takes a uint8. */
const FACTORY_VARIANT = [2, 2, 2] as const

/** Functions of an Asset only: a Stablecoin's surface lacks them (B20TokenAsset.sol's onlyAsset). */
const ASSET_ONLY = new Set([
  'balanceOfUI',
  'batchMint',
  'extraMetadata',
  'isAnnouncementIdUsed',
  'scaledBalanceOf',
  'setUIMultiplier',
  'supportsInterface',
  'toRawBalance',
  'toScaledBalance',
  'updateExtraMetadata',
  'updateMultiplier',
])
/** The upgrade each function arrives with (the contracts' since(…)); absent: Beryl. */
const SINCE: Record<string, B20Fork> = {
  balanceOfUI: 1,
  setUIMultiplier: 1,
  supportsInterface: 1,
  seizeWithMemo: 1,
  createCompositePolicy: 1,
  updateComposite: 1,
  compositePolicyChildIds: 1,
  MIN_COMPOSITE_CHILD_POLICIES: 1,
  MAX_COMPOSITE_CHILD_POLICIES: 1,
  invertedPolicyId: 2,
}
/**
 * Left to the contract: the token's creation entry point; announce, which Base decodes on a path of
 * its own; setAdmin, which the ActivationRegistry's stored admin (state, not the upgrade) enables.
 */
const NOT_CHECKED = new Set(['b20Initialize', 'announce', 'setAdmin'])

type Abi = readonly {
  type: string
  name?: string
  inputs?: readonly { type: string; name?: string; internalType?: string }[]
}[]
interface Surface {
  /** Per selector (0x-hex): its arguments, and whether only an Asset has it. */
  calls: Map<string, { args: AbiArg[]; assetOnly: boolean }>
  /** The shortest call's calldata length (SolInterface's MIN_DATA_LENGTH + 4). */
  min: number
}
function surface(abi: Abi, fork: B20Fork, factory = false): Surface {
  const calls = new Map<string, { args: AbiArg[]; assetOnly: boolean }>()
  let min = Number.POSITIVE_INFINITY
  for (const f of abi) {
    if (f.type !== 'function' || !f.name || (SINCE[f.name] ?? 0) > fork) continue
    const inputs = f.inputs ?? []
    min = Math.min(min, 4 + 32 * inputs.length)
    if (NOT_CHECKED.has(f.name)) continue
    const args = inputs.map((input) => {
      const members = ENUM_MEMBERS[input.internalType?.replace(/\[\]$/, '') ?? '']
      const count = factory && input.name === 'variant' ? FACTORY_VARIANT[fork] : members?.[fork]
      return count === undefined ? { type: input.type } : { type: input.type, enumCount: count }
    })
    calls.set(toFunctionSelector(f as never), { args, assetOnly: ASSET_ONLY.has(f.name) })
  }
  return { calls, min }
}
const forks = <T>(make: (fork: B20Fork) => T): readonly [T, T, T] => [make(0), make(1), make(2)]
const TOKEN = forks((fork) => surface([B20TokenBeryl, B20TokenCobalt, B20Token][fork].abi as Abi, fork))
const FACTORY = forks((fork) => surface(B20Factory.abi as Abi, fork, true))
const POLICY = forks((fork) =>
  surface([B20PolicyRegistryBeryl, B20PolicyRegistryCobalt, B20PolicyRegistry][fork].abi as Abi, fork),
)
const ACTIVATION = forks((fork) =>
  surface([B20ActivationRegistryBeryl, B20ActivationRegistry, B20ActivationRegistry][fork].abi as Abi, fork),
)
const ACTIVATION_ADDRESS = '8453000000000000000000000000000000000001'
const POLICY_ADDRESS = '8453000000000000000000000000000000000002'

/** Code that reverts with `data` (CODECOPY of its own tail, then REVERT). */
export function revertCode(data: Uint8Array): Uint8Array {
  const n = data.length
  // PUSH2 n, PUSH1 14, PUSH1 0, CODECOPY, PUSH2 n, PUSH1 0, REVERT, then the data at offset 14.
  const head = [0x61, n >> 8, n & 0xff, 0x60, 14, 0x60, 0x00, 0x39, 0x61, n >> 8, n & 0xff, 0x60, 0x00, 0xfd]
  return Uint8Array.from([...head, ...data])
}

/** What the frame's code is and where: set by b20-code.ts when it places an implementation. */
export interface EntryTarget {
  fork?: B20Fork
  /** The account the frame runs for (a token's variant is its address' byte 10). */
  address?: Uint8Array
}

const withText = (selector: Uint8Array, text: string) => Uint8Array.from([...selector, ...new TextEncoder().encode(text)])

/** The surface a call to `target` is decoded against; undefined: the contract answers. */
function surfaceOf(kind: B20Kind, target: EntryTarget): Surface | undefined {
  const fork = target.fork ?? 2
  if (kind === 'token') return TOKEN[fork]
  if (kind === 'factory') return FACTORY[fork]
  if (target.fork === undefined || !target.address) return undefined
  const key = Buffer.from(target.address).toString('hex')
  return key === POLICY_ADDRESS ? POLICY[fork] : key === ACTIVATION_ADDRESS ? ACTIVATION[fork] : undefined
}

/** Base's answer to a call entering a token, the factory or a registry, when it is not the implementation's. */
export function entryRefusal(
  kind: B20Kind,
  value: bigint,
  data: Uint8Array,
  direct: boolean,
  target: EntryTarget = {},
): { data: Uint8Array; charged: boolean } | undefined {
  if (kind === 'registry') {
    // The registries answer a DELEGATECALL, value and short calldata themselves (their contracts).
    const registry = surfaceOf(kind, target)
    if (!registry || !direct || value > 0n || data.length < 4 || data.length < registry.min) return undefined
    return decodeRefusal(registry, data, false)
  }
  if (!direct) return { data: DELEGATE_CALL_NOT_ALLOWED, charged: false }
  if (value > 0n) return { data: NON_PAYABLE, charged: false }
  if (data.length < 4) return { data: new Uint8Array(4), charged: true }
  const known = surfaceOf(kind, target) as Surface
  if (kind === 'factory' && known.calls.has(toHex(data.subarray(0, 4))) && data.length < FACTORY_MIN) {
    return { data: withText(data.subarray(0, 4), typeCheckFail(data)), charged: true }
  }
  return decodeRefusal(known, data, kind === 'token' && target.address !== undefined && target.address[10] === 1)
}

function decodeRefusal(known: Surface, data: Uint8Array, stablecoin: boolean) {
  const call = known.calls.get(toHex(data.subarray(0, 4)))
  if (!call || (stablecoin && call.assetOnly)) return undefined
  const error = abiDecodeError(call.args, data.subarray(4))
  return error === undefined ? undefined : { data: withText(data.subarray(0, 4), error), charged: true }
}

/**
 * The calldata the implementation reads: alloy's bool reads only the high 31 bytes (Base takes a
 * last byte of 2–255 as true) where Solidity's decoder refuses anything but 0 or 1, so such a word of
 * a known call's bool argument is handed on as 1. Everything else is passed through as sent.
 */
export function entryCalldata(kind: B20Kind, data: Uint8Array, target: EntryTarget = {}): Uint8Array {
  if (data.length < 4) return data
  const call = surfaceOf(kind, target)?.calls.get(toHex(data.subarray(0, 4)))
  if (!call) return data
  let out = data
  call.args.forEach((arg, i) => {
    const last = 4 + 32 * i + 31
    if (arg.type !== 'bool' || last >= data.length || data[last] <= 1) return
    if (out === data) out = Uint8Array.from(data)
    out[last] = 1
  })
  return out
}
