// `pcnode simulate file.json`: send an eth_simulateV1 payload (or a whole JSON-RPC request) to any
// node and print each simulated block and call: status, gas, return data or revert reason, logs
// and ETH transfers. Plain fetch JSON-RPC, so the engine (@ethereumjs/*) stays out of its imports.
import { readFile } from 'node:fs/promises'
import { stripVTControlCharacters } from 'node:util'
import chalk from 'chalk'
import type { Command } from 'commander'
import { DEFAULT_RPC_URL, RpcCallError, rpcRequest, rpcUrlOption } from './rpc-client.js'
import { formatEther } from './units.js'

/** Exit codes: 1 some call failed (or the estimate reverted); 2 the request or the transport failed. */
export const EXIT_FAILED = 1
export const EXIT_REQUEST = 2

const TRANSFER_ADDRESS = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'

let decodeRevertReason: ((output: Uint8Array) => string | undefined) | undefined

/** The revert decoder pulls in viem (~0.4 s): load it when a command runs, not at every CLI start. */
export async function loadRevertDecoder(): Promise<void> {
  decodeRevertReason ??= (await import('../shared/revert.js')).decodeRevertReason
}

/** "execution reverted: reason" from revert bytes (Error(string), Panic(uint256)), else undefined. */
export function revertReason(data: unknown): string | undefined {
  if (typeof data !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(data)) return undefined
  return decodeRevertReason?.(Buffer.from(data.slice(2), 'hex'))
}

/** revertReason's words, else a custom error by its selector (`custom error 0x…`, then its data), as cast words it. */
export function describeRevert(data: unknown): string | undefined {
  const reason = revertReason(data)
  if (reason !== undefined || typeof data !== 'string' || !/^0x[0-9a-fA-F]{8}/.test(data)) return reason
  const args = data.slice(10)
  return `custom error ${data.slice(0, 10)}${args ? ` (data 0x${args})` : ''}`
}

/** Prints an error the way every client subcommand does and sets the exit code. */
export function fail(error: unknown, json: boolean | undefined): void {
  const message = error instanceof Error ? error.message : String(error)
  if (json) {
    const out =
      error instanceof RpcCallError ? { error: { code: error.code, message, data: error.data } } : { error: { message } }
    console.log(JSON.stringify(out, null, 2))
  } else {
    const code = error instanceof RpcCallError ? ` (code ${error.code})` : ''
    console.error(`${chalk.red('error:')} ${message}${code}`)
  }
  process.exitCode = EXIT_REQUEST
}

/** commander's own exits: help stays 0, a usage error is a request error (2), not a failed call (1). */
export function usageExit(error: { exitCode: number }): never {
  process.exit(error.exitCode === 0 ? 0 : EXIT_REQUEST)
}

interface SimulateFlags {
  rpcUrl: string
  block?: string
  json?: boolean
}

export function registerSimulate(program: Command): void {
  program
    .command('simulate')
    .description('run an eth_simulateV1 payload against a node and show each block, call, log and ETH transfer')
    .argument('<file>', 'JSON file: the payload ({ blockStateCalls, ... }) or a whole eth_simulateV1 request')
    .option('--rpc-url <url>', 'JSON-RPC endpoint (without a scheme: http://)', rpcUrlOption(), DEFAULT_RPC_URL)
    .option(
      '--block <tag>',
      "block to simulate on: latest, pending (pre-confirmed state), a number or hash (default: the file's, else latest)",
    )
    .option('--json', 'print the raw result (exit codes unchanged)')
    .exitOverride(usageExit)
    .addHelpText(
      'after',
      '\nExit codes: 0 every call succeeded, 1 some call failed, 2 the file, the request or the connection failed.',
    )
    .action(async (file: string, flags: SimulateFlags) => {
      await runSimulate(file, flags)
    })
}

