// DevNode: the devnet as plain TypeScript calls (bigint, Uint8Array), a facade over the parts
// assemble.ts builds. The RPC layer is its only caller over the wire; tests and the CLI reach it
// through startNode(). Reads are answered here; the services do the rest: execution/executor
// (calls, estimates, simulations), admission/ (sends), sequencer/ (blocks), dev/ (test
// control), storage/ (state file, pruning), tracing/ (debug_trace*), faults/.

import { keccak256 } from 'viem'
import type { DevAccount } from './accounts.js'
import type { Admission } from './admission/admission.js'
import { assemble } from './assemble.js'
import { Bundler } from './bundler/bundler.js'
import { userOpSection } from './bundler/op-persist.js'
import { OpStages } from './bundler/op-stages.js'
import type { Chain } from './chain/chain.js'
import type { NodeContext } from './context.js'
import type { DevControl } from './dev/control.js'
import type { AccountProof, Engine, ExecView } from './engine/index.js'
import type { NodeEvents } from './events.js'
import type { AccessListResult } from './execution/access-list.js'
import type { Executor } from './execution/executor.js'
import type { SimulatedBlock, SimulateInput } from './execution/simulate/index.js'
import type { PreconfFaults } from './faults/faults.js'
import { type FeeHistory, feeHistory } from './fee-history.js'
import { SUGGESTED_TIP } from './fees.js'
import type { Fork } from './fork/fork.js'
import { fastLzSize, l1Cost } from './opstack/fees.js'
import type { NodeOptions, ResolvedOptions } from './options.js'
import type { TxPool } from './pool/pool.js'
import type { ChainProfile } from './profile.js'
import type { Persistence } from './storage/persistence.js'
import type { StatePruner } from './storage/pruning.js'
import { parseTraceConfig } from './tracing/config.js'
import type { Debugger } from './tracing/debug.js'
import { TxStages } from './tx-stages.js'
import type {
  BlockOverrides,
  BlockRecord,
  BlockRef,
  CallRequest,
  HeaderFields,
  IncludedTx,
  LogFilter,
  MatchedLog,
  PoolTxInfo,
  StateOverrides,
  TxRecord,
} from './types.js'
import { WalletCalls } from './wallet-calls/wallet-calls.js'

export type { FeeHistory }

