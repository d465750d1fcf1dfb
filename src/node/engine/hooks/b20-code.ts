// Base's Beryl precompiles as code the EVM runs. On Base the B20Factory, the ActivationRegistry, the
// PolicyRegistry and every B20 token are native code behind accounts holding the one-byte marker
// 0xef (base/docs specifications/b20/architecture: "state lives in the precompile's own account").
// Here such an account runs pcnode's Solidity implementation of it (contracts/B20*.sol, Base's
// ERC-7201 storage layout) in place of the marker: ethereumjs' `_loadCode` loads the account's code
// for every call, so wrapping it swaps the code while storage, gas, logs, reverts, caller, value and
// static context stay the EVM's own. A token account gets its marker when the factory first calls
// its fresh address (createB20's set_code). Only state decides: a chain without the markers (every
// chain but an OP one with Beryl) runs as before; on one whose ActivationRegistry holds it, the
// factory and the PolicyRegistry also run from an account with no code (a fork of Base).
import { Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { toFunctionSelector } from 'viem'
import {
  B20ActivationRegistry,
  B20Factory,
  B20PolicyRegistry,
  B20Token,
  B20TokenBeryl,
  B20TokenCobalt,
} from '../../../contracts/artifacts.js'
import { type B20Kind, revertCode } from './b20-entry.js'
import { type B20Forks, b20ForkAt, isActivationWrite, REGISTRY_CODES, registryCode } from './b20-forks.js'
import { B20_GAS_PROBE, type FrameMessage, installB20Gas } from './b20-gas.js'

/** EIP-3541's reserved first byte: no CREATE can leave it, so only the chain itself places it. */
export const B20_MARKER = Uint8Array.of(0xef)

const hex = (code: string) => new Uint8Array(Buffer.from(code.slice(2), 'hex'))

const FACTORY = 'b20f000000000000000000000000000000000000'
const SINGLETONS = new Map<string, Uint8Array>([
  [FACTORY, hex(B20Factory.deployedBytecode)],
  ['8453000000000000000000000000000000000001', hex(B20ActivationRegistry.deployedBytecode)],
  ['8453000000000000000000000000000000000002', hex(B20PolicyRegistry.deployedBytecode)],
])
/** The token's logic at Beryl, Cobalt and Denim (B20TokenForks.sol), by b20ForkAt's index. */
const TOKENS = [B20TokenBeryl, B20TokenCobalt, B20Token].map((c) => hex(c.deployedBytecode))

const ACTIVATION_REGISTRY = '8453000000000000000000000000000000000001'
const ACTIVATION_ADDRESS = new Address(Buffer.from(ACTIVATION_REGISTRY, 'hex'))

/** The registries' state-changing selectors (pcnode's Solidity marks every write payable). */
const REGISTRY_WRITES = new Set(
  [...B20ActivationRegistry.abi, ...B20PolicyRegistry.abi].flatMap((e) =>
    e.type === 'function' && e.stateMutability === 'payable' ? [toFunctionSelector(e).slice(2)] : [],
  ),
)
/**
 * The ActivationRegistry refuses a write in a static context before anything else with
 * StaticCallNotAllowed() (base/base activation/storage.rs set_activated); Solidity cannot see the
 * static flag, so the hook runs this instead: mstore(0, 0xbeaba5b7) revert(28, 4).
 */
const STATIC_REFUSAL = hex('0x63beaba5b76000526004601cfd')

/** Which code is pcnode's implementation of what (b20-gas.ts meters the frames that run it). */
const KINDS = new WeakMap<Uint8Array, B20Kind>([
  ...TOKENS.map((code): [Uint8Array, B20Kind] => [code, 'token']),
  [SINGLETONS.get(FACTORY) as Uint8Array, 'factory'],
  [SINGLETONS.get(ACTIVATION_REGISTRY) as Uint8Array, 'registry'],
  [SINGLETONS.get('8453000000000000000000000000000000000002') as Uint8Array, 'registry'],
  [STATIC_REFUSAL, 'registry'],
  [B20_GAS_PROBE, 'registry'],
  ...REGISTRY_CODES.map((code): [Uint8Array, B20Kind] => [code, 'registry']),
])
const kindOf = (code: unknown) => (code instanceof Uint8Array ? KINDS.get(code) : undefined)

/** The token's creation entry point, which only the call that writes its marker may reach. */
const INITIALIZE = toFunctionSelector(
  B20Token.abi.find((e) => e.type === 'function' && e.name === 'b20Initialize') as never,
).slice(2)
/** Base's set_code for a token (precompile-storage evm.rs): G_codedeposit × 1 byte, and for a new account G_create + its keccak (30 + 6). */
const DEPOSIT_GAS = 200n
const NEW_ACCOUNT_GAS = 32_000n + 36n

/** 0xB2, nine zero bytes, a known variant (ASSET 0, STABLECOIN 1): base/base b20_factory variant.rs. */
export function isB20TokenAddress(address: Uint8Array): boolean {
  if (address[0] !== 0xb2 || address[10] > 1) return false
  for (let i = 1; i < 10; i++) if (address[i] !== 0) return false
  return true
}

interface Message extends FrameMessage {
  code?: Uint8Array | ((...args: never[]) => unknown)
  isCompiled?: boolean
  codeAddress: { bytes: Uint8Array }
  to?: { bytes: Uint8Array }
  caller: { bytes: Uint8Array }
  delegatecall?: boolean
  isStatic?: boolean
  data?: Uint8Array
}
interface AccountShape {
  isEmpty(): boolean
}
/** The slice of ethereumjs' EVM (10.1.3, private) the hook wraps. */
interface EvmShape {
  _loadCode(message: Message): Promise<void>
  /** The block the running call executes in (ethereumjs sets it in runCall). */
  _block?: { header: { timestamp: bigint } }
  stateManager: {
    putCode(address: unknown, code: Uint8Array): Promise<void>
    getCode(address: Address): Promise<Uint8Array>
    getAccount(address: unknown): Promise<AccountShape | undefined>
  }
}

const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i])

