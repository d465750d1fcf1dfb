// `pcnode trace TXHASH` / `pcnode trace --to ADDR --data HEX`: the call tree of a transaction
// (debug_traceTransaction) or a call (debug_traceCall) with geth's callTracer and its logs, drawn
// the way `cast run` draws one: gas per frame, calls with their kind and value, events, return data
// or decoded revert reasons, pcnode's genesis contracts by name and console.log calls decoded
// (trace-labels.ts). Works against any node that serves geth's callTracer. Plain fetch JSON-RPC:
// the engine (@ethereumjs/*) stays out of its imports.
import chalk from 'chalk'
import type { Command } from 'commander'
import { DEFAULT_RPC_URL, rpcRequest, rpcUrlOption } from './rpc-client.js'
import { EXIT_FAILED, fail, loadRevertDecoder, revertReason, usageExit } from './simulate.js'
import type { Labels } from './trace-labels.js'
import { parseAmount } from './units.js'

/** geth's callTracer frame (eth/tracers/native/call.go). */
export interface CallFrame {
  type: string
  from: string
  to?: string
  gas: string
  gasUsed: string
  input: string
  output?: string
  error?: string
  revertReason?: string
  value?: string
  calls?: CallFrame[]
  logs?: Array<{ address: string; topics: string[]; data: string; position: string }>
}

interface TraceFlags {
  rpcUrl: string
  json?: boolean
  to?: string
  data?: string
  from?: string
  value?: string
  gas?: string
  block?: string
}

const PRECOMPILES: Record<string, string> = {
  '0x0000000000000000000000000000000000000001': 'ecrecover',
  '0x0000000000000000000000000000000000000002': 'sha256',
  '0x0000000000000000000000000000000000000003': 'ripemd',
  '0x0000000000000000000000000000000000000004': 'identity',
  '0x0000000000000000000000000000000000000005': 'modexp',
  '0x0000000000000000000000000000000000000006': 'ecadd',
  '0x0000000000000000000000000000000000000007': 'ecmul',
  '0x0000000000000000000000000000000000000008': 'ecpairing',
  '0x0000000000000000000000000000000000000009': 'blake2f',
  '0x000000000000000000000000000000000000000a': 'pointEvaluation',
  '0x0000000000000000000000000000000000000100': 'p256verify',
}
/** Hardhat's console.sol address (the bytes of "console.log"). */
export const CONSOLE_ADDRESS = '0x000000000000000000636f6e736f6c652e6c6f67'

export function registerTrace(program: Command): void {
  program
    .command('trace')
    .description('show the call tree of a transaction (or of a call, with --to) with gas, events and revert reasons')
    .argument('[hash]', 'transaction hash (pre-confirmed transactions too)')
    .option(
      '--rpc-url <url>',
      'JSON-RPC endpoint, any node serving debug_traceTransaction (without a scheme: http://)',
      rpcUrlOption(),
      DEFAULT_RPC_URL,
    )
    .option('--to <address>', 'trace a call to this address instead of a transaction (debug_traceCall)')
    .option('--data <hex>', 'the call data (with --to)')
    .option('--from <address>', 'the call sender (with --to)')
    .option('--value <amount>', 'value sent with the call: wei, or with a unit (1eth, 2gwei)')
    .option('--gas <gas>', 'gas limit of the call')
    .option('--block <tag>', 'block the call runs on: latest, pending, a number or hash', 'latest')
    .option('--json', 'print the callTracer result as JSON')
    .exitOverride(usageExit)
    .addHelpText('after', '\nExit codes: 0 the transaction or call succeeded, 1 it failed, 2 the request failed.')
    .action(async (hash: string | undefined, flags: TraceFlags) => {
      await runTrace(hash, flags)
    })
}

async function runTrace(hash: string | undefined, flags: TraceFlags): Promise<void> {
  try {
    if (!hash && !flags.to) throw new Error('give a transaction hash, or --to (and --data) to trace a call')
    const config = { tracer: 'callTracer', tracerConfig: { withLog: true } }
    let frame: CallFrame
    if (hash) {
      if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new Error(`not a transaction hash: ${hash}`)
      frame = (await rpcRequest(flags.rpcUrl, 'debug_traceTransaction', [hash, config])) as CallFrame
    } else {
      const call: Record<string, string> = { to: flags.to as string }
      if (flags.data) call.data = flags.data
      if (flags.from) call.from = flags.from
      if (flags.value) call.value = `0x${parseAmount(flags.value).toString(16)}`
      if (flags.gas) call.gas = `0x${BigInt(flags.gas).toString(16)}`
      const block = /^\d+$/.test(flags.block ?? '') ? `0x${BigInt(flags.block as string).toString(16)}` : flags.block
      frame = (await rpcRequest(flags.rpcUrl, 'debug_traceCall', [call, block, config])) as CallFrame
    }
    if (flags.json) {
      console.log(JSON.stringify(frame, null, 2))
    } else {
      const [{ getAddress }, { loadLabels }] = await Promise.all([
        import('viem'),
        import('./trace-labels.js'),
        loadRevertDecoder(),
      ])
      console.log(renderTrace(frame, loadLabels(), (a) => getAddress(a)))
    }
    if (frame.error) process.exitCode = EXIT_FAILED
  } catch (error) {
    fail(error, flags.json)
  }
}

