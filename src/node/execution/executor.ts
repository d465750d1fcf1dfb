// Calls, estimates, access lists and simulations at a block, policy and mechanics together (reth's
// EthCall: prepare_call_env with transact_call_at): the gas caps, the fee floor, the L1 fee on an
// OP stack, and the one-time comparison with "pending" that explains a differing answer (hints.ts).
// Every run goes through the engine's serial queue on the state after its block.
import type { Chain } from '../chain/chain.js'
import type { Engine, ExecView, RollupFees } from '../engine/index.js'
import type { PreconfHints } from '../hints.js'
import { blockTimeMs, isDenimBlock } from '../opstack/denim.js'
import type { OpStack } from '../opstack/opstack.js'
import type { ChainProfile } from '../profile.js'
import type { BlockOverrides, BlockRecord, BlockRef, CallRequest, HeaderFields, StateOverrides } from '../types.js'
import { type AccessListResult, createAccessList } from './access-list.js'
import { callEnv, callGasCap, hasFee, outputReverted, refusalError, throwFailure } from './call.js'
import { estimateGas } from './estimate.js'
import { checkSimulateInput, type SimulatedBlock, type SimulateInput, simulate } from './simulate/index.js'

/** What the executor reads: the chain and engine it runs on, and the chain's rules. */
export interface ExecutorParts {
  engine: Engine
  chain: Chain
  profile: ChainProfile
  /** The OP-stack rules (profiles flashblocks and base); undefined on Ethereum. */
  opStack: OpStack | undefined
  hints: PreconfHints
  /** Milliseconds between sealed blocks: a simulated block's default time step. */
  blockTime: number
  /** The base fee of a block after `parent`, as the producer's rules give it. */
  nextBaseFee(parent: HeaderFields): bigint
}

