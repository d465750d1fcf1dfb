// The block history: sealed blocks by number and hash, the pending (pre-confirmed) block,
// and the transaction index. In memory; ethereumjs objects are kept only for transactions. Blocks
// past the last `hotBlocks` are kept encoded (cold.ts) and indexed by hash prefix (cold-index.ts).
import { hexKey, sameBytes } from '../bytes.js'
import { BlockNotFoundError, InvalidParamsError, LimitExceededError, StateUnavailableError } from '../errors.js'
import type { BlockRecord, BlockRef, IncludedTx, LogFilter, MatchedLog } from '../types.js'
import { ColdBlock, ColdStore, type TxRestorer } from './cold.js'
import { ColdIndex } from './cold-index.js'
import { shareWithPrevious } from './compact.js'

/** Most logs one eth_getLogs answers (reth's and geth's default). */
export const MAX_LOGS = 10_000

/**
 * Sealed blocks kept as objects behind the head; older ones are kept encoded. Reorgs, the `safe`
 * tag and BLOCKHASH's 256 blocks read within it; a cold block is decoded when read.
 */
export const HOT_BLOCKS = 1024

/** Whether two records are the same block (a snapshot's record, and the chain's cold one of it). */
function sameBlock(a: BlockRecord, b: BlockRecord): boolean {
  return a === b || sameBytes(a.hash, b.hash)
}

/**
 * A state root dev edits keep moving (dev/edits.ts): the edits are kept and written to a state when
 * a reader needs the root, so a run of edit batches computes it once, or never when nobody reads.
 */
export interface LazyRoot {
  /** Edits came since `root` was computed. */
  readonly dirty: boolean
  /** The root as last computed. */
  readonly root: Uint8Array
  /** The roots whose nodes it reads (to settle, or to serve): pruning keeps them. */
  readonly reads: Uint8Array[]
  /** Computes `root` when dirty. */
  settle(): Promise<void>
}

export class Chain {
  /** Sealed blocks from `first` on: block 0 on a fresh chain, the fork block on a fork. */
  readonly blocks: BlockRecord[] = []
  /** The number of blocks[0] (a fork's history before it is the upstream's: node/fork/). */
  first = 0n
  private readonly byHash = new Map<string, BlockRecord>()
  private readonly txs = new Map<string, IncludedTx>()
  /** Set by keepCold: blocks past the last `hotBlocks` are encoded, and indexed here by their place in `blocks`. */
  private cold: ColdStore | undefined
  private readonly coldBlocks = new ColdIndex()
  private readonly coldTxs = new ColdIndex()
  private hotBlocks = HOT_BLOCKS
  /** The block being pre-confirmed; undefined while no block is open (no mining). */
  pending: BlockRecord | undefined
  /**
   * How many blocks `safe` and `finalized` trail `latest` (options safeLag / finalizedLag): an OP
   * chain's safe head waits for its batch on L1, its finalized head for that L1 block to finalize.
   */
  lags: { safe: bigint; finalized: bigint } = { safe: 0n, finalized: 0n }

  get head(): BlockRecord {
    return this.blocks[this.blocks.length - 1]
  }

  addSealed(block: BlockRecord): void {
    if (this.blocks.length === 0) this.first = block.header.number
    if (block.header.number !== this.first + BigInt(this.blocks.length))
      throw new Error(`block ${block.header.number} out of order`)
    if (!(block instanceof ColdBlock)) shareWithPrevious(block, this.blocks[this.blocks.length - 1])
    this.blocks.push(block)
    this.index(block, this.blocks.length - 1)
    this.cool(this.blocks.length - 1 - this.hotBlocks)
  }

  /** Keeps blocks past the last `hotBlocks` (at least 1) encoded, decoding them with `restorer`'s help. */
  keepCold(restorer: TxRestorer, hotBlocks = HOT_BLOCKS): void {
    this.cold = new ColdStore(restorer)
    this.hotBlocks = Math.max(1, hotBlocks)
    for (let place = 0; place < this.blocks.length - this.hotBlocks; place++) this.cool(place)
  }

