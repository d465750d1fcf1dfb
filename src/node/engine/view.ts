// The node's handle on a state: accounts, code and storage in plain values (StateView), and
// transactions executed on it (ExecView). Callers run everything inside the engine's serial queue.
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Account, Address, equalsBytes, KECCAK256_NULL } from '@ethereumjs/util'
import { encodeReceipt, type RunTxResult, runTx, type VM } from '@ethereumjs/vm'
import { ExecutionError, NodeError } from '../errors.js'
import type { AccessListEntry, CallRequest, LogEntry, TxRecord } from '../types.js'
import type { BlockEnv } from './header.js'
import { runTxIgnoringSenderCode } from './hooks/call-sender.js'
import { watchConsole } from './hooks/console.js'
import { type BlockOpcodeOverrides, overrideBlockOpcodes } from './hooks/opcode-wrappers.js'
import { installPrecompiles, precompileMap, withMovedPrecompiles } from './hooks/precompiles.js'
import { attachTrace, type TraceAttachment, type TraceHooks } from './hooks/trace.js'
import { runDeposit } from './opstack/deposit.js'
import { type RollupCharge, type RollupFees, unsignedBytes, withRollupFees } from './opstack/rollup.js'
import { encodeReceipt as encodeNodeReceipt } from './receipts.js'
import { refusalOf } from './refusals.js'
import type { AccountEntry } from './store/account-cache.js'
import { ForkStateManager } from './store/fork-state.js'
import { type AccountProof, proveAccount } from './store/proof.js'
import { checkpointDepth, unwindTo } from './store/state.js'
import { historyContract } from './system-contracts.js'
import { callTransaction } from './tx/call.js'
import { engineTx } from './tx/record.js'
import { runAsMessage, runsAsMessage } from './vm/message-call.js'

interface PeekCaches {
  account?: { get(a: Address): AccountEntry | undefined }
  code?: { get(a: Address): { code?: Uint8Array } | undefined }
  storage?: { get(a: Address, key: Uint8Array): Uint8Array | undefined }
}

/** Cache-only state reads: undefined = not cached, null = known absent account. */
export interface StatePeek {
  account(address: Uint8Array): AccountState | null | undefined
  code(address: Uint8Array): Uint8Array | undefined
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array | undefined
}

export interface AccountState {
  nonce: bigint
  balance: bigint
  codeHash: Uint8Array
  storageRoot: Uint8Array
}

/** Accounts, code and storage of one state root; writes stay in it until commit. */
export class StateView {
  /** @internal */
  constructor(readonly sm: MerkleStateManager) {}

  async account(address: Uint8Array): Promise<AccountState | undefined> {
    const a = await this.sm.getAccount(new Address(address))
    return a && { nonce: a.nonce, balance: a.balance, codeHash: a.codeHash, storageRoot: a.storageRoot }
  }

  async nonce(address: Uint8Array): Promise<bigint> {
    return (await this.sm.getAccount(new Address(address)))?.nonce ?? 0n
  }

  async balance(address: Uint8Array): Promise<bigint> {
    return (await this.sm.getAccount(new Address(address)))?.balance ?? 0n
  }

  code(address: Uint8Array): Promise<Uint8Array> {
    return this.sm.getCode(new Address(address))
  }

  /** Whether the account has code other than an EIP-7702 delegation. */
  async hasCode(address: Uint8Array): Promise<boolean> {
    const a = await this.sm.getAccount(new Address(address))
    return a !== undefined && !equalsBytes(a.codeHash, KECCAK256_NULL)
  }