const toHex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`

export class Executor {
  constructor(private readonly parts: ExecutorParts) {}

  /** Hash of a block; for the pending block, the hash of its current flashblock's header. */
  blockHash(block: BlockRecord): Uint8Array {
    return block.sealed ? block.hash : this.parts.engine.header(block.header).hash()
  }

  /** The state after `block` (the live one for the pending block). */
  private async viewFor(block: BlockRecord): Promise<ExecView> {
    const { chain, engine } = this.parts
    if (!block.sealed || (chain.pending === undefined && block === chain.head)) return engine.live
    return engine.viewAt(await chain.settledRootOf(block))
  }

  /**
   * Runs `fn` in the queue on the state after the block `ref` names. The tag is resolved when the
   * task runs: resolved at the request, "pending" could name a block sealed meanwhile whose
   * successor already holds transactions the pool no longer has.
   */
  atBlock<T>(ref: BlockRef, fn: (view: ExecView, block: BlockRecord) => Promise<T>): Promise<T> {
    return this.parts.engine.queue.run(
      async () => {
        const block = this.parts.chain.resolve(ref)
        return fn(await this.viewFor(block), block)
      },
      { lendable: true },
    )
  }

  /**
   * Runs `run` at `ref`; when it reads `latest` while pre-confirmed transactions wait (and no
   * override shapes the call), also once at `pending`, explaining a different outcome (hints.ts).
   */
  private async withPendingHint<T>(
    method: string,
    req: CallRequest,
    ref: BlockRef,
    plain: boolean,
    run: (ref: BlockRef) => Promise<T>,
    show: (value: T) => string,
  ): Promise<T> {
    const settle = (p: Promise<T>) =>
      p.then(
        (value) => ({ value, text: show(value) }),
        (error: Error) => ({ error, text: `fails (${error.message})` }),
      )
    const outcome = await settle(run(ref))
    const sender = req.from ?? new Uint8Array(20)
    const { hints } = this.parts
    if (plain && hints.shouldCheck(ref, sender, method, req.to)) {
      const pending = await settle(run({ tag: 'pending' }))
      if (pending.text !== outcome.text) hints.executionDiffers(method, sender, outcome.text, pending.text)
    }
    if ('error' in outcome) throw outcome.error
    return outcome.value
  }

  call(req: CallRequest, ref: BlockRef, overrides?: StateOverrides, blockOverrides?: BlockOverrides): Promise<Uint8Array> {
    return this.withPendingHint(
      'eth_call',
      req,
      ref,
      !overrides && !blockOverrides,
      (at) => this.callAt(req, at, overrides, blockOverrides),
      (data) => `returns ${data.length > 64 ? `${toHex(data.subarray(0, 32))}…` : toHex(data)}`,
    )
  }

  private callAt(
    req: CallRequest,
    ref: BlockRef,
    overrides?: StateOverrides,
    blockOverrides?: BlockOverrides,
  ): Promise<Uint8Array> {
    return this.atBlock(ref, async (view, block) => {
      const { engine } = this.parts
      const payFees = hasFee(req)
      const env = callEnv(engine, block.header, blockOverrides, payFees)
      // geth and reth lift the EIP-7825 cap for eth_call; ethereumjs can't build such a transaction, so a
      // larger gas (tools send the block gas limit) runs at the cap instead of failing the call.
      const txCap = engine.txGasCap()
      let gas = req.gas ?? callGasCap(engine, env.header.gasLimit)
      if (txCap !== undefined && gas > txCap) gas = txCap
      const nonce = await view.nonce(req.from ?? new Uint8Array(20))
      // A base fee overridden above zero for a call that pays none: ethereumjs can't skip the fee
      // check as geth's NoBaseFee does, so pay exactly the base fee from a topped-up balance.
      const baseFee = env.header.baseFeePerGas
      const feeFloor = !payFees && baseFee > 0n ? baseFee : undefined
      try {
        const callReq = feeFloor ? { ...req, maxFeePerGas: feeFloor } : req
        const outcome = await outputReverted(view, env, callReq, gas, nonce, {
          validateBalance: feeFloor === undefined,
          overrides,
          console: true,
          rollup: await this.rollupFees(view, req),
        })
        if (outcome.failure) throwFailure(outcome.failure)
        return outcome.output
      } catch (error) {
        throw refusalError(error)
      }
    })
  }

  /**
   * OP stack: what a call that pays fees is charged besides gas, from the L1 values of the state it
   * reads (as Base charges them; a call paying no fee pays no L1 fee either).
   */
  private async rollupFees(view: ExecView, req: CallRequest): Promise<RollupFees | undefined> {
    const { opStack } = this.parts
    if (!opStack || !hasFee(req)) return undefined
    return opStack.fees(await opStack.readL1Fees(view))
  }

  estimateGas(req: CallRequest, ref: BlockRef, overrides?: StateOverrides, blockOverrides?: BlockOverrides): Promise<bigint> {
    return this.withPendingHint(
      'eth_estimateGas',
      req,
      ref,
      !overrides && !blockOverrides,
      (at) => this.estimateAt(req, at, overrides, blockOverrides),
      (gas) => `needs ${gas} gas`,
    )
  }

  private estimateAt(
    req: CallRequest,
    ref: BlockRef,
    overrides?: StateOverrides,
    blockOverrides?: BlockOverrides,
  ): Promise<bigint> {
    return this.atBlock(ref, async (view, block) => {
      const { engine, profile } = this.parts
      const env = callEnv(engine, block.header, blockOverrides, hasFee(req))
      const cap = callGasCap(engine, env.header.gasLimit)
      // As geth under Osaka: a named gas above the EIP-7825 cap is searched from the cap down.
      const txCap = engine.txGasCap()
      const capped = txCap !== undefined && req.gas !== undefined && req.gas > txCap ? { ...req, gas: txCap } : req
      const rollup = await this.rollupFees(view, req)
      return estimateGas({ view, env, req: capped, cap, overrides, revertCode: profile.estimateRevertCode, rollup })
    })
  }

  /** eth_createAccessList: the accounts and slots the call touches, and its gas with them (geth's algorithm). */
  createAccessList(req: CallRequest, ref: BlockRef, overrides?: StateOverrides): Promise<AccessListResult> {
    return this.atBlock(ref, async (view, block) => {
      const { engine } = this.parts
      const payFees = hasFee(req)
      const env = callEnv(engine, block.header, undefined, payFees)
      const from = req.from ?? new Uint8Array(20)
      const nonce = req.nonce ?? (await view.nonce(from))
      const gas = req.gas ?? callGasCap(engine, env.header.gasLimit)
      try {
        return await createAccessList({
          view,
          env,
          req,
          gas,
          nonce,
          recipient: req.to ?? engine.contractAddress(from, nonce),
          validateBalance: payFees,
          overrides,
        })
      } catch (error) {
        throw refusalError(error)
      }
    })
  }

  /**
   * eth_simulateV1 on top of `ref` ("pending": the pre-confirmed state). Runs in the queue inside
   * one reverted checkpoint: nothing reaches the node's state.
   */
  simulate(input: SimulateInput, ref: BlockRef): Promise<SimulatedBlock[]> {
    checkSimulateInput(input)
    const { engine, profile, opStack, blockTime, nextBaseFee } = this.parts
    // Base's default timestamp step: the block time in whole seconds, rounded up.
    const timeStep = BigInt(Math.max(1, Math.ceil(blockTime / 1000)))
    return this.atBlock(ref, async (live, block) => {
      const view = profile.simulateOnCopy ? await engine.freshViewAt(await live.root()) : live
      const rollup = opStack ? opStack.fees(await opStack.readL1Fees(view)) : undefined
      const activation = opStack?.denimTime
      const denim =
        activation === undefined
          ? undefined
          : { baseMs: blockTimeMs(block), baseIsDenim: isDenimBlock(block, activation), activation }
      const base = { header: block.header, hash: this.blockHash(block) }
      return simulate({ engine, view, base, timeStep, denim, profile, rollup, nextBaseFee }, input)
    })
  }
}
