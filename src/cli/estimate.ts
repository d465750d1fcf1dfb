// `pcnode estimate`: eth_estimateGas against any node, by default on the pre-confirmed state
// ("pending"). A revert prints its decoded reason and exits 1; request errors exit 2.
import chalk from 'chalk'
import { type Command, InvalidArgumentError } from 'commander'
import { DEFAULT_RPC_URL, RpcCallError, rpcRequest, rpcUrlOption } from './rpc-client.js'
import { EXIT_FAILED, fail, loadRevertDecoder, revertReason, usageExit } from './simulate.js'
import { parseAmount } from './units.js'

interface EstimateFlags {
  to?: string
  from?: string
  data?: string
  value?: bigint
  block: string
  rpcUrl: string
  json?: boolean
}

const address = (name: string) => (value: string) => {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new InvalidArgumentError(`${name} must be a 0x-prefixed 20-byte address`)
  return value
}

const hexData = (value: string) => {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(value)) throw new InvalidArgumentError('data must be 0x-prefixed hex bytes')
  return value
}

export function registerEstimate(program: Command): void {
  program
    .command('estimate')
    .description('estimate the gas of a call or deployment (eth_estimateGas), on the pre-confirmed state by default')
    .option('--to <address>', 'recipient or contract (omit to estimate a deployment of --data)', address('to'))
    .option('--from <address>', 'sender', address('from'))
    .option('--data <hex>', 'calldata, or init code without --to', hexData)
    .option('--value <amount>', 'value: 1eth, 20gwei or wei (default: 0)', parseAmount)
    .option('--block <tag>', 'block: pending (pre-confirmed), latest, a number or hash', 'pending')
    .option('--rpc-url <url>', 'JSON-RPC endpoint (without a scheme: http://)', rpcUrlOption(), DEFAULT_RPC_URL)
    .option('--json', 'print the result as JSON')
    .exitOverride(usageExit)
    .addHelpText('after', '\nExit codes: 0 estimated, 1 the call reverts, 2 the request or the connection failed.')
    .action(async (flags: EstimateFlags) => {
      await runEstimate(flags)
    })
}

async function runEstimate(flags: EstimateFlags): Promise<void> {
  await loadRevertDecoder()
  const tx: Record<string, string> = {}
  if (flags.from) tx.from = flags.from
  if (flags.to) tx.to = flags.to
  if (flags.data) tx.data = flags.data
  if (flags.value !== undefined) tx.value = `0x${flags.value.toString(16)}`
  const block = /^\d+$/.test(flags.block) ? `0x${BigInt(flags.block).toString(16)}` : flags.block
  let gas: bigint
  try {
    gas = BigInt((await rpcRequest(flags.rpcUrl, 'eth_estimateGas', [tx, block])) as string)
  } catch (error) {
    // geth answers a revert with code 3, the Base profile with -32000: the message tells.
    if (error instanceof RpcCallError && (error.code === 3 || /execution reverted/.test(error.message))) {
      const reason = revertReason(error.data)
      if (flags.json) {
        console.log(
          JSON.stringify({ reverted: true, reason: reason ?? null, message: error.message, data: error.data ?? null }, null, 2),
        )
      } else {
        console.error(`${chalk.red('reverted')} ${reason ?? error.message}`)
        if (typeof error.data === 'string' && error.data !== '0x') console.error(chalk.dim(`revert data ${error.data}`))
      }
      process.exitCode = EXIT_FAILED
      return
    }
    fail(error, flags.json)
    return
  }
  if (flags.json) console.log(JSON.stringify({ gas: gas.toString(), hex: `0x${gas.toString(16)}`, block }, null, 2))
  else console.log(`${chalk.bold(gas.toLocaleString('en-US'))} gas ${chalk.dim(`(0x${gas.toString(16)}, on ${block})`)}`)
}
