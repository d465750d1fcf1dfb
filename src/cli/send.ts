// `pcnode send`: sign a transfer, call or deployment (a dev account or a private key) or take a
// signed raw transaction, submit it to any JSON-RPC endpoint and follow it live: accepted →
// pre-confirmed → sealed (follow.ts, fed by follow-sources.ts), then, as `cast send` does, the
// created contract's address or the revert's reason. It signs with viem, so the engine
// (@ethereumjs/*) stays out of this command's imports. Statically it imports only commander and
// fetch helpers: the CLI entry loads this file for every command, and `pcnode start` must not pay
// for viem, chalk and ora (~0.45 s); they load when `send` runs.
import type { Command } from 'commander'
import type { Hex, TransactionSerialized } from 'viem'
import { DEFAULT_MNEMONIC } from '../node/options.js'
import type { FollowState } from './follow.js'
import type { Rpc } from './follow-sources.js'
import { DEFAULT_RPC_URL, RpcCallError, rpcUrlOption, TransportError } from './rpc-client.js'
import { type Prepared, Reporter, type SendDeps, transitionLines } from './send-report.js'
import { parseAmount, parseBigInt, parseDuration, parseInteger } from './units.js'

async function loadDeps(): Promise<SendDeps> {
  const [chalk, ora, viem, accounts, revert] = await Promise.all([
    import('chalk'),
    import('ora'),
    import('viem'),
    import('viem/accounts'),
    import('./simulate.js'),
  ])
  await revert.loadRevertDecoder()
  return { chalk: chalk.default, ora: ora.default, viem, accounts, describeRevert: revert.describeRevert }
}

interface SendFlags {
  to?: string
  value?: bigint
  data?: string
  from: number
  privateKey?: string
  mnemonic: string
  gas?: bigint
  raw?: string
  rpcUrl: string
  timeout: number
  json?: boolean
}

/** Exit codes: 1 rejected, reverted, dropped, replaced or not followed to the end in time; 2 usage, or the endpoint. */
const EXIT_FAILED = 1
const EXIT_USAGE = 2

export function registerSend(program: Command): void {
  program
    .command('send')
    .description('sign and submit a transaction (or --raw), then follow it: accepted → pre-confirmed → sealed')
    .option('--to <address>', 'recipient (omit with --data to deploy a contract)')
    // No bigint default: commander's --help cannot print one.
    .option('--value <amount>', 'amount to send: 1eth, 20gwei or wei (default: 0)', parseAmount)
    .option('--data <hex>', 'calldata (or init code without --to)')
    .option('--from <index>', 'dev account index, derived from --mnemonic', parseInteger('from'), 0)
    .option('--private-key <key>', 'sign with this key instead of a dev account')
    .option('-m, --mnemonic <words>', 'mnemonic the dev accounts derive from', DEFAULT_MNEMONIC)
    .option('--gas <gas>', 'gas limit (default: eth_estimateGas)', parseBigInt('gas'))
    .option('--raw <tx>', 'submit this signed, RLP-encoded transaction as it is')
    .option(
      '--rpc-url <url>',
      'JSON-RPC endpoint, http(s) or ws(s) (without a scheme: http://)',
      rpcUrlOption(['http', 'https', 'ws', 'wss']),
      DEFAULT_RPC_URL,
    )
    .option(
      '--timeout <time>',
      'how long to follow the transaction: seconds or e.g. 500ms (default: 30)',
      parseDuration('timeout'),
    )
    .option('--json', 'print one JSON object with the hash, timings and block (for scripts)')
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE))
    .addHelpText(
      'after',
      '\nExit codes: 0 sealed and succeeded; 1 rejected, reverted, dropped, replaced or timed out; 2 bad flags or no node.',
    )
    .action(async (flags: SendFlags) => {
      process.exitCode = await runSend(flags)
    })
}

/** A failure at one stage of the send: printed as "stage: message". */
class StageError extends Error {
  constructor(
    readonly stage: string,
    readonly reason: unknown,
    readonly exitCode = reason instanceof TransportError ? EXIT_USAGE : EXIT_FAILED,
  ) {
    super(reason instanceof Error ? reason.message : String(reason))
  }
}

