// alto (@pimlico/alto, the devDependency) as a child process against a given node: the external
// bundler a Base app runs beside a devnet. Port 0, its address read from fastify's "Server
// listening at" log line; the whole log kept so a failing test can show what alto said. Also alto's
// own v0.6 validation pieces (its collector tracer, its tracer call and its ERC-7562 rule parser),
// loaded from the package's files, so a test can run them against a node directly.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Address, Hex } from 'viem'

const ALTO_ESM = new URL('../node_modules/@pimlico/alto/esm/', import.meta.url)
export const ALTO_CLI = fileURLToPath(new URL('cli/alto.js', ALTO_ESM))

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

/** A JSON-RPC call to alto: its result, or its error as returned (code and message). */
export async function altoCall<T>(alto: Alto, method: string, params: unknown[] = []) {
  const res = await fetch(alto.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return (await res.json()) as { result?: T; error?: { code?: number; message: string } }
}

/** A JSON-RPC call to alto that must succeed. */
export async function altoRpc<T>(alto: Alto, method: string, params: unknown[] = []): Promise<T> {
  const { result, error } = await altoCall<T>(alto, method, params)
  if (error) throw new Error(`alto ${method}: ${error.message}`)
  return result as T
}

type TracerModule = typeof import('../node_modules/@pimlico/alto/esm/rpc/validation/tracer.js')
type TracerV06Module = typeof import('../node_modules/@pimlico/alto/esm/rpc/validation/BundlerCollectorTracerV06.js')
type ParserV06Module = typeof import('../node_modules/@pimlico/alto/esm/rpc/validation/TracerResultParserV06.js')

/** alto's v0.6 collector tracer, its debug_traceCall and its v0.6 rule parser (the package exports none of them). */
export async function altoValidation06() {
  // By file URL: the package's "exports" map names only its entry point.
  const load = <T>(path: string) => import(new URL(path, ALTO_ESM).href) as Promise<T>
  const [{ debug_traceCall }, { bundlerCollectorTracer }, { tracerResultParserV06 }] = await Promise.all([
    load<TracerModule>('rpc/validation/tracer.js'),
    load<TracerV06Module>('rpc/validation/BundlerCollectorTracerV06.js'),
    load<ParserV06Module>('rpc/validation/TracerResultParserV06.js'),
  ])
  return { debug_traceCall, bundlerCollectorTracer, tracerResultParserV06 }
}
