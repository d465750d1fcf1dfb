// DevNode: the devnet as plain TypeScript calls (bigint, Uint8Array). The RPC layer is its only
// caller over the wire; tests and the CLI reach it through startNode().

import { RLP } from '@ethereumjs/rlp'
import { createFeeMarket1559Tx, createLegacyTx, createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { type Account, Address, bytesToBigInt, hexToBytes } from '@ethereumjs/util'
import { encodeReceipt, type VM } from '@ethereumjs/vm'
import { type DevAccount, deriveAccounts } from './accounts.js'
import { Chain, hexKey } from './chain/chain.js'
import { DevControl } from './dev/control.js'
import { decodeBlobNetworkWrapper, isBlobNetworkWrapper } from './engine/blob-wrapper.js'
import { importChainFile, startFromGenesisFile } from './engine/chain-import.js'
import { txCommon } from './engine/commons.js'
import { createEngine, type Engine, txGasCap, writeGenesisState } from './engine/engine.js'
import { orderedTrieRoot } from './engine/trie.js'
import { InvalidParamsError, TxRejectedError } from './errors.js'
import { NodeEvents } from './events.js'
import { callBlock, callGasCap, callTransaction, hasFee, mapRunTxError, runReverted, throwFailure } from './execution/call.js'
import { estimateGas } from './execution/estimate.js'
import { checkSimulateInput, type SimulatedBlock, type SimulateInput, simulate } from './execution/simulate.js'
import { type NodeOptions, type ResolvedOptions, resolveOptions } from './options.js'
import { TxPool } from './pool/pool.js'
import { type ChainProfile, getProfile } from './profile.js'
import { BlockProducer } from './sequencer/producer.js'
import { Sequencer } from './sequencer/sequencer.js'
import { StatePruner } from './storage/pruning.js'
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
} from './types.js'

const EMPTY_ROOT = hexToBytes('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')
/** Tip suggested by eth_maxPriorityFeePerGas and used by eth_sendTransaction (anvil's default). */
const SUGGESTED_TIP = 1_000_000_000n

export interface FeeHistory {
  oldestBlock: bigint
  baseFeePerGas: bigint[]
  gasUsedRatio: number[]
  baseFeePerBlobGas: bigint[]
  blobGasUsedRatio: number[]
  reward?: bigint[][]
}

export class DevNode {
  readonly events = new NodeEvents()
  readonly chain = new Chain()
  readonly pool = new TxPool()
  private producer!: BlockProducer
  private sequencer!: Sequencer
  /** Test-client control (evm_*, anvil_*) and the state file: devcontrol.ts. */
  dev!: DevControl
  pruner: StatePruner | undefined
  private readonly keys = new Map<string, DevAccount>()

  private constructor(
    readonly options: ResolvedOptions,
    readonly engine: Engine,
    readonly accounts: DevAccount[],
  ) {
    for (const a of accounts) this.keys.set(a.address.toLowerCase(), a)
    // BLOCKHASH: sealed blocks only, within the opcode's 256-block window (checked by the EVM).
    engine.blockHashes.lookup = (n) => this.chain.blocks[Number(n)]?.hash
  }

  static async create(input: NodeOptions = {}): Promise<DevNode> {
    const options = resolveOptions(input)
    const engine = await createEngine(options)
    const accounts = deriveAccounts(options.mnemonic, options.accounts)
    const node = new DevNode(options, engine, accounts)
    await node.genesis()
    await node.dev.init() // loads the state file (--state) before the first block opens
    node.startPruning()
    if (options.mining) await node.sequencer.start()
    return node
  }