  /** The slot's value, left-padded to 32 bytes (zero for an absent account or slot). */
  async storage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const addr = new Address(address)
    const out = new Uint8Array(32)
    if (!(await this.sm.getAccount(addr))) return out
    const value = await this.sm.getStorage(addr, slot)
    out.set(value, 32 - value.length)
    return out
  }

  /**
   * Synchronous reads from the state's cache (what execution has loaded), for JS tracers whose
   * `db` answers at once: undefined when the cache does not hold it. Reads the protected caches
   * (selfcheck.ts checks their shape).
   */
  peek(): StatePeek {
    const caches = (this.sm as unknown as { _caches?: PeekCaches })._caches
    return {
      account: (address) => {
        const elem = caches?.account?.get(new Address(address))
        if (elem === undefined) return undefined
        const a = elem.account
        if (a === undefined) return null
        if (this.sm instanceof ForkStateManager && this.sm.link.isTombstone(a)) return null
        return { nonce: a.nonce, balance: a.balance, codeHash: a.codeHash, storageRoot: a.storageRoot }
      },
      code: (address) => caches?.code?.get(new Address(address))?.code,
      storage: (address, slot) => {
        const raw = caches?.storage?.get(new Address(address), slot)
        if (raw === undefined) return undefined
        const value = RLP.decode(raw) as Uint8Array
        const out = new Uint8Array(32)
        out.set(value, 32 - value.length)
        return out
      },
    }
  }

  /** Creates or updates an account; absent fields keep their value (0 for a new account). */
  async putAccount(address: Uint8Array, fields: { nonce?: bigint; balance?: bigint }): Promise<void> {
    const addr = new Address(address)
    const account = (await this.sm.getAccount(addr)) ?? new Account()
    if (fields.nonce !== undefined) account.nonce = fields.nonce
    if (fields.balance !== undefined) account.balance = fields.balance
    await this.sm.putAccount(addr, account)
  }

  async putCode(address: Uint8Array, code: Uint8Array): Promise<void> {
    await this.sm.putCode(new Address(address), code)
  }

  /** Writes a slot, creating the account when it does not exist (as anvil_setStorageAt does). */
  async putStorage(address: Uint8Array, slot: Uint8Array, value: Uint8Array): Promise<void> {
    const addr = new Address(address)
    if (!(await this.sm.getAccount(addr))) await this.sm.putAccount(addr, new Account())
    await this.sm.putStorage(addr, slot, value)
  }

  async clearStorage(address: Uint8Array): Promise<void> {
    await this.sm.clearStorage(new Address(address))
  }

  /** EIP-1186 proof of the account and of `slots` (32-byte keys) in this state. */
  proof(address: Uint8Array, slots: Uint8Array[]): Promise<AccountProof> {
    return proveAccount(this.sm, address, slots)
  }

  checkpoint(): Promise<void> {
    return this.sm.checkpoint()
  }

  commit(): Promise<void> {
    return this.sm.commit()
  }

  revert(): Promise<void> {
    return this.sm.revert()
  }

  root(): Promise<Uint8Array> {
    return this.sm.getStateRoot()
  }

  setRoot(root: Uint8Array): Promise<void> {
    return this.sm.setStateRoot(root)
  }
}

/** What executing a transaction did, in plain values. */
export interface ExecResult {
  /** The EVM's error ('revert', 'out of gas', 'invalid opcode', …); undefined on success. */
  error?: string
  returnValue: Uint8Array
  /** Logs of a successful transaction (none when it failed). */
  logs: LogEntry[]
  logsBloom: Uint8Array
  /** Gas the sender pays for: after refunds, the EIP-7623 floor applied. */
  gasUsed: bigint
  /** Gas counted against the block's limit. */
  blockGasSpent: bigint
  gasRefund: bigint
  /** Execution gas before refunds, intrinsic gas not included. */
  executionGasUsed: bigint
  createdAddress?: Uint8Array
  blobGasUsed?: bigint
  /** The receipt's consensus encoding (with `receipt: true`). */
  receipt?: Uint8Array
  /** Every account and slot the execution touched (with `accessList: true`), in first-touch order. */
  accessList?: AccessListEntry[]
  /** A deposit's: the sender's nonce before it ran. */
  depositNonce?: bigint
  /** OP-stack fees charged besides gas (with `rollup`). */
  rollup?: RollupCharge
}

/** What a call answers (eth_call): its return data and the EVM's error. */
export type CallOutput = Pick<ExecResult, 'error' | 'returnValue'>

