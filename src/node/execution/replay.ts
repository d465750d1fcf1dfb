// Re-executing a block's transactions, for tracing: the parent's state, the block's system writes
// (EIP-4788/2935), then its transactions in order, on a throwaway view. geth's stateAtTransaction
// (eth/state_accessor.go) does the same. A pre-confirmed transaction's block is the pending one,
// whose parent is the head. The one place that knows how a block's transactions execute: on an OP
// stack its deposits first, then the others with the L1 and operator fees of the L1 values the
// L1-info deposit wrote (as the producer charged them).
import type { Chain } from '../chain/chain.js'
import type { BlockEnv, Engine, ExecResult, ExecuteOptions, ExecView, RollupFees } from '../engine/index.js'
import { NodeError } from '../errors.js'
import type { OpStack } from '../opstack/opstack.js'
import type { BlockRecord, IncludedTx } from '../types.js'

export class BlockReplay {
  /** Index of the transaction `next` runs. */
  index = 0
  /** Gas the block's transactions so far used (what the next one's receipt counts from). */
  gasUsed = 0n

  /** OP stack: the block's fees besides gas, once its L1-info deposit has run. */
  private rollup: RollupFees | undefined

  private constructor(
    readonly view: ExecView,
    readonly env: BlockEnv,
    readonly block: BlockRecord,
    private readonly opStack: OpStack | undefined,
  ) {}

  /** The state the block's first transaction ran on. Run inside the engine's queue. */
  static async start(engine: Engine, chain: Chain, block: BlockRecord, opStack?: OpStack): Promise<BlockReplay> {
    const number = block.header.number
    if (number === 0n) throw new NodeError('genesis is not traceable')
    const parent = chain.byNumber(number - 1n)
    if (!parent) throw new NodeError(`parent ${number - 1n} not found`)
    const view = await engine.freshViewAt(await chain.settledRootOf(parent))
    await engine.applySystemWrites(view, block.header)
    return new BlockReplay(view, engine.blockEnv(block.header), block, opStack)
  }

  /** The block's next transaction. */
  get tx(): IncludedTx | undefined {
    return this.block.txs[this.index]
  }

  /** Runs the next transaction (with `opts`: a tracer); throws past the last one. */
  async next(opts: ExecuteOptions = {}): Promise<ExecResult> {
    const t = this.tx
    if (!t) throw new NodeError(`transaction index ${this.index} out of range for block ${this.block.header.number}`)
    const rollup = await this.feesFor(t)
    const result = await this.view.execute(t.tx, this.env, { ...opts, blockGasUsed: this.gasUsed, rollup })
    this.gasUsed += result.blockGasSpent
    this.index++
    return result
  }

  /** What `t` pays besides gas: nothing for a deposit, else the L1 values' fees (read once per block). */
  private async feesFor(t: IncludedTx): Promise<RollupFees | undefined> {
    if (!this.opStack || t.tx.deposit) return undefined
    this.rollup ??= this.opStack.fees(await this.opStack.readL1Fees(this.view))
    return this.rollup
  }

  /** Runs transactions untraced until the one at `index` is next. */
  async skipTo(index: number): Promise<void> {
    if (index > this.block.txs.length) {
      throw new NodeError(`transaction index ${index} out of range for block ${this.block.header.number}`)
    }
    while (this.index < index) await this.next()
  }
}

/** The state transaction `index` of `block` ran on, ready to run it. */
export async function replayTo(
  engine: Engine,
  chain: Chain,
  block: BlockRecord,
  index: number,
  opStack?: OpStack,
): Promise<BlockReplay> {
  const replay = await BlockReplay.start(engine, chain, block, opStack)
  await replay.skipTo(index)
  return replay
}