  private async genesis(): Promise<void> {
    if (this.engine.genesisFile) return this.genesisFromFile()
    const alloc = this.accounts.map((a) => ({ address: hexToBytes(a.address), balance: this.options.balance }))
    const stateRoot = await writeGenesisState(this.engine, alloc)
    const header: HeaderFields = {
      parentHash: new Uint8Array(32),
      number: 0n,
      timestamp: BigInt(Math.floor(Date.now() / 1000)),
      gasLimit: this.options.gasLimit,
      gasUsed: 0n,
      baseFeePerGas: this.options.baseFee,
      coinbase: new Uint8Array(20),
      stateRoot,
      transactionsRoot: EMPTY_ROOT,
      receiptsRoot: EMPTY_ROOT,
      logsBloom: new Uint8Array(256),
      mixHash: new Uint8Array(32),
      extraData: new Uint8Array(),
      withdrawalsRoot: EMPTY_ROOT,
      blobGasUsed: 0n,
      excessBlobGas: 0n,
      parentBeaconBlockRoot: new Uint8Array(32),
      requestsHash: hexToBytes('0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    }
    const block: BlockRecord = { header, hash: new Uint8Array(), sealed: true, txs: [], flashblocks: 0, size: 0n }
    const ethHeader = this.engine.header(header)
    block.hash = ethHeader.hash()
    block.size = BigInt(ethHeader.serialize().length) + 3n
    this.chain.addSealed(block)
    this.producer = new BlockProducer(this.engine, this.chain, this.events)
    this.sequencer = new Sequencer(this.engine, this.chain, this.pool, this.producer, this.events, this.options)
    this.dev = new DevControl(this, this.producer, this.sequencer)
  }

  /** The chain profile (profile.ts): every Base/Ethereum difference. */
  get profile(): ChainProfile {
    return getProfile(this.options.profile)
  }

  /** --genesis FILE (and --import FILE): geth's genesis, then the imported blocks (chain-import.ts). */
  private async genesisFromFile(): Promise<void> {
    await startFromGenesisFile(this.engine, this.chain)
    if (this.options.importFile) await importChainFile(this.engine, this.chain, this.options.importFile)
    const head = this.chain.head.header
    this.engine.setHardforkFor?.(head.number + 1n, head.timestamp + 1n)
    if (this.options.mining && this.engine.common.consensusType() !== 'pos') {
      throw new Error(
        `cannot produce blocks on a ${this.engine.common.hardfork()} head (pcnode builds post-merge blocks only): import up to the merge or start with --no-mining`,
      )
    }
    this.producer = new BlockProducer(this.engine, this.chain, this.events)
    this.sequencer = new Sequencer(this.engine, this.chain, this.pool, this.producer, this.events, this.options)
    this.dev = new DevControl(this, this.producer, this.sequencer)
  }

  get chainId(): bigint {
    return BigInt(this.options.chainId)
  }

  get mining(): boolean {
    return this.sequencer.isRunning
  }

  /** --state-history: old blocks' state is deleted as new blocks are sealed (pruning.ts). */
  private startPruning(): void {
    const { stateHistory, logger } = this.options
    if (stateHistory === 0) return
    this.pruner = new StatePruner(
      this.engine,
      this.chain,
      stateHistory,
      () => this.dev.heldStateRoots(),
      (line) => logger?.(line),
    )
    this.chain.pruning = this.pruner
    this.events.on('block', () => this.pruner?.blockSealed())
  }

  async stop(): Promise<void> {
    await this.sequencer.stop()
    await this.pruner?.idle()
    try {
      await this.dev.close() // the state file's final write
    } finally {
      this.events.removeAllListeners()
    }
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
    return block.sealed ? block.hash : this.producer.pendingHash(block)
  }

  // --- state --------------------------------------------------------------------------------

  /** The VM holding the state after `block` (the live one for the pending block). */
  private async vmFor(block: BlockRecord): Promise<VM> {
    if (!block.sealed || (this.chain.pending === undefined && block === this.chain.head)) return this.engine.vm
    return this.engine.viewAt(this.chain.stateRootOf(block))
  }

  private read<T>(ref: BlockRef, fn: (vm: VM, block: BlockRecord) => Promise<T>): Promise<T> {
    const block = this.chain.resolve(ref)
    return this.engine.queue.run(async () => fn(await this.vmFor(block), block))
  }

  getBalance(address: Uint8Array, ref: BlockRef): Promise<bigint> {
    return this.read(ref, async (vm) => (await vm.stateManager.getAccount(new Address(address)))?.balance ?? 0n)
  }

  /** At "pending", counts pooled transactions too (geth's semantics), so back-to-back sends work. */
  async getTransactionCount(address: Uint8Array, ref: BlockRef): Promise<bigint> {
    const nonce = await this.read(ref, async (vm) => (await vm.stateManager.getAccount(new Address(address)))?.nonce ?? 0n)
    return 'tag' in ref && ref.tag === 'pending' ? this.pool.pendingNonce(address, nonce) : nonce
  }

  getCode(address: Uint8Array, ref: BlockRef): Promise<Uint8Array> {
    return this.read(ref, (vm) => vm.stateManager.getCode(new Address(address)))
  }

  getStorageAt(address: Uint8Array, slot: Uint8Array, ref: BlockRef): Promise<Uint8Array> {
    return this.read(ref, async (vm) => {
      const addr = new Address(address)
      if (!(await vm.stateManager.getAccount(addr))) return new Uint8Array(32)
      const value = await vm.stateManager.getStorage(addr, slot)
      const out = new Uint8Array(32)
      out.set(value, 32 - value.length)
      return out
    })
  }

  // --- execution ----------------------------------------------------------------------------

  async call(req: CallRequest, ref: BlockRef, overrides?: StateOverrides, blockOverrides?: BlockOverrides): Promise<Uint8Array> {
    return this.read(ref, async (vm, block) => {
      const { common } = this.engine
      const payFees = hasFee(req)
      const ctx = callBlock(common, block.header, blockOverrides, payFees)
      // geth and reth lift the EIP-7825 cap for eth_call; ethereumjs can't build such a transaction, so a
      // larger gas (tools send the block gas limit) runs at the cap instead of failing the call.
      const txCap = txGasCap(common)
      let gas = req.gas ?? callGasCap(common, ctx.header.gasLimit)
      if (txCap !== undefined && gas > txCap) gas = txCap
      const nonce = (await vm.stateManager.getAccount(new Address(req.from ?? new Uint8Array(20))))?.nonce ?? 0n
      // A base fee overridden above zero for a call that pays none: ethereumjs can't skip the fee
      // check as geth's NoBaseFee does, so pay exactly the base fee from a topped-up balance.
      const baseFee = ctx.header.baseFeePerGas ?? 0n
      const feeFloor = !payFees && baseFee > 0n ? baseFee : undefined
      try {
        const tx = callTransaction(common, feeFloor ? { ...req, maxFeePerGas: feeFloor } : req, gas, nonce)
        const outcome = await runReverted(vm, ctx, tx, { validateBalance: feeFloor === undefined, overrides })
        if (outcome.failure) throwFailure(outcome.failure)
        return outcome.result.execResult.returnValue ?? new Uint8Array()
      } catch (error) {
        throw mapRunTxError(error)
      }
    })
  }

  async estimateGas(
    req: CallRequest,
    ref: BlockRef,
    overrides?: StateOverrides,
    blockOverrides?: BlockOverrides,
  ): Promise<bigint> {
    return this.read(ref, async (vm, block) => {
      const { common } = this.engine
      const ctx = callBlock(common, block.header, blockOverrides, hasFee(req))
      const cap = callGasCap(common, ctx.header.gasLimit)
      // As geth under Osaka: a named gas above the EIP-7825 cap is searched from the cap down.
      const txCap = txGasCap(common)
      const capped = txCap !== undefined && req.gas !== undefined && req.gas > txCap ? { ...req, gas: txCap } : req
      return estimateGas({ vm, common, block: ctx, req: capped, cap, overrides })
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
      const vm = profile.simulateOnCopy ? await this.engine.freshViewAt(await live.stateManager.getStateRoot()) : live
      return simulate(
        { engine: this.engine, vm, base: { header: block.header, hash: this.blockHash(block) }, timeStep, profile },
        input,
      )
    })
  }

  // --- transactions -------------------------------------------------------------------------

  /** Decodes, validates against the pre-confirmed state and pools a signed transaction. */
  async sendRawTransaction(raw: Uint8Array): Promise<Uint8Array> {
    if (isBlobNetworkWrapper(raw)) {
      const tx = await this.decodeBlobWrapper(raw)
      return this.submit(
        tx,
        senderOf(() => tx.getSenderAddress().bytes),
      )
    }
    const tx = this.decode(raw)
    const from = senderOf(() => {
      const pub = tx.getSenderPublicKey()
      tx.cache.senderPubKey = pub // not frozen yet, so ethereumjs would not cache it
      return this.engine.keccak(pub).subarray(12)
    })
    return this.submit(keepEncoding(tx, raw, this.engine.keccak(raw), from), from)
  }

  /** A blob transaction with its sidecar, proofs verified (blob-wrapper.ts). */
  private async decodeBlobWrapper(raw: Uint8Array): Promise<TypedTransaction> {
    if (!this.engine.common.isActivatedEIP(4844)) throw new TxRejectedError('transaction type not supported')
    try {
      return await decodeBlobNetworkWrapper(this.engine.common, raw)
    } catch (error) {
      const message = (error as Error).message
      throw message.startsWith('oversized') ? new TxRejectedError(message) : this.decodeError(raw, error as Error)
    }
  }

  private decode(raw: Uint8Array): TypedTransaction {
    if (raw.length > 128 * 1024) throw new TxRejectedError(`oversized data: transaction size ${raw.length}, limit ${128 * 1024}`)
    if (raw.length === 0) throw new TxRejectedError('typed transaction too short')
    let tx: TypedTransaction
    try {
      // The shared tx Common skips the per-transaction params merge (~0.4 ms of each decode).
      tx = createTxFromRLP(raw, { common: txCommon(this.engine.common), freeze: false })
    } catch (error) {
      throw this.decodeError(raw, error as Error)
    }
    // ethereumjs lets a typed transaction's chain id carry leading zero bytes; geth refuses them,
    // and the wire bytes (kept as the transaction's encoding) would not be canonical.
    if (chainIdHasLeadingZero(raw)) {
      const [int, name] = GETH_TX_TYPES[raw[0]] ?? ['*big.Int', 'Transaction']
      throw new TxRejectedError(
        `rlp: non-canonical integer (leading zero bytes) for ${int}, decoding into (types.${name}).ChainID`,
      )
    }
    return tx
  }

  private decodeError(raw: Uint8Array, error: Error): TxRejectedError {
    const message = error.message
    const chainId = txChainId(raw)
    if (chainId !== undefined && chainId !== this.chainId) {
      return new TxRejectedError(`invalid chain id for signer: have ${chainId} want ${this.chainId}`)
    }
    const cap = /gasLimit.*(?:cap|exceeds)|EIP-7825/i.test(message)
    if (cap) {
      return new TxRejectedError(`transaction gas limit too high (cap: ${2n ** 24n}, tx: ${txGasLimit(raw) ?? '?'})`)
    }
    if (/maxFeePerGas cannot be less than maxPriorityFeePerGas/.test(message)) {
      return new TxRejectedError('max priority fee per gas higher than max fee per gas')
    }
    if (/signature|Invalid Signature|s-values|v value/i.test(message)) return new TxRejectedError('invalid sender')
    if (/not supported|unknown transaction type|TypedTransaction with ID/i.test(message)) {
      return new TxRejectedError('transaction type not supported')
    }
    return new TxRejectedError(`rlp: ${message.split(' (')[0]}`)
  }

  /** Pools `tx` from `from`; public for impersonated sends (devcontrol.ts), which have no key. */
  async submit(tx: TypedTransaction, from: Uint8Array): Promise<Uint8Array> {
    const hash = tx.hash()
    if (this.chain.getTx(hash)) throw new TxRejectedError('already known')
    const info: PoolTxInfo = { tx, hash, from, receivedAt: performance.now() }
    // Admission reads the sender from the state cache, so a send does not wait behind a
    // flashblock in the serial queue. It waits when a state change is queued ahead of it (a send
    // after anvil_setBalance in one batch sees the new balance) or the cache lacks the sender.
    const address = new Address(from)
    const { queue, state } = this.engine
    const cached = queue.readableNow ? state.peekAccount(address) : undefined
    if (cached !== undefined) return this.admit(info, cached ?? undefined)
    return queue.run(async () => this.admit(info, await state.getAccount(address)))
  }

  private admit(info: PoolTxInfo, account: Account | undefined): Uint8Array {
    const header = this.chain.pending?.header ?? this.producer.nextHeaderFields()
    this.pool.validate(info, {
      blockGasLimit: header.gasLimit,
      baseFee: header.baseFeePerGas,
      txGasCap: txGasCap(this.engine.common),
      account: { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n },
    })
    this.pool.add(info)
    this.events.emit('pendingTx', info)
    this.sequencer.notify()
    return info.hash
  }

  /** eth_sendTransaction: a dev account signs; missing fields get the usual defaults. */
  async sendTransaction(req: CallRequest): Promise<Uint8Array> {
    if (!req.from) throw new InvalidParamsError('missing from')
    const account = this.keys.get(`0x${hexKey(req.from)}`)
    if (!account && this.dev.impersonating(req.from)) return this.dev.sendUnsigned(req)
    if (!account) throw new TxRejectedError(`unknown account 0x${hexKey(req.from)}`)
    const tx = (await this.fillTransaction(req, req.from)).sign(hexToBytes(account.privateKey))
    return this.submit(tx, req.from)
  }

  /**
   * The transaction eth_sendTransaction sends for `req` from `from`: the fields given, the rest
   * defaulted (pending nonce, an estimate at "pending", the suggested tip over twice the pending
   * base fee); legacy when `req` has a gas price. Unsigned, unless `signature` gives v, r and s
   * (impersonated senders, devcontrol.ts; left unfrozen so the sender can be set).
   */
  async fillTransaction(
    req: CallRequest,
    from: Uint8Array,
    signature?: (legacy: boolean) => { v: bigint; r: bigint; s: bigint },
  ): Promise<TypedTransaction> {
    const nonce = req.nonce ?? (await this.getTransactionCount(from, { tag: 'pending' }))
    const gasLimit = req.gas ?? (await this.estimateGas(req, { tag: 'pending' }))
    const base = {
      nonce,
      gasLimit,
      to: req.to ? new Address(req.to) : undefined,
      value: req.value ?? 0n,
      data: req.data ?? new Uint8Array(),
    }
    const opts = { common: this.engine.common, freeze: signature === undefined }
    if (req.gasPrice !== undefined) return createLegacyTx({ ...base, gasPrice: req.gasPrice, ...signature?.(true) }, opts)
    const tip = req.maxPriorityFeePerGas ?? SUGGESTED_TIP
    const maxFeePerGas = req.maxFeePerGas ?? this.pendingBaseFee() * 2n + tip
    const accessList = req.accessList?.map((e) => [e.address, e.storageKeys]) as never
    const fee = { maxFeePerGas, maxPriorityFeePerGas: tip, accessList }
    return createFeeMarket1559Tx({ ...base, ...fee, ...signature?.(false) }, opts)
  }

  /** Private key of a dev account, for the signing methods. */
  devAccount(address: Uint8Array): DevAccount | undefined {
    return this.keys.get(`0x${hexKey(address)}`)
  }

  getTransaction(hash: Uint8Array): IncludedTx | PoolTxInfo | undefined {
    return this.chain.getTx(hash) ?? this.pool.get(hash)
  }

  getReceipt(hash: Uint8Array): IncludedTx | undefined {
    return this.chain.getTx(hash)
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
      if (!bytes) {
        const r = t.receipt
        const logs = r.logs.map((l) => [l.address, l.topics, l.data] as [Uint8Array, Uint8Array[], Uint8Array])
        const receipt = { status: r.status, cumulativeBlockGasUsed: r.cumulativeGasUsed, bitvector: r.logsBloom, logs }
        this.encodedReceipts.set(t, (bytes = encodeReceipt(receipt, t.tx.type)))
      }
      return bytes
    })
    const logsBloom = new Uint8Array(256)
    for (const t of block.txs) for (let i = 0; i < 256; i++) logsBloom[i] |= t.receipt.logsBloom[i]
    return { receiptsRoot: orderedTrieRoot(encoded, this.engine.keccak), logsBloom }
  }

