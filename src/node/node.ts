// DevNode: the devnet as plain TypeScript calls (bigint, Uint8Array), built from the services of
// NodeContext. The RPC layer is its only caller over the wire; tests and the CLI reach it through
// startNode(). It holds reads and execution entry points; the services do the rest: pool/admission
// (sends), sequencer/ (blocks), dev/ (test control), storage/ (state file, pruning).
import { type DevAccount, devAccounts } from './accounts.js'
import { Chain } from './chain/chain.js'
import type { NodeContext } from './context.js'
import { fill } from './dev/blocks.js'
import { Cheats } from './dev/cheats.js'
import { DevControl } from './dev/control.js'
import { DevClock } from './dev/time.js'
import { type AccountProof, Engine, type ExecView, encodeReceipt, type RollupFees } from './engine/index.js'
import { NodeEvents } from './events.js'
import { type AccessListResult, createAccessList } from './execution/access-list.js'
import { callEnv, callGasCap, hasFee, outputReverted, refusalError, throwFailure } from './execution/call.js'
import { estimateGas } from './execution/estimate.js'
import { checkSimulateInput, type SimulatedBlock, type SimulateInput, simulate } from './execution/simulate/index.js'
import { PreconfFaults } from './faults/faults.js'
import { type FeeHistory, feeHistory } from './fee-history.js'
import { SUGGESTED_TIP } from './fees.js'
import { Fork } from './fork/fork.js'
import { type Alloc, forkDefaults, forkLog } from './fork/genesis.js'
import { l1FeesOf, writeGenesis } from './genesis/genesis.js'
import { combineBlooms } from './header-fields.js'
import { PreconfHints } from './hints.js'
import { OpStack } from './opstack/opstack.js'
import { faultSettingsOf, type NodeOptions, type ResolvedOptions, resolveOptions } from './options.js'
import { Admission } from './pool/admission.js'
import { TxPool } from './pool/pool.js'
import { type ChainProfile, getProfile } from './profile.js'
import { BlockProducer } from './sequencer/producer.js'
import { Sequencer } from './sequencer/sequencer.js'
import { Persistence } from './storage/persistence.js'
import { StatePruner } from './storage/pruning.js'
import { formatConsoleLog } from './tracing/console-log.js'
import { Debugger } from './tracing/debug.js'
import type {
  BlockOverrides,
  BlockRecord,
  BlockRef,
  CallRequest,
  IncludedTx,
  LogFilter,
  MatchedLog,
  PoolTxInfo,
  StateOverrides,
  TxRecord,
} from './types.js'

export type { FeeHistory }

