// Test-client control: what anvil's and Hardhat's dev methods do (viem's test actions), mapped onto
// pcnode's model of a pending (pre-confirmed) block on top of sealed ones. Everything that touches
// state runs in the engine queue. Also owns the state file (persistence.ts): load at start, periodic
// and final writes.
//
// Dev setters (anvil_setBalance…) write the live state, which the pending block runs on, and the
// head's state as reads at "latest" see it (a root kept beside the head's own, Chain.stateRootOf),
// as anvil serves them at once. The head's header keeps its real root, so its hash stays valid.
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Account, Address, bytesToBigInt, equalsBytes } from '@ethereumjs/util'
import { hexKey } from '../chain/chain.js'
import { type NodeParts, type NodeSnapshot, restoreSnapshot, takeSnapshot } from '../chain/snapshots.js'
import { InvalidParamsError, NodeError } from '../errors.js'
import type { DevNode } from '../node.js'
import type { BlockProducer } from '../sequencer/producer.js'
import type { Sequencer, SequencerConfig } from '../sequencer/sequencer.js'
import {
  applyState,
  captureState,
  type DecodedState,
  decodeState,
  parseStateText,
  readStateFile,
  removeStaleTemps,
  renderState,
  StateFileWriter,
  stateFilePath,
  writeFileAtomic,
} from '../storage/state-file.js'
import type { CallRequest, IncludedTx } from '../types.js'

/** Most blocks one anvil_mine may produce: each costs a header and a few trie nodes. */
export const MAX_MINE_BLOCKS = 100_000n
/** Marks the placeholder signature of an impersonated transaction: r = 2^160 + sender. */
const IMPERSONATION_MARK = 1n << 160n

interface DevSnapshot extends NodeSnapshot {
  offset: bigint
  nextTimestamp: bigint | undefined
}

const wallClock = () => BigInt(Math.floor(Date.now() / 1000))

export class DevControl {
  private readonly snapshots = new Map<bigint, DevSnapshot>()
  private nextSnapshotId = 0n
  /** The node as it started (genesis, or the loaded state file): what anvil_reset goes back to. */
  private initial: DevSnapshot | undefined
  private readonly impersonated = new Set<string>()
  private autoImpersonate = false
  /** Transactions built unsigned for an impersonated sender (their signature is a placeholder). */
  private readonly unsignedTxs = new WeakSet<TypedTransaction>()
  /** Seconds added to the wall clock for new blocks' timestamps (evm_increaseTime). */
  private offset = 0n
  /** Exact timestamp for the next block opened by a dev method (evm_setNextBlockTimestamp while no block is open). */
  private nextTimestamp: bigint | undefined
  private config: SequencerConfig
  private writer: StateFileWriter | undefined

  constructor(
    private readonly node: DevNode,
    private readonly producer: BlockProducer,
    private readonly sequencer: Sequencer,
  ) {
    producer.clock = () => wallClock() + this.offset
    this.config = { blockTime: node.options.blockTime, preconfInterval: node.options.preconfInterval }
    // Blocks sealed faster than one a second run ahead of the clock (parent + 1); the clock follows
    // them, as Hardhat's does, so evm_increaseTime(n) puts the next block n seconds past the head.
    node.events.on('block', ({ block }) => {
      if (block.header.timestamp > producer.clock()) this.rebase(block.header.timestamp)
    })
  }

  private get parts(): NodeParts {
    return { engine: this.node.engine, chain: this.node.chain, pool: this.node.pool, producer: this.producer }
  }

  private run<T>(task: () => Promise<T>): Promise<T> {
    return this.node.engine.queue.run(task)
  }

  // --- start and stop -----------------------------------------------------------------------

