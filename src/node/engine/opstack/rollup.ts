// OP-stack fees beside gas (op-geth core/state_transition.go buyGas/refundGas; OP specs
// exec-engine.md, isthmus/ and jovian/exec-engine.md): the L1 data fee and the operator fee on the
// gas limit are taken from the sender before the transaction runs, together with the gas; after
// it, the operator fee of unused gas is refunded and the vaults are paid (the base fee goes to the
// BaseFeeVault instead of being burned). The formulas live outside the engine (opstack/fees.ts).

import { RLP } from '@ethereumjs/rlp'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Account, Address } from '@ethereumjs/util'
import type { RunTxResult, VM } from '@ethereumjs/vm'

/** What a block charges besides gas, and where it goes. */
export interface RollupFees {
  /**
   * The L1 data fee of a transaction from its bytes: the signed envelope, or an unsigned call's
   * serialization (`signed` false: GasPriceOracle.getL1Fee's allowance for a signature applies).
   */
  l1Fee(bytes: Uint8Array, signed: boolean): bigint
  /** The operator fee of `gas` gas. */
  operatorFee(gas: bigint): bigint
  vaults: { baseFee: Uint8Array; l1Fee: Uint8Array; operatorFee: Uint8Array }
}

/** What was charged: reported on the receipt. */
export interface RollupCharge {
  l1Fee: bigint
  operatorFee: bigint
}

/** The unsigned serialization of a call's transaction (what viem hands GasPriceOracle.getL1Fee). */
export function unsignedBytes(tx: TypedTransaction): Uint8Array {
  const message = tx.getMessageToSign()
  return Array.isArray(message) ? RLP.encode(message) : message
}

/** Thrown for a sender that cannot pay gas, value and the L1 and operator fees together. */
export class RollupFundsError extends Error {
  constructor(address: Address, have: bigint, want: bigint) {
    // ethereumjs' wording, which engine/refusals.ts turns into geth's "insufficient funds" text.
    super(
      `sender doesn't have enough funds to send tx. The max cost is: ${want} and the sender's account (${address}) only has: ${have}`,
    )
  }
}

/**
 * Runs `run` (the transaction's runTx) with the OP fees around it. `bytes` are what the L1 fee is
 * computed over. With `skipBalance`, a sender short of the whole cost is given it (as ethereumjs
 * does for calls that skip the balance check).
 */
export async function withRollupFees(
  vm: VM,
  tx: TypedTransaction,
  fees: RollupFees,
  l1Bytes: { bytes: Uint8Array; signed: boolean },
  baseFee: bigint,
  skipBalance: boolean,
  run: () => Promise<RunTxResult>,
): Promise<{ result: RunTxResult; charge: RollupCharge }> {
  const state = vm.stateManager
  const from = tx.getSenderAddress()
  const l1Fee = fees.l1Fee(l1Bytes.bytes, l1Bytes.signed)
  const upfrontOperatorFee = fees.operatorFee(tx.gasLimit)
  const upfront = l1Fee + upfrontOperatorFee
  const account = (await state.getAccount(from)) ?? new Account()
  if (upfront > 0n) {
    const feeCap = 'maxFeePerGas' in tx ? (tx.maxFeePerGas as bigint) : (tx as { gasPrice: bigint }).gasPrice
    const want = tx.gasLimit * feeCap + tx.value + upfront
    if (account.balance < want) {
      if (!skipBalance) throw new RollupFundsError(from, account.balance, want)
      account.balance = want
    }
    account.balance -= upfront
    await state.putAccount(from, account)
  }
  let result: RunTxResult
  try {
    result = await run()
  } catch (error) {
    // Refused before running (runTx changed nothing): the fees go back.
    if (upfront > 0n) {
      const back = (await state.getAccount(from)) ?? new Account()
      back.balance += upfront
      await state.putAccount(from, back)
    }
    throw error
  }
  const gasUsed = result.totalGasSpent
  const operatorFee = upfrontOperatorFee > 0n ? fees.operatorFee(gasUsed) : 0n
  await credit(vm, from.bytes, upfrontOperatorFee - operatorFee)
  await credit(vm, fees.vaults.l1Fee, l1Fee)
  await credit(vm, fees.vaults.operatorFee, operatorFee)
  await credit(vm, fees.vaults.baseFee, baseFee * gasUsed)
  return { result, charge: { l1Fee, operatorFee } }
}

async function credit(vm: VM, address: Uint8Array, amount: bigint): Promise<void> {
  if (amount <= 0n) return
  const addr = new Address(address)
  const account = (await vm.stateManager.getAccount(addr)) ?? new Account()
  account.balance += amount
  await vm.stateManager.putAccount(addr, account)
}