export interface ExecuteOptions {
  /** Gas already used in the block (cumulativeGasUsed of the receipt). */
  blockGasUsed?: bigint
  skipNonce?: boolean
  skipBalance?: boolean
  skipBlockGasLimit?: boolean
  /** An unsigned call (eth_call, eth_simulateV1): the sender may have code, as geth allows. */
  asCall?: boolean
  /** Encode the receipt (the producer and simulations need it for the receipts root). */
  receipt?: boolean
  /** Report the accounts and slots touched (eth_createAccessList). */
  accessList?: boolean
  /** An OP-stack block's fees besides gas (opstack/rollup.ts); none on Ethereum. */
  rollup?: RollupFees
  /** geth's tracing hooks for this execution only (debug_trace*: tracing/). */
  trace?: TraceHooks
  /** Print Solidity console.log calls through the engine's console sink (transactions, eth_call). */
  console?: boolean
}

const AS_CALL: ExecuteOptions = { asCall: true }

/** A state with an EVM over it: transactions run here. */
export class ExecView extends StateView {
  /** Hooks attached by observe(): an execution after one of them failed throws its error. */
  private readonly observers = new Set<TraceAttachment>()
  /** @internal */
  constructor(
    readonly vm: VM,
    readonly common: Common,
    /** Where console.log calls go (the engine's sink), for executions with `console: true`. */
    private readonly consoleSink: () => ((data: Uint8Array) => void) | undefined = () => undefined,
  ) {
    super(vm.stateManager as MerkleStateManager)
  }

  /**
   * Runs `tx` in `env` on this state (inside the caller's checkpoint, if any). Throws for a
   * transaction the protocol refuses (nonce, funds, fee cap, intrinsic gas): engine/refusals.ts
   * names them.
   */
  execute(tx: TxRecord, env: BlockEnv, opts: ExecuteOptions = {}): Promise<ExecResult> {
    if (tx.deposit) return this.deposit(tx, env, opts)
    const signed = tx.r !== undefined
    const etx = engineTx(tx)
    return this.run(etx, env, opts, opts.receipt ? tx.type : undefined, () => ({
      bytes: signed ? tx.raw : unsignedBytes(etx),
      signed,
    }))
  }

  /** An OP-stack deposit (opstack/deposit.ts): never refused; a refusal is a failed receipt. */
  private async deposit(tx: TxRecord, env: BlockEnv, opts: ExecuteOptions): Promise<ExecResult> {
    const tracing = opts.trace ? attachTrace(this.vm, opts.trace) : undefined
    const sink = opts.console ? this.consoleSink() : undefined
    const unwatch = sink ? watchConsole(this.vm, sink) : undefined
    let outcome: Awaited<ReturnType<typeof runDeposit>>
    // In a checkpoint of its own: a deposit that fails for a reason outside the protocol (a fork's
    // upstream down) leaves nothing behind, its mint included.
    const depth = checkpointDepth(this.sm)
    await this.sm.checkpoint()
    try {
      outcome = await runDeposit(this.vm, this.common, tx, env, opts.blockGasUsed)
      await this.sm.commit()
    } catch (error) {
      await unwindTo(this.sm, depth)
      throw error
    } finally {
      tracing?.detach()
      unwatch?.()
    }
    this.throwHookFailure(tracing)
    const { depositNonce } = outcome
    const result: ExecResult =
      'result' in outcome
        ? { ...execResultOf(outcome.result, undefined), depositNonce }
        : {
            error: `deposit refused: ${outcome.refused}`,
            returnValue: new Uint8Array(),
            logs: [],
            logsBloom: new Uint8Array(256),
            gasUsed: tx.gasLimit,
            blockGasSpent: tx.gasLimit,
            gasRefund: 0n,
            executionGasUsed: 0n,
            depositNonce,
          }
    if (opts.receipt) {
      result.receipt = encodeNodeReceipt(tx.type, {
        status: result.error ? 0 : 1,
        cumulativeGasUsed: (opts.blockGasUsed ?? 0n) + result.blockGasSpent,
        logsBloom: result.logsBloom,
        logs: result.logs,
        depositNonce,
      })
    }
    return result
  }

