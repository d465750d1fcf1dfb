// `pcnode trace TXHASH` / `pcnode trace --to ADDR --data HEX`: the call tree of a transaction
// (debug_traceTransaction) or a call (debug_traceCall) with geth's callTracer and its logs, drawn
// the way `cast run` draws one: gas per frame, calls with their kind and value, events, return data
// or decoded revert reasons, pcnode's genesis contracts by name and console.log calls decoded
// (trace-render.ts, trace-labels.ts). Works against any node that serves geth's callTracer. Plain fetch JSON-RPC:
// the engine (@ethereumjs/*) stays out of its imports.
import type { Command } from 'commander'
import { DEFAULT_RPC_URL, rpcRequest, rpcUrlOption } from './rpc-client.js'
import { EXIT_FAILED, fail, loadRevertDecoder, usageExit } from './simulate.js'
import type { CallFrame } from './trace-render.js'
import { parseAmount } from './units.js'

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
      // The drawing and the names it uses (viem, the contracts' ABIs) load only to draw.
      const [{ getAddress }, { renderTrace }, { loadLabels }] = await Promise.all([
        import('viem'),
        import('./trace-render.js'),
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
