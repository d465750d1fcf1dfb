// Chain profiles: every behaviour in which pcnode's default (Base) and geth's Ethereum
// differ lives in one of these objects. Code asks the profile; nothing tests the profile's name.
import { type NodeError, TransactionRejectedError, type TxGasCapError } from './errors.js'

export type ProfileName = 'flashblocks' | 'base' | 'ethereum'

export interface ChainProfile {
  readonly name: ProfileName
  /** Default milliseconds between sealed blocks (--block-time overrides it). */
  readonly blockTime: number
  /** Default milliseconds between flashblocks (--preconf-interval overrides it). */
  readonly preconfInterval: number
  /** Default sealed blocks between state-file writes (--state-interval overrides it). */
  readonly stateInterval: number
  /** Default blocks `safe` and `finalized` trail `latest` (--safe-lag, --finalized-lag override them). */
  readonly safeLag: number
  readonly finalizedLag: number
  /**
   * OP-stack blocks (opstack/): the L1-info deposit first in every block, the L1 data and operator
   * fees, OP receipts, predeploys and preinstalls, deposits accepted, blob transactions refused.
   */
  readonly opStack: boolean
  /**
   * Base's Denim upgrade applies from the chain's activation time (options `denimTime`, from genesis
   * on a local chain): 200 ms blocks opening with the BaseTime deposit, no flashblocks.
   */
  readonly denim: boolean
  /**
   * Base's Beryl and Cobalt upgrades (the B20 precompiles and their registries' changes) apply from
   * the chain's activation times (options berylTime, cobaltTime; genesis by default). Base ran both
   * before Denim, with flashblocks (base/docs upgrades/cobalt), so the flashblocks profile has them.
   */
  readonly beryl: boolean
  /**
   * JSON-RPC error code for a revert in eth_estimateGas (the revert data goes in `data`). eth_call
   * answers code 3 in every profile, as geth and reth (Base's node) do: viem decodes custom errors
   * only from code 3 with data.
   */
  readonly estimateRevertCode: number
  /** The stateRoot an eth_simulateV1 block reports, given the way to compute the real one. */
  simulatedStateRoot(real: () => Promise<Uint8Array>): Promise<Uint8Array>
  /**
   * eth_simulateV1 runs on a throwaway copy of the state: computing real state roots flushes the
   * state manager's caches inside the simulation's checkpoint, which its revert does not undo.
   */
  readonly simulateOnCopy: boolean
  /**
   * eth_simulateV1 movePrecompileToAddress: true refuses two precompiles moved to one address
   * (-38023, as the spec names it); false lets the last move win, as geth does.
   */
  readonly oneMovePerTarget: boolean
  /**
   * eth_getHeaderByNumber/ByHash carry the block's `size`: reth (Base's node) converts the header
   * with the block's RLP length; geth's RPCMarshalHeader has no size.
   */
  readonly headerSize: boolean
  /**
   * A send over the EIP-7825 cap: reth's txpool (Base's node) answers GasLimitTooHigh as
   * TransactionRejected, -32003 "gas limit too high"; geth the error as it is, -32000 with the figures.
   */
  txGasCapRefusal(error: TxGasCapError): NodeError
}

const ZERO_ROOT = new Uint8Array(32)

/**
 * Flashblocks (the default): an OP-stack chain with rollup-boost, as Base ran before Denim: 2 s
 * blocks, 200 ms flashblocks, zero simulated stateRoot, estimate reverts as -32000 (docs/base-blocks.md).
 */
export const FLASHBLOCKS_PROFILE: ChainProfile = {
  name: 'flashblocks',
  opStack: true,
  denim: false,
  beryl: true,
  blockTime: 2000,
  preconfInterval: 200,
  safeLag: 0,
  finalizedLag: 0,
  stateInterval: 10,
  estimateRevertCode: -32000,
  simulatedStateRoot: async () => ZERO_ROOT,
  simulateOnCopy: false,
  oneMovePerTarget: true,
  headerSize: true,
  txGasCapRefusal: () => new TransactionRejectedError('gas limit too high'),
}

/**
 * Base as it runs since Denim (base/docs upgrades/denim): a sealed block every 200 ms, each opening
 * with the L1-info and BaseTime deposits, millisecond time, no flashblocks. Before the chain's Denim
 * time (a fork of an older Base block) its blocks follow the flashblocks rules.
 */
export const BASE_PROFILE: ChainProfile = {
  ...FLASHBLOCKS_PROFILE,
  name: 'base',
  denim: true,
  blockTime: 200,
  // Base's safe head waits for its batch on L1 (about 2 minutes), finalized for L1 finality of that
  // batch (about 20 minutes): 600 and 6,000 blocks at 200 ms.
  safeLag: 600,
  finalizedLag: 6000,
  // Every 20 s, as every 10 blocks is at 2 s: each write renders the whole chain.
  stateInterval: 100,
}

/**
 * Ethereum (geth): 12 s slots and no pre-confirmations (one flashblock per block), simulated blocks
 * with their real state root (and so the hash geth computes), estimate reverts as code 3 with `data`.
 */
export const ETHEREUM_PROFILE: ChainProfile = {
  name: 'ethereum',
  opStack: false,
  denim: false,
  beryl: false,
  blockTime: 12_000,
  preconfInterval: 12_000,
  safeLag: 0,
  finalizedLag: 0,
  stateInterval: 10,
  estimateRevertCode: 3,
  simulatedStateRoot: (real) => real(),
  simulateOnCopy: true,
  oneMovePerTarget: false,
  headerSize: false,
  txGasCapRefusal: (error) => error,
}

export const PROFILES: Readonly<Record<ProfileName, ChainProfile>> = {
  flashblocks: FLASHBLOCKS_PROFILE,
  base: BASE_PROFILE,
  ethereum: ETHEREUM_PROFILE,
}

export function getProfile(name: string = 'flashblocks'): ChainProfile {
  const profile = (PROFILES as Record<string, ChainProfile | undefined>)[name]
  if (!profile) throw new Error(`unknown profile: ${name} (flashblocks, base or ethereum)`)
  return profile
}