  /**
   * Runs the unsigned transaction of a call from `req.from` (eth_call, eth_estimateGas) without
   * building a record of it. Throws InvalidParamsError for a request no transaction can carry.
   */
  call(req: CallRequest, gas: bigint, nonce: bigint, env: BlockEnv, opts: ExecuteOptions = {}): Promise<ExecResult> {
    const tx = this.callTx(req, gas, nonce)
    // Not `{ ...opts, asCall: true }`: V8 (Node 20) adds keys slowly to an object made by a spread.
    return this.run(tx, env, Object.assign({}, opts, AS_CALL), undefined, () => ({ bytes: unsignedBytes(tx), signed: false }))
  }

  /**
   * What eth_call answers: the call's return data and error, without its gas figures. A call that
   * pays no fee and moves no value runs as a bare message (vm/message-call.ts); any other as
   * call() runs it.
   */
  async callOutput(
    req: CallRequest,
    gas: bigint,
    nonce: bigint,
    env: BlockEnv,
    opts: Pick<ExecuteOptions, 'skipBalance' | 'console' | 'rollup'> = {},
  ): Promise<CallOutput> {
    const tx = this.callTx(req, gas, nonce)
    if (!opts.rollup && runsAsMessage(this.vm, tx, env.header.baseFeePerGas)) {
      const sink = opts.console ? this.consoleSink() : undefined
      const unwatch = sink ? watchConsole(this.vm, sink) : undefined
      const depth = checkpointDepth(this.sm)
      try {
        const result = await withMovedPrecompiles(this.vm, () => runAsMessage(this.vm, tx, env.block, tx.getSenderAddress()))
        if (result) {
          const error = result.execResult.exceptionError?.error
          return { error, returnValue: result.execResult.returnValue }
        }
      } catch (error) {
        await unwindTo(this.sm, depth)
        throw error
      } finally {
        unwatch?.()
      }
    }
    const full: ExecuteOptions = Object.assign({ skipNonce: true, skipBlockGasLimit: true }, opts, AS_CALL)
    const { error, returnValue } = await this.run(tx, env, full, undefined, () => ({ bytes: unsignedBytes(tx), signed: false }))
    return { error, returnValue }
  }

  /** The unsigned transaction of a call. Throws InvalidParamsError for a request no transaction can carry. */
  private callTx(req: CallRequest, gas: bigint, nonce: bigint): TypedTransaction {
    try {
      return callTransaction(this.common, req, gas, nonce)
    } catch (error) {
      // A request no transaction can carry. Refusals geth names (initcode size…) keep ethereumjs'
      // text for refusals.ts to read; anything else is the caller's input, said as such.
      if (error instanceof NodeError || refusalOf(error)) throw error
      throw new ExecutionError(`invalid transaction: ${(error as Error).message.split(' (')[0]}`)
    }
  }

  /** The L1 data fee `fees` charge the call's transaction (0 for a request no transaction can carry). */
  callL1Fee(req: CallRequest, gas: bigint, nonce: bigint, fees: RollupFees): bigint {
    try {
      return fees.l1Fee(unsignedBytes(callTransaction(this.common, req, gas, nonce)), false)
    } catch {
      return 0n
    }
  }

  /** Addresses (lowercase hex, no 0x) of the precompiles calls on this state reach. */
  precompiles(): Set<string> {
    return new Set(precompileMap(this.vm).keys())
  }

  /**
   * For one call or simulated block: precompiles at `removed` stop being precompiles (code put
   * there runs) and each [from, to] of `moves` answers at `to` instead. Returns the undo.
   */
  movePrecompiles(removed: string[], moves: Array<[from: string, to: string]>): () => void {
    const original = precompileMap(this.vm)
    const next = new Map(original)
    for (const address of removed) next.delete(address)
    for (const [from] of moves) next.delete(from)
    for (const [from, to] of moves) next.set(to, original.get(from))
    return installPrecompiles(this.vm, next)
  }