async function runSend(flags: SendFlags): Promise<number> {
  const deps = await loadDeps()
  const report = new Reporter(deps, flags.json === true)
  const timeoutMs = flags.timeout ?? 30_000
  let close = async () => {}
  try {
    const usage = checkFlags(deps, flags)
    if (usage) throw new StageError('invalid arguments', new Error(usage), EXIT_USAGE)
    // The one event source, chosen before anything is sent (follow-sources.ts).
    const { chooseSource } = await import('./follow-sources.js')
    const { rpc, source } = await chooseSource(flags.rpcUrl).catch((error) => {
      throw new StageError('connection failed', error)
    })
    close = () => source.close()

    report.step(flags.raw ? 'Reading the raw transaction…' : 'Preparing the transaction…')
    const prepared = await (flags.raw ? describeRaw(deps, flags.raw as Hex) : prepare(deps, rpc, flags)).catch((error) => {
      throw new StageError(error instanceof TransportError ? 'connection failed' : 'cannot prepare the transaction', error)
    })
    report.done(prepared)

    report.step('Submitting…')
    const t0 = performance.now()
    const hash = String(
      await rpc.request<string>('eth_sendRawTransaction', [prepared.raw]).catch((error) => {
        throw new StageError(error instanceof TransportError ? 'connection failed' : 'rejected', error)
      }),
    ).toLowerCase()
    const acceptedMs = Math.round(performance.now() - t0)
    report.line(true, `Accepted ${hash} (${acceptedMs} ms)`)
    report.step('Waiting for pre-confirmation…')
    source.track({ hash, from: prepared.from, nonce: prepared.nonce }, t0)

    let revert: string | undefined
    const end = await (async () => {
      const { follow } = await import('./follow.js')
      return follow(source, t0 + timeoutMs, t0, async (from, to) => {
        // A revert's reason, asked once the receipt says so (pre-confirmed or sealed): cast send prints it.
        if (to.receipt?.status === '0x0' && revert === undefined)
          revert = await revertReason(deps, rpc, hash, to.receipt.blockNumber)
        for (const { ok, text } of transitionLines(from, to, { revert, timeoutMs, prepared })) report.line(ok, text)
        if (to.stage === 'preconfirmed') report.step(`Waiting for block ${to.blockNumber ?? ''} to be sealed…`)
        if (to.stage === 'accepted') report.step('Waiting for pre-confirmation again…')
      })
    })().catch((error) => {
      throw new StageError('connection failed', error)
    })
    const created = end.stage === 'sealed' && end.receipt?.status === '0x1' ? end.receipt.contractAddress : undefined
    if (created) report.line(true, `Contract created at ${deps.viem.getAddress(created)}`)
    if (flags.json) {
      const outcome = jsonOutcome(hash, prepared, end, {
        acceptedMs,
        transport: source.transport,
        revert,
        getAddress: deps.viem.getAddress,
      })
      console.log(JSON.stringify(outcome))
    }
    return end.stage === 'sealed' && end.receipt?.status === '0x1' ? 0 : EXIT_FAILED
  } catch (error) {
    const failure = error instanceof StageError ? error : new StageError('failed', error)
    report.fail(failure.stage, failure.reason)
    return failure.exitCode
  } finally {
    await close().catch(() => {})
  }
}

/** The --json object: what was sent, where it ended, and when each stage came. */
function jsonOutcome(
  hash: string,
  prepared: Prepared,
  end: FollowState,
  more: { acceptedMs: number; transport: string; revert?: string; getAddress: (address: string) => string },
) {
  const { acceptedMs, transport, revert, getAddress } = more
  const r = end.receipt
  return {
    hash,
    from: prepared.from,
    to: prepared.to,
    nonce: prepared.nonce,
    value: prepared.value?.toString(),
    stage: end.stage,
    status: end.stage === 'sealed' ? (r?.status === '0x1' ? 'success' : 'reverted') : undefined,
    revertReason: revert,
    contractAddress: r?.contractAddress ? getAddress(r.contractAddress) : undefined,
    blockNumber: end.stage === 'sealed' ? end.blockNumber : undefined,
    blockHash: end.stage === 'sealed' ? r?.blockHash : undefined,
    flashblockIndex: end.flashblockIndex,
    gasUsed: r ? BigInt(r.gasUsed).toString() : undefined,
    dropReason: end.stage === 'dropped' ? end.dropped?.reason : undefined,
    transport,
    timings: { acceptedMs, preconfirmedMs: end.preconfirmedMs, sealedMs: end.sealedMs },
  }
}

function checkFlags({ viem }: SendDeps, flags: SendFlags): string | undefined {
  if (flags.raw !== undefined) {
    if (!viem.isHex(flags.raw) || flags.raw.length < 4) return '--raw must be 0x-prefixed hex'
    if (flags.to || flags.data || flags.privateKey || flags.value !== undefined || flags.gas !== undefined) {
      return '--raw is already signed: it takes no --to, --value, --data, --gas or --private-key'
    }
    return undefined
  }
  if (flags.to !== undefined && !viem.isAddress(flags.to, { strict: false })) return `--to is not an address: ${flags.to}`
  if (flags.data !== undefined && !viem.isHex(flags.data)) return '--data must be 0x-prefixed hex'
  if (flags.to === undefined && flags.data === undefined) return 'give --to (and --value), --data to deploy, or --raw'
  if (flags.privateKey !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(flags.privateKey)) {
    return '--private-key must be 32 bytes of 0x-prefixed hex'
  }
  return undefined
}

