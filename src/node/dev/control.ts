// Test-client control: what anvil's and Hardhat's dev methods do (viem's test actions), mapped onto
// pcnode's model of a pending (pre-confirmed) block on top of sealed ones. A thin facade over the
// dev services (time.ts, blocks.ts, edits.ts, mining.ts, snapshots.ts, cheats.ts, reorg.ts) and the state
// file (storage/persistence.ts); everything that touches state runs in the engine queue.

import type { Admission } from '../admission/admission.js'
import { packed } from '../bytes.js'
import type { NodeContext } from '../context.js'
import { NodeError } from '../errors.js'
import type { Alloc } from '../fork/genesis.js'
import { type ConnectReforkParts, connectRefork, type ReforkParts, refork } from '../fork/refork.js'
import { blockTimeMs } from '../opstack/denim.js'
import type { L1FeeParams } from '../opstack/params.js'
import type { Persistence } from '../storage/persistence.js'
import type { CallRequest } from '../types.js'
import { type BlockParts, checkTimestamp, checkTimestampRange, dropTransaction, mine, reopen } from './blocks.js'
import { type EditsParts, StateEdits } from './edits.js'
import { Mining, type MiningParts } from './mining.js'
import { prepareReorg, type ReorgPair, reorg } from './reorg.js'
import { Snapshots, type SnapshotsParts } from './snapshots.js'

/** The dev services' parts together, with the impersonations and the OP-stack L1 fees. */
export type ControlParts = BlockParts &
  EditsParts &
  MiningParts &
  SnapshotsParts &
  ConnectReforkParts &
  ReforkParts &
  Pick<NodeContext, 'cheats' | 'opStack'>

export class DevControl {
  readonly snapshots: Snapshots
  private readonly mining: Mining
  /** Account edits, applied in runs (edits.ts). */
  private readonly edits: StateEdits

  constructor(
    private readonly ctx: ControlParts,
    private readonly persistence: Persistence,
    private readonly admission: Admission,
    /** The dev accounts' funding, which a fork started again by anvil_reset gets too. */
    private readonly alloc: Alloc,
  ) {
    this.snapshots = new Snapshots(ctx)
    this.edits = new StateEdits(ctx)
    this.mining = new Mining(ctx, () => this.mine())
    const { events, clock } = ctx
    // Blocks sealed faster than one a second run ahead of the clock (parent + 1); the clock follows
    // them, as Hardhat's does, so evm_increaseTime(n) puts the next block n seconds past the head.
    events.on('block', ({ block }) => {
      const ms = blockTimeMs(block)
      if (ms > clock.nowMs()) clock.rebaseMs(ms)
    })
  }

  private run<T>(task: () => Promise<T>): Promise<T> {
    return this.ctx.engine.queue.run(task)
  }

  // --- state file, anvil_dumpState / anvil_loadState ----------------------------------------

  get stateFile(): string | undefined {
    return this.persistence.stateFile
  }

  dumpState(): Promise<string> {
    return this.persistence.dumpState()
  }

  saveStateFile(file?: string): Promise<void> {
    return this.persistence.saveStateFile(file)
  }

  loadStateFile(file: string): Promise<boolean> {
    return this.persistence.loadStateFile(file)
  }

  loadState(doc: unknown): Promise<void> {
    return this.persistence.loadState(doc)
  }

  // --- snapshots ----------------------------------------------------------------------------

  snapshot(): Promise<bigint> {
    return this.run(() => this.snapshots.take())
  }

  revert(id: bigint): Promise<boolean> {
    return this.run(() => this.snapshots.revert(id))
  }

  /**
   * anvil_reset: back to the node as it started; snapshots and impersonations are forgotten. With
   * `forking`, on that fork instead (another block, or another upstream): connected first, so a
   * fork that cannot be reached changes nothing.
   */
  async reset(forking?: { url?: string; blockNumber?: bigint }): Promise<void> {
    if (forking) {
      const fork = await connectRefork(this.ctx, forking)
      await this.run(async () => {
        await refork(this.ctx, fork, this.alloc)
        this.snapshots.clear()
        await this.snapshots.markInitial()
        const { chain, sequencer, producer } = this.ctx
        if (!chain.pending && sequencer.preconfirming) await producer.open()
      })
    } else {
      await this.run(() => this.snapshots.reset())
    }
    this.ctx.cheats.clear()
  }

  // --- blocks and time ----------------------------------------------------------------------

  mine(blocks = 1n, interval = 0n, timestamp?: bigint): Promise<void> {
    return this.run(() => mine(this.ctx, blocks, interval, timestamp))
  }

  /** anvil_reorg: the last `depth` blocks replaced by new ones holding `pairs` (reorg.ts). */
  async reorg(depth: bigint, pairs: ReorgPair[]): Promise<void> {
    const prepared = await prepareReorg(this.ctx, this.admission, depth, pairs)
    await this.run(() => reorg(this.ctx, prepared))
  }