  /** Replaces the block at `place` with its cold form (never block 0: a fork block's header is the upstream's). */
  private cool(place: number): void {
    const hot = this.blocks[place]
    if (!this.cold || place < 1 || hot instanceof ColdBlock) return
    const cold = this.cold.freeze(hot)
    this.unindex(hot, place)
    this.blocks[place] = cold
    this.index(cold, place)
    // Dev edits of its state stay with it (the state may still be held: --state-history 0).
    const override = this.stateRoots.get(hot)
    if (override !== undefined) {
      this.stateRoots.delete(hot)
      this.stateRoots.set(cold, override)
      if (!(override instanceof Uint8Array)) this.lazyRoots.set(override, cold)
    }
  }

  private index(block: BlockRecord, place: number): void {
    if (block instanceof ColdBlock) {
      this.coldBlocks.add(block.hash, place)
      for (const t of block.txs) this.coldTxs.add(t.tx.hash, place)
    } else {
      this.byHash.set(hexKey(block.hash), block)
      for (const t of block.txs) this.txs.set(hexKey(t.tx.hash), t)
    }
  }

  private unindex(block: BlockRecord, place: number): void {
    if (block instanceof ColdBlock) {
      this.coldBlocks.delete(block.hash, place)
      for (const t of block.txs) this.coldTxs.delete(t.tx.hash, place)
      this.cold?.drop(block)
    } else {
      this.byHash.delete(hexKey(block.hash))
      for (const t of block.txs) this.txs.delete(hexKey(t.tx.hash))
    }
  }

  /** Index a pre-confirmed transaction so lookups by hash find it at once. */
  addPreconfirmed(t: IncludedTx): void {
    this.txs.set(hexKey(t.tx.hash), t)
  }

  /** Forget a pending block's transactions (used when a pending block is discarded). */
  dropPreconfirmed(block: BlockRecord): void {
    this.forget(block.txs)
  }

  /** Forget these pre-confirmed transactions, unless the index has moved on to a newer record of one. */
  forget(txs: Iterable<IncludedTx>): void {
    for (const t of txs) {
      const key = hexKey(t.tx.hash)
      if (this.txs.get(key) === t) this.txs.delete(key)
    }
  }

  /** The pre-confirmed block as reads see it: none while flashblocks are halted (Base's RPC then answers latest). */
  get visiblePending(): BlockRecord | undefined {
    return this.pending?.hidden ? undefined : this.pending
  }

  /**
   * Makes `blocks` the sealed history (evm_revert, anvil_reset, state loads): blocks past their
   * common prefix with the current history leave the indexes. The pending block is the caller's.
   */
  replaceBlocks(blocks: BlockRecord[]): void {
    // A snapshot holds the records it saw; blocks gone cold since are the same blocks, and stay cold.
    let keep = 0
    while (keep < blocks.length && keep < this.blocks.length && sameBlock(this.blocks[keep], blocks[keep])) keep++
    const dropped = this.blocks.splice(keep)
    for (let i = 0; i < dropped.length; i++) this.unindex(dropped[i], keep + i)
    for (const block of blocks.slice(keep)) this.addSealed(block)
  }

  /** Roots reads use instead of a sealed block's own: dev setters (anvil_setBalance…) move the head's. */
  private readonly stateRoots = new WeakMap<BlockRecord, Uint8Array | LazyRoot>()
  /** The lazy roots blocks use, with their blocks. */
  private readonly lazyRoots = new Map<LazyRoot, BlockRecord>()
  /** Blocks below this number have no state in the trie (their history came from a state file). */
  stateFrom = 0n
  /** Set when old state is pruned (pruning.ts): whether a root's nodes are still held. */
  pruning:
    | {
        keep: number
        available(root: Uint8Array): boolean
        /** While a queue task seals many blocks (anvil_mine): sweeps run in it, after each block. */
        sealingInTask: boolean
        sweepInTask(): Promise<void>
      }
    | undefined

