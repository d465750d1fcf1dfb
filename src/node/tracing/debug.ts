// debug_traceTransaction, debug_traceCall and debug_traceBlockByNumber/ByHash (geth's
// eth/tracers/api.go): find the block, re-execute up to the transaction (execution/replay.ts) or
// set up the call, run it once with the tracer's hooks, and answer the tracer's result. Every trace
// runs in the engine's queue on a throwaway view, within its timeout (5 s unless `timeout` says);
// while a JS tracer's worker holds it up, the queue is lent (block production, reads and calls go on).
import { hexKey } from '../bytes.js'
import type { NodeContext } from '../context.js'
import { authoritiesOf, type BlockEnv, type ExecResult, type ExecView, type TraceHooks } from '../engine/index.js'
import { NodeError } from '../errors.js'
import { applyStateOverrides, callEnv, callGasCap, hasFee, refusalError } from '../execution/call.js'
import { BlockReplay } from '../execution/replay.js'
import { FEE_VAULTS } from '../opstack/opstack.js'
import type { BlockOverrides, BlockRecord, BlockRef, CallRequest, StateOverrides, TxRecord } from '../types.js'
import type { TraceCallConfig, TraceConfig } from './config.js'
import { TracerTimeout } from './js-tracer.js'
import { createTracer } from './registry.js'
import type { Tracer, TxContext } from './tracer.js'

/** geth's default --rpc.gascap: the gas of a call that names none (CallDefaults). */
const GETH_RPC_GAS_CAP = 50_000_000n

/** geth's errTxNotFound. */
/** What the tracer reads: the chain's blocks, the engine that replays them, the OP-stack fee rules. */
export type DebugParts = Pick<NodeContext, 'engine' | 'chain' | 'opStack'>

export class TxNotFoundError extends NodeError {
  constructor() {
    super('transaction not found')
  }
}

export interface BlockTraceEntry {
  txHash: Uint8Array
  result?: unknown
  error?: string
}

/** What a call-trace's overrides are, parsed by the RPC layer. */
export interface CallTraceOptions {
  stateOverrides?: StateOverrides
  blockOverrides?: BlockOverrides
}

function effectiveTip(tx: { gasPrice?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint }, baseFee: bigint): bigint {
  if (tx.maxFeePerGas !== undefined) {
    const room = tx.maxFeePerGas - baseFee
    const tip = tx.maxPriorityFeePerGas ?? 0n
    return tip < room ? tip : room
  }
  return (tx.gasPrice ?? 0n) - baseFee
}

export class Debugger {
  /** The running trace executes under another hardfork than the live chain's (a genesis file's
   * schedule): the engine's rules are shared, so nothing else may run meanwhile. */
  private otherFork = false

  constructor(
    private readonly ctx: DebugParts,
    /** A block's hash (the pending one's as it stands). */
    private readonly hashOf: (block: BlockRecord) => Uint8Array,
  ) {}

  /** debug_traceTransaction: a sealed or pre-confirmed transaction, re-executed on its block's state. */
  traceTransaction(hash: Uint8Array, cfg: TraceConfig): Promise<unknown> {
    const { chain, engine } = this.ctx
    return engine.queue.run(() =>
      this.onBlockFork(async () => {
        const found = chain.getTx(hash)
        if (!found) throw new TxNotFoundError()
        const replay = await BlockReplay.start(engine, chain, found.block, this.ctx.opStack)
        await replay.skipTo(found.index)
        return this.traceNext(replay, cfg)
      }, chain.getTx(hash)?.block),
    )
  }

  /** debug_traceBlockByNumber / ByHash: every transaction of the block, each with a fresh tracer. */
  traceBlock(ref: BlockRef, cfg: TraceConfig): Promise<BlockTraceEntry[]> {
    const { chain, engine } = this.ctx
    return engine.queue.run(async () => {
      const block = chain.find(ref)
      // geth's texts (api.go blockByNumber / blockByHash).
      if (!block)
        throw new NodeError(
          'hash' in ref ? `block 0x${hexKey(ref.hash)} not found` : `block #${'number' in ref ? ref.number : ref.tag} not found`,
        )
      return this.onBlockFork(async () => {
        const replay = await BlockReplay.start(engine, chain, block, this.ctx.opStack)
        const out: BlockTraceEntry[] = []
        const js =
          cfg.tracer !== undefined &&
          !['callTracer', 'prestateTracer', 'erc7562Tracer', '4byteTracer', 'noopTracer'].includes(cfg.tracer)
        while (replay.tx) {
          const txHash = replay.tx.tx.hash
          try {
            out.push({ txHash, result: await this.traceNext(replay, cfg) })
          } catch (error) {
            // geth: a JS tracer's failure is that transaction's entry; a native one's fails the call.
            if (!js || !(error instanceof NodeError)) throw error
            out.push({ txHash, error: error.message })
          }
        }
        return out
      }, block)
    })
  }

  /** debug_traceCall: the call on the state after `ref` (or before its transaction txIndex), with overrides. */
  traceCall(req: CallRequest, ref: BlockRef, cfg: TraceCallConfig, options: CallTraceOptions): Promise<unknown> {
    const { chain, engine } = this.ctx
    return engine.queue.run(async () => {
      const block = chain.resolve(ref)
      return this.onBlockFork(async () => {
        let view: ExecView
        if (cfg.txIndex !== undefined) {
          const replay = await BlockReplay.start(engine, chain, block, this.ctx.opStack)
          await replay.skipTo(cfg.txIndex)
          view = replay.view
        } else {
          const live = !block.sealed || (chain.pending === undefined && block === chain.head)
          view = await engine.freshViewAt(live ? await engine.live.root() : await chain.settledRootOf(block))
        }
        const payFees = hasFee(req)
        const env = callEnv(engine, block.header, options.blockOverrides, payFees)
        const restore = await applyStateOverrides(view, options.stateOverrides)
        try {
          return await this.traceRequest(view, env, req, cfg)
        } finally {
          restore()
        }
      }, block)
    })
  }

