// What Base's B20 dispatch answers before any token or factory logic runs, where pcnode's Solidity
// would answer otherwise (base/base precompiles macros.rs base_precompile / decode_precompile_call,
// precompile-storage error.rs): value sent with any selector reverts NonPayable() before the
// calldata is charged; calldata that a known selector's ABI decoder overruns reverts with the
// selector followed by alloy's error text (Solidity reverts with nothing). The code returned here
// runs in the frame in place of the implementation, under b20-gas.ts' metering, so it costs nothing.
import { decodeFunctionData, type Hex, toFunctionSelector, toHex } from 'viem'
import { B20Factory, B20Token } from '../../../contracts/artifacts.js'

/** What a frame runs: pcnode's implementation of a token, the factory, or a registry. */
export type B20Kind = 'token' | 'factory' | 'registry'

/** DelegateCallNotAllowed(): a precompile reached by DELEGATECALL or CALLCODE (base/base macros.rs). */
const DELEGATE_CALL_NOT_ALLOWED = Uint8Array.of(0x0d, 0x89, 0x43, 0x8e)

/** NonPayable(): the token's and the factory's (base/base common/abi/v1.rs, b20_factory/abi/v1.rs). */
const NON_PAYABLE = Uint8Array.of(0x6f, 0xb1, 0xb0, 0xe9)
/** alloy-sol-types' Error::Overrun, as Display prints it. */
const OVERRUN = new TextEncoder().encode('buffer overrun while deserializing')
/**
 * SolInterface::abi_decode_validate refuses calldata shorter than the interface's shortest call
 * (MIN_DATA_LENGTH + 4) with Error::type_check_fail(data, NAME): every factory function takes an
 * argument, so under 36 bytes; a token has argument-less calls, so never (base/base common/abi/v2.rs
 * interface_name_is_frozen: the name is on the wire).
 */
const FACTORY_MIN = 4 + 32
const typeCheckFail = (data: Uint8Array) =>
  new TextEncoder().encode(`type check failed for "IB20FactoryCalls" with data: ${Buffer.from(data).toString('hex')}`)

type Abi = readonly { type: string; name?: string; inputs?: readonly { type: string }[] }[]
/** Per selector: the head's size, and whether a dynamic argument needs a full decode to check. */
interface Shape {
  head: number
  dynamic: boolean
}
const isDynamic = (type: string) => type === 'string' || type === 'bytes' || type.endsWith(']') || type.startsWith('tuple')
function shapes(abi: Abi): Map<string, Shape> {
  const out = new Map<string, Shape>()
  for (const f of abi) {
    if (f.type !== 'function' || f.name === 'b20Initialize') continue
    const inputs = f.inputs ?? []
    out.set(toFunctionSelector(f as never), { head: 4 + 32 * inputs.length, dynamic: inputs.some((i) => isDynamic(i.type)) })
  }
  return out
}
const ABIS: Record<'token' | 'factory', { abi: Abi; known: Map<string, Shape> }> = {
  token: { abi: B20Token.abi as Abi, known: shapes(B20Token.abi as Abi) },
  factory: { abi: B20Factory.abi as Abi, known: shapes(B20Factory.abi as Abi) },
}

/** Code that reverts with `data` (CODECOPY of its own tail, then REVERT). */
export function revertCode(data: Uint8Array): Uint8Array {
  const n = data.length
  // PUSH2 n, PUSH1 14, PUSH1 0, CODECOPY, PUSH2 n, PUSH1 0, REVERT, then the data at offset 14.
  const head = [0x61, n >> 8, n & 0xff, 0x60, 14, 0x60, 0x00, 0x39, 0x61, n >> 8, n & 0xff, 0x60, 0x00, 0xfd]
  return Uint8Array.from([...head, ...data])
}

/** Base's answer to a call entering the token or the factory, when it is not the implementation's. */
export function entryRefusal(
  kind: B20Kind,
  value: bigint,
  data: Uint8Array,
  direct: boolean,
): { data: Uint8Array; charged: boolean } | undefined {
  // The registries' and EIP-8130's precompiles answer these themselves (their contracts).
  if (kind === 'registry') return undefined
  if (!direct) return { data: DELEGATE_CALL_NOT_ALLOWED, charged: false }
  if (value > 0n) return { data: NON_PAYABLE, charged: false }
  if (data.length < 4) return { data: new Uint8Array(4), charged: true }
  const { abi, known } = ABIS[kind]
  const shape = known.get(toHex(data.subarray(0, 4)))
  if (!shape) return undefined
  if (kind === 'factory' && data.length < FACTORY_MIN) {
    return { data: Uint8Array.from([...data.subarray(0, 4), ...typeCheckFail(data)]), charged: true }
  }
  const overrun = { data: Uint8Array.from([...data.subarray(0, 4), ...OVERRUN]), charged: true }
  if (data.length < shape.head) return overrun
  if (!shape.dynamic) return undefined
  try {
    decodeFunctionData({ abi: abi as never, data: toHex(data) as Hex })
    return undefined
  } catch {
    return overrun
  }
}
