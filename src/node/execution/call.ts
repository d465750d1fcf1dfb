// eth_call-style execution: an unsigned transaction from any sender, run on a VM inside a
// checkpoint that is always reverted. Shared by eth_call, eth_estimateGas and eth_simulateV1.
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import {
  createAccessList2930Tx,
  createBlob4844Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from '@ethereumjs/tx'
import { Account, Address, equalsBytes, KECCAK256_NULL, toChecksumAddress } from '@ethereumjs/util'
import { type RunTxOpts, type RunTxResult, runTx, type VM } from '@ethereumjs/vm'
import { txCommon } from '../engine/commons.js'
import { blockAt, txGasCap } from '../engine/engine.js'
import { ExecutionError, InvalidParamsError, RevertError, SimulateError } from '../errors.js'
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
  const fields = applyBlockOverrides(header, overrides)
  if (!payFees && overrides?.baseFeePerGas === undefined) fields.baseFeePerGas = 0n
  return blockAt(common, fields)
}

/** A copy of `header` with the block overrides eth_call and eth_simulateV1 share applied. */
export function applyBlockOverrides(header: HeaderFields, overrides: BlockOverrides | undefined): HeaderFields {
  const fields = { ...header }
  if (!overrides) return fields
  if (overrides.number !== undefined) fields.number = overrides.number
  if (overrides.time !== undefined) fields.timestamp = overrides.time
  if (overrides.gasLimit !== undefined) fields.gasLimit = overrides.gasLimit
  if (overrides.feeRecipient !== undefined) fields.coinbase = overrides.feeRecipient
  if (overrides.prevRandao !== undefined) fields.mixHash = overrides.prevRandao
  if (overrides.baseFeePerGas !== undefined) fields.baseFeePerGas = overrides.baseFeePerGas
  if (overrides.beaconRoot !== undefined) fields.parentBeaconBlockRoot = overrides.beaconRoot
  return fields
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
  const opts = { common: txCommon(common), freeze: false }
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
  } else if (req.blobVersionedHashes) {
    if (!req.to) throw new InvalidParamsError('blob transactions cannot create contracts: missing "to"')
    tx = createBlob4844Tx(
      {
        ...base,
        maxFeePerGas: req.maxFeePerGas ?? req.gasPrice ?? 0n,
        maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? 0n,
        maxFeePerBlobGas: req.maxFeePerBlobGas ?? 0n,
        blobVersionedHashes: req.blobVersionedHashes as never,
      },
      { ...opts, common: txCommon(withKzg(common)) },
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

const kzgCommons = new WeakMap<Common, Common>()

/**
 * ethereumjs builds no blob transaction without a KZG backend, even one that carries only
 * versioned hashes (all a call has). A copy of the common with a stub that is never reached
 * without blobs, unless the engine already has a real one.
 */
function withKzg(common: Common): Common {
  if (common.customCrypto.kzg) return common
  let copy = kzgCommons.get(common)
  if (!copy) {
    const unavailable = () => {
      throw new Error('KZG is not available for calls')
    }
    copy = common.copy()
    ;(copy as { customCrypto: unknown }).customCrypto = { ...common.customCrypto, kzg: new Proxy({}, { get: () => unavailable }) }
    kzgCommons.set(common, copy)
  }
  return copy
}

/**
 * Applies eth_call / eth_simulateV1 state overrides to the VM's state (inside the caller's
 * checkpoint). Precompile moves swap the EVM's precompile map; call the returned function to put
 * the original back once the call or simulated block is done.
 */
export async function applyStateOverrides(
  vm: VM,
  overrides: StateOverrides | undefined,
  /** false: two precompiles may move to one address (geth; the profile's choice, profile.ts). */
  oneMovePerTarget = true,
): Promise<() => void> {
  if (!overrides) return () => {}
  const restore = movePrecompiles(vm, overrides, oneMovePerTarget)
  try {
    for (const [addressHex, o] of overrides) {
      const address = new Address(Buffer.from(addressHex.slice(2), 'hex'))
      await applyAccountOverride(vm, address, o)
    }
  } catch (error) {
    restore()
    throw error
  }
  return restore
}

type PrecompileMap = Map<string, unknown>
/** While overrides have moved precompiles: the VM's original map, which geth still warms per tx. */
const movedPrecompiles = new WeakMap<VM, { base: PrecompileMap; moved: PrecompileMap }>()

/**
 * movePrecompileToAddress: the precompile keeps working at its new address and its old one becomes
 * an ordinary account (so `code` can be put there). ethereumjs keys its precompile map (private,
 * pinned version) by unprefixed lowercase address. An account whose code is overridden loses its
 * precompile too, so the code runs. Errors as the spec numbers them: -38022 / -38023.
 */
function movePrecompiles(vm: VM, overrides: StateOverrides, oneMovePerTarget = true): () => void {
  const evm = vm.evm as unknown as { _precompiles: PrecompileMap }
  const original = evm._precompiles
  const moves: Array<[string, string]> = []
  let touched = false
  for (const [address, o] of overrides) {
    const key = address.slice(2)
    if (o.movePrecompileToAddress !== undefined) {
      if (!original.has(key)) throw new SimulateError(-32000, `account ${toChecksumAddress(address)} is not a precompile`)
      const target = `0x${Buffer.from(o.movePrecompileToAddress).toString('hex')}`
      if (target === address) throw new SimulateError(-38022, `cannot move precompile ${toChecksumAddress(address)} to itself`)
      if (oneMovePerTarget && moves.some(([, t]) => t === target.slice(2))) {
        throw new SimulateError(-38023, `multiple precompiles moved to ${toChecksumAddress(target)}`)
      }
      if (overrides.has(target)) throw new SimulateError(-38023, `account ${toChecksumAddress(target)} is already overridden`)
      moves.push([key, target.slice(2)])
      touched = true
    } else if (o.code !== undefined && original.has(key)) {
      touched = true
    }
  }
  if (!touched) return () => {}
  const next = new Map(original)
  for (const [address, o] of overrides) if (o.code !== undefined) next.delete(address.slice(2))
  for (const [from] of moves) next.delete(from)
  for (const [from, to] of moves) next.set(to, original.get(from))
  evm._precompiles = next
  movedPrecompiles.set(vm, { base: original, moved: next })
  return () => {
    evm._precompiles = original
    movedPrecompiles.delete(vm)
  }
}

async function applyAccountOverride(vm: VM, address: Address, o: AccountOverride): Promise<void> {
  const state = vm.stateManager
  if (o.state && o.stateDiff) throw new InvalidParamsError(`account ${address.toString()} has both 'state' and 'stateDiff'`)
  // Only a precompile move: geth touches no account (an empty one would change the state root).
  if (o.balance === undefined && o.nonce === undefined && o.code === undefined && !o.state && !o.stateDiff) return
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
  let restore = () => {}
  try {
    restore = await applyStateOverrides(vm, options.overrides)
    await options.prepare?.()
    const result = await runCallTx(vm, {
      tx,
      block,
      skipNonce: true,
      skipBalance: !options.validateBalance,
      skipBlockGasLimitValidation: true,
      skipHardForkValidation: true,
    })
    return { result, failure: describeFailure(result) }
  } finally {
    restore()
    await state.revert()
  }
}

const DELEGATION_PREFIX = Uint8Array.from([0xef, 0x01, 0x00])

/**
 * runTx for an unsigned call. geth skips the sender-is-EOA check (EIP-3607) for eth_call and
 * eth_simulateV1, ethereumjs can't: so the sender's code hash reads as empty for that one check
 * (it is the first read of the account runTx fetches), and real everywhere after.
 */
export async function runCallTx(vm: VM, opts: RunTxOpts): Promise<RunTxResult> {
  const moved = movedPrecompiles.get(vm)
  if (!moved) return runCallTxAs(vm, opts)
  // runTx warms the precompile map's addresses before the first message: warm the original set,
  // as geth does, then run with the moved one.
  const evm = vm.evm as unknown as { _precompiles: PrecompileMap; events?: VM['evm']['events'] }
  const toMoved = () => {
    evm._precompiles = moved.moved
    evm.events?.off('beforeMessage', toMoved)
  }
  evm._precompiles = moved.base
  evm.events?.on('beforeMessage', toMoved)
  try {
    return await runCallTxAs(vm, opts)
  } finally {
    toMoved()
  }
}

async function runCallTxAs(vm: VM, opts: RunTxOpts): Promise<RunTxResult> {
  const state = vm.stateManager
  const sender = opts.tx.getSenderAddress()
  const account = await state.getAccount(sender)
  if (!account || equalsBytes(account.codeHash, KECCAK256_NULL)) return runTx(vm, opts)
  const code = await state.getCode(sender)
  if (code.length >= 3 && equalsBytes(code.subarray(0, 3), DELEGATION_PREFIX)) return runTx(vm, opts)
  const getAccount = state.getAccount
  const unhook = () => {
    delete (state as { getAccount?: unknown }).getAccount
    if (state.getAccount !== getAccount) state.getAccount = getAccount
  }
  state.getAccount = async (address: Address) => {
    const found = await getAccount.call(state, address)
    if (!found || !address.equals(sender)) return found
    unhook()
    const real = found.codeHash
    let reads = 0
    Object.defineProperty(found, 'codeHash', {
      configurable: true,
      get: () => (reads++ === 0 ? KECCAK256_NULL : real),
      set: (value: Uint8Array) => Object.defineProperty(found, 'codeHash', { value, writable: true, configurable: true }),
    })
    return found
  }
  try {
    return await runTx(vm, opts)
  } finally {
    unhook()
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