  /**
   * The state root reads at `block` use, once dev edits waiting to be written are (settle first,
   * or use settledRootOf).
   */
  stateRootOf(block: BlockRecord): Uint8Array {
    if (block.header.number < this.stateFrom) {
      throw new StateUnavailableError(
        `state of block ${block.header.number} is not available (history before block ${this.stateFrom} was loaded from a state file)`,
      )
    }
    const root = this.stateRootOverride(block) ?? block.header.stateRoot
    if (this.pruning && !this.pruning.available(root)) {
      throw new StateUnavailableError(
        `state of block ${block.header.number} is not available (pcnode keeps the state of the last ${this.pruning.keep} blocks: --state-history)`,
      )
    }
    return root
  }

  /** The state root reads at `block` use, its dev edits written first. */
  async settledRootOf(block: BlockRecord): Promise<Uint8Array> {
    await this.settle(block)
    return this.stateRootOf(block)
  }

  /** Writes the dev edits of `block`'s state that wait for a read (dev/edits.ts). */
  async settle(block: BlockRecord): Promise<void> {
    const override = this.stateRoots.get(block)
    if (override && !(override instanceof Uint8Array)) await override.settle()
  }

  /** Whether `root` is what `block`'s reads use now (a lazy root another setter has not replaced). */
  usesRoot(block: BlockRecord, root: LazyRoot): boolean {
    return this.stateRoots.get(block) === root
  }

  /** The roots reads at `block` may use besides its own (dev edits'); what a sweep must keep for it. */
  overrideRoots(block: BlockRecord): Uint8Array[] {
    const override = this.stateRoots.get(block)
    if (override === undefined) return []
    return override instanceof Uint8Array ? [override] : override.reads
  }

  /** Forgets the unwritten dev edits of blocks below `number` (pruning: their state is gone). */
  dropLazyRootsBefore(number: bigint): void {
    for (const [lazy, block] of this.lazyRoots) {
      if (block.header.number >= number) continue
      this.lazyRoots.delete(lazy)
      if (this.stateRoots.get(block) === lazy) this.stateRoots.delete(block)
    }
  }

  /** The root set by dev setters for `block`, if any (settled: see settle). */
  stateRootOverride(block: BlockRecord): Uint8Array | undefined {
    const override = this.stateRoots.get(block)
    if (override === undefined || override instanceof Uint8Array) return override
    if (override.dirty)
      throw new Error(`internal: the dev edits of block ${block.header.number} were read before they were settled`)
    return override.root
  }

  setStateRootOverride(block: BlockRecord, root: Uint8Array | LazyRoot | undefined): void {
    const replaced = this.stateRoots.get(block)
    if (replaced && !(replaced instanceof Uint8Array) && replaced !== root) this.lazyRoots.delete(replaced)
    if (root && !(root instanceof Uint8Array)) this.lazyRoots.set(root, block)
    if (root) this.stateRoots.set(block, root)
    else this.stateRoots.delete(block)
  }

  /** The sealed block of number `n`, if the chain has it. */
  byNumber(n: bigint): BlockRecord | undefined {
    const i = n - this.first
    return i >= 0n && i < BigInt(this.blocks.length) ? this.blocks[Number(i)] : undefined
  }

  getTx(hash: Uint8Array): IncludedTx | undefined {
    const hot = this.txs.get(hexKey(hash))
    if (hot) return hot
    for (const place of this.coldTxs.candidates(hash)) {
      const t = this.blocks[place]?.txs.find((c) => sameBytes(c.tx.hash, hash))
      if (t) return t
    }
    return undefined
  }

  /** The sealed block whose hash is `hash`, if the chain has it. */
  private byHashOf(hash: Uint8Array): BlockRecord | undefined {
    const hot = this.byHash.get(hexKey(hash))
    if (hot) return hot
    for (const place of this.coldBlocks.candidates(hash)) {
      const block = this.blocks[place]
      if (block && sameBytes(block.hash, hash)) return block
    }
    return undefined
  }

