// The state file on disk: crash-safe writes (a temporary file fsynced and renamed over the old one:
// a crash leaves the previous or the new file, never a mix), cleanup after killed writers, reads,
// and the periodic writer.
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { parseStateText, STATE_FILE_MAX_BYTES } from './decode.js'

let tmpCounter = 0

/** Writes `text` so that a crash at any point leaves either the old file or the new one. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const dir = dirname(file)
  await mkdir(dir, { recursive: true })
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${++tmpCounter}.tmp`)
  try {
    const handle = await open(tmp, 'w')
    try {
      await handle.writeFile(text)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(tmp, file)
  } catch (error) {
    await rm(tmp, { force: true })
    throw error
  }
  // The rename is durable once the directory entry is on disk (not supported everywhere).
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } catch {
    // e.g. EINVAL/EPERM on filesystems or platforms without directory fsync
  } finally {
    await handle.close()
  }
}

/** Removes temporary files that writers killed mid-write left next to `file` (not a live writer's). */
export async function removeStaleTemps(file: string): Promise<number> {
  const dir = dirname(file)
  const prefix = `.${basename(file)}.`
  let names: string[]
  try {
    names = await readdir(dir)
  } catch {
    return 0
  }
  let removed = 0
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)\.\d+\.tmp$/.exec(name.slice(prefix.length)) : null
    if (!m || (Number(m[1]) !== process.pid && alive(Number(m[1])))) continue
    await rm(join(dir, name), { force: true })
    removed++
  }
  return removed
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The state file's parsed document, or undefined when there is no file yet. Errors name the file. */
export async function readStateFile(file: string): Promise<unknown | undefined> {
  let data: Buffer | undefined
  let size = 0
  try {
    // Sized before it is read: a file past the limit is refused without holding it in memory.
    size = (await stat(file)).size
    if (size <= STATE_FILE_MAX_BYTES) data = await readFile(file)
  } catch (error) {
    const e = error as NodeJS.ErrnoException
    if (e.code === 'ENOENT') return undefined
    throw new Error(`state file ${file}: cannot read it (${e.message})`)
  }
  if (!data) {
    const mib = (n: number) => Math.round(n / 2 ** 20)
    throw new Error(`state file ${file}: ${mib(size)} MiB, more than the ${mib(STATE_FILE_MAX_BYTES)} MiB a state file may hold`)
  }
  try {
    return parseStateText(data, STATE_FILE_MAX_BYTES)
  } catch (error) {
    throw new Error(`state file ${file}: ${(error as Error).message}`)
  }
}

/** Periodic and final writes of the state file; at most one write runs at a time. */
export class StateFileWriter {
  private blocksSinceSave = 0
  private running: Promise<void> | undefined
  private queued: Promise<void> | undefined
  closed = false

  constructor(
    readonly file: string,
    private readonly interval: number,
    private readonly render: () => Promise<string>,
    private readonly onError: (error: Error) => void,
  ) {}

  /** A block was sealed: every `interval` of them, write. */
  blockSealed(): void {
    if (this.closed || this.interval === 0 || ++this.blocksSinceSave < this.interval) return
    this.blocksSinceSave = 0
    this.save().catch(this.onError)
  }

  /** Writes the current state; a call during a write waits for it and writes once more after. */
  save(): Promise<void> {
    if (this.running) {
      this.queued ??= this.running.then(
        () => this.next(),
        () => this.next(),
      )
      return this.queued
    }
    this.running = (async () => {
      const text = await this.render()
      try {
        await writeFileAtomic(this.file, text)
      } catch (error) {
        throw new Error(`state file ${this.file}: could not write it (${(error as Error).message})`)
      }
    })().finally(() => {
      this.running = undefined
    })
    return this.running
  }

  private next(): Promise<void> {
    this.queued = undefined
    return this.save()
  }

  /** Waits for writes in progress, then writes the final state. */
  async close(): Promise<void> {
    this.closed = true
    await this.queued?.catch(() => {})
    await this.running?.catch(() => {})
    await this.save()
  }
}
