// eth_call-style execution: an unsigned transaction from any sender, run on a VM inside a
// checkpoint that is always reverted. Shared by eth_call, eth_estimateGas and eth_simulateV1.
import { type Block, createBlock } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import {
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from '@ethereumjs/tx'
import { Account, Address } from '@ethereumjs/util'
import { type RunTxResult, runTx, type VM } from '@ethereumjs/vm'
import { toHeaderData, txGasCap } from '../engine.js'
import { ExecutionError, InvalidParamsError, RevertError } from '../errors.js'
import type { AccountOverride, BlockOverrides, CallRequest, HeaderFields, StateOverrides } from '../types.js'
import { decodeRevertReason } from './revert.js'

export const ZERO_ADDRESS = new Uint8Array(20)

/** Gas a call may use when it names none: the block's limit, capped by EIP-7825 where active. */
export function callGasCap(common: Common, blockGasLimit: bigint): bigint {
  const cap = txGasCap(common)
  return cap !== undefined && cap < blockGasLimit ? cap : blockGasLimit
}

export function hasFee(req: CallRequest): boolean {
  return (req.gasPrice ?? 0n) > 0n || (req.maxFeePerGas ?? 0n) > 0n || (req.maxPriorityFeePerGas ?? 0n) > 0n
}

/** The header a call executes in: the block's, with overrides; base fee 0 when the call pays none (geth's NoBaseFee). */
export function callBlock(common: Common, header: HeaderFields, overrides: BlockOverrides | undefined, payFees: boolean): Block {
  const fields = { ...header }
  if (overrides?.number !== undefined) fields.number = overrides.number
  if (overrides?.time !== undefined) fields.timestamp = overrides.time
  if (overrides?.gasLimit !== undefined) fields.gasLimit = overrides.gasLimit
  if (overrides?.feeRecipient !== undefined) fields.coinbase = overrides.feeRecipient
  if (overrides?.prevRandao !== undefined) fields.mixHash = overrides.prevRandao
  if (overrides?.baseFeePerGas !== undefined) fields.baseFeePerGas = overrides.baseFeePerGas
  if (!payFees && overrides?.baseFeePerGas === undefined) fields.baseFeePerGas = 0n
  return createBlock({ header: toHeaderData(fields) }, { common, setHardfork: false })
}

/** An unsigned transaction for `req`, reporting `from` as its sender. */
export function callTransaction(common: Common, req: CallRequest, gas: bigint, nonce: bigint): TypedTransaction {
  const base = {
    nonce,
    gasLimit: gas,
    to: req.to ? new Address(req.to) : undefined,
    value: req.value ?? 0n,
    data: req.data ?? new Uint8Array(),
    accessList: req.accessList?.map((e) => [e.address, e.storageKeys]) as never,
  }
  const opts = { common, freeze: false }
  let tx: TypedTransaction
  if (req.authorizationList) {
    tx = createEOACode7702Tx(
      {
        ...base,
        maxFeePerGas: req.maxFeePerGas ?? req.gasPrice ?? 0n,
        maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? 0n,
        authorizationList: req.authorizationList.map((a) => ({
          chainId: `0x${a.chainId.toString(16)}`,
          address: `0x${Buffer.from(a.address).toString('hex')}`,
          nonce: `0x${a.nonce.toString(16)}`,
          yParity: `0x${a.yParity.toString(16)}`,
          r: `0x${a.r.toString(16)}`,
          s: `0x${a.s.toString(16)}`,
        })) as never,
      },
      opts,
    )
  } else if (req.gasPrice !== undefined && req.maxFeePerGas === undefined) {
    tx = req.accessList
      ? createAccessList2930Tx({ ...base, gasPrice: req.gasPrice }, opts)
      : createLegacyTx({ ...base, gasPrice: req.gasPrice }, opts)
  } else {
    const maxFeePerGas = req.maxFeePerGas ?? 0n
    const tip = req.maxPriorityFeePerGas ?? (maxFeePerGas > 0n ? 0n : 0n)
    if (tip > maxFeePerGas && req.maxFeePerGas !== undefined) {
      throw new InvalidParamsError(`max priority fee per gas higher than max fee per gas`)
    }
    tx = createFeeMarket1559Tx(
      { ...base, maxFeePerGas: maxFeePerGas < tip ? tip : maxFeePerGas, maxPriorityFeePerGas: tip },
      opts,
    )
  }
  const from = new Address(req.from ?? ZERO_ADDRESS)
  tx.getSenderAddress = () => from
  return tx
}

/** Applies eth_call / eth_simulateV1 state overrides to the VM's state (inside the caller's checkpoint). */
export async function applyStateOverrides(vm: VM, overrides: StateOverrides | undefined): Promise<void> {
  if (!overrides) return
  const state = vm.stateManager
  for (const [addressHex, o] of overrides) {
    const address = new Address(Buffer.from(addressHex.slice(2), 'hex'))
    await applyAccountOverride(vm, address, o)
    void state
  }
}

async function applyAccountOverride(vm: VM, address: Address, o: AccountOverride): Promise<void> {
  const state = vm.stateManager
  if (o.state && o.stateDiff) throw new InvalidParamsError(`account ${address.toString()} has both 'state' and 'stateDiff'`)
  const account = (await state.getAccount(address)) ?? new Account()
  if (o.balance !== undefined) account.balance = o.balance
  if (o.nonce !== undefined) account.nonce = o.nonce
  await state.putAccount(address, account)
  if (o.code !== undefined) await state.putCode(address, o.code)
  if (o.state) {
    await state.clearStorage(address)
    for (const [slot, value] of o.state) await state.putStorage(address, Buffer.from(slot.slice(2), 'hex'), value)
  }
  if (o.stateDiff) {
    for (const [slot, value] of o.stateDiff) await state.putStorage(address, Buffer.from(slot.slice(2), 'hex'), value)
  }
}

export interface CallOutcome {
  result: RunTxResult
  /** undefined on success */
  failure?: { kind: 'revert' | 'vm'; message: string; output: Uint8Array }
}

/** Runs `tx` once on `vm` and reverts everything it did. Throws for invalid transactions (funds, fees). */
export async function runReverted(
  vm: VM,
  block: Block,
  tx: TypedTransaction,
  options: { validateBalance: boolean; overrides?: StateOverrides; prepare?: () => Promise<void> },
): Promise<CallOutcome> {
  const state = vm.stateManager
  await state.checkpoint()
  try {
    await applyStateOverrides(vm, options.overrides)
    await options.prepare?.()
    const result = await runTx(vm, {
      tx,
      block,
      skipNonce: true,
      skipBalance: !options.validateBalance,
      skipBlockGasLimitValidation: true,
      skipHardForkValidation: true,
    })
    return { result, failure: describeFailure(result) }
  } finally {
    await state.revert()
  }
}

export function describeFailure(result: RunTxResult): CallOutcome['failure'] {
  const error = result.execResult.exceptionError
  if (!error) return undefined
  const output = result.execResult.returnValue
  if (error.error === 'revert') {
    const reason = decodeRevertReason(output)
    return { kind: 'revert', message: reason ? `execution reverted: ${reason}` : 'execution reverted', output }
  }
  return { kind: 'vm', message: error.error, output }
}

/** Throws the RPC-facing error for a failed call (reverts carry their data). */
export function throwFailure(failure: NonNullable<CallOutcome['failure']>): never {
  if (failure.kind === 'revert') throw new RevertError(decodeRevertReason(failure.output), failure.output)
  throw new ExecutionError(failure.message)
}

/** Maps ethereumjs' runTx validation errors to geth's texts (clients match on them). */
export function mapRunTxError(error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error)
  let m = /upfront cost is: (\d+) and the sender's account \((0x[0-9a-fA-F]+)\) only has: (\d+)/.exec(message)
  m ??= /max cost is: (\d+) and the sender's account \((0x[0-9a-fA-F]+)\) only has: (\d+)/.exec(message)
  if (m) return new ExecutionError(`insufficient funds for gas * price + value: address ${m[2]} have ${m[3]} want ${m[1]}`)
  const fee = /\((\d+)\) is less than the block's baseFeePerGas \((\d+)\)/.exec(message)
  if (fee) return new ExecutionError(`max fee per gas less than block base fee: maxFeePerGas: ${fee[1]}, baseFee: ${fee[2]}`)
  const intrinsic = /tx gas limit (\d+) is lower than the minimum gas limit of (\d+)/.exec(message)
  if (intrinsic) return new ExecutionError(`intrinsic gas too low: have ${intrinsic[1]}, want ${intrinsic[2]}`)
  if (/doesn't have the correct nonce/.test(message)) return new ExecutionError(message.split(' -> ')[0])
  return error instanceof Error ? error : new Error(message)
}