/** Wraps `vm`'s code loading as the header says; throws when ethereumjs' shape has moved. */
export function installB20Code(vm: VM, forks: B20Forks): void {
  const evm = vm.evm as unknown as EvmShape
  if (typeof evm._loadCode !== 'function') throw new Error('ethereumjs EVM has no _loadCode: the B20 hook needs updating')
  installB20Gas(vm, kindOf, forks)
  const load = evm._loadCode.bind(evm)
  evm._loadCode = async (message: Message) => {
    const preset = message.code !== undefined
    await load(message)
    if (preset || message.isCompiled || typeof message.code === 'function' || !message.code) return
    const code = message.code
    // Ordinary code returns here, before any work: the hook sits on every call's path.
    if (code.length > 1 || (code.length === 1 && code[0] !== 0xef)) return
    const address = message.codeAddress.bytes
    // No code: only a token (0xB2…), a singleton (0xB20f…, 0x8453…) or an EIP-8130 precompile (0x8130…) is of interest.
    if (code.length === 0 && address[0] !== 0xb2 && address[0] !== 0x84 && address[0] !== 0x81) return
    const key = hexOf(address)
    const selector = hexOf(message.data?.subarray(0, 4) ?? new Uint8Array())
    // The registries run the logic of the block's upgrade (b20-forks.ts).
    const fork = b20ForkAt(forks, evm._block?.header.timestamp)
    if (code.length === 1) {
      if (key === ACTIVATION_REGISTRY && message.isStatic && isActivationWrite(selector, fork)) {
        message.code = STATIC_REFUSAL
        return
      }
      const token = TOKENS[fork]
      const implementation = registryCode(key, fork) ?? SINGLETONS.get(key) ?? (isB20TokenAddress(address) ? token : undefined)
      // A created token's creation entry point is an unknown selector, as on Base.
      if (implementation === token && selector === INITIALIZE) {
        const refusal = revertCode(message.data?.subarray(0, 4) ?? new Uint8Array(0))
        KINDS.set(refusal, 'token')
        message.code = refusal
        return
      }
      if (implementation) {
        message.code = implementation
        message.b20Fork = fork
      }
      return
    }
    // A DELEGATECALL runs no code-less singleton, but EIP-8130's precompiles answer it (TxContext refuses it).
    if (message.delegatecall && address[0] !== 0x81) return
    // createB20: the factory's first call to a fresh token address (a plain call, not static)
    // writes the marker, inside the factory's frame so its revert undoes it.
    if (isB20TokenAddress(address)) {
      const fromFactory = hexOf(message.caller.bytes) === FACTORY && message.to !== undefined && same(message.to.bytes, address)
      if (!fromFactory || message.isStatic) return
      const account = await evm.stateManager.getAccount(message.codeAddress)
      message.b20SetCodeGas = DEPOSIT_GAS + (account === undefined || account.isEmpty() ? NEW_ACCOUNT_GAS : 0n)
      await evm.stateManager.putCode(message.codeAddress, B20_MARKER)
      message.code = TOKENS[fork]
      return
    }
    // A singleton without the marker on a Beryl chain (a fork of Base, whose factory holds no code
    // and whose PolicyRegistry has none before its first write): run it all the same; a registry
    // write sets the marker first, as Base's does, so EIP-161 cannot remove a storage-only account.
    const implementation = registryCode(key, fork) ?? SINGLETONS.get(key)
    if (!implementation || key === ACTIVATION_REGISTRY) return
    const registry = await evm.stateManager.getCode(ACTIVATION_ADDRESS)
    if (registry.length !== 1 || registry[0] !== 0xef) return
    if (key !== FACTORY && !message.isStatic && REGISTRY_WRITES.has(selector)) {
      await evm.stateManager.putCode(message.codeAddress, B20_MARKER)
    }
    message.code = implementation
    message.b20Fork = fork
  }
}