const toHex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`

export class DevNode {
  readonly events: NodeEvents
  readonly chain: Chain
  readonly pool: TxPool
  readonly engine: Engine
  readonly options: ResolvedOptions
  readonly profile: ChainProfile
  /** Test-client control (evm_*, anvil_*) and the state file. */
  readonly dev: DevControl
  /** debug_trace*: geth's tracers over re-executed transactions and calls (tracing/). */
  readonly debug: Debugger
  /** Deletes old blocks' state (--state-history); undefined when every block's is kept. */
  readonly pruner: StatePruner | undefined
  /** Pre-confirmation faults injected on purpose (faults/): drops, halts, restarts, jitter. */
  readonly faults: PreconfFaults
  private readonly ctx: NodeContext
  private readonly admission: Admission
  private readonly persistence: Persistence

  private constructor(
    ctx: NodeContext,
    readonly accounts: DevAccount[],
    alloc: Alloc,
  ) {
    this.ctx = ctx
    ;({ events: this.events, chain: this.chain, pool: this.pool, engine: this.engine, options: this.options } = ctx)
    this.profile = ctx.profile
    this.admission = new Admission(ctx, accounts, {
      pendingNonce: (from) => this.getTransactionCount(from, { tag: 'pending' }),
      estimateGas: (req) => this.estimateGas(req, { tag: 'pending' }),
      pendingBaseFee: () => this.pendingBaseFee(),
      nextHeader: () => ctx.producer.nextHeaderFields(),
    })
    this.persistence = new Persistence(ctx)
    this.dev = new DevControl(ctx, this.persistence, this.admission, alloc)
    // BLOCKHASH: sealed blocks only, within the opcode's 256-block window (checked by the EVM).
    ctx.engine.blockHashes.lookup = (n) => this.chain.byNumber(n)?.hash
    this.pruner = this.startPruning()
    this.debug = new Debugger(ctx, (block) => this.blockHash(block))
    this.faults = new PreconfFaults(ctx, faultSettingsOf(ctx.options))
  }

  /** A node; with `fork` (startNode connects first, to know the chain id), that fork's. */
  static async create(input: NodeOptions = {}, connected?: Fork): Promise<DevNode> {
    const fork = connected ?? (input.fork ? await Fork.connect(input.fork, input.dataDir ?? '', forkLog(input)) : undefined)
    const options = resolveOptions(fork ? forkDefaults(input, fork) : input)
    const engine = await Engine.create(options)
    const accounts = await devAccounts(options.mnemonic, options.accounts)
    const chain = new Chain()
    const alloc = accounts.map((a) => ({
      address: Uint8Array.from(Buffer.from(a.address.slice(2), 'hex')),
      balance: options.balance,
    }))
    const profile = getProfile(options.profile)
    await writeGenesis(engine, chain, options, alloc, profile.opStack, fork)
    const logError = options.logger ?? ((line: string) => console.error(`pcnode: ${line}`))
    const log = options.silent ? () => {} : logError
    // Solidity console.log in transactions and calls, printed as anvil and Hardhat do.
    engine.consoleLog = (data) => {
      const line = formatConsoleLog(data)
      if (line !== undefined) log(`console.log: ${line}`)
    }
    const events = new NodeEvents()
    const pool = new TxPool()
    const opStack = profile.opStack ? new OpStack(l1FeesOf(options)) : undefined
    const clock = new DevClock()
    const producer = new BlockProducer(engine, chain, events, opStack, () => clock.now())
    const sequencer = new Sequencer(engine, chain, pool, producer, events, options, logError)
    // What enters the pool (or the deposit queue) is announced once, then the sequencer hears of it
    // (anvil's miner listens to its pool the same way); a pool put back as it was is not announced again.
    pool.onAdded((info, arrival) => {
      if (arrival === 'new') events.emit('pendingTx', info)
      sequencer.notify()
    })
    opStack?.onDepositQueued((tx) => {
      events.emit('pendingTx', { tx, receivedAt: performance.now() })
      sequencer.notify()
    })
    const ctx: NodeContext = {
      options,
      profile,
      opStack,
      engine,
      chain,
      pool,
      events,
      producer,
      sequencer,
      clock,
      hints: new PreconfHints(chain, log),
      cheats: new Cheats(),
      fork,
      log,
      logError,
    }
    const node = new DevNode(ctx, accounts, alloc)
    await node.persistence.init() // loads the state file (--state) before the first block opens
    await engine.queue.run(() => node.dev.snapshots.markInitial())
    if (options.mining) await sequencer.start()
    return node
  }

  get chainId(): bigint {
    return BigInt(this.options.chainId)
  }

  get mining(): boolean {
    return this.ctx.sequencer.isRunning
  }

  /** --state-history: old blocks' state is deleted as new blocks are sealed (storage/pruning.ts). */
  private startPruning(): StatePruner | undefined {
    const { stateHistory } = this.options
    if (stateHistory === 0) return undefined
    const pruner = new StatePruner(this.engine, this.chain, stateHistory, () => this.dev.snapshots.heldStateRoots(), this.ctx.log)
    this.chain.pruning = pruner
    this.events.on('block', () => pruner.blockSealed())
    return pruner
  }

  async stop(): Promise<void> {
    await this.ctx.sequencer.stop()
    await this.pruner?.idle()
    try {
      await this.persistence.close() // the state file's final write
      await this.ctx.fork?.close() // what was read from the fork's upstream, to its cache
    } finally {
      this.events.removeAllListeners()
    }
  }

  /** The fork this node runs on (--fork-url), if any. */
  get fork(): Fork | undefined {
    return this.ctx.fork
  }

  // --- blocks -------------------------------------------------------------------------------

  blockNumber(): bigint {
    return this.chain.head.header.number
  }

  getBlock(ref: BlockRef): BlockRecord | undefined {
    return this.chain.find(ref)
  }

  /** Hash of a block; for the pending block, the hash of its current flashblock's header. */
  blockHash(block: BlockRecord): Uint8Array {
    return block.sealed ? block.hash : this.engine.header(block.header).hash()
  }

  // --- state --------------------------------------------------------------------------------

  /** The state after `block` (the live one for the pending block). */
  private async viewFor(block: BlockRecord): Promise<ExecView> {
    if (!block.sealed || (this.chain.pending === undefined && block === this.chain.head)) return this.engine.live
    return this.engine.viewAt(await this.chain.settledRootOf(block))
  }

  private read<T>(ref: BlockRef, fn: (view: ExecView, block: BlockRecord) => Promise<T>): Promise<T> {
    const block = this.chain.resolve(ref)
    return this.engine.queue.run(async () => fn(await this.viewFor(block), block))
  }

  /**
   * A state read of `account` at `ref`; when it reads `latest` while pre-confirmed transactions
   * wait to be sealed, compared once with `pending` and explained if they differ (hints.ts).
   */
  private async readAccount<T>(
    method: string,
    account: Uint8Array,
    ref: BlockRef,
    fn: (view: ExecView) => Promise<T>,
    show: (value: T) => string,
  ): Promise<T> {
    const value = await this.read(ref, fn)
    if (this.ctx.hints.shouldCheck(ref, account, method)) {
      const pending = await this.read({ tag: 'pending' }, fn)
      if (show(pending) !== show(value)) this.ctx.hints.readDiffers(method, account, show(value), show(pending))
    }
    return value
  }

  getBalance(address: Uint8Array, ref: BlockRef): Promise<bigint> {
    return this.readAccount('eth_getBalance', address, ref, (view) => view.balance(address), String)
  }

  /** At "pending", counts pooled transactions too (geth's semantics), so back-to-back sends work. */
  async getTransactionCount(address: Uint8Array, ref: BlockRef): Promise<bigint> {
    const nonce = await this.readAccount('eth_getTransactionCount', address, ref, (view) => view.nonce(address), String)
    return 'tag' in ref && ref.tag === 'pending' ? this.pool.pendingNonce(address, nonce) : nonce
  }

  getCode(address: Uint8Array, ref: BlockRef): Promise<Uint8Array> {
    return this.readAccount(
      'eth_getCode',
      address,
      ref,
      (view) => view.code(address),
      (code) => `${code.length} bytes of code`,
    )
  }

  getStorageAt(address: Uint8Array, slot: Uint8Array, ref: BlockRef): Promise<Uint8Array> {
    return this.readAccount('eth_getStorageAt', address, ref, (view) => view.storage(address, slot), toHex)
  }

  /**
   * Runs `run` at `ref`; when it reads `latest` while pre-confirmed transactions wait (and no
   * override shapes the call), also once at `pending`, explaining a different outcome (hints.ts).
   */
  private async compared<T>(
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
    if (plain && this.ctx.hints.shouldCheck(ref, sender, method, req.to)) {
      const pending = await settle(run({ tag: 'pending' }))
      if (pending.text !== outcome.text) this.ctx.hints.executionDiffers(method, sender, outcome.text, pending.text)
    }
    if ('error' in outcome) throw outcome.error
    return outcome.value
  }

  /** eth_getProof: the account's and the slots' Merkle proofs in the state at `ref`. */
  getProof(address: Uint8Array, slots: Uint8Array[], ref: BlockRef): Promise<AccountProof> {
    return this.read(ref, (view) => view.proof(address, slots))
  }

  // --- execution ----------------------------------------------------------------------------

  call(req: CallRequest, ref: BlockRef, overrides?: StateOverrides, blockOverrides?: BlockOverrides): Promise<Uint8Array> {
    return this.compared(
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
    return this.read(ref, async (view, block) => {
      const { engine } = this
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
    const { opStack } = this.ctx
    if (!opStack || !hasFee(req)) return undefined
    return opStack.fees(await opStack.readL1Fees(view))
  }

  estimateGas(req: CallRequest, ref: BlockRef, overrides?: StateOverrides, blockOverrides?: BlockOverrides): Promise<bigint> {
    return this.compared(
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
    return this.read(ref, async (view, block) => {
      const { engine } = this
      const env = callEnv(engine, block.header, blockOverrides, hasFee(req))
      const cap = callGasCap(engine, env.header.gasLimit)
      // As geth under Osaka: a named gas above the EIP-7825 cap is searched from the cap down.
      const txCap = engine.txGasCap()
      const capped = txCap !== undefined && req.gas !== undefined && req.gas > txCap ? { ...req, gas: txCap } : req
      const rollup = await this.rollupFees(view, req)
      return estimateGas({ view, env, req: capped, cap, overrides, revertCode: this.profile.estimateRevertCode, rollup })
    })
  }

  /** eth_createAccessList: the accounts and slots the call touches, and its gas with them (geth's algorithm). */
  async createAccessList(req: CallRequest, ref: BlockRef, overrides?: StateOverrides): Promise<AccessListResult> {
    return this.read(ref, async (view, block) => {
      const { engine } = this
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
  async simulate(input: SimulateInput, ref: BlockRef): Promise<SimulatedBlock[]> {
    checkSimulateInput(input)
    // Base's default timestamp step: the block time in whole seconds, rounded up.
    const timeStep = BigInt(Math.max(1, Math.ceil(this.options.blockTime / 1000)))
    const { profile } = this
    return this.read(ref, async (live, block) => {
      const view = profile.simulateOnCopy ? await this.engine.freshViewAt(await live.root()) : live
      const { opStack } = this.ctx
      const rollup = opStack ? opStack.fees(await opStack.readL1Fees(view)) : undefined
      return simulate(
        {
          engine: this.engine,
          view,
          base: { header: block.header, hash: this.blockHash(block) },
          timeStep,
          profile,
          rollup,
          nextBaseFee: (parent) => this.ctx.producer.nextFees(parent).baseFee,
        },
        input,
      )
    })
  }

  // --- transactions -------------------------------------------------------------------------

  sendRawTransaction(raw: Uint8Array): Promise<Uint8Array> {
    return this.admission.sendRawTransaction(raw)
  }

  /** eth_sendTransaction: a dev account signs; missing fields get the usual defaults. */
  sendTransaction(req: CallRequest): Promise<Uint8Array> {
    return this.admission.sendTransaction(req)
  }

  /** eth_fillTransaction: `req` with eth_sendTransaction's defaults, unsigned (geth's `{raw, tx}`). */
  fillTransaction(req: CallRequest): Promise<TxRecord> {
    return this.admission.fillTransaction(req)
  }

  /** The dev account of `address` (its key signs for eth_sign and friends). */
  devAccount(address: Uint8Array): DevAccount | undefined {
    return this.admission.devAccount(address)
  }

  getTransaction(hash: Uint8Array): IncludedTx | PoolTxInfo | undefined {
    return this.getReceipt(hash) ?? this.pool.get(hash)
  }

  /** An included transaction: sealed, or pre-confirmed (not in a block built while flashblocks are halted). */
  getReceipt(hash: Uint8Array): IncludedTx | undefined {
    const t = this.chain.getTx(hash)
    return t && !(t.block.hidden && !t.block.sealed) ? t : undefined
  }

  /** Whether the transaction waits in the pool (base_transactionStatus "Known"). */
  isPooled(hash: Uint8Array): boolean {
    return this.pool.has(hash)
  }

  getLogs(filter: LogFilter): MatchedLog[] {
    return this.chain.logs(filter)
  }

  /** Encoded receipt per included transaction, so each flashblock encodes only its new ones. */
  private readonly encodedReceipts = new WeakMap<IncludedTx, Uint8Array>()

  /**
   * Receipts root and logs bloom of a block as it stands: the raw flashblock payload carries them
   * for the partial block, while the pending header only gets them when sealed.
   */
  flashblockRoots(block: BlockRecord): { receiptsRoot: Uint8Array; logsBloom: Uint8Array } {
    const encoded = block.txs.map((t) => {
      let bytes = this.encodedReceipts.get(t)
      if (!bytes) this.encodedReceipts.set(t, (bytes = encodeReceipt(t.tx.type, t.receipt)))
      return bytes
    })
    return {
      receiptsRoot: this.engine.orderedRoot(encoded),
      logsBloom: combineBlooms(block.txs.map((t) => t.receipt.logsBloom)),
    }
  }

  // --- fees ---------------------------------------------------------------------------------

  /** Base fee the next transaction pays (the pending block's). */
  pendingBaseFee(): bigint {
    return (this.chain.pending?.header ?? this.ctx.producer.nextHeaderFields()).baseFeePerGas
  }

  gasPrice(): bigint {
    return this.pendingBaseFee() + SUGGESTED_TIP
  }

  maxPriorityFeePerGas(): bigint {
    return SUGGESTED_TIP
  }

  feeHistory(count: number, newest: BlockRef, percentiles: number[] | undefined): FeeHistory {
    return feeHistory(this.chain, this.engine, count, newest, percentiles, (parent) => this.ctx.producer.nextFees(parent))
  }

  /** Test helper and `--no-mining` control: run a flashblock and seal, now. */
  async mine(): Promise<BlockRecord> {
    await this.engine.queue.run(() => fill(this.ctx))
    await this.ctx.sequencer.seal()
    return this.chain.head
  }
}
