// Transactions and calls executed on a state (ExecView, over state-view.ts's StateView): runTx with
// pcnode's hooks, deposits, rollup fees, console.log, traces. Callers run everything inside the
// engine's serial queue.
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { TypedTransaction } from '@ethereumjs/tx'
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
import { StateView } from './state-view.js'
import { checkpointDepth, unwindTo } from './store/state.js'
import { historyContract } from './system-contracts.js'
import { callTransaction } from './tx/call.js'
import { engineTx } from './tx/record.js'
import { runAsMessage, runsAsMessage } from './vm/message-call.js'

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
