// Which version of Base's registry logic a block runs. Base freezes one logic version per upgrade
// (base/base precompiles policy/logic v1, v2, v3; activation ActivationAdminConfig state-enabled
// from Cobalt) and its node picks the version of the block's upgrade; the code hook does the same by
// the executing block's timestamp against the chain's upgrade times, which the node sets from its
// options (src/node/b20/upgrades.ts).
import {
  B20ActivationRegistry,
  B20ActivationRegistryBeryl,
  B20NonceManager,
  B20PolicyRegistry,
  B20PolicyRegistryBeryl,
  B20PolicyRegistryCobalt,
  B20TxContext,
} from '../../../contracts/artifacts.js'

/** When Cobalt and Denim activate (unix seconds); undefined: never. Beryl is the state's: its markers. */
export interface B20Forks {
  cobalt: bigint | undefined
  denim: bigint | undefined
}

/** 0 Beryl, 1 Cobalt, 2 Denim. */
export type B20Fork = 0 | 1 | 2

const hex = (code: string) => new Uint8Array(Buffer.from(code.slice(2), 'hex'))

const ACTIVATION = '8453000000000000000000000000000000000001'
const POLICY = '8453000000000000000000000000000000000002'
const txContext = hex(B20TxContext.deployedBytecode)
const nonceManager = hex(B20NonceManager.deployedBytecode)
/** Each address's code at Beryl, Cobalt and Denim (none: not a precompile then). */
const VERSIONS = new Map<string, readonly [Uint8Array | undefined, Uint8Array, Uint8Array]>([
  [
    ACTIVATION,
    [
      hex(B20ActivationRegistryBeryl.deployedBytecode),
      hex(B20ActivationRegistry.deployedBytecode),
      hex(B20ActivationRegistry.deployedBytecode),
    ],
  ],
  [
    POLICY,
    [
      hex(B20PolicyRegistryBeryl.deployedBytecode),
      hex(B20PolicyRegistryCobalt.deployedBytecode),
      hex(B20PolicyRegistry.deployedBytecode),
    ],
  ],
  // EIP-8130's TxContext and NonceManager, installed from Cobalt; they hold no code (Base plants a
  // marker at the NonceManager only at Zenith).
  ['813000000000000000000000000000000000aa02', [undefined, txContext, txContext]],
  ['813000000000000000000000000000000000aa01', [undefined, nonceManager, nonceManager]],
])

/** The upgrade a block at `timestamp` runs (no block known: the newest). */
export function b20ForkAt(forks: B20Forks, timestamp: bigint | undefined): B20Fork {
  if (timestamp === undefined) return 2
  if (forks.denim !== undefined && timestamp >= forks.denim) return 2
  if (forks.cobalt !== undefined && timestamp >= forks.cobalt) return 1
  return 0
}

/** A registry's (or an EIP-8130 precompile's) code at `fork` (`key`: the address in lowercase hex, no 0x); undefined for other addresses. */
export function registryCode(key: string, fork: B20Fork): Uint8Array | undefined {
  return VERSIONS.get(key)?.[fork]
}

/**
 * The ActivationRegistry's writes a static call may not reach (StaticCallNotAllowed first):
 * activate, deactivate, and from Cobalt setAdmin; before Cobalt setAdmin is an unknown selector.
 */
export function isActivationWrite(selector: string, fork: B20Fork): boolean {
  return selector === '59db6e85' || selector === '22eee84c' || (fork >= 1 && selector === '704b6c02')
}

/** Every version's code, once (the gas hook meters a frame running any of them as a registry's). */
export const REGISTRY_CODES: readonly Uint8Array[] = [
  ...new Set([...VERSIONS.values()].flat().filter((code): code is Uint8Array => code !== undefined)),
]
