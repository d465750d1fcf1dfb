// State history pruning. The trie never deletes a node, so without this every sealed block leaves
// its changed nodes behind for good (~6 KiB an empty block: the system contracts write storage each
// block), and a node left running grows by hundreds of MiB a day. Every `keep / 4` blocks a sweep
// keeps the nodes reachable from the last `keep` blocks' roots, the live state and the snapshots
// (evm_snapshot, anvil_reset), and deletes the rest. Marking walks the store outside the serial
// queue, handing the event loop back every few milliseconds; only the delete pass runs in it.
import { hexKey } from '../bytes.js'
import type { Chain } from '../chain/chain.js'
import { type Engine, walkStored } from '../engine/index.js'
import { EMPTY_TRIE_ROOT } from '../header-fields.js'

/** What a sweep did, for logs and tests. */
export interface SweepResult {
  roots: number
  kept: number
  deleted: number
}

/** One sweep; a sweep that waits for the queue while a long anvil_mine holds it is superseded by the one that runs in the mine. */
interface SweepRun {
  result: Promise<SweepResult>
  /** Set when a sweep inside the mining task replaced this one: it stops marking and deletes nothing. */
  supersededBy?: Promise<SweepResult>
}

export class StatePruner {
  private running: SweepRun | undefined
  private lastSweep = 0n
  /** During a sweep: the roots it keeps; reads at any other root (written before it) are refused. */
  private keptRoots: Set<string> | undefined

  constructor(
    private readonly engine: Engine,
    private readonly chain: Chain,
    /** Sealed blocks whose state is kept; 0 keeps every block's. */
    readonly keep: number,
    /** Roots held elsewhere that must stay: evm_snapshot's and anvil_reset's. */
    private readonly heldRoots: () => Uint8Array[],
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** A sweep walks every kept node (~1.7 s for the default 8192 blocks), so not too often. */
  private get every(): bigint {
    return BigInt(Math.max(16, Math.floor(this.keep / 4)))
  }

  /**
   * Set while a queue task seals many blocks (anvil_mine, dev/blocks.ts): a sweep started from the
   * block event would wait for that task's end to run, while the task writes every node of its
   * blocks (100,000 empty blocks keep 2 million nodes, ~30 KiB a block); sweepInTask runs it there.
   */
  sealingInTask = false

  /** Called after each sealed block: starts a sweep every `keep / 4` blocks. */
  blockSealed(): void {
    if (this.sealingInTask || this.running || !this.due()) return
    this.sweep().catch((error) => this.log(`state pruning failed: ${(error as Error).message}`))
  }

  /**
   * From the task sealing blocks (sealingInTask), after each: a sweep runs in it every `keep`
   * blocks (not keep / 4: a sweep walks the whole live state, ~1.5 million nodes at 100,000
   * accounts and a million slots, so the store may hold up to twice the window meanwhile).
   * A sweep a sealed block started before this task (between two anvil_mine requests) cannot
   * finish before the task does, since it needs the queue: one runs here at once and replaces it
   * (waiting for it would keep every block of the next requests, ~20 nodes each).
   */
  async sweepInTask(): Promise<void> {
    const waiting = this.running
    if (waiting) this.lastSweep = this.chain.head.header.number
    else if (!this.due(BigInt(this.keep))) return
    const result = this.start(true)
    if (waiting) waiting.supersededBy = result
    await result
  }

  /** Whether `every` blocks were sealed since the last sweep; notes the sweep as started. */
  private due(every = this.every): boolean {
    if (this.keep === 0) return false
    const head = this.chain.head.header.number
    if (head < this.lastSweep) this.lastSweep = head // evm_revert, anvil_reset
    if (head - this.lastSweep < every || head < BigInt(this.keep)) return false
    this.lastSweep = head
    return true
  }

  /** Waits for a running sweep, if any. */
  async idle(): Promise<void> {
    await this.running?.result.catch(() => {})
  }

  /** Whether reads at `root` may start: its nodes are there and no running sweep is deleting them. */
  available(root: Uint8Array): boolean {
    if (Buffer.compare(root, EMPTY_TRIE_ROOT) === 0) return true
    const { nodes } = this.engine
    const key = hexKey(root)
    if (this.keptRoots && !this.keptRoots.has(key) && !nodes.written?.has(key)) return false
    return nodes.map.has(key)
  }

  /** Deletes every node no kept root reaches; while one sweep runs, callers share it. */
  sweep(): Promise<SweepResult> {
    return this.running?.result ?? this.start(false)
  }

  private start(held: boolean): Promise<SweepResult> {
    const run = { supersededBy: undefined } as SweepRun
    run.result = this.sweepOnce(run, held).finally(() => {
      if (this.running === run) this.running = undefined
    })
    this.running = run
    return run.result
  }

  /** `held`: called from the task that holds the serial queue (sweepInTask), which writes nothing meanwhile. */
  private async sweepOnce(run: SweepRun, held: boolean): Promise<SweepResult> {
    const { nodes, queue, live } = this.engine
    const inQueue = <T>(fn: () => Promise<T>): Promise<T> => (held ? fn() : queue.run(fn))
    // In the queue: the live root and the chain agree, and no flashblock is half-committed.
    const roots = await inQueue(async () => {
      if (run.supersededBy) return undefined
      return this.rootsToKeep(await live.root())
    })
    if (!roots) return run.supersededBy as Promise<SweepResult>
    const keptRoots = new Set(roots.map((root) => hexKey(root)))
    const written = new Set<string>()
    this.keptRoots = keptRoots
    nodes.written = written
    try {
      const marked = await markReachable(nodes, roots, () => run.supersededBy !== undefined)
      const result = await inQueue(async () => {
        if (run.supersededBy) return undefined
        let deleted = 0
        for (const key of nodes.map.keys()) {
          // 64 hex characters: a trie node (code is stored under "63" ("c") + its hash: 66).
          if (key.length === 64 && !marked.has(key) && !written.has(key)) {
            nodes.map.delete(key)
            deleted++
          }
        }
        return { roots: roots.length, kept: marked.size, deleted }
      })
      return result ?? (run.supersededBy as Promise<SweepResult>)
    } finally {
      // A sweep that replaced this one set its own.
      if (nodes.written === written) nodes.written = undefined
      if (this.keptRoots === keptRoots) this.keptRoots = undefined
    }
  }

  private rootsToKeep(live: Uint8Array): Uint8Array[] {
    const { chain } = this
    const roots = [live, ...this.heldRoots()]
    if (chain.pending) roots.push(chain.pending.header.stateRoot)
    const from = Math.max(0, chain.blocks.length - this.keep)
    for (const block of chain.blocks.slice(from)) roots.push(block.header.stateRoot, ...chain.overrideRoots(block))
    chain.dropLazyRootsBefore(chain.first + BigInt(from))
    return roots
  }
}

/**
 * The keys (hex) of every node reachable from `roots`: account tries and the storage tries their
 * accounts name. Shared subtrees are walked once; the event loop gets a turn every 4 ms. Once
 * `stopped`, nothing more is walked.
 */
async function markReachable(nodes: Engine['nodes'], roots: Uint8Array[], stopped: () => boolean): Promise<Set<string>> {
  const marked = new Set<string>()
  const map = nodes.map
  await walkStored(
    nodes,
    roots,
    (key) => {
      if (stopped() || marked.has(key) || !map.has(key)) return false
      marked.add(key)
      return true
    },
    4,
  )
  return marked
}
