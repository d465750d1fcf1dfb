// The example typed-data app (src/app) next to the node that `pcnode start` runs: flag parsers and its start.
// Imported by start.ts on every `pcnode start`, so nothing heavy at the top: the app (viem, the contract
// artifacts) loads after the node is up, and the node's first eth_chainId does not wait for it.
import { InvalidArgumentError } from 'commander'
import type { VerifyMode } from '../app/server.js'
import type { StartedNode } from '../index.js'

export const DEFAULT_APP_PORT = 3001

export interface AppFlags {
  /** false with --no-app. */
  app: boolean
  /** Undefined unless given: the default port (3001) may be taken, an explicit one must work. */
  appPort?: number
  verifyMode: VerifyMode
  /** Shared with the node: the app keeps its used nonces in <dir>/used-nonces.log. */
  dataDir?: string
  host: string
  /** --allow-origin and --allow-host: the app answers the same pages and names as the node. */
  allowOrigin: string[]
  allowHost: string[]
}

export interface RunningApp {
  url: string
  verifyMode: VerifyMode
  /** The used-nonces file, when there is a data folder. */
  nonceFile?: string
  stop(): Promise<void>
}

/** --app-port: 0 to 65535; left undefined when not given (see AppFlags.appPort). */
export function parseAppPort(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('app port must be an integer from 0 to 65535')
  return n
}

export function parseVerifyMode(value: string): VerifyMode {
  if (value !== 'full' && value !== 'simple') throw new InvalidArgumentError('verify mode must be full or simple')
  return value
}

/**
 * Starts the app against `node` unless --no-app. When the default port is taken (another pcnode, say) the node
 * runs on without the app and a warning says so; a port given with --app-port that cannot be had is an error.
 */
export async function startAppForNode(
  flags: AppFlags,
  node: StartedNode,
  log: (line: string) => void,
): Promise<RunningApp | undefined> {
  if (!flags.app) return undefined
  const { startAppServer } = await import('../app/server.js')
  const port = flags.appPort ?? DEFAULT_APP_PORT
  try {
    const app = await startAppServer({
      rpcUrl: node.rpcUrl,
      port,
      host: flags.host,
      chainId: node.chainId,
      dataDir: flags.dataDir,
      verifyMode: flags.verifyMode,
      allowOrigins: flags.allowOrigin,
      allowHosts: flags.allowHost,
      log,
    })
    const { join } = await import('node:path')
    return {
      url: app.url,
      verifyMode: flags.verifyMode,
      nonceFile: flags.dataDir ? join(flags.dataDir, 'used-nonces.log') : undefined,
      stop: app.stop,
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const reason =
      code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL'
        ? `the example app cannot listen on ${flags.host}:${port} (${code})`
        : `the example app failed to start: ${(error as Error).message}`
    if (flags.appPort !== undefined) throw new AppStartError(reason, code)
    log(`pcnode: ${reason}; the node runs without it (--app-port <port> picks another port, --no-app skips it)`)
    return undefined
  }
}

export class AppStartError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message)
  }
}