  /** evm_increaseTime: returns the total offset in seconds (anvil answers a number). */
  increaseTime(seconds: bigint): Promise<bigint> {
    const { clock, chain } = this.ctx
    return this.run(async () => {
      checkTimestampRange(clock.now() + seconds)
      clock.offsetMs += seconds * 1000n
      clock.jumpMs += seconds * 1000n
      // The open block was stamped with the old time; the next block is this one.
      if (chain.pending) await reopen(this.ctx, clock.nextTimestamp)
      return clock.offset
    })
  }

  /** evm_setNextBlockTimestamp: the pending block (or the next one opened) gets `timestamp`. */
  setNextBlockTimestamp(timestamp: bigint): Promise<void> {
    const { clock, chain } = this.ctx
    return this.run(async () => {
      checkTimestamp(this.ctx, timestamp)
      clock.rebase(timestamp)
      clock.jumpMs = 0n // the time set wins over evm_increaseTime's since the last block
      if (chain.pending) {
        clock.nextTimestamp = undefined
        await reopen(this.ctx, timestamp)
      } else {
        clock.nextTimestamp = timestamp
      }
    })
  }

  // --- mining modes -------------------------------------------------------------------------

  get automine(): boolean {
    return this.mining.automine
  }

  get miningConfig() {
    return this.mining.miningConfig
  }

  setAutomine(on: boolean): Promise<void> {
    return this.mining.setAutomine(on)
  }

  setIntervalMining(ms: number): Promise<void> {
    return this.mining.setIntervalMining(ms)
  }

  setBlockTime(ms: number): Promise<void> {
    return this.mining.setBlockTime(ms)
  }

  setPreconfInterval(ms: number): void {
    this.mining.setPreconfInterval(ms)
  }

  // --- pool ---------------------------------------------------------------------------------

  dropTransaction(hash: Uint8Array): Promise<boolean> {
    return this.run(() => dropTransaction(this.ctx, hash))
  }

  /** anvil_dropAllTransactions: empties the pool (the pending block stays). */
  dropAllTransactions(): Promise<void> {
    const { pool } = this.ctx
    return this.run(async () => {
      for (const info of pool.all()) pool.remove(info)
    })
  }

  // --- accounts -----------------------------------------------------------------------------

  // An edit's bytes are kept until a reader asks for the head's state, maybe for thousands of
  // blocks (dev/edits.ts): packed, a setStorageAt holds ~0.3 KiB less (bytes.ts).

  setBalance(address: Uint8Array, balance: bigint): Promise<void> {
    const at = packed(address)
    return this.edits.apply((state) => state.putAccount(at, { balance }))
  }

  /** anvil_setNonce; pooled transactions below the new nonce can never run and leave the pool. */
  setNonce(address: Uint8Array, nonce: bigint): Promise<void> {
    const at = packed(address)
    return this.edits.apply(
      (state) => state.putAccount(at, { nonce }),
      () => {
        for (const info of this.ctx.pool.prune(at, nonce)) this.ctx.events.emit('dropped', { info, reason: 'nonce too low' })
      },
    )
  }

  setCode(address: Uint8Array, code: Uint8Array): Promise<void> {
    const [at, bytes] = [packed(address), packed(code)]
    return this.edits.apply((state) => state.putCode(at, bytes))
  }

  setStorageAt(address: Uint8Array, slot: Uint8Array, value: Uint8Array): Promise<void> {
    const [at, key, word] = [packed(address), packed(slot), packed(value)]
    return this.edits.apply((state) => state.putStorage(at, key, word))
  }

  // --- impersonation ------------------------------------------------------------------------

  impersonate(address: Uint8Array): void {
    this.ctx.cheats.impersonate(address)
  }

  stopImpersonating(address: Uint8Array): void {
    this.ctx.cheats.stopImpersonating(address)
  }

  setAutoImpersonate(on: boolean): void {
    this.ctx.cheats.setAutoImpersonate(on)
  }

  /** Whether a send from `address` goes out unsigned (impersonated, or auto-impersonation is on). */
  impersonating(address: Uint8Array): boolean {
    return this.ctx.cheats.impersonating(address)
  }

  /** eth_sendUnsignedTransaction: from any address, no key. */
  sendUnsigned(req: CallRequest): Promise<Uint8Array> {
    return this.admission.sendUnsigned(req)
  }

  // --- OP stack -----------------------------------------------------------------------------

  /**
   * pcnode_setL1Fees: L1 values (any subset) from the next block on, whose L1-info deposit carries
   * them. Returns that block's number.
   */
  setL1Fees(changes: Partial<L1FeeParams>): bigint {
    const { opStack, chain } = this.ctx
    if (!opStack) throw new NodeError('L1 fees exist only on OP-stack chains (--profile base); this node runs --profile ethereum')
    opStack.setL1Fees(changes)
    return (chain.pending?.header.number ?? chain.head.header.number) + 1n
  }
}
