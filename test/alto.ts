// alto (@pimlico/alto, the devDependency) as a child process against a given node: the external
// bundler a Base app runs beside a devnet. Port 0, its address read from fastify's "Server
// listening at" log line; the whole log kept so a failing test can show what alto said.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Address, Hex } from 'viem'

export const ALTO_CLI = fileURLToPath(new URL('../node_modules/@pimlico/alto/esm/cli/alto.js', import.meta.url))

export interface AltoOptions {
  rpcUrl: string
  entryPoints: Address[]
  executorKey: Hex
  utilityKey: Hex
  safeMode: boolean
  /** The chain's block interval in ms (alto waits on blocks for receipts and frontrun checks). */
  blockTimeMs: number
  extra?: string[]
}

export interface Alto {
  url: string
  log: () => string
  stop: () => Promise<void>
}

/** Why alto cannot start here, or undefined when it can (only a missing or unstartable binary counts). */
export function altoUnavailable(): string | undefined {
  if (!existsSync(ALTO_CLI)) return `@pimlico/alto is not installed (${ALTO_CLI} missing)`
  return undefined
}

export async function startAlto(options: AltoOptions, timeoutMs = 60_000): Promise<Alto> {
  const args = [
    ALTO_CLI,
    '--entrypoints',
    options.entryPoints.join(','),
    '--rpc-url',
    options.rpcUrl,
    '--executor-private-keys',
    options.executorKey,
    '--utility-private-key',
    options.utilityKey,
    '--safe-mode',
    String(options.safeMode),
    '--port',
    '0',
    '--block-time',
    String(options.blockTimeMs),
    // Base is an OP Stack chain: alto then adds the L1 data fee to preVerificationGas, as pcnode does.
    '--chain-type',
    'op-stack',
    '--min-entity-stake',
    '1',
    '--min-entity-unstake-delay',
    '1',
    '--utility-wallet-monitor',
    'false',
    '--refilling-wallets',
    'false',
    '--enable-debug-endpoints',
    'true',
    '--json',
    'true',
    '--log-level',
    'info',
    ...(options.extra ?? []),
  ]
  const proc: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  proc.stderr?.on('data', (d) => {
    out += d
  })
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`alto did not start in ${timeoutMs} ms:\n${out.slice(-4000)}`)), timeoutMs)
    proc.stdout?.on('data', (d) => {
      out += d
      const m = /Server listening at http:\/\/[^:"]+:(\d+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(`http://127.0.0.1:${m[1]}`)
      }
    })
    proc.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`alto exited (${code}):\n${out.slice(-4000)}`))
    })
  })
  return {
    url,
    log: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve()
        proc.once('exit', () => resolve())
        proc.kill()
      }),
  }
}