  /** The block a reference names; "pending" is the pre-confirmed block (latest when none is open). */
  resolve(ref: BlockRef): BlockRecord {
    if ('tag' in ref) {
      switch (ref.tag) {
        case 'pending':
          return this.visiblePending ?? this.head
        case 'earliest':
          return this.blocks[0]
        case 'safe':
          return this.lagging(this.lags.safe)
        case 'finalized':
          // Never past the safe block (geth's ordering of its heads).
          return this.lagging(this.lags.finalized > this.lags.safe ? this.lags.finalized : this.lags.safe)
        default:
          return this.head
      }
    }
    if ('number' in ref) {
      // Sealed blocks only: the pre-confirmed block is reached through the "pending" tag, as on
      // geth and Base (a client waiting for block N must not see it before it is sealed).
      const block = this.byNumber(ref.number)
      if (!block) throw new BlockNotFoundError()
      return block
    }
    const block = this.byHashOf(ref.hash)
    if (!block) throw new BlockNotFoundError()
    return block
  }

  /** The sealed block `lag` below the head; never below the first block held (block 0, or the fork block). */
  private lagging(lag: bigint): BlockRecord {
    const n = this.head.header.number - lag
    return n > this.first ? (this.byNumber(n) as BlockRecord) : this.blocks[0]
  }

  /** Like resolve, but undefined instead of an error for unknown blocks. */
  find(ref: BlockRef): BlockRecord | undefined {
    try {
      return this.resolve(ref)
    } catch {
      return undefined
    }
  }

  /** A log range's end: numbers past the sealed head are refused (geth's text and code). */
  private rangeEnd(ref: BlockRef | undefined): bigint {
    if (ref && 'number' in ref && ref.number > this.head.header.number) {
      throw new InvalidParamsError('block range extends beyond current head block')
    }
    return this.resolve(ref ?? { tag: 'latest' }).header.number
  }

  /** Logs matching a filter, in chain order; the pending block's logs when the range reaches it. */
  logs(filter: LogFilter, limit = MAX_LOGS): MatchedLog[] {
    let range: BlockRecord[]
    if (filter.blockHash) {
      range = [this.resolve({ hash: filter.blockHash })]
    } else {
      const from = this.rangeEnd(filter.fromBlock)
      const to = this.rangeEnd(filter.toBlock)
      if (from > to) throw new InvalidParamsError('invalid block range params')
      range = []
      for (let n = from; n <= to; n++) {
        const block = this.pending && n === this.pending.header.number ? this.pending : this.byNumber(n)
        if (block) range.push(block)
      }
    }
    const addresses = filter.addresses?.map(hexKey)
    const topics = filter.topics?.map((alts) => alts?.map(hexKey) ?? null)
    const out: MatchedLog[] = []
    for (const block of range) {
      if (block instanceof ColdBlock && block.logCount === 0) continue
      for (const t of block.txs) {
        t.receipt.logs.forEach((log, i) => {
          if (addresses?.length && !addresses.includes(hexKey(log.address))) return
          if (topics) {
            for (let p = 0; p < topics.length; p++) {
              const alts = topics[p]
              if (alts === null || alts.length === 0) continue
              const topic = log.topics[p]
              if (!topic || !alts.includes(hexKey(topic))) return
            }
          }
          out.push({ log, logIndex: t.receipt.firstLogIndex + i, txIndex: t.index, tx: t })
        })
        if (out.length > limit) {
          // reth's answer, with the range that fits so a client can page (alloy's get_logs retries on it).
          const fits = block.header.number > range[0].header.number ? block.header.number - 1n : block.header.number
          throw new LimitExceededError(
            `query exceeds max results ${limit}, retry with the range ${range[0].header.number}-${fits}`,
          )
        }
      }
    }
    return out
  }
}