  /** Attaches `hooks` to every execution on this view (a simulation's transfer tracer); returns the detach. */
  observe(hooks: TraceHooks): () => void {
    const attached = attachTrace(this.vm, hooks)
    this.observers.add(attached)
    return () => {
      this.observers.delete(attached)
      attached.detach()
    }
  }

  private throwHookFailure(tracing: TraceAttachment | undefined): void {
    for (const attached of [tracing, ...this.observers]) if (attached?.failure() !== undefined) throw attached.failure()
  }

  /** Changes BASEFEE, BLOBBASEFEE and BLOCKHASH for a simulation; returns the undo. */
  overrideBlockOpcodes(overrides: BlockOpcodeOverrides): () => void {
    return overrideBlockOpcodes(this.vm, overrides, historyContract(this.common))
  }

  private async run(
    tx: TypedTransaction,
    env: BlockEnv,
    opts: ExecuteOptions,
    receiptType: number | undefined,
    l1Bytes: () => { bytes: Uint8Array; signed: boolean },
  ): Promise<ExecResult> {
    const runOpts = {
      tx,
      block: env.block,
      blockGasUsed: opts.blockGasUsed,
      skipNonce: opts.skipNonce,
      skipBalance: opts.skipBalance,
      skipBlockGasLimitValidation: opts.skipBlockGasLimit,
      skipHardForkValidation: true,
      reportAccessList: opts.accessList,
    }
    const runOnce = () =>
      opts.asCall ? withMovedPrecompiles(this.vm, () => runTxIgnoringSenderCode(this.vm, runOpts)) : runTx(this.vm, runOpts)
    // An error that is not the EVM's (a fork's upstream failing mid-call) leaves the checkpoints of
    // the frames it crossed open; runTx reverts only its own. Close them before anything else runs.
    const depth = checkpointDepth(this.sm)
    const runIt = async () => {
      try {
        return await runOnce()
      } catch (error) {
        await unwindTo(this.sm, depth)
        throw error
      }
    }
    const tracing = opts.trace ? attachTrace(this.vm, opts.trace) : undefined
    const sink = opts.console ? this.consoleSink() : undefined
    const unwatch = sink ? watchConsole(this.vm, sink) : undefined
    let result: RunTxResult
    let charge: RollupCharge | undefined
    try {
      if (opts.rollup) {
        const baseFee = env.header.baseFeePerGas
        ;({ result, charge } = await withRollupFees(this.vm, tx, opts.rollup, l1Bytes(), baseFee, !!opts.skipBalance, runIt))
      } else {
        result = await runIt()
      }
    } finally {
      tracing?.detach()
      unwatch?.()
    }
    this.throwHookFailure(tracing)
    const out = execResultOf(result, receiptType)
    if (charge) out.rollup = charge
    return out
  }
}

function execResultOf(r: RunTxResult, receiptType: number | undefined): ExecResult {
  const error = r.execResult.exceptionError?.error
  return {
    error,
    returnValue: r.execResult.returnValue ?? new Uint8Array(),
    logs: error ? [] : (r.execResult.logs ?? []).map(([address, topics, data]) => ({ address, topics, data })),
    logsBloom: r.bloom.bitvector,
    gasUsed: r.totalGasSpent,
    blockGasSpent: r.blockGasSpent ?? r.totalGasSpent,
    gasRefund: r.gasRefund,
    executionGasUsed: r.execResult.executionGasUsed,
    createdAddress: r.createdAddress?.bytes,
    blobGasUsed: r.blobGasUsed,
    receipt: receiptType === undefined ? undefined : encodeReceipt(r.receipt, receiptType as never),
    accessList: r.accessList?.map((e) => ({
      address: hexBytes(e.address),
      storageKeys: e.storageKeys.map(hexBytes),
    })),
  }
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.slice(2), 'hex'))
}