const toHex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`

export class DevNode {
  readonly events: NodeEvents
  readonly chain: Chain
  readonly pool: TxPool
  readonly engine: Engine
  readonly options: ResolvedOptions
  readonly profile: ChainProfile
  readonly accounts: DevAccount[]
  /** Test-client control (evm_*, anvil_*) and the state file. */
  readonly dev: DevControl
  /** debug_trace*: geth's tracers over re-executed transactions and calls (tracing/). */
  readonly debug: Debugger
  /** Deletes old blocks' state (--state-history); undefined when every block's is kept. */
  readonly pruner: StatePruner | undefined
  /** Pre-confirmation faults injected on purpose (faults/): drops, halts, restarts, jitter. */
  readonly faults: PreconfFaults
  /** EIP-5792's bundles of calls from the accounts the node holds (wallet_sendCalls). */
  readonly walletCalls: WalletCalls
  /** The built-in ERC-4337 bundler (eth_sendUserOperation and friends). */
  readonly bundler: Bundler
  /** When each transaction was pooled, pre-confirmed, sealed or dropped (pcnode_transactionStatus). */
  readonly stages: TxStages
  /** Each user operation's stages in the bundler (pcnode_userOperationStatus). */
  readonly opStages: OpStages
  private readonly ctx: NodeContext
  private readonly executor: Executor
  private readonly admission: Admission
  private readonly persistence: Persistence

  private constructor(parts: Awaited<ReturnType<typeof assemble>>) {
    const { ctx } = parts
    this.ctx = ctx
    ;({ events: this.events, chain: this.chain, pool: this.pool, engine: this.engine, options: this.options } = ctx)
    this.profile = ctx.profile
    ;({
      accounts: this.accounts,
      executor: this.executor,
      admission: this.admission,
      persistence: this.persistence,
      dev: this.dev,
      debug: this.debug,
      pruner: this.pruner,
      faults: this.faults,
    } = parts)
    this.stages = new TxStages(this.events)
    this.walletCalls = new WalletCalls({
      chainId: this.chainId,
      holds: (a) => this.devAccount(a) !== undefined || this.dev.impersonating(a),
      defaultSender: () => {
        const first = this.accounts[0]
        return first ? Uint8Array.from(Buffer.from(first.address.slice(2), 'hex')) : undefined
      },
      call: (req) => this.call(req, { tag: 'pending' }),
      simulate: (calls) => this.simulatePending(calls),
      send: (req) => this.sendTransaction(req),
      receipt: (hash) => this.getReceipt(hash),
      waiting: (hash) => this.waiting(hash),
      log: ctx.log,
    })
    this.bundler = new Bundler(
      {
        chainId: this.chainId,
        call: (req, overrides) => this.call(req, { tag: 'pending' }, overrides),
        simulate: (calls, stateOverrides) => this.simulatePending(calls, stateOverrides),
        code: (address) => this.getCode(address, { tag: 'pending' }),
        nonce: (address) => this.getTransactionCount(address, { tag: 'pending' }),
        sendRawTransaction: (raw) => this.sendRawTransaction(raw),
        receipt: (hash) => this.getReceipt(hash),
        logs: (filter) => this.getLogs(filter),
        waiting: (hash) => this.waiting(hash),
        baseFee: () => this.pendingBaseFee(),
        tip: () => SUGGESTED_TIP,
        txGasCap: () => this.engine.txGasCap() ?? this.pendingHeader().gasLimit,
        l1Fee: (tx) => (ctx.opStack ? l1Cost(ctx.opStack.current, fastLzSize(tx)).fee : 0n),
        traceCall: (req, tracer, tracerConfig, stateOverrides) =>
          this.debug.traceCall(req, { tag: 'pending' }, parseTraceConfig({ tracer, tracerConfig, timeout: '10s' }, 0, true), {
            stateOverrides,
          }),
        log: ctx.log,
        opEvent: (event) => this.events.emit('userOp', event),
        now: () => this.pendingHeader().timestamp,
        blockNumber: () => this.chain.head.header.number,
      },
      parts.bundlerAccount,
      { unsafe: this.options.bundlerUnsafe },
    )
    this.events.on('block', ({ block }) => this.bundler.blockSealed(block.header.number))
    this.opStages = new OpStages(this.events, {
      outcome: (hash) => this.bundler.receipt(hash),
      receipt: (hash) => this.getReceipt(hash),
      waiting: (hash) => this.waiting(hash),
      held: (hash) => this.bundler.lookup(hash) !== undefined,
    })
    // The bundler's mempool is kept in the state file beside the pool (loaded by init()).
    this.persistence.addSection(userOpSection(this.bundler, this.events, this.chainId, (hash) => this.getReceipt(hash)))
  }

  /** The header of the block the next transaction joins: the pending one, or the next to open. */
  private pendingHeader(): HeaderFields {
    return this.chain.pending?.header ?? this.ctx.producer.nextHeaderFields()
  }

  /** The calls in order on the pre-confirmed state, unvalidated (wallet_sendCalls' and the bundler's). */
  private async simulatePending(calls: CallRequest[], stateOverrides?: StateOverrides) {
    const [block] = await this.simulate({ blocks: [{ calls, stateOverrides }], validation: false }, { tag: 'pending' })
    return block?.calls ?? []
  }

  /** Whether a transaction still waits: in the pool, or in a block not yet shown. */
  private waiting(hash: Uint8Array): boolean {
    return this.isPooled(hash) || this.chain.getTx(hash) !== undefined
  }

  /** A node; with `fork` (startNode connects first, to know the chain id), that fork's. */
  static async create(input: NodeOptions = {}, connected?: Fork): Promise<DevNode> {
    const node = new DevNode(await assemble(input, connected))
    await node.persistence.init() // loads the state file (--state) before the first block opens
    await node.engine.queue.run(() => node.dev.snapshots.markInitial())
    if (node.options.mining) await node.ctx.sequencer.start()
    return node
  }

  get chainId(): bigint {
    return BigInt(this.options.chainId)
  }

  get mining(): boolean {
    return this.ctx.sequencer.isRunning
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
    return this.executor.blockHash(block)
  }

  // --- state --------------------------------------------------------------------------------

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
    const value = await this.executor.atBlock(ref, fn)
    if (this.ctx.hints.shouldCheck(ref, account, method)) {
      const pending = await this.executor.atBlock({ tag: 'pending' }, fn)
      if (show(pending) !== show(value)) this.ctx.hints.readDiffers(method, account, show(value), show(pending))
    }
    return value
  }

  getBalance(address: Uint8Array, ref: BlockRef): Promise<bigint> {
    return this.readAccount('eth_getBalance', address, ref, (view) => view.balance(address), String)
  }

  /**
   * At "pending", counts pooled transactions too (geth's semantics), so back-to-back sends work.
   * The pool is read in the same queue task as the state: a flashblock that ran between the two
   * would have moved the sender's transactions from the pool into a state this read did not see.
   */
  getTransactionCount(address: Uint8Array, ref: BlockRef): Promise<bigint> {
    const pending = 'tag' in ref && ref.tag === 'pending'
    const count = async (view: ExecView) => {
      const nonce = await view.nonce(address)
      return pending ? this.pool.pendingNonce(address, nonce) : nonce
    }
    return this.readAccount('eth_getTransactionCount', address, ref, count, String)
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

  /** eth_getProof: the account's and the slots' Merkle proofs in the state at `ref`. */
  getProof(address: Uint8Array, slots: Uint8Array[], ref: BlockRef): Promise<AccountProof> {
    return this.executor.atBlock(ref, (view) => view.proof(address, slots))
  }

  // --- execution ----------------------------------------------------------------------------

  call(req: CallRequest, ref: BlockRef, overrides?: StateOverrides, blockOverrides?: BlockOverrides): Promise<Uint8Array> {
    return this.executor.call(req, ref, overrides, blockOverrides)
  }

  estimateGas(req: CallRequest, ref: BlockRef, overrides?: StateOverrides, blockOverrides?: BlockOverrides): Promise<bigint> {
    return this.executor.estimateGas(req, ref, overrides, blockOverrides)
  }

  /** eth_createAccessList: the accounts and slots the call touches, and its gas with them (geth's algorithm). */
  createAccessList(req: CallRequest, ref: BlockRef, overrides?: StateOverrides): Promise<AccessListResult> {
    return this.executor.createAccessList(req, ref, overrides)
  }

  /** eth_simulateV1 on top of `ref` ("pending": the pre-confirmed state); nothing reaches the node's state. */
  simulate(input: SimulateInput, ref: BlockRef): Promise<SimulatedBlock[]> {
    return this.executor.simulate(input, ref)
  }

  // --- transactions -------------------------------------------------------------------------

  sendRawTransaction(raw: Uint8Array): Promise<Uint8Array> {
    return this.announceRefusal(this.admission.sendRawTransaction(raw), () => ({ hash: keccak256(raw, 'bytes') }))
  }

  /** eth_sendTransaction: a dev account signs; missing fields get the usual defaults. */
  sendTransaction(req: CallRequest): Promise<Uint8Array> {
    return this.announceRefusal(this.admission.sendTransaction(req), () => ({ from: req.from }))
  }

  /** A refused send is announced (the CLI's activity log shows it), then its error goes to the caller. */
  private async announceRefusal(
    send: Promise<Uint8Array>,
    what: () => { hash?: Uint8Array; from?: Uint8Array },
  ): Promise<Uint8Array> {
    try {
      return await send
    } catch (error) {
      this.ctx.events.emit('refused', { reason: (error as Error).message, ...what() })
      throw error
    }
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

  /**
   * Receipts root and logs bloom of a block as it stands: the raw flashblock payload carries them
   * for the partial block, while the pending header only gets them when sealed.
   */
  flashblockRoots(block: BlockRecord): { receiptsRoot: Uint8Array; logsBloom: Uint8Array } {
    return this.ctx.producer.flashblockRoots(block)
  }

  // --- fees ---------------------------------------------------------------------------------

  /** Base fee the next transaction pays (the pending block's). */
  pendingBaseFee(): bigint {
    return this.pendingHeader().baseFeePerGas
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
    await this.engine.queue.run(() => this.ctx.sequencer.flashAllReady({ deposits: false }))
    await this.ctx.sequencer.seal()
    return this.chain.head
  }
}