  // --- fees ---------------------------------------------------------------------------------

  /** Base fee the next transaction pays (the pending block's). */
  pendingBaseFee(): bigint {
    return (this.chain.pending?.header ?? this.producer.nextHeaderFields()).baseFeePerGas
  }

  gasPrice(): bigint {
    return this.pendingBaseFee() + SUGGESTED_TIP
  }

  maxPriorityFeePerGas(): bigint {
    return SUGGESTED_TIP
  }

  feeHistory(count: number, newest: BlockRef, percentiles: number[] | undefined): FeeHistory {
    const last = this.chain.resolve(newest)
    const lastNumber = last.header.number
    const first = lastNumber - BigInt(count) + 1n > 0n ? lastNumber - BigInt(count) + 1n : 0n
    const out: FeeHistory = {
      oldestBlock: first,
      baseFeePerGas: [],
      gasUsedRatio: [],
      baseFeePerBlobGas: [],
      blobGasUsedRatio: [],
    }
    if (percentiles) out.reward = []
    const common = this.engine.common
    for (let n = first; n <= lastNumber; n++) {
      const block = this.chain.resolve({ number: n })
      const h = block.header
      out.baseFeePerGas.push(h.baseFeePerGas)
      out.gasUsedRatio.push(h.gasLimit > 0n ? Number(h.gasUsed) / Number(h.gasLimit) : 0)
      const ethHeader = this.engine.header(h)
      out.baseFeePerBlobGas.push(ethHeader.getBlobGasPrice())
      const maxBlobGas = BigInt(common.getBlobGasSchedule().maxBlobGasPerBlock)
      out.blobGasUsedRatio.push(maxBlobGas > 0n ? Number(h.blobGasUsed) / Number(maxBlobGas) : 0)
      if (out.reward && percentiles) out.reward.push(rewards(block, percentiles))
    }
    // The base fee after the newest block, as geth appends it.
    const next = last.sealed ? this.engine.header(last.header) : undefined
    out.baseFeePerGas.push(next ? next.calcNextBaseFee() : last.header.baseFeePerGas)
    out.baseFeePerBlobGas.push(next ? next.calcNextBlobGasPrice(common) : (out.baseFeePerBlobGas.at(-1) ?? 1n))
    return out
  }

