// OP-stack deposits (type 0x7e; OP specs protocol/deposits.md) on ethereumjs, which has no such
// type. A deposit's mint is credited first and kept whatever follows; the deposit then runs as a
// fee-less EIP-1559 transaction from its sender (no signature, no nonce check, no EIP-3607 check,
// as op-geth's state transition skips them) in the block with base fee 0. A deposit refused before
// it runs (value above the balance, gas below intrinsic) still bumps the sender's nonce and uses
// its whole gas limit (Regolith).
import type { Common } from '@ethereumjs/common'
import { Account, Address } from '@ethereumjs/util'
import type { RunTxResult, VM } from '@ethereumjs/vm'
import { bytesToHex, hexToBytes } from 'viem'
import { parseTransaction, serializeTransaction } from 'viem/op-stack'
import { NodeError, TxRejectedError } from '../../errors.js'
import type { TxRecord } from '../../types.js'
import type { BlockEnv } from '../header.js'
import { runTxIgnoringSenderCode } from '../hooks/call-sender.js'
import { overrideBlockOpcodes } from '../hooks/opcode-wrappers.js'
import { DEPOSIT_TX_TYPE } from '../receipts.js'
import { callTransaction } from '../tx/call.js'

/** A deposit's fields (what its RLP carries: OP specs, deposits.md). */
export interface DepositInput {
  sourceHash: Uint8Array
  from: Uint8Array
  to?: Uint8Array
  mint: bigint
  value: bigint
  gasLimit: bigint
  isSystemTx: boolean
  data: Uint8Array
}

/** A deposit's envelope, 0x7e ‖ RLP (viem's op-stack serializer). */
export function encodeDeposit(d: DepositInput): Uint8Array {
  return hexToBytes(
    serializeTransaction({
      type: 'deposit',
      sourceHash: bytesToHex(d.sourceHash),
      from: bytesToHex(d.from),
      to: d.to ? bytesToHex(d.to) : undefined,
      mint: d.mint,
      value: d.value,
      gas: d.gasLimit,
      isSystemTx: d.isSystemTx,
      data: bytesToHex(d.data),
    }),
  )
}

/** A deposit's fields from its envelope (viem's op-stack parser); TxRejectedError when malformed. */
export function decodeDeposit(raw: Uint8Array): DepositInput {
  let tx: ReturnType<typeof parseTransaction<`0x7e${string}`>>
  try {
    tx = parseTransaction(bytesToHex(raw) as `0x7e${string}`)
  } catch (error) {
    throw new TxRejectedError(
      `rlp: invalid deposit transaction (${(error as { shortMessage?: string }).shortMessage ?? (error as Error).message})`,
    )
  }
  if (tx.type !== 'deposit') throw new TxRejectedError('rlp: not a deposit transaction')
  const sourceHash = hexToBytes(tx.sourceHash)
  if (sourceHash.length !== 32)
    throw new TxRejectedError(`rlp: invalid deposit transaction (sourceHash of ${sourceHash.length} bytes, want 32)`)
  return {
    sourceHash,
    from: hexToBytes(tx.from),
    to: tx.to ? hexToBytes(tx.to) : undefined,
    mint: tx.mint ?? 0n,
    value: tx.value ?? 0n,
    gasLimit: tx.gas ?? 0n,
    isSystemTx: tx.isSystemTx ?? false,
    data: tx.data ? hexToBytes(tx.data) : new Uint8Array(),
  }
}

/** The record of a deposit whose envelope (0x7e ‖ RLP) is `raw`. */
export function depositRecord(keccak: (data: Uint8Array) => Uint8Array, d: DepositInput, raw: Uint8Array): TxRecord {
  return {
    type: DEPOSIT_TX_TYPE,
    hash: keccak(raw),
    raw,
    from: d.from,
    nonce: 0n,
    gasLimit: d.gasLimit,
    to: d.to,
    value: d.value,
    data: d.data,
    deposit: { sourceHash: d.sourceHash, mint: d.mint, isSystemTx: d.isSystemTx },
  }
}

export type DepositOutcome =
  | { depositNonce: bigint; result: RunTxResult }
  /** Refused before running: `reason` is ethereumjs' text. */
  | { depositNonce: bigint; refused: string }

export async function runDeposit(
  vm: VM,
  common: Common,
  tx: TxRecord,
  env: BlockEnv,
  blockGasUsed: bigint | undefined,
): Promise<DepositOutcome> {
  const state = vm.stateManager
  const from = new Address(tx.from)
  const account = (await state.getAccount(from)) ?? new Account()
  const depositNonce = account.nonce
  const mint = tx.deposit?.mint ?? 0n
  if (mint > 0n) {
    account.balance += mint
    await state.putAccount(from, account)
  }
  // BASEFEE reads the block's base fee, not the zero of the block the deposit runs in.
  const baseFee = env.header.baseFeePerGas
  const restore = overrideBlockOpcodes(vm, { baseFee: () => baseFee }, undefined)
  try {
    const fake = callTransaction(common, { from: tx.from, to: tx.to, value: tx.value, data: tx.data }, tx.gasLimit, depositNonce)
    const result = await runTxIgnoringSenderCode(vm, {
      tx: fake,
      block: env.zeroFeeBlock,
      blockGasUsed,
      skipNonce: true,
      skipBlockGasLimitValidation: true,
      skipHardForkValidation: true,
    })
    return { depositNonce, result }
  } catch (error) {
    // The node's own failures (a fork's upstream down) are not the protocol refusing the deposit.
    if (error instanceof NodeError) throw error
    const after = (await state.getAccount(from)) ?? new Account()
    after.nonce = depositNonce + 1n
    await state.putAccount(from, after)
    return { depositNonce, refused: (error as Error).message.split(' (block number')[0] }
  } finally {
    restore()
  }
}