  /** Before mining starts: loads the state file if there is one, arms its writes, remembers the start. */
  async init(): Promise<void> {
    const file = stateFilePath(this.node.options)
    if (file) {
      await removeStaleTemps(file)
      await this.loadStateFile(file)
      this.writer = new StateFileWriter(
        file,
        this.node.options.stateInterval,
        () => this.dumpState(),
        (error) => console.error(`pcnode: ${error.message}`),
      )
      this.node.events.on('block', () => this.writer?.blockSealed())
    }
    this.initial = await this.run(() => this.capture())
  }

  /** After mining stopped: the last write of the state file. */
  async close(): Promise<void> {
    await this.writer?.close()
  }

  /** The state file in use (`--state`, or `--data-dir`'s state.json), if any. */
  get stateFile(): string | undefined {
    return this.writer?.file
  }

  // --- state file, anvil_dumpState / anvil_loadState ----------------------------------------

  /** The state file's content for the node as it stands. */
  async dumpState(): Promise<string> {
    const capture = await this.run(() =>
      captureState(this.parts, { timeOffset: this.offset, impersonated: (tx) => this.unsignedTxs.has(tx) }),
    )
    return renderState(capture)
  }

  /** Writes the state file now (to `file`, or the configured one). */
  async saveStateFile(file?: string): Promise<void> {
    if (file === undefined || file === this.writer?.file) {
      if (!this.writer) throw new Error('no state file configured (stateFile / dataDir)')
      return this.writer.save()
    }
    await writeFileAtomic(file, await this.dumpState())
  }

  /** Loads `file` if it exists (false when it does not). Errors name the file and the problem. */
  async loadStateFile(file: string): Promise<boolean> {
    const doc = await readStateFile(file)
    if (doc === undefined) return false
    try {
      await this.loadState(doc)
    } catch (error) {
      throw new Error(`state file ${file}: ${(error as Error).message}`)
    }
    return true
  }

  /**
   * Replaces accounts, history and pool with a state document (anvil_loadState): the parsed
   * object, or its text as a string (hex of it, or of its gzip, as anvil_dumpState output travels).
   */
  async loadState(doc: unknown): Promise<void> {
    const decoded = decodeState(typeof doc === 'string' ? parseStateText(doc) : doc, this.node.engine)
    await this.run(async () => {
      const backup = await takeSnapshot(this.parts)
      try {
        await this.apply(decoded)
      } catch (error) {
        await restoreSnapshot(this.parts, backup)
        throw error
      }
      if (!this.node.chain.pending && this.sequencer.isRunning) await this.producer.open()
      this.sequencer.notify() // at interval 0 nothing else would pre-confirm the loaded pool
    })
  }

  private async apply(s: DecodedState): Promise<void> {
    await applyState(this.parts, s)
    for (const p of s.pool) if (p.impersonated) this.unsignedTxs.add(p.info.tx)
    this.offset = s.timeOffset
    this.nextTimestamp = undefined
  }

  // --- snapshots ----------------------------------------------------------------------------

  private async capture(): Promise<DevSnapshot> {
    return { ...(await takeSnapshot(this.parts)), offset: this.offset, nextTimestamp: this.nextTimestamp }
  }

  private async restore(snap: DevSnapshot): Promise<void> {
    await restoreSnapshot(this.parts, snap)
    this.offset = snap.offset
    this.nextTimestamp = snap.nextTimestamp
    if (!this.node.chain.pending && this.sequencer.isRunning) await this.producer.open()
    this.sequencer.notify() // at interval 0 nothing else would pre-confirm the restored pool
  }

  /** State roots evm_revert and anvil_reset may go back to: state pruning keeps them. */
  heldStateRoots(): Uint8Array[] {
    const held = this.initial ? [this.initial, ...this.snapshots.values()] : [...this.snapshots.values()]
    return held.flatMap((snap) => {
      const roots = [snap.stateRoot, snap.blocks[snap.blocks.length - 1].header.stateRoot]
      if (snap.headStateRoot) roots.push(snap.headStateRoot)
      return roots
    })
  }

  /** evm_snapshot: ids count from 0, as anvil's do. */
  async snapshot(): Promise<bigint> {
    const snap = await this.run(() => this.capture())
    const id = this.nextSnapshotId++
    this.snapshots.set(id, snap)
    return id
  }