  /** Test helper and `--no-mining` control: run a flashblock and seal, now. */
  async mine(): Promise<BlockRecord> {
    await this.engine.queue.run(async () => {
      while (this.pool.size > 0 && (await this.sequencer.flashNow())) {
        // keep filling until the pool has nothing ready
      }
    })
    await this.sequencer.seal()
    return this.chain.head
  }
}

function rewards(block: BlockRecord, percentiles: number[]): bigint[] {
  const baseFee = block.header.baseFeePerGas
  const tips = block.txs
    .map((t) => ({ tip: t.receipt.effectiveGasPrice - baseFee, gas: t.receipt.gasUsed }))
    .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0))
  if (tips.length === 0) return percentiles.map(() => 0n)
  const total = tips.reduce((s, t) => s + t.gas, 0n)
  return percentiles.map((p) => {
    const threshold = (Number(total) * p) / 100
    let sum = 0
    for (const t of tips) {
      sum += Number(t.gas)
      if (sum >= threshold) return t.tip
    }
    return tips[tips.length - 1].tip
  })
}

/** Chain id a raw transaction names, read without full decoding (for the wrong-chain message). */
/** geth's integer type and struct name of each typed transaction's chain id, for its error text. */
const GETH_TX_TYPES: Record<number, [string, string]> = {
  1: ['*big.Int', 'AccessListTx'],
  2: ['*big.Int', 'DynamicFeeTx'],
  3: ['*uint256.Int', 'BlobTx'],
  4: ['*uint256.Int', 'SetCodeTx'],
}