/** cast run's drawing of a call tree (foundry's trace renderer): one line per call, event and return. */
export function renderTrace(top: CallFrame, labels?: Labels, checksum: (address: string) => string = (a) => a): string {
  const lines = ['Traces:']
  const gas = (f: CallFrame) => Number(BigInt(f.gasUsed))
  // What each frame's output decodes with, once its call line named the function.
  const outputs = new Map<CallFrame, (data: string) => string | undefined>()
  const callee = (address: string) => labels?.name(address) ?? checksum(address)
  const callLine = (f: CallFrame): string => {
    const to = (f.to ?? '').toLowerCase()
    if (f.type === 'CREATE' || f.type === 'CREATE2') {
      const made = f.to ? `@${checksum(f.to)}` : ''
      return `[${gas(f)}] ${chalk.yellow('→ new')} <unknown>${made}${f.type === 'CREATE2' ? ' [create2]' : ''}`
    }
    const value = f.value && BigInt(f.value) > 0n ? `{value: ${BigInt(f.value)}}` : ''
    const kind = { STATICCALL: ' [staticcall]', DELEGATECALL: ' [delegatecall]', CALLCODE: ' [callcode]' }[f.type] ?? ''
    const input = f.input ?? '0x'
    if (PRECOMPILES[to]) return `[${gas(f)}] ${chalk.green('PRECOMPILES')}::${PRECOMPILES[to]}${value}(${input})${kind}`
    if (to === CONSOLE_ADDRESS) {
      const line = labels?.consoleLog(input)
      return `[${gas(f)}] console::log(${line !== undefined ? JSON.stringify(line) : input.slice(10)})${kind}`
    }
    const decoded = labels?.call(input)
    if (decoded) {
      outputs.set(f, decoded.output)
      return `[${gas(f)}] ${callee(to)}::${decoded.text}${value}${kind}`
    }
    const selector = input.length >= 10 ? input.slice(2, 10) : input === '0x' ? 'fallback' : input.slice(2)
    const args = input.length > 10 ? input.slice(10) : ''
    return `[${gas(f)}] ${callee(f.to ?? '0x')}::${selector}${value}(${args})${kind}`
  }
  const result = (f: CallFrame): string => {
    if (f.calls?.some((c) => c.type === 'SELFDESTRUCT')) return chalk.red('← [SelfDestruct]')
    if (f.error) {
      const reason = f.revertReason ?? revertReason(f.output) ?? (f.output ? labels?.error(f.output) : undefined)
      if (f.error === 'execution reverted') return chalk.red(`← [Revert] ${reason ?? f.output ?? ''}`.trimEnd())
      return chalk.red(`← [${f.error}]`)
    }
    if ((f.type === 'CREATE' || f.type === 'CREATE2') && f.output) {
      return chalk.green(`← [Return] ${(f.output.length - 2) / 2} bytes of code`)
    }
    const shown = f.output ? (outputs.get(f)?.(f.output) ?? f.output) : undefined
    return chalk.green(`← [${shown !== undefined ? 'Return' : 'Stop'}]${shown !== undefined ? ` ${shown}` : ''}`)
  }
  const draw = (f: CallFrame, head: string, indent: string) => {
    lines.push(`${head}${callLine(f)}`)
    const all = f.calls ?? []
    // Logs sit between calls at their `position` (the number of the frame's calls before them).
    const items: Array<{ log?: NonNullable<CallFrame['logs']>[number]; call?: CallFrame }> = []
    const logs = [...(f.logs ?? [])]
    all.forEach((call, i) => {
      while (logs.length && Number(BigInt(logs[0].position)) <= i) items.push({ log: logs.shift() })
      if (call.type !== 'SELFDESTRUCT') items.push({ call })
    })
    for (const log of logs) items.push({ log })
    for (const item of items) {
      if (item.call) {
        draw(item.call, `${indent}├─ `, `${indent}│   `)
      } else if (item.log) {
        const event = labels?.event(item.log.topics, item.log.data)
        if (event) {
          lines.push(`${indent}├─  ${chalk.cyan('emit')} ${event}`)
          continue
        }
        const [first, ...rest] = item.log.topics
        const pad = `${indent}│  `
        if (first !== undefined) lines.push(`${indent}├─  ${chalk.cyan('emit')} topic 0: ${first}`)
        else lines.push(`${indent}├─  ${chalk.cyan('emit')} anonymous`)
        rest.forEach((t, i) => {
          lines.push(`${pad}      topic ${i + 1}: ${t}`)
        })
        lines.push(`${pad}         data: ${item.log.data}`)
      }
    }
    lines.push(`${indent}└─ ${result(f)}`)
  }
  draw(top, '  ', '    ')
  lines.push('')
  lines.push(top.error ? chalk.red(`Transaction failed: ${top.error}`) : chalk.green('Transaction successfully executed.'))
  lines.push(`Gas used: ${gas(top)}`)
  return lines.join('\n')
}