  /** evm_revert: false for an unknown id. The snapshot and later ones are used up (Hardhat's rule). */
  async revert(id: bigint): Promise<boolean> {
    const snap = this.snapshots.get(id)
    if (!snap) return false
    for (const key of [...this.snapshots.keys()]) if (key >= id) this.snapshots.delete(key)
    await this.run(() => this.restore(snap))
    return true
  }

  /** anvil_reset: back to the node as it started; snapshots and impersonations are forgotten. */
  async reset(): Promise<void> {
    const initial = this.initial
    if (!initial) throw new NodeError('the node has not finished starting')
    await this.run(() => this.restore(initial))
    this.snapshots.clear()
    this.impersonated.clear()
    this.autoImpersonate = false
  }

  // --- blocks and time ----------------------------------------------------------------------

  /**
   * Inside the queue: discards the pending block and opens it again (at `timestamp`), its
   * transactions back in the pool, except those `drop` names. They are pre-confirmed again at once
   * while mining, so receipts disappear only for this call.
   */
  private async reopen(timestamp?: bigint, drop?: (t: IncludedTx) => boolean): Promise<void> {
    const { chain, pool, engine } = this.node
    const pending = chain.pending
    let requeued = 0
    if (pending) {
      chain.dropPreconfirmed(pending)
      chain.pending = undefined
      // The head's state as reads see it: the pending block's base, dev setters included.
      await engine.state.setStateRoot(chain.stateRootOf(chain.head))
      for (const t of pending.txs) {
        if (drop?.(t)) continue
        pool.add({ tx: t.tx, hash: t.hash, from: t.from, receivedAt: t.preconfirmedAt })
        requeued++
      }
    }
    this.producer.resync()
    await this.producer.open(timestamp)
    if (requeued > 0 && this.sequencer.isRunning) await this.fill()
  }

  /** Inside the queue: pre-confirms every ready pool transaction into the pending block. */
  private async fill(): Promise<void> {
    while (this.node.pool.size > 0 && (await this.sequencer.flashNow())) {
      // flashNow stops at its deadline; go on until nothing ready is left
    }
  }

  /** Inside the queue: hardhat's rule, a new block's timestamp must pass the head's. */
  private checkTimestamp(timestamp: bigint): void {
    const head = this.node.chain.head.header.timestamp
    if (timestamp <= head) {
      throw new NodeError(`Timestamp ${timestamp} is lower than or equal to previous block's timestamp ${head}`)
    }
  }

  /** Later blocks' timestamps continue from `timestamp` (anvil and Hardhat move their clock likewise). */
  private rebase(timestamp: bigint): void {
    this.offset = timestamp - wallClock()
  }

  /**
   * evm_mine / anvil_mine: seals `blocks` blocks now, the first with the pending block's
   * transactions and every ready pool transaction. `interval` seconds apart when given; the first
   * at `timestamp` (or the one evm_setNextBlockTimestamp set) when given.
   */
  async mine(blocks = 1n, interval = 0n, timestamp?: bigint): Promise<void> {
    if (blocks > MAX_MINE_BLOCKS) throw new InvalidParamsError(`at most ${MAX_MINE_BLOCKS} blocks per call`)
    await this.run(async () => {
      const { chain } = this.node
      if (timestamp !== undefined) this.checkTimestamp(timestamp)
      let ts = timestamp ?? this.nextTimestamp
      this.nextTimestamp = undefined
      for (let i = 0n; i < blocks; i++) {
        if (ts === undefined && interval > 0n) ts = chain.pending?.header.timestamp ?? this.producer.nextHeaderFields().timestamp
        if (ts !== undefined && chain.pending && chain.pending.header.timestamp !== ts) await this.reopen(ts)
        else if (!chain.pending) await this.producer.open(ts)
        await this.fill()
        const block = await this.producer.seal()
        if (ts !== undefined) this.rebase(block.header.timestamp)
        ts = interval > 0n ? block.header.timestamp + interval : undefined
      }
      if (this.sequencer.isRunning) await this.producer.open()
    })
  }

