// Errors the node raises, each with its JSON-RPC code on the class (anvil's eth/error/mod.rs, reth's
// EthApiError): rpc/errors.ts turns any NodeError into a response by `instanceof`, nothing else.
// Messages follow geth's texts, because clients (viem and ethers above all) classify errors by them.

export class NodeError extends Error {
  /** geth's code for server-side failures: -32000. */
  readonly code: number = -32000
  constructor(
    message: string,
    /** Goes out as the error's `data` (bytes as 0x hex; an object, such as ERC-7769's, as it is). */
    readonly data?: Uint8Array | string | { readonly [key: string]: string },
  ) {
    super(message)
    this.name = new.target.name
  }
}

/** A transaction the pool refuses (-32000, geth's txpool texts). */
export class TxRejectedError extends NodeError {}

/**
 * EIP-7825: gas over the per-transaction cap, in geth's text (-32000). The profile decides what a
 * send answers (ChainProfile.txGasCapRefusal); `gas` is undefined when the envelope had none to read.
 */
export class TxGasCapError extends TxRejectedError {
  constructor(
    readonly cap: bigint,
    readonly gas: bigint | undefined,
  ) {
    super(`transaction gas limit too high (cap: ${cap}, tx: ${gas ?? '?'})`)
  }
}

/** reth's TransactionRejected (-32003): the txpool refusals reth's RPC answers with that code. */
export class TransactionRejectedError extends NodeError {
  override readonly code: number = -32003
}

/** A call that failed for a reason other than a revert (out of gas, invalid opcode, funds…). */
export class ExecutionError extends NodeError {}

/** Unknown block (-32000 "header not found", geth's text). */
export class BlockNotFoundError extends NodeError {
  constructor() {
    super('header not found')
  }
}

/** The state of a block the node no longer (or never) kept. */
export class StateUnavailableError extends NodeError {}

/** Bad parameter content found by the node (-32602). */
export class InvalidParamsError extends NodeError {
  override readonly code: number = -32602
}

/** A query whose answer would be too large; the message says how to narrow it (reth's -32602). */
export class LimitExceededError extends InvalidParamsError {}

/**
 * Execution reverted; `data` = the revert bytes. Code 3 with data is what geth and reth send and
 * what viem decodes custom errors from; eth_estimateGas on Base answers -32000, the code Base's documentation lists (docs/base-blocks.md).
 */
export class RevertError extends NodeError {
  override readonly code: number
  constructor(
    readonly reason: string | undefined,
    readonly output: Uint8Array,
    code = 3,
  ) {
    super(reason ? `execution reverted: ${reason}` : 'execution reverted', output)
    this.code = code
  }
}

/**
 * A fork's upstream could not answer (down, timing out, rate-limiting past every retry): -32000,
 * the message naming the upstream (key redacted) and the reason. The node keeps serving the rest.
 */
export class UpstreamError extends NodeError {
  constructor(
    message: string,
    /** The upstream answered, refusing (a JSON-RPC error), rather than could not be reached. */
    readonly refused = false,
  ) {
    super(message)
  }
}

/**
 * A fork's upstream answered with a JSON-RPC error: passed on as it came (a call at a block
 * before the fork that reverts upstream reverts here, code 3 and data as the upstream sent them).
 */
export class UpstreamRpcError extends NodeError {
  override readonly code: number
  /** The upstream's `data`, as it sent it. */
  readonly upstreamData: unknown
  constructor(code: number, message: string, data?: unknown) {
    super(message, typeof data === 'string' ? data : undefined)
    this.code = code
    this.upstreamData = data
  }
}
