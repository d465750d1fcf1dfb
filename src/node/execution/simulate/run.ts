// eth_simulateV1: blocks of unsigned calls chained on one another (state, number, timestamp), with
// state and block overrides, ETH-transfer tracing and optional validation, all inside one state
// checkpoint that is reverted at the end. Callers run it in the engine's queue. Semantics follow
// geth's internal/ethapi/simulate.go (the conformance fixtures come from geth), with the spec's
// -380xx codes and Base's defaults (block-time timestamp step, zero stateRoot).

import { receiptOf } from '../../chain/receipt.js'
import type { BlockEnv, Engine, ExecResult, ExecView, RollupFees } from '../../engine/index.js'
import { combineBlooms, EMPTY_TRIE_ROOT, emptyHeader } from '../../header-fields.js'
import { type ChainProfile, FLASHBLOCKS_PROFILE } from '../../profile.js'
import type { BlockRecord, CallRequest, HeaderFields, IncludedTx, LogEntry, Withdrawal } from '../../types.js'
import { applyBlockOverrides, applyStateOverrides, describeFailure } from '../call.js'
import {
  checkSimulateInput,
  type DenimTiming,
  type PlannedBlock,
  planBlocks,
  SIMULATE_LIMITS,
  type SimulateInput,
} from './plan.js'
import { MAX_NONCE, refusalAsSimulateError, resolveCall } from './resolve.js'
import { TransferTracer } from './transfers.js'

export interface SimulatedCall {
  status: 0 | 1
  gasUsed: bigint
  /** Gas used before refunds (what the call needs as its limit). */
  maxUsedGas: bigint
  returnData: Uint8Array
  /** The call's logs in execution order, with the ETH-transfer logs when tracing. */
  logs: LogEntry[]
  /** Block-wide index of the first log. */
  firstLogIndex: number
  error?: { code: number; message: string; data?: Uint8Array }
}

export interface SimulatedBlock {
  /** A sealed-looking block record: header, hash, size and the calls as transactions. */
  block: BlockRecord
  calls: SimulatedCall[]
  withdrawals: Withdrawal[]
}

export interface SimulateContext {
  engine: Engine
  /** The state of the base block (the live one for "pending"). */
  view: ExecView
  base: { header: HeaderFields; hash: Uint8Array }
  /** Default step between simulated timestamps, in seconds (Base: the block time). */
  timeStep: bigint
  /** On a chain with Denim (profile base): how its blocks are timed. */
  denim?: DenimTiming
  /** Which stateRoot the simulated blocks report (profile.ts); Base's zero root when absent. */
  profile?: Pick<ChainProfile, 'simulatedStateRoot' | 'oneMovePerTarget'>
  /** OP stack: the L1 data and operator fees calls that pay fees are charged (engine/opstack/rollup.ts). */
  rollup?: RollupFees
  /** The base fee of a block after `parent` (the chain's rule: an OP stack's differs); EIP-1559's when absent. */
  nextBaseFee?: (parent: HeaderFields) => bigint
}

const GWEI = 1_000_000_000n

export async function simulate(ctx: SimulateContext, input: SimulateInput): Promise<SimulatedBlock[]> {
  checkSimulateInput(input)
  const plan = planBlocks(ctx.base.header, input.blocks, ctx.timeStep, ctx.denim)
  const run = new Simulation(ctx, input.validation === true, input.traceTransfers === true)
  const { view, engine } = ctx
  await view.checkpoint()
  const restoreHardfork = engine.saveHardfork()
  try {
    const out: SimulatedBlock[] = []
    let parent = ctx.base
    for (const planned of plan) {
      // Each block under its own hardfork (a genesis file's schedule), as geth simulates it; the
      // EVM rebuilds its opcode map when the hardfork moves, so the hooks go on per block.
      engine.setHardforkFor(planned.number, planned.time)
      const unhook = run.hook()
      try {
        const sim = await run.block(planned, parent)
        out.push(sim)
        parent = { header: sim.block.header, hash: sim.block.hash }
      } finally {
        unhook()
      }
    }
    return out
  } finally {
    restoreHardfork()
    await view.revert()
  }
}

/** A call's place in its block: the header so far, the block record, and what sealing needs. */
interface BlockInProgress {
  header: HeaderFields
  env: BlockEnv
  record: BlockRecord
  receipts: Uint8Array[]
}