async function describeRaw({ viem }: SendDeps, raw: Hex): Promise<Prepared> {
  try {
    const tx = viem.parseTransaction(raw as TransactionSerialized)
    const from = await viem
      .recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized })
      .catch(() => undefined)
    return { raw, from, to: tx.to ?? null, nonce: tx.nonce, value: tx.value ?? 0n }
  } catch {
    // Let the node judge what viem cannot parse; its error text is the one that matters.
    return { raw }
  }
}

const hex = (n: bigint) => `0x${n.toString(16)}`

/** Signs with the chosen account, taking chain id, nonce, fees and gas from the endpoint. */
async function prepare({ accounts, describeRevert }: SendDeps, rpc: Rpc, flags: SendFlags): Promise<Prepared> {
  const account = flags.privateKey
    ? accounts.privateKeyToAccount(flags.privateKey as Hex)
    : accounts.mnemonicToAccount(flags.mnemonic, { addressIndex: flags.from })
  const to = flags.to as Hex | undefined
  const data = flags.data as Hex | undefined
  const value = flags.value ?? 0n
  const call = { from: account.address, to, value: hex(value), data }
  const estimate = async () => {
    try {
      return await rpc.request<string>('eth_estimateGas', [call, 'pending'])
    } catch (error) {
      // A revert while estimating: its reason (a custom error's selector when the node gives only data).
      const reason = error instanceof RpcCallError && !/: /.test(error.message) ? describeRevert(error.data) : undefined
      throw reason ? new RpcCallError((error as RpcCallError).code, `${(error as Error).message}: ${reason}`) : error
    }
  }
  const [chainId, nonce, block, tip, gas] = await Promise.all([
    rpc.request<string>('eth_chainId'),
    rpc.request<string>('eth_getTransactionCount', [account.address, 'pending']),
    rpc.request<{ baseFeePerGas?: string } | null>('eth_getBlockByNumber', ['pending', false]),
    rpc.request<string>('eth_maxPriorityFeePerGas').catch(() => undefined),
    flags.gas !== undefined ? hex(flags.gas) : estimate(),
  ])
  const base = { chainId: Number(chainId), nonce: Number(nonce), to, value, data, gas: BigInt(gas) }
  let raw: Hex
  if (block?.baseFeePerGas !== undefined) {
    const maxPriorityFeePerGas = tip !== undefined ? BigInt(tip) : 1_000_000_000n
    // Twice the base fee plus the tip: room for the base fee to rise while the transaction waits.
    const maxFeePerGas = BigInt(block.baseFeePerGas) * 2n + maxPriorityFeePerGas
    raw = await account.signTransaction({ ...base, type: 'eip1559', maxFeePerGas, maxPriorityFeePerGas })
  } else {
    const gasPrice = BigInt(await rpc.request<string>('eth_gasPrice'))
    raw = await account.signTransaction({ ...base, type: 'legacy', gasPrice })
  }
  return { raw, from: account.address, to: to ?? null, nonce: base.nonce, value }
}

/**
 * Why a mined transaction reverted: the top frame of geth's callTracer (its revertReason, else its
 * output decoded); on a node without debug_traceTransaction, the transaction's call replayed on the
 * state before its block (eth_call), whose error carries the revert data.
 */
async function revertReason({ describeRevert }: SendDeps, rpc: Rpc, hash: string, block: string): Promise<string> {
  try {
    const frame = await rpc.request<{ revertReason?: string; output?: string; error?: string }>('debug_traceTransaction', [
      hash,
      { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } },
    ])
    return frame.revertReason ?? describeRevert(frame.output) ?? frame.error ?? 'no reason given'
  } catch (error) {
    if (error instanceof TransportError) throw error
  }
  try {
    const tx = await rpc.request<Record<string, string>>('eth_getTransactionByHash', [hash])
    const call = { from: tx.from, to: tx.to, data: tx.input, value: tx.value, gas: tx.gas }
    await rpc.request('eth_call', [call, hex(BigInt(block) - 1n)])
    return 'no reason given'
  } catch (error) {
    if (error instanceof TransportError) throw error
    const reason = error instanceof RpcCallError ? describeRevert(error.data) : undefined
    return reason ?? (error as Error).message
  }
}