  /** evm_increaseTime: returns the total offset in seconds (anvil answers a number). */
  async increaseTime(seconds: bigint): Promise<bigint> {
    return this.run(async () => {
      this.offset += seconds
      // The open block was stamped with the old time; the next block is this one.
      if (this.node.chain.pending) await this.reopen(this.nextTimestamp)
      return this.offset
    })
  }

  /** evm_setNextBlockTimestamp: the pending block (or the next one opened) gets `timestamp`. */
  async setNextBlockTimestamp(timestamp: bigint): Promise<void> {
    await this.run(async () => {
      this.checkTimestamp(timestamp)
      this.rebase(timestamp)
      if (this.node.chain.pending) {
        this.nextTimestamp = undefined
        await this.reopen(timestamp)
      } else {
        this.nextTimestamp = timestamp
      }
    })
  }

  // --- mining modes (outside the queue: stopping the sequencer waits for it) ----------------

  get automine(): boolean {
    return this.sequencer.isRunning && this.config.blockTime === 0 && this.config.preconfInterval === 0
  }

  get miningConfig(): SequencerConfig & { mining: boolean } {
    return { ...this.config, mining: this.sequencer.isRunning }
  }

  /** anvil_setAutomine: on = a block per transaction (interval 0, block time 0); off stops automine only. */
  async setAutomine(on: boolean): Promise<void> {
    if (on) {
      await this.startMining({ blockTime: 0, preconfInterval: 0 })
      if (this.node.chain.pending?.txs.length) await this.mine()
    } else if (this.automine) {
      await this.sequencer.stop()
    }
  }

  /** evm_setIntervalMining: a sealed block every `ms`; 0 stops mining (anvil's rule). */
  async setIntervalMining(ms: number): Promise<void> {
    if (ms === 0) await this.sequencer.stop()
    else await this.startMining({ blockTime: ms })
  }

  /** pcnode_setBlockTime: like --block-time (0 seals every flashblock); starts mining if stopped. */
  async setBlockTime(ms: number): Promise<void> {
    await this.startMining({ blockTime: ms })
  }

  /** pcnode_setPreconfInterval: like --preconf-interval (0 pre-confirms on arrival). */
  setPreconfInterval(ms: number): void {
    this.reconfigure({ preconfInterval: ms })
  }

  private reconfigure(change: Partial<SequencerConfig>): void {
    this.config = { ...this.config, ...change }
    this.sequencer.reconfigure(this.config)
  }

  private async startMining(change: Partial<SequencerConfig>): Promise<void> {
    this.reconfigure(change)
    if (this.sequencer.isRunning) return
    await this.run(async () => {
      if (!this.node.chain.pending && this.nextTimestamp !== undefined) {
        await this.producer.open(this.nextTimestamp)
        this.nextTimestamp = undefined
      }
    })
    await this.sequencer.start()
  }

  // --- pool ---------------------------------------------------------------------------------

  /** anvil_dropTransaction: out of the pool, or out of the pending block (the rest re-run). */
  async dropTransaction(hash: Uint8Array): Promise<boolean> {
    return this.run(async () => {
      const { pool, chain, events } = this.node
      const reason = 'dropped by anvil_dropTransaction'
      const info = pool.get(hash)
      if (info) {
        pool.remove(info)
        events.emit('dropped', { info, reason })
        return true
      }
      const pending = chain.pending
      const t = pending?.txs.find((x) => equalsBytes(x.hash, hash))
      if (!pending || !t) return false
      await this.reopen(pending.header.timestamp, (x) => x === t)
      events.emit('dropped', { info: { tx: t.tx, hash: t.hash, from: t.from, receivedAt: t.preconfirmedAt }, reason })
      return true
    })
  }

