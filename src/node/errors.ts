// Errors the node raises. The RPC layer maps each class to a JSON-RPC code; messages follow geth's
// texts because clients (viem above all) classify errors by message.

export class NodeError extends Error {
  override name = 'NodeError'
  constructor(
    message: string,
    readonly data?: Uint8Array | string,
  ) {
    super(message)
  }
}

/** A transaction the pool refuses (-32000). */
export class TxRejectedError extends NodeError {
  override name = 'TxRejectedError'
}

/** Execution reverted in eth_call / eth_estimateGas; data = the revert bytes. */
export class RevertError extends NodeError {
  override name = 'RevertError'
  constructor(
    readonly reason: string | undefined,
    readonly output: Uint8Array,
  ) {
    super(reason ? `execution reverted: ${reason}` : 'execution reverted', output)
  }
}

/** A call that failed for a reason other than a revert (out of gas, invalid opcode...). */
export class ExecutionError extends NodeError {
  override name = 'ExecutionError'
}

/** Unknown block (-32000 "header not found"). */
export class BlockNotFoundError extends NodeError {
  override name = 'BlockNotFoundError'
  constructor() {
    super('header not found')
  }
}

/** Bad parameter content found by the node (-32602). */
export class InvalidParamsError extends NodeError {
  override name = 'InvalidParamsError'
}

/** eth_simulateV1 and override errors that carry their own JSON-RPC code (-380xx, -32000, -32603...). */
export class SimulateError extends NodeError {
  override name = 'SimulateError'
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}
