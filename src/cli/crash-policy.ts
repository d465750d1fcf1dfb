// What the `pcnode start` process does with an error nothing caught. Only the CLI owns the process:
// the library installs no process handlers. A rejected promise nobody awaited left no half-done
// work behind, so it is logged and the node keeps serving (anvil stays up too). An uncaught
// exception may have stopped code halfway (Node's docs: resuming is unsafe), so the node is
// stopped the way a signal stops it, which writes the state file (--state, --data-dir), and the
// process exits with status 1.

/** Longest the fatal path waits for the stop (the state file write) before it exits anyway. */
const FATAL_STOP_MS = 30_000

export function installCrashPolicy(stop: () => Promise<void>, log: (line: string) => void = console.error): void {
  const describe = (error: unknown) => (error instanceof Error ? (error.stack ?? error.message) : String(error))
  process.on('unhandledRejection', (reason) => {
    log(`pcnode: unhandled promise rejection (the node keeps serving): ${describe(reason)}`)
  })
  let stopping = false
  process.on('uncaughtException', (error) => {
    log(`pcnode: fatal error, stopping: ${describe(error)}`)
    if (stopping) process.exit(1) // failed again while stopping: exit now
    stopping = true
    const timer = setTimeout(() => {
      log('pcnode: the stop did not finish in time; exiting without it')
      process.exit(1)
    }, FATAL_STOP_MS)
    timer.unref()
    stop()
      .catch((stopError) => log(`pcnode: stopping failed: ${describe(stopError)}`))
      .finally(() => process.exit(1))
  })
}