  /** anvil_dropAllTransactions: empties the pool (the pending block stays). */
  async dropAllTransactions(): Promise<void> {
    await this.run(async () => {
      for (const info of this.node.pool.all()) this.node.pool.remove(info)
    })
  }

  // --- accounts -----------------------------------------------------------------------------

  /**
   * Applies `change` to the live state, and to the head's state as "latest" reads see it: the same
   * root when no block is open, else a root of its own beside the head (the pending block's
   * transactions are not in it).
   */
  private async edit(change: (state: MerkleStateManager) => Promise<void>, after?: () => void): Promise<void> {
    await this.run(async () => {
      const { engine, chain } = this.node
      const { state } = engine
      await state.checkpoint()
      try {
        await change(state)
        await state.commit()
      } catch (error) {
        await state.revert()
        throw error
      }
      if (!chain.pending) {
        chain.setStateRootOverride(chain.head, await state.getStateRoot())
      } else {
        const trie = (state as unknown as { _trie: MerklePatriciaTrie })._trie.shallowCopy(false)
        const view = new MerkleStateManager({ common: engine.common, trie })
        await view.setStateRoot(chain.stateRootOf(chain.head))
        await change(view)
        chain.setStateRootOverride(chain.head, await view.getStateRoot())
      }
      after?.()
    })
  }

  private async updateAccount(address: Uint8Array, update: (account: Account) => void, after?: () => void): Promise<void> {
    const addr = new Address(address)
    await this.edit(async (state) => {
      const account = (await state.getAccount(addr)) ?? new Account()
      update(account)
      await state.putAccount(addr, account)
    }, after)
  }

  setBalance(address: Uint8Array, balance: bigint): Promise<void> {
    return this.updateAccount(address, (account) => {
      account.balance = balance
    })
  }

  /** anvil_setNonce; pooled transactions below the new nonce can never run and leave the pool. */
  setNonce(address: Uint8Array, nonce: bigint): Promise<void> {
    return this.updateAccount(
      address,
      (account) => {
        account.nonce = nonce
      },
      () => this.node.pool.prune(address, nonce),
    )
  }

  setCode(address: Uint8Array, code: Uint8Array): Promise<void> {
    const addr = new Address(address)
    return this.edit((state) => state.putCode(addr, code))
  }

  setStorageAt(address: Uint8Array, slot: Uint8Array, value: Uint8Array): Promise<void> {
    const addr = new Address(address)
    return this.edit(async (state) => {
      if (!(await state.getAccount(addr))) await state.putAccount(addr, new Account())
      await state.putStorage(addr, slot, value)
    })
  }

  // --- impersonation ------------------------------------------------------------------------

  impersonate(address: Uint8Array): void {
    this.impersonated.add(hexKey(address))
  }

  stopImpersonating(address: Uint8Array): void {
    this.impersonated.delete(hexKey(address))
  }

  setAutoImpersonate(on: boolean): void {
    this.autoImpersonate = on
  }

  /** True when eth_sendTransaction from `address` goes out unsigned. */
  impersonating(address: Uint8Array): boolean {
    return this.autoImpersonate || this.impersonated.has(hexKey(address))
  }

  /**
   * A transaction from `req.from` with no key: the usual defaults (eth_sendTransaction's), a
   * placeholder signature that makes its hash unique per sender (as anvil does), and the sender set
   * rather than recovered (as call.ts does for eth_call).
   */
  async sendUnsigned(req: CallRequest): Promise<Uint8Array> {
    const from = req.from
    if (!from) throw new InvalidParamsError('missing from')
    const r = IMPERSONATION_MARK | bytesToBigInt(from)
    const chainId = this.node.engine.common.chainId()
    const tx = await this.node.fillTransaction(req, from, (legacy) => ({ v: legacy ? chainId * 2n + 35n : 0n, r, s: 1n }))
    const sender = new Address(from)
    tx.getSenderAddress = () => sender
    this.unsignedTxs.add(tx)
    return this.node.submit(tx, from)
  }
}
