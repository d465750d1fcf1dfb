// How `pcnode start` stops on Ctrl-C or SIGTERM: the app, then the node, whose stop writes the state
// file (--state, --data-dir) and the fork's cache; "writing state to FILE…" while it does, the fork's
// statistics after. As anvil does (its Ctrl-C handler acts on the first signal; the exit dump runs
// to its end), a second signal does not cut the write short: it says so, and the write finishes. The
// file is replaced atomically, so even SIGKILL leaves the previous one whole.
import { stat } from 'node:fs/promises'
import type { StartedNode } from '../index.js'
import type { RunningApp } from './start-app.js'
import { forkStatsLine } from './start-banner.js'
import { formatBytes } from './start-progress.js'

export interface StopOptions {
  started: StartedNode
  app?: RunningApp
  /** --json or --silent: no progress lines (errors still print). */
  quiet: boolean
  /** --silent: not the fork's statistics either. */
  silent: boolean
  /** Draws the write's progress on a terminal (ora), when there is one. */
  spinner?: (text: string) => { succeed(text: string): unknown; fail(text: string): unknown }
}

/** Installs the SIGINT/SIGTERM handlers; call before anything is printed (a script may signal at once). */
export function stopOnSignals(options: StopOptions): void {
  let stopping = false
  let writing: string | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      if (!options.quiet) {
        console.log(
          writing
            ? `${signal} again: still writing the state to ${writing}; pcnode finishes the write first (as anvil does), then exits`
            : `${signal} again: still stopping…`,
        )
      }
      return
    }
    stopping = true
    void stop(signal, options, (file) => {
      writing = file
    })
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
}

async function stop(signal: string, o: StopOptions, writingTo: (file: string | undefined) => void): Promise<never> {
  const say = (line: string) => {
    if (!o.quiet) console.log(line)
  }
  say(`\n${signal} received, stopping…`)
  const file = o.started.node.dev.stateFile
  const began = performance.now()
  let progress: ReturnType<NonNullable<StopOptions['spinner']>> | undefined
  try {
    await o.app?.stop()
    if (file) {
      writingTo(file)
      const text = `writing state to ${file}…`
      if (!o.quiet && o.spinner) progress = o.spinner(text)
      else say(text)
    }
    await o.started.stop() // writes the state file (--state / --data-dir) and the fork's cache
  } catch (error) {
    const message = `pcnode: ${(error as Error).message}`
    if (progress) progress.fail(message)
    else console.error(message)
    process.exit(1)
  }
  if (file) {
    const size = await stat(file).then(
      (s) => `${formatBytes(s.size)}, `,
      () => '',
    )
    const done = `state written to ${file} (${size}${((performance.now() - began) / 1000).toFixed(1)} s)`
    if (progress) progress.succeed(done)
    else say(done)
  }
  const fork = o.started.node.fork
  if (fork && !o.silent) console.log(forkStatsLine(fork))
  process.exit(0)
}
