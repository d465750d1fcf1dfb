// `pcnode start`: boot the node, print the banner, log transactions and blocks, stop on signals.
import type { ChalkInstance } from 'chalk'
import type { Command } from 'commander'
import type { StartedNode } from '../index.js'
import { DEFAULTS, type NodeOptions } from '../node/options.js'
import { formatEther, parseAmount, parseBigInt, parseDuration, parseInteger } from './units.js'

interface StartFlags {
  port: number
  host: string
  chainId: number
  accounts: number
  balance: bigint
  mnemonic: string
  blockTime: number
  preconfInterval: number
  mining: boolean
  gasLimit: bigint
  baseFee: bigint
  hardfork: string
  silent?: boolean
  json?: boolean
}

export function registerStart(program: Command): void {
  program
    .command('start')
    .description('start a local pre-confirming devnet')
    .option('-p, --port <port>', 'JSON-RPC port (HTTP and WebSocket); 0 picks a free one', parseInteger('port'), DEFAULTS.port)
    .option('--host <host>', 'address to listen on', DEFAULTS.host)
    .option('--chain-id <id>', 'chain id', parseInteger('chain id', 1), DEFAULTS.chainId)
    .option('-a, --accounts <n>', 'number of funded dev accounts', parseInteger('accounts'), DEFAULTS.accounts)
    .option('--balance <amount>', 'balance of each dev account (e.g. 10000eth)', parseAmount, DEFAULTS.balance)
    .option('-m, --mnemonic <words>', 'mnemonic the dev accounts derive from', DEFAULTS.mnemonic)
    .option(
      '-b, --block-time <time>',
      'time between sealed blocks: seconds or e.g. 500ms',
      parseDuration('block time'),
      DEFAULTS.blockTime,
    )
    .option(
      '--preconf-interval <time>',
      'time between flashblocks: e.g. 200ms or 0.2; 0 pre-confirms each transaction as it arrives',
      parseDuration('pre-confirmation interval'),
      DEFAULTS.preconfInterval,
    )
    .option('--no-mining', 'produce no blocks (transactions wait in the pool)')
    .option('--gas-limit <gas>', 'block gas limit', parseBigInt('gas limit'), DEFAULTS.gasLimit)
    .option('--base-fee <wei>', 'base fee of the first block, in wei (or e.g. 1gwei)', parseAmount, DEFAULTS.baseFee)
    .option('--hardfork <name>', 'hardfork (prague, osaka)', DEFAULTS.hardfork)
    .option('--silent', 'print nothing but errors')
    .option('--json', 'print one JSON line with the node details once ready (for scripts)')
    .action(async (flags: StartFlags) => {
      await runStart(flags)
    })
}

async function runStart(flags: StartFlags): Promise<void> {
  const quiet = flags.silent || flags.json
  // chalk and ora load only when there is something to show: boot time is measured with --silent.
  const spinner = quiet ? undefined : (await import('ora')).default({ text: 'Starting pcnode…', stream: process.stdout }).start()
  const options: NodeOptions = {
    port: flags.port,
    host: flags.host,
    chainId: flags.chainId,
    accounts: flags.accounts,
    balance: flags.balance,
    mnemonic: flags.mnemonic,
    blockTime: flags.blockTime,
    preconfInterval: flags.preconfInterval,
    mining: flags.mining,
    gasLimit: flags.gasLimit,
    baseFee: flags.baseFee,
    hardfork: flags.hardfork,
    silent: quiet,
    logger: (line) => console.error(line),
  }
  let started: StartedNode
  try {
    const { startNode } = await import('../index.js')
    started = await startNode(options)
  } catch (error) {
    const message = (error as Error).message
    spinner?.fail(`pcnode failed to start: ${message}`)
    if (!spinner) console.error(`pcnode failed to start: ${message}`)
    process.exitCode = (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? 98 : 1
    return
  }
  spinner?.succeed(`pcnode listening on ${started.rpcUrl}`)
  if (flags.json) {
    console.log(
      JSON.stringify({ rpcUrl: started.rpcUrl, wsUrl: started.wsUrl, chainId: started.chainId, accounts: started.accounts }),
    )
  } else if (!flags.silent) {
    const chalk = (await import('chalk')).default
    console.log(banner(chalk, started, flags))
    followActivity(chalk, started)
  }
  const stop = async (signal: string) => {
    if (!quiet) console.log(`\n${signal} received, stopping…`)
    await started.stop()
    process.exit(0)
  }
  process.once('SIGINT', () => void stop('SIGINT'))
  process.once('SIGTERM', () => void stop('SIGTERM'))
}

function banner(chalk: ChalkInstance, started: StartedNode, flags: StartFlags): string {
  const lines: string[] = []
  const title = chalk.bold.cyan
  lines.push('', title('                 pcnode — a pre-confirming local devnet'), '')
  lines.push(title('Available Accounts'), title('=================='))
  for (const [i, a] of started.accounts.entries()) lines.push(`(${i}) ${a.address} (${formatEther(flags.balance)} ETH)`)
  lines.push('', title('Private Keys'), title('=================='))
  for (const [i, a] of started.accounts.entries()) lines.push(`(${i}) ${a.privateKey}`)
  lines.push('', title('Wallet'), title('=================='))
  lines.push(`Mnemonic:          ${flags.mnemonic}`, "Derivation path:   m/44'/60'/0'/0/")
  lines.push('', title('Chain'), title('=================='))
  lines.push(`Chain ID:          ${started.chainId}`)
  lines.push(`Hardfork:          ${flags.hardfork}`)
  lines.push(`Block gas limit:   ${flags.gasLimit}`)
  lines.push(`Base fee:          ${flags.baseFee} wei`)
  if (flags.mining) {
    lines.push(`Block time:        ${flags.blockTime} ms`)
    lines.push(
      `Pre-confirmation:  ${flags.preconfInterval === 0 ? 'each transaction as it arrives' : `every ${flags.preconfInterval} ms`}`,
    )
  } else {
    lines.push(`Mining:            off (--no-mining)`)
  }
  lines.push('', `${chalk.green('RPC')}        ${started.rpcUrl}`, `${chalk.green('WebSocket')}  ${started.wsUrl}`, '')
  return lines.join('\n')
}

/** One line per accepted transaction and per sealed block. */
function followActivity(chalk: ChalkInstance, started: StartedNode): void {
  const { events } = started.node
  const short = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`
  events.on('pendingTx', (info) => {
    console.log(
      `${chalk.dim(time())} ${chalk.yellow('tx')}    ${short(info.hash)} from ${short(info.from)} nonce ${info.tx.nonce}`,
    )
  })
  events.on('block', ({ block }) => {
    if (block.txs.length === 0) return
    const h = block.header
    console.log(
      `${chalk.dim(time())} ${chalk.green('block')} #${h.number} ${short(block.hash)} ${block.txs.length} tx, gas ${h.gasUsed}, ${block.flashblocks} flashblocks`,
    )
  })
  events.on('dropped', ({ info, reason }) => {
    console.log(`${chalk.dim(time())} ${chalk.red('drop')}  ${short(info.hash)}: ${reason}`)
  })
}

function time(): string {
  return new Date().toISOString().slice(11, 23)
}
