// What the bundler needs of the node (DevNode builds it): calls and simulations on the pre-confirmed
// state, the raw send, receipts, fees and the L1 data fee. Kept apart so the bundler's files import
// nothing above them.
import type { UserOpEvent } from '../events.js'
import type { SimulatedCall } from '../execution/simulate/run.js'
import type { CallRequest, IncludedTx, LogFilter, MatchedLog, StateOverrides } from '../types.js'

/** Runs a tracer over a call on the pre-confirmed state: its result. */
export type TraceCall = (req: CallRequest, tracer: string, config: object, overrides?: StateOverrides) => Promise<unknown>

export interface BundlerParts {
  chainId: bigint
  /** eth_call on the pre-confirmed state; a revert throws RevertError with its data. */
  call(req: CallRequest, overrides?: StateOverrides): Promise<Uint8Array>
  /** The calls in order on the pre-confirmed state (eth_simulateV1 without validation). */
  simulate(calls: CallRequest[], overrides?: StateOverrides): Promise<SimulatedCall[]>
  code(address: Uint8Array): Promise<Uint8Array>
  /** The account's next nonce, pooled transactions counted. */
  nonce(address: Uint8Array): Promise<bigint>
  sendRawTransaction(raw: Uint8Array): Promise<Uint8Array>
  /** The transaction's receipt, sealed or pre-confirmed, when it is visible. */
  receipt(hash: Uint8Array): IncludedTx | undefined
  /** eth_getLogs over sealed and pre-confirmed blocks. */
  logs(filter: LogFilter): MatchedLog[]
  /** Whether the transaction still waits: in the pool, or in a block not yet shown (halted flashblocks). */
  waiting(hash: Uint8Array): boolean
  baseFee(): bigint
  tip(): bigint
  /** The most gas one transaction may carry (block gas limit, EIP-7825's cap). */
  txGasCap(): bigint
  /** The L1 data fee (OP profiles) of a transaction whose signed bytes are `tx`; 0 elsewhere. */
  l1Fee(tx: Uint8Array): bigint
  /** debug_traceCall with a tracer (the erc7562Tracer) on the pre-confirmed state: its result. */
  traceCall: TraceCall
  log(line: string): void
  /** The chain's time in seconds (the pending block's timestamp): the reputation's hourly decay follows it. */
  now(): bigint
  /** Announces an op's step (NodeEvents' userOp): its stages and the terminal log follow it. */
  opEvent(event: UserOpEvent): void
  /** The latest sealed block's number: how long an op has waited (ERC-7562 THROTTLED_ENTITY_LIVE_BLOCKS). */
  blockNumber(): bigint
}