class Simulation {
  /** geth's RPC gas cap, shared by all calls of the request and consumed by the gas they use. */
  private budget = SIMULATE_LIMITS.gas
  private readonly tracer: TransferTracer | undefined
  /** What BASEFEE / BLOBBASEFEE report while a call runs on a zero-base-fee copy of the block. */
  private shownBaseFee: bigint | undefined
  private shownBlobBaseFee: bigint | undefined
  /** The current block with base fee 0, for calls that pay nothing under an overridden base fee. */
  private zeroFeeEnv: BlockEnv | undefined

  constructor(
    private readonly ctx: SimulateContext,
    private readonly validation: boolean,
    traceTransfers: boolean,
  ) {
    this.tracer = traceTransfers ? new TransferTracer() : undefined
  }

  /**
   * For the simulation's duration: the transfer tracer watches execution, BASEFEE/BLOBBASEFEE show
   * overridden values, BLOCKHASH reads the EIP-2935 history contract (which each simulated block
   * writes) past the chain. Returns the undo.
   */
  hook(): () => void {
    const { view, engine, base } = this.ctx
    const unobserve = this.tracer ? view.observe(this.tracer) : () => {}
    const restore = view.overrideBlockOpcodes({
      baseFee: () => this.shownBaseFee,
      blobBaseFee: () => this.shownBlobBaseFee,
      // Blocks of the chain: their hash, as geth reads it (the history contract only holds blocks since Prague).
      chainBlockHash: (n) => (n <= base.header.number ? engine.blockHashes.lookup(n) : undefined),
    })
    return () => {
      restore()
      unobserve()
    }
  }

  async block(planned: PlannedBlock, parent: { header: HeaderFields; hash: Uint8Array }): Promise<SimulatedBlock> {
    const { engine, view } = this.ctx
    const profile = this.ctx.profile ?? FLASHBLOCKS_PROFILE
    const overrides = planned.input?.blockOverrides
    const parentHeader = engine.header(parent.header)
    // geth carries gas limit and fee recipient forward from the previous block; the rest is reset.
    const defaults = emptyHeader({
      parentHash: parent.hash,
      number: planned.number,
      timestamp: planned.time,
      gasLimit: parent.header.gasLimit,
      baseFeePerGas:
        this.validation && engine.isActive(1559) ? (this.ctx.nextBaseFee?.(parent.header) ?? parentHeader.nextBaseFee()) : 0n,
      coinbase: parent.header.coinbase,
      stateRoot: new Uint8Array(32),
      excessBlobGas: engine.isActive(4844) ? parentHeader.nextExcessBlobGas() : 0n,
    })
    const header = applyBlockOverrides(defaults, overrides)
    // Before the merge a block carries its proof-of-work difficulty (ethash's, from its parent).
    if (!engine.isProofOfStake()) header.difficulty = engine.header(header).powDifficulty(parentHeader)
    const absent = engine.absentHeaderFields()
    const record: BlockRecord = { header, hash: new Uint8Array(32), sealed: true, txs: [], flashblocks: 0, size: 0n }
    if (absent.length > 0) record.absent = absent
    const restorePrecompiles = await applyStateOverrides(view, planned.input?.stateOverrides, profile.oneMovePerTarget)
    const calls: SimulatedCall[] = []
    const receipts: Uint8Array[] = []
    try {
      await engine.applySystemWrites(view, header)
      const progress: BlockInProgress = { header, env: engine.blockEnv(header), record, receipts }
      this.shownBlobBaseFee = overrides?.blobBaseFee
      this.zeroFeeEnv = undefined
      let logIndex = 0
      for (const req of planned.input?.calls ?? []) {
        const call = await this.call(req, progress, logIndex)
        logIndex += this.tracer ? this.tracer.takenCount : call.logs.length
        calls.push(call)
      }
    } finally {
      restorePrecompiles()
      this.shownBaseFee = undefined
      this.shownBlobBaseFee = undefined
    }
    const withdrawals = overrides?.withdrawals ?? []
    for (const w of withdrawals) {
      if (w.amount === 0n) continue
      await view.putAccount(w.address, { balance: (await view.balance(w.address)) + w.amount * GWEI })
    }
    // A block before the merge pays its miner the proof-of-work reward (geth's ethash Finalize).
    const reward = engine.powBlockReward()
    if (reward > 0n) await view.putAccount(header.coinbase, { balance: (await view.balance(header.coinbase)) + reward })
    header.stateRoot = await profile.simulatedStateRoot(() => view.root())
    this.seal(record, receipts, withdrawals)
    return { block: record, calls, withdrawals }
  }

