// Fee arithmetic (anvil's eth/fees.rs): a transaction's fee caps and effective price, and the tip
// pcnode suggests. Pure functions of a transaction's fields; eth_feeHistory is in fee-history.ts.
import type { TxRecord } from './types.js'

/** Tip suggested by eth_maxPriorityFeePerGas and used by eth_sendTransaction (anvil's default). */
export const SUGGESTED_TIP = 1_000_000_000n

/** The most a transaction pays per gas: its fee cap (EIP-1559) or its gas price. */
export function maxFee(tx: TxRecord): bigint {
  return tx.maxFeePerGas ?? tx.gasPrice ?? 0n
}

/** The most it tips per gas. */
export function maxTip(tx: TxRecord): bigint {
  return tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0n
}

/** The tip it pays per gas at `baseFee` (negative when its cap is below the base fee). */
export function effectiveTip(tx: TxRecord, baseFee: bigint): bigint {
  const room = maxFee(tx) - baseFee
  const tip = maxTip(tx)
  return room < tip ? room : tip
}

/** The price per gas it pays at `baseFee` (a receipt's effectiveGasPrice). */
export function effectiveGasPrice(tx: TxRecord, baseFee: bigint): bigint {
  if (tx.maxFeePerGas === undefined) return tx.gasPrice ?? 0n
  const tip = effectiveTip(tx, baseFee)
  return baseFee + (tip > 0n ? tip : 0n)
}
