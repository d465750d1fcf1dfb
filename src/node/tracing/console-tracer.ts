// pcnode's consoleTracer: the transaction's Solidity console.log lines (Hardhat's console.sol,
// forge-std's console), decoded as the terminal log prints them, in the order they ran. The same
// calls the node watches while it executes (engine/hooks/console.ts), read here from a re-execution
// so nothing is kept per transaction. Calls in frames that later reverted count, as Hardhat and
// anvil print them too.
import type { TraceFrame } from '../engine/index.js'
import { formatConsoleLog } from './console-log.js'
import { hex } from './format.js'
import type { Tracer } from './tracer.js'

const CONSOLE = '0x000000000000000000636f6e736f6c652e6c6f67'

export class ConsoleTracer implements Tracer {
  private readonly lines: string[] = []

  readonly hooks = { enter: (frame: TraceFrame) => this.enter(frame) }

  private enter(frame: TraceFrame): void {
    if (frame.type === 'CREATE' || frame.type === 'CREATE2' || frame.type === 'SELFDESTRUCT') return
    if (hex(frame.to) !== CONSOLE) return
    const line = formatConsoleLog(frame.input)
    if (line !== undefined) this.lines.push(line)
  }

  result(): unknown {
    return this.lines
  }
}
