// `pcnode start`'s progress for the steps that can take seconds: connecting to a fork's upstream,
// loading a state file (what it holds, read before the node loads it), and writing the state file
// on exit. On a terminal they show on the spinner's line with the seconds spent; piped, each is a
// plain line. A second Ctrl-C while the state is written does not stop the write: anvil's handler
// acts on the first signal only and its exit dump always finishes, and so does pcnode's (the file
// is replaced atomically, so SIGKILL leaves the previous one whole).
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { createInterface } from 'node:readline'

/** What a state file holds, as far as a cheap look tells (counts only for pcnode's own layout). */
export interface StateSummary {
  file: string
  bytes: number
  /** The head block the file was saved at. */
  blockNumber?: bigint
  blocks?: number
  accounts?: number
  /** The bundler's user operations kept with it (its "userOps"). */
  userOps?: number
}

/** Files larger than this are not scanned for counts (the node reads them once already). */
const SCAN_LIMIT = 64 * 2 ** 20

/**
 * The state file's size and, for the layout pcnode writes (a header line, then one account, block
 * or pool entry per line: storage/state-file/encode.ts), its head block and counts. Undefined when
 * there is no file yet.
 */
export async function summarizeStateFile(file: string): Promise<StateSummary | undefined> {
  let bytes: number
  try {
    bytes = (await stat(file)).size
  } catch {
    return undefined
  }
  const summary: StateSummary = { file, bytes }
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Number.POSITIVE_INFINITY })
  let section: 'accounts' | 'blocks' | 'userOps' | 'other' = 'other'
  let first = true
  try {
    for await (const line of lines) {
      if (first) {
        first = false
        const header = parseHeader(line)
        if (!header) break
        summary.blockNumber = header.blockNumber
        if (bytes > SCAN_LIMIT) break
        summary.accounts = 0
        summary.blocks = 0
        continue
      }
      if (line === '"accounts":{') section = 'accounts'
      else if (line === '"blocks":[') section = 'blocks'
      else if (line === '"userOps":[') section = 'userOps'
      else if (/^[}\]]+,?$/.test(line) || line.startsWith('"pool"')) section = 'other'
      else if (section === 'accounts') summary.accounts = (summary.accounts ?? 0) + 1
      else if (section === 'blocks') summary.blocks = (summary.blocks ?? 0) + 1
      else if (section === 'userOps') summary.userOps = (summary.userOps ?? 0) + 1
    }
  } catch {
    // Unreadable here: the node's own load says why.
  } finally {
    lines.close()
  }
  return summary
}

/** The first line of pcnode's layout: the header object, open (its fields, then `,`). */
function parseHeader(line: string): { blockNumber?: bigint } | undefined {
  try {
    const header = JSON.parse(`${line.replace(/,$/, '')}}`) as { format?: string; blockNumber?: string }
    if (header.format !== 'pcnode-state') return undefined
    return { blockNumber: header.blockNumber ? BigInt(header.blockNumber) : undefined }
  } catch {
    return undefined
  }
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 2 ** 20) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`
}

/** "11.0 MiB: block 44, 45 blocks, 50,012 accounts" (what is known of it). */
export function describeState(s: StateSummary): string {
  const parts = [formatBytes(s.bytes)]
  const counts = [
    s.blockNumber !== undefined ? `head block ${s.blockNumber}` : undefined,
    s.blocks !== undefined ? `${s.blocks.toLocaleString('en-US')} blocks` : undefined,
    s.accounts !== undefined ? `${s.accounts.toLocaleString('en-US')} accounts` : undefined,
    s.userOps ? `${s.userOps.toLocaleString('en-US')} user operation${s.userOps > 1 ? 's' : ''}` : undefined,
  ].filter(Boolean)
  return counts.length ? `${parts[0]}: ${counts.join(', ')}` : parts[0]
}

interface Spinner {
  text: string
  succeed(text: string): unknown
  fail(text: string): unknown
  start(): unknown
}

/**
 * One step at a time: on a terminal the spinner's text, with the seconds it has taken once past
 * one; piped, the step's line once, then its outcome. Nothing with --silent / --json.
 */
export class Progress {
  private text = ''
  private since = 0
  private ticker: NodeJS.Timeout | undefined

  constructor(
    private readonly spinner: Spinner | undefined,
    private readonly quiet: boolean,
  ) {}

  step(text: string): void {
    this.text = text
    this.since = performance.now()
    if (this.spinner) {
      this.spinner.text = text
      this.ticker ??= setInterval(() => this.tick(), 1000)
      this.ticker.unref()
    } else if (!this.quiet) {
      console.log(text)
    }
  }

  private tick(): void {
    if (!this.spinner) return
    const seconds = Math.floor((performance.now() - this.since) / 1000)
    this.spinner.text = seconds >= 1 ? `${this.text} ${seconds} s` : this.text
  }

  /** A finished step's line (✔ on a terminal); the spinner goes on with `next`. */
  done(text: string, next = 'Starting pcnode…'): void {
    if (this.spinner) {
      this.spinner.succeed(text)
      this.text = next
      this.spinner.text = next
      this.spinner.start()
    } else if (!this.quiet) {
      console.log(text)
    }
  }

  /** The last line: success or failure; the spinner stops. */
  end(ok: boolean, text: string): void {
    clearInterval(this.ticker)
    this.ticker = undefined
    if (this.spinner) {
      if (ok) this.spinner.succeed(text)
      else this.spinner.fail(text)
    } else if (!ok) {
      console.error(text)
    } else if (!this.quiet) {
      console.log(text)
    }
  }

  /** Seconds since the current step began, for its outcome line. */
  elapsed(): string {
    return `${((performance.now() - this.since) / 1000).toFixed(1)} s`
  }
}
