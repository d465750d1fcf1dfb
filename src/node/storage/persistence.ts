// The state file's life with the node (anvil's PeriodicStateDumper and load/dump): loaded before
// the first block opens, written every --state-interval blocks and on stop, and anvil_dumpState /
// anvil_loadState at any time. Loads are all-or-nothing: a snapshot is restored if one fails.

import { toData as hex } from '../../shared/hex.js'
import type { NodeContext } from '../context.js'
import { restoreSnapshot, takeSnapshot } from '../snapshot.js'
import { type DecodedState, decodeState, parseStateText, StateFormatError } from './state-file/decode.js'
import { captureState, renderState } from './state-file/encode.js'
import { readStateFile, removeStaleTemps, StateFileWriter, writeFileAtomic } from './state-file/file.js'
import { stateFilePath } from './state-file/format.js'

const equalsBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0

/** What the state file reads and restores: the node's state, chain and pool, the dev clock, the fork it extends. */
export type PersistenceParts = Pick<
  NodeContext,
  'options' | 'engine' | 'chain' | 'pool' | 'producer' | 'sequencer' | 'opStack' | 'clock' | 'fork' | 'events' | 'logError'
>

/** A part of the node beyond the chain kept under its own key of the state file (the bundler's mempool). */
export interface StateSection {
  key: string
  /** Its entries as the file keeps them (JSON values); read inside the engine queue. */
  capture(): unknown[]
  /** Checks the file's entries (StateFormatError naming the entry) and returns what puts them in place. */
  decode(entries: unknown[]): () => void
}

export class Persistence {
  private writer: StateFileWriter | undefined
  private readonly sections: StateSection[] = []

  constructor(private readonly ctx: PersistenceParts) {}

  /** Before mining starts: loads the state file if there is one and arms its writes. */
  async init(): Promise<void> {
    const file = stateFilePath(this.ctx.options)
    if (!file) return
    await removeStaleTemps(file)
    await this.loadStateFile(file)
    this.writer = new StateFileWriter(
      file,
      this.ctx.options.stateInterval,
      () => this.dumpState(),
      (error) => this.ctx.logError(error.message),
    )
    this.ctx.events.on('block', () => this.writer?.blockSealed())
  }

  /** Keeps `section` in the state file from now on; added before init() so the file's copy is loaded. */
  addSection(section: StateSection): void {
    this.sections.push(section)
  }

  /** After mining stopped: the last write of the state file. */
  async close(): Promise<void> {
    await this.writer?.close()
  }

  /** The state file in use (`--state`, or `--data-dir`'s state.json), if any. */
  get stateFile(): string | undefined {
    return this.writer?.file
  }

  /** The state file's content for the node as it stands. */
  async dumpState(): Promise<string> {
    const { engine, clock } = this.ctx
    const capture = await engine.queue.run(async () => ({
      ...(await captureState(this.ctx, clock.offset)),
      sections: Object.fromEntries(this.sections.map((s) => [s.key, s.capture()])),
    }))
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
    const { engine, chain, sequencer, producer } = this.ctx
    const parsed = typeof doc === 'string' ? parseStateText(doc) : doc
    const decoded = decodeState(parsed, engine, this.ctx.fork?.point)
    // A file without a section restores it empty, as a file without a pool empties the pool.
    const restores = this.sections.map((s) => {
      const entries = (parsed as Record<string, unknown>)[s.key] ?? []
      if (!Array.isArray(entries)) throw new StateFormatError(`${s.key}: expected an array`)
      return s.decode(entries)
    })
    await engine.queue.run(async () => {
      const backup = await takeSnapshot(this.ctx)
      try {
        await this.apply(decoded)
        for (const restore of restores) restore()
      } catch (error) {
        await restoreSnapshot(this.ctx, backup)
        throw error
      }
      if (!chain.pending && sequencer.preconfirming) await producer.open()
    })
  }

  /**
   * Inside the engine queue: makes the decoded state the node's: accounts written into an empty
   * trie (checked against the file's stateRoot), history, pool, clock. The pending block is
   * dropped. State before the loaded head is not kept (`chain.stateFrom`).
   */
  private async apply(s: DecodedState): Promise<void> {
    const { engine, chain, pool, producer, clock } = this.ctx
    const root = await engine.writeAccounts(s.accounts)
    if (s.stateRoot && !equalsBytes(root, s.stateRoot)) {
      throw new StateFormatError(`accounts: they hash to state root ${hex(root)}, the file says ${hex(s.stateRoot)}`)
    }
    await engine.live.setRoot(root)
    if (chain.pending) chain.dropPreconfirmed(chain.pending)
    chain.pending = undefined
    chain.replaceBlocks(s.blocks)
    const head = chain.head
    chain.stateFrom = head.header.number
    chain.setStateRootOverride(head, equalsBytes(root, head.header.stateRoot) ? undefined : root)
    producer.resync()
    // Deposits of the saved open block wait for the start of the next one (opstack/opstack.ts).
    for (const info of s.pool) if (info.tx.deposit) this.ctx.opStack?.requeue(info.tx)
    pool.replaceAll(s.pool.filter((info) => !info.tx.deposit))
    clock.offset = s.timeOffset
    clock.nextTimestamp = undefined
  }
}
