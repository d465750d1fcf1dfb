// What every tracer is (geth's eth/tracers/dir.go Tracer: hooks, GetResult, Stop) in pcnode's terms,
// and what it is told about the transaction it traces (geth's tracers.Context and OnTxStart /
// OnTxEnd arguments).
import type { StateView, TraceHooks } from '../engine/index.js'

/** The transaction (or call) a tracer watches, as geth hands it to OnTxStart and the JS ctx. */
export interface TxContext {
  from: Uint8Array
  /** undefined for a creation. */
  to?: Uint8Array
  /** The address a creation deploys to. */
  created?: Uint8Array
  value: bigint
  input: Uint8Array
  /** The transaction's gas limit (callTracer's top-frame gas). */
  gasLimit: bigint
  /** What the sender pays the coinbase per gas (JS ctx.gasPrice: the effective tip). */
  gasTip: bigint
  blockNumber: bigint
  coinbase: Uint8Array
  /** Set for a mined (or pre-confirmed) transaction; undefined for debug_traceCall. */
  blockHash?: Uint8Array
  txHash?: Uint8Array
  txIndex: number
  /** Logs before this transaction in its block: geth's statedb log index starts there. */
  firstLogIndex: number
  /** Lowercase hex (no 0x) of the precompiles active in the block. */
  precompiles: Set<string>
  /** The state being executed on: read during and after execution. */
  state: StateView
  /** EIP-7702 authorities of the transaction. */
  authorities: Uint8Array[]
  /** OP stack: the fee vaults the transaction pays into (none on other chains). */
  feeVaults: Uint8Array[]
  /** While the trace waits on `wait` (its JS tracer's worker): the block producer's queued work,
   * and reads and calls, run meanwhile (the trace's state is its own view). */
  lendQueue?<T>(wait: Promise<T>): Promise<T>
}

/** How the transaction ended (geth's OnTxEnd receipt). */
export interface TxEnd {
  /** The receipt's gasUsed. */
  gasUsed: bigint
}

export interface Tracer {
  hooks: TraceHooks
  /** Before execution, on the state before it (geth's OnTxStart). */
  txStart?(ctx: TxContext): void | Promise<void>
  /** After execution, on the state after it (geth's OnTxEnd). */
  txEnd?(end: TxEnd): void | Promise<void>
  /** The tracer's JSON result (geth's GetResult). */
  result(): unknown
  /** Frees what the tracer holds once the trace is over, answered or failed. */
  dispose?(): void
}