  private async call(req: CallRequest, block: BlockInProgress, firstLogIndex: number): Promise<SimulatedCall> {
    const { engine, view } = this.ctx
    const { header, env, record } = block
    const { tx, from, nonce, blobPrice, paysNothing, intrinsic, invalid } = await resolveCall(req, {
      engine,
      view,
      validation: this.validation,
      header,
      env,
      budget: this.budget,
      shownBlobBaseFee: this.shownBlobBaseFee,
    })

    // A call that pays nothing under an overridden base fee runs on a zero-base-fee copy of the
    // block (ethereumjs can't skip its fee check as geth's NoBaseFee does); BASEFEE still shows it.
    const zeroFee = !this.validation && paysNothing && header.baseFeePerGas > 0n
    if (zeroFee) this.zeroFeeEnv ??= engine.blockEnv({ ...header, baseFeePerGas: 0n })
    const execEnv = zeroFee && this.zeroFeeEnv ? this.zeroFeeEnv : env
    this.shownBaseFee = zeroFee ? header.baseFeePerGas : undefined
    this.tracer?.reset()
    let result: ExecResult
    try {
      result = await view.execute(tx, execEnv, {
        blockGasUsed: header.gasUsed,
        skipNonce: true,
        skipBalance: !this.validation,
        skipBlockGasLimit: true,
        asCall: true,
        receipt: true,
        rollup: paysNothing ? undefined : this.ctx.rollup,
      })
    } catch (error) {
      throw refusalAsSimulateError(error, invalid)
    }

    // An overridden blob base fee below the real one: ethereumjs charged the real price; geth the override.
    const shownBlobFee = this.shownBlobBaseFee
    if (result.blobGasUsed && shownBlobFee !== undefined && shownBlobFee < blobPrice) {
      const payer = await view.account(from)
      if (payer) await view.putAccount(from, { balance: payer.balance + (blobPrice - shownBlobFee) * result.blobGasUsed })
    }
    if (nonce >= MAX_NONCE && (await view.nonce(from)) > MAX_NONCE) await view.putAccount(from, { nonce: 0n })
    header.gasUsed += result.blockGasSpent
    this.budget -= result.gasUsed
    if (this.budget < 0n) this.budget = 0n
    if (result.blobGasUsed) header.blobGasUsed += result.blobGasUsed
    const failure = describeFailure(result)
    const logs: LogEntry[] = this.tracer ? this.tracer.take() : result.logs
    const included: IncludedTx = {
      tx,
      index: record.txs.length,
      flashblockIndex: 0,
      preconfirmedAt: 0,
      block: record,
      receipt: receiptOf(tx, result, {
        baseFee: header.baseFeePerGas,
        cumulativeGasUsed: header.gasUsed,
        blobGasPrice: () => blobPrice,
        firstLogIndex,
      }),
    }
    record.txs.push(included)
    block.receipts.push(result.receipt as Uint8Array)
    const beforeRefund = result.executionGasUsed + intrinsic
    const call: SimulatedCall = {
      status: failure ? 0 : 1,
      gasUsed: result.gasUsed,
      maxUsedGas: beforeRefund > result.gasUsed ? beforeRefund : result.gasUsed,
      // geth reports no return data for a failed call; a revert's bytes go in error.data.
      returnData: failure ? new Uint8Array() : result.returnValue,
      logs,
      firstLogIndex,
    }
    if (failure) {
      call.error =
        failure.kind === 'revert'
          ? { code: 3, message: failure.message, data: failure.output }
          : { code: -32015, message: failure.message }
    }
    return call
  }

  /** Roots, bloom, hash and size: the block as a sealed one. */
  private seal(record: BlockRecord, receipts: Uint8Array[], withdrawals: Withdrawal[]): void {
    const { engine } = this.ctx
    const h = record.header
    h.transactionsRoot = record.txs.length ? engine.orderedRoot(record.txs.map((t) => t.tx.raw)) : EMPTY_TRIE_ROOT
    h.receiptsRoot = receipts.length ? engine.orderedRoot(receipts) : EMPTY_TRIE_ROOT
    h.logsBloom = combineBlooms(record.txs.map((t) => t.receipt.logsBloom))
    h.withdrawalsRoot = withdrawals.length ? engine.withdrawalsRoot(withdrawals) : EMPTY_TRIE_ROOT
    const header = engine.header(h)
    record.hash = header.hash()
    record.size = header.blockSize(
      record.txs.map((t) => t.tx),
      withdrawals,
    )
  }
}