/** The payload and block from a file holding either the payload or a full JSON-RPC request. */
export function readSimulation(json: unknown): { payload: Record<string, unknown>; block?: unknown } {
  if (Array.isArray(json)) return { payload: { blockStateCalls: json } }
  if (typeof json !== 'object' || json === null) throw new Error('expected a JSON object')
  const o = json as Record<string, unknown>
  if ('method' in o || 'params' in o) {
    if (o.method !== undefined && o.method !== 'eth_simulateV1')
      throw new Error(`the request is ${String(o.method)}, not eth_simulateV1`)
    const params = o.params
    if (!Array.isArray(params) || typeof params[0] !== 'object' || params[0] === null) {
      throw new Error('params[0] of the request must be the simulation payload')
    }
    return { payload: params[0] as Record<string, unknown>, block: params[1] }
  }
  if (!('blockStateCalls' in o)) throw new Error('no "blockStateCalls" in the file (nor a JSON-RPC request)')
  return { payload: o }
}

async function runSimulate(file: string, flags: SimulateFlags): Promise<void> {
  await loadRevertDecoder()
  let sim: ReturnType<typeof readSimulation>
  try {
    sim = readSimulation(JSON.parse(await readFile(file, 'utf8')))
  } catch (error) {
    fail(new Error(`${file}: ${(error as Error).message}`), flags.json)
    return
  }
  const block = flags.block ?? sim.block ?? 'latest'
  let result: SimBlock[]
  try {
    result = (await rpcRequest(flags.rpcUrl, 'eth_simulateV1', [sim.payload, block])) as SimBlock[]
  } catch (error) {
    fail(error, flags.json)
    return
  }
  const failed = result.some((b) => b.calls.some((c) => c.status !== '0x1'))
  if (flags.json) console.log(JSON.stringify(result, null, 2))
  else console.log(render(result, requestedCalls(sim.payload), String(block)))
  process.exitCode = failed ? EXIT_FAILED : 0
}

interface SimLog {
  address: string
  topics: string[]
  data: string
}
interface SimCall {
  status: string
  gasUsed: string
  returnData: string
  logs?: SimLog[]
  error?: { code: number; message: string; data?: string }
}
interface SimBlock {
  number: string
  hash: string
  timestamp: string
  gasUsed: string
  gasLimit: string
  baseFeePerGas?: string
  calls: SimCall[]
}
interface CallShape {
  from?: string
  to?: string
}

/** The calls as the payload names them, per block with calls (gap-filling blocks have none). */
function requestedCalls(payload: Record<string, unknown>): CallShape[][] {
  const blocks = Array.isArray(payload.blockStateCalls) ? payload.blockStateCalls : []
  return blocks.map((b) => (Array.isArray((b as { calls?: unknown }).calls) ? (b as { calls: CallShape[] }).calls : []))
}

const short = (hex: string | undefined, keep = 10) =>
  hex === undefined ? '' : hex.length > 2 * keep + 4 ? `${hex.slice(0, keep + 2)}…${hex.slice(-keep)}` : hex
const topicAddress = (topic: string | undefined) => (topic ? `0x${topic.slice(-40)}` : '?')
const num = (hex: string | undefined) => (hex === undefined ? 0n : BigInt(hex))
const eth = (wei: bigint) => `${formatEther(wei, 18)} ETH`