/** Whether a typed transaction's first field (the chain id) is an integer with leading zeros. */
function chainIdHasLeadingZero(raw: Uint8Array): boolean {
  if (raw[0] >= 0x80) return false // legacy: the chain id is in v, whose encoding ethereumjs checks
  const list = raw[1]
  const at = 2 + (list > 0xf7 ? list - 0xf7 : 0)
  const b = raw[at]
  return b === 0x00 || (b > 0x80 && b <= 0xb7 && raw[at + 1] === 0x00)
}

function txChainId(raw: Uint8Array): bigint | undefined {
  try {
    if (raw[0] >= 0xc0) {
      const fields = RLP.decode(raw) as Uint8Array[]
      const v = bytesToBigInt(fields[6])
      return v >= 35n ? (v - 35n) / 2n : undefined
    }
    const fields = RLP.decode(raw.subarray(1)) as Uint8Array[]
    return bytesToBigInt(fields[0])
  } catch {
    return undefined
  }
}

function txGasLimit(raw: Uint8Array): bigint | undefined {
  try {
    if (raw[0] >= 0xc0) return bytesToBigInt((RLP.decode(raw) as Uint8Array[])[2])
    const fields = RLP.decode(raw.subarray(1)) as Uint8Array[]
    return bytesToBigInt(fields[raw[0] === 1 ? 3 : 4])
  } catch {
    return undefined
  }
}

/**
 * Freezes a decoded transaction with its wire bytes as its serialization, their hash as its hash
 * and its recovered sender: the tx root, block sizes, payloads and execution reuse them instead of
 * re-encoding and re-hashing (ethereumjs re-encodes the RLP on every serialize(), and caches
 * hash() only on frozen objects).
 */
function keepEncoding(tx: TypedTransaction, raw: Uint8Array, hash: Uint8Array, from: Uint8Array): TypedTransaction {
  const sender = new Address(from)
  Object.defineProperty(tx, 'serialize', { value: () => raw })
  Object.defineProperty(tx, 'getSenderAddress', { value: () => sender })
  tx.cache.hash = hash
  Object.freeze(tx)
  return tx
}

/** geth's text for any signature no sender recovers from (ErrInvalidSender). */
function invalidSender(): TxRejectedError {
  return new TxRejectedError('invalid sender')
}

function senderOf(recover: () => Uint8Array): Uint8Array {
  try {
    return recover()
  } catch {
    throw invalidSender()
  }
}
