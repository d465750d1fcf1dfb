// Typed ABIs of Base's Beryl precompiles for viem users, from pcnode's implementations
// (contracts/B20*.sol) with the node's internals left out: the factory-only creation entry point
// and the fallback/receive entries that only reproduce Base's unknown-selector revert.
import {
  B20ActivationRegistry,
  B20Factory,
  B20NonceManager,
  B20PolicyRegistry,
  B20Token,
  B20TxContext,
} from '../../contracts/artifacts.js'

type Entry = { readonly type: string; readonly name?: string }
type Public<T extends readonly Entry[]> = Array<
  Exclude<T[number], { type: 'fallback' } | { type: 'receive' } | { name: 'b20Initialize' }>
>

function publicAbi<const T extends readonly Entry[]>(abi: T): Public<T> {
  return abi.filter((e) => e.type !== 'fallback' && e.type !== 'receive' && e.name !== 'b20Initialize') as Public<T>
}

/** The B20Factory at 0xB20f…: createB20, getB20Address, isB20, isB20Initialized. */
export const b20FactoryAbi = publicAbi(B20Factory.abi)
/** A B20 token (both variants; `currency()` answers on a Stablecoin only). */
export const b20Abi = publicAbi(B20Token.abi)
/** The PolicyRegistry at 0x8453…02. */
export const policyRegistryAbi = publicAbi(B20PolicyRegistry.abi)
/** The ActivationRegistry at 0x8453…01. */
export const activationRegistryAbi = publicAbi(B20ActivationRegistry.abi)
/** EIP-8130's TxContext at 0x8130…aa02 (from Cobalt). */
export const txContextAbi = publicAbi(B20TxContext.abi)
/**
 * EIP-8130's NonceManager at 0x8130…aa01 (from Cobalt). getNonce is a view on Base; pcnode's
 * implementation takes value only to answer it with Base's NonPayable().
 */
export const nonceManagerAbi = publicAbi(B20NonceManager.abi).map((e) =>
  e.type === 'function' ? { ...e, stateMutability: 'view' as const } : e,
)