  /** Under a genesis file's fork schedule, executes as the block's hardfork. */
  private async onBlockFork<T>(run: () => Promise<T>, block: BlockRecord | undefined): Promise<T> {
    const { engine } = this.ctx
    const restore = engine.saveHardfork()
    const live = engine.hardfork()
    try {
      if (block) engine.setHardforkFor(block.header.number, block.header.timestamp)
      this.otherFork = engine.hardfork() !== live
      return await run()
    } finally {
      this.otherFork = false
      restore()
    }
  }

  /** While the trace waits on `wait` (its tracer's worker), the queue's lendable tasks run: the
   * trace's state is a view of its own. */
  private lendQueue<T>(wait: Promise<T>): Promise<T> {
    return this.otherFork ? wait : this.ctx.engine.queue.lend(wait)
  }

  private async traceNext(replay: BlockReplay, cfg: TraceConfig): Promise<unknown> {
    const t = replay.tx as NonNullable<BlockReplay['tx']>
    const { tx } = t
    const header = replay.block.header
    // A deposit ran at its receipt's depositNonce and paid no fee.
    const context = this.txContext(
      replay.view,
      replay.env,
      { ...tx, nonce: t.receipt.depositNonce ?? tx.nonce },
      {
        blockHash: this.hashOf(replay.block),
        txHash: tx.hash,
        txIndex: t.index,
        firstLogIndex: t.receipt.firstLogIndex,
        gasTip: tx.deposit ? 0n : effectiveTip(tx, header.baseFeePerGas),
      },
    )
    return this.run(cfg, context, (trace) => replay.next({ trace }))
  }

  private async traceRequest(view: ExecView, env: BlockEnv, req: CallRequest, cfg: TraceConfig): Promise<unknown> {
    const { engine } = this.ctx
    const from = req.from ?? new Uint8Array(20)
    const nonce = req.nonce ?? (await view.nonce(from))
    let gas = req.gas ?? callGasCap(engine, env.header.gasLimit)
    const txCap = engine.txGasCap()
    if (txCap !== undefined && gas > txCap) gas = txCap
    const payFees = hasFee(req)
    const record = {
      from,
      to: req.to,
      value: req.value ?? 0n,
      data: req.data ?? new Uint8Array(),
      // The gas geth's TraceCall gives the call (its RPCGasCap, 50M, when none is named), which
      // callTracer reports as the top frame's; execution runs within the EIP-7825 cap all the same.
      gasLimit: req.gas ?? GETH_RPC_GAS_CAP,
      nonce,
      authorizationList: req.authorizationList,
    }
    const context = this.txContext(view, env, record, {
      txIndex: 0,
      firstLogIndex: 0,
      gasTip: payFees ? effectiveTip(req, env.header.baseFeePerGas) : 0n,
    })
    // OP stack: a call that pays fees pays the L1 and operator fees too, as eth_call does.
    const { opStack } = this.ctx
    const rollup = opStack && payFees ? opStack.fees(await opStack.readL1Fees(view)) : undefined
    return this.run(cfg, context, async (trace) => {
      try {
        return await view.call(req, gas, nonce, env, {
          skipNonce: true,
          skipBalance: !payFees,
          skipBlockGasLimit: true,
          trace,
          rollup,
        })
      } catch (error) {
        const refused = refusalError(error)
        if (refused instanceof NodeError && !(refused instanceof TracerTimeout))
          throw new NodeError(`tracing failed: ${refused.message}`)
        throw refused
      }
    })
  }

  private txContext(
    view: ExecView,
    env: BlockEnv,
    tx: Pick<TxRecord, 'from' | 'to' | 'value' | 'data' | 'gasLimit' | 'nonce' | 'authorizationList'>,
    extra: Pick<TxContext, 'blockHash' | 'txHash' | 'txIndex' | 'firstLogIndex' | 'gasTip'>,
  ): TxContext {
    return {
      from: tx.from,
      to: tx.to,
      created: tx.to ? undefined : this.ctx.engine.contractAddress(tx.from, tx.nonce),
      value: tx.value,
      input: tx.data,
      gasLimit: tx.gasLimit,
      blockNumber: env.header.number,
      coinbase: env.header.coinbase,
      precompiles: view.precompiles(),
      state: view,
      authorities: authoritiesOf(tx.authorizationList),
      feeVaults: this.ctx.opStack ? Object.values(FEE_VAULTS) : [],
      lendQueue: (wait) => this.lendQueue(wait),
      ...extra,
    }
  }

  /** One traced execution: the tracer's start, the run with its hooks and the timeout, its end and result. */
  private async run(cfg: TraceConfig, context: TxContext, execute: (trace: TraceHooks) => Promise<ExecResult>): Promise<unknown> {
    const deadline = performance.now() + cfg.timeoutMs
    const tracer: Tracer = createTracer(cfg, () => deadline)
    const hooks: TraceHooks = {
      ...tracer.hooks,
      checkpoint: () => {
        if (performance.now() > deadline) throw new TracerTimeout('execution timeout')
      },
    }
    try {
      if (cfg.timeoutMs <= 0) throw new TracerTimeout('execution timeout')
      await tracer.txStart?.(context)
      const result = await execute(hooks)
      await tracer.txEnd?.({ gasUsed: result.gasUsed })
      // Awaited here: the tracer is disposed only once its result is in.
      return await tracer.result()
    } finally {
      tracer.dispose?.()
    }
  }
}
