// A receipt from what execution reported: the one place the producer and simulations build them.
import type { ExecResult } from '../engine/index.js'
import { effectiveGasPrice } from '../fees.js'
import type { L1ReceiptFields, ReceiptData, TxRecord } from '../types.js'

export interface ReceiptContext {
  /** The block's base fee (the effective gas price depends on it). */
  baseFee: bigint
  /** Gas used in the block up to and including this transaction. */
  cumulativeGasUsed: bigint
  /** The block's blob base fee, for blob transactions. */
  blobGasPrice: () => bigint
  /** Block-wide index of this receipt's first log. */
  firstLogIndex: number
  /** OP-stack blocks: the L1 fee fields (opstack/opstack.ts). */
  l1?: L1ReceiptFields
}

export function receiptOf(tx: TxRecord, result: ExecResult, ctx: ReceiptContext): ReceiptData {
  const blobGasUsed = result.blobGasUsed || undefined
  return {
    status: result.error ? 0 : 1,
    gasUsed: result.gasUsed,
    cumulativeGasUsed: ctx.cumulativeGasUsed,
    effectiveGasPrice: tx.deposit ? 0n : effectiveGasPrice(tx, ctx.baseFee),
    contractAddress: result.createdAddress,
    logs: result.logs,
    logsBloom: result.logsBloom,
    blobGasUsed,
    blobGasPrice: blobGasUsed ? ctx.blobGasPrice() : undefined,
    firstLogIndex: ctx.firstLogIndex,
    ...(result.depositNonce !== undefined ? { depositNonce: result.depositNonce } : {}),
    ...(ctx.l1 ? { l1: ctx.l1 } : {}),
    ...(result.error ? { failure: { error: result.error, output: result.returnValue } } : {}),
  }
}
