// The drawing of a call tree for `pcnode trace` (trace.ts), the way `cast run` draws one: gas per
// frame, calls with their kind and value, events, return data or decoded revert reasons, with the
// names and decodings of trace-labels.ts. Loaded only when a trace is drawn.
import chalk from 'chalk'
import { revertReason } from './simulate.js'
import { CONSOLE_ADDRESS, type Labels } from './trace-labels.js'

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