function render(blocks: SimBlock[], requested: CallShape[][], block: string): string {
  const lines: string[] = []
  let withCalls = 0
  lines.push(chalk.dim(`eth_simulateV1 on ${block}: ${blocks.length} block(s)`))
  for (const b of blocks) {
    // Gap fillers carry no calls; the payload's blocks are the ones with calls or listed in order.
    const shapes = b.calls.length > 0 ? (requested[withCalls++] ?? []) : []
    const gas = `${num(b.gasUsed).toLocaleString('en-US')} / ${num(b.gasLimit).toLocaleString('en-US')} gas`
    const fee = b.baseFeePerGas !== undefined ? `, base fee ${num(b.baseFeePerGas)} wei` : ''
    lines.push('')
    lines.push(
      `${chalk.bold(`Block ${num(b.number)}`)}  ${chalk.dim(short(b.hash))}  time ${num(b.timestamp)}, ${gas}${fee}${b.calls.length ? '' : chalk.dim('  (no calls)')}`,
    )
    if (b.calls.length === 0) continue
    const rows: string[][] = [['#', 'status', 'gas', 'from → to', 'result']]
    const details: string[][] = []
    b.calls.forEach((c, i) => {
      const shape = shapes[i] ?? {}
      const ok = c.status === '0x1'
      const route = `${short(shape.from ?? '0x0000000000000000000000000000000000000000', 6)} → ${shape.to ? short(shape.to, 6) : chalk.dim('(create)')}`
      rows.push([
        String(i),
        ok ? chalk.green('ok') : chalk.red('failed'),
        num(c.gasUsed).toLocaleString('en-US'),
        route,
        outcome(c),
      ])
      const more: string[] = []
      for (const log of c.logs ?? []) more.push(describeLog(log))
      details.push(more)
    })
    lines.push(...table(rows, details))
  }
  const calls = blocks.flatMap((b) => b.calls)
  const failed = calls.filter((c) => c.status !== '0x1').length
  lines.push('')
  lines.push(
    failed ? chalk.red(`${failed} of ${calls.length} call(s) failed`) : chalk.green(`all ${calls.length} call(s) succeeded`),
  )
  return lines.join('\n')
}

function outcome(c: SimCall): string {
  if (c.status === '0x1') {
    if (c.returnData === '0x') return chalk.dim('(no return data)')
    // One word: show its value too (balances, counters, flags).
    return c.returnData.length === 66
      ? `${short(c.returnData, 8)} ${chalk.dim(`(${BigInt(c.returnData)})`)}`
      : short(c.returnData, 28)
  }
  const data = c.error?.data ?? (c.returnData !== '0x' ? c.returnData : undefined)
  const reason = revertReason(data)
  if (reason !== undefined) return chalk.red(`reverted: ${reason}`)
  if (c.error?.code === 3 || /revert/.test(c.error?.message ?? '')) {
    return chalk.red(data && data !== '0x' ? `reverted, data ${short(data, 20)}` : (c.error?.message ?? 'execution reverted'))
  }
  return chalk.red(c.error?.message ?? 'failed')
}

function describeLog(log: SimLog): string {
  const [topic0, t1, t2] = log.topics
  if (log.address.toLowerCase() === TRANSFER_ADDRESS && topic0 === TRANSFER_TOPIC) {
    return `${chalk.yellow('ETH')}  ${topicAddress(t1)} → ${topicAddress(t2)}  ${chalk.bold(eth(num(log.data)))}`
  }
  if (topic0 === TRANSFER_TOPIC && log.topics.length === 3) {
    return `${chalk.cyan('log')}  ${short(log.address, 6)} Transfer ${topicAddress(t1)} → ${topicAddress(t2)}  ${num(log.data === '0x' ? '0x0' : log.data)}`
  }
  const topics = log.topics.map((t) => short(t, 6)).join(', ')
  return `${chalk.cyan('log')}  ${short(log.address, 6)} [${topics}] ${short(log.data, 12)}`
}

/** Column-aligned rows (ANSI colours don't count towards widths); detail lines under each row. */
function table(rows: string[][], details: string[][]): string[] {
  const plain = stripVTControlCharacters
  const widths = rows[0].map((_, col) => Math.max(...rows.map((r) => plain(r[col]).length)))
  const line = (r: string[]) =>
    `  ${r.map((cell, col) => (col === r.length - 1 ? cell : cell + ' '.repeat(widths[col] - plain(cell).length))).join('  ')}`
  const out = [chalk.dim(line(rows[0]))]
  rows.slice(1).forEach((r, i) => {
    out.push(line(r))
    for (const d of details[i]) out.push(`      ${d}`)
  })
  return out
}
