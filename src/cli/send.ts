// `pcnode send`: sign a transfer or call (a dev account or a private key) or take a signed raw
// transaction, submit it to any JSON-RPC endpoint and follow it live: accepted → pre-confirmed →
// sealed. It speaks plain JSON-RPC (fetch and ws) and signs with viem, so the engine
// (@ethereumjs/*) stays out of this command's imports. Statically it imports only commander:
// the CLI entry loads this file for every command, and `pcnode start` must not pay for viem,
// ws, chalk and ora (~0.45 s); they load when `send` runs (deps()).
import type { Command } from 'commander'
import type { Ora } from 'ora'
import type { Hex, TransactionSerialized } from 'viem'
import type WebSocket from 'ws'
import { DEFAULT_MNEMONIC } from '../node/options.js'
import { RpcCallError, rpcRequest, TransportError } from './rpc-client.js'
import { formatEther, parseAmount, parseBigInt, parseDuration, parseInteger } from './units.js'

async function loadDeps() {
  const [chalk, ora, viem, accounts, ws] = await Promise.all([
    import('chalk'),
    import('ora'),
    import('viem'),
    import('viem/accounts'),
    import('ws'),
  ])
  return { chalk: chalk.default, ora: ora.default, viem, accounts, WebSocket: ws.default }
}
let deps: Awaited<ReturnType<typeof loadDeps>>

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

/** Exit codes: 1 rejected, reverted or not followed to the end in time; 2 the endpoint cannot be reached. */
const EXIT_FAILED = 1
const EXIT_CONNECTION = 2
const ZERO_HASH = `0x${'0'.repeat(64)}`
/** Receipt polling period when no WebSocket is available. */
const POLL_MS = 25
const WS_CONNECT_TIMEOUT_MS = 1500
const REQUEST_TIMEOUT_MS = 10_000

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
    .option('--rpc-url <url>', 'JSON-RPC endpoint, http(s) or ws(s)', 'http://127.0.0.1:8545')
    .option('--timeout <time>', 'how long to follow the transaction: seconds or e.g. 500ms', parseDuration('timeout'), 30_000)
    .option('--json', 'print one JSON object with the hash, timings and block (for scripts)')
    .action(async (flags: SendFlags) => {
      process.exitCode = await runSend(flags)
    })
}

// --- JSON-RPC over HTTP and WebSocket ------------------------------------------------------------

/** Ran out of time following the transaction. */
class FollowTimeout extends Error {}

interface Rpc {
  request<T = any>(method: string, params?: unknown[]): Promise<T>
}

function httpRpc(url: string): Rpc {
  return { request: (method, params = []) => rpcRequest(url, method, params, REQUEST_TIMEOUT_MS) as Promise<any> }
}

class WsRpc implements Rpc {
  private id = 0
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>()
  private readonly subscriptions = new Map<string, (data: any) => void>()
  private closed: ((error: Error) => void) | undefined

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      let msg: any
      try {
        msg = JSON.parse(String(raw))
      } catch {
        return
      }
      if (msg.method === 'eth_subscription') {
        this.subscriptions.get(msg.params?.subscription)?.(msg.params?.result)
        return
      }
      const waiter = this.pending.get(msg.id)
      if (!waiter) return
      this.pending.delete(msg.id)
      if (msg.error) waiter.reject(new RpcCallError(msg.error.code, msg.error.message, msg.error.data))
      else waiter.resolve(msg.result)
    })
    ws.on('close', () => {
      const error = new TransportError('the WebSocket connection closed')
      for (const w of this.pending.values()) w.reject(error)
      this.pending.clear()
      this.closed?.(error)
    })
    ws.on('error', () => {})
  }

  static connect(url: string): Promise<WsRpc> {
    return new Promise((resolve, reject) => {
      const ws = new deps.WebSocket(url, { handshakeTimeout: WS_CONNECT_TIMEOUT_MS })
      ws.once('open', () => resolve(new WsRpc(ws)))
      ws.once('error', (error) => reject(new TransportError(`cannot reach ${url}: ${error.message}`)))
    })
  }

  request<T = any>(method: string, params: unknown[] = []): Promise<T> {
    return new Promise((resolve, reject) => {
      const id = ++this.id
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject })
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    })
  }

  async subscribe(params: unknown[], onData: (data: any) => void): Promise<string> {
    const id = await this.request<string>('eth_subscribe', params)
    this.subscriptions.set(id, onData)
    return id
  }

  onClose(fn: (error: Error) => void): void {
    this.closed = fn
  }

  close(): void {
    this.closed = undefined
    this.ws.close()
  }
}

/** ws:// for http://, wss:// for https:// (same host, port and path: pcnode serves both on one port). */
export function wsUrlFor(url: string): string | undefined {
  if (/^wss?:\/\//i.test(url)) return url
  if (/^https?:\/\//i.test(url)) return url.replace(/^http/i, 'ws')
  return undefined
}

// --- the command ---------------------------------------------------------------------------------

interface Prepared {
  raw: Hex
  from?: string
  to?: string | null
  nonce?: number
  value?: bigint
}

interface Outcome {
  hash: string
  acceptedMs: number
  preconfirmedMs?: number
  sealedMs?: number
  blockNumber?: number
  blockHash?: string
  flashblockIndex?: number
  status?: 'success' | 'reverted'
  gasUsed?: bigint
}

class Reporter {
  private spinner: Ora | undefined

  constructor(private readonly json: boolean) {}

  step(text: string): void {
    if (this.json) return
    this.spinner = deps.ora({ text, stream: process.stdout }).start()
  }

  done(text: string): void {
    this.spinner?.succeed(text)
    this.spinner = undefined
  }

  fail(text: string): void {
    if (this.json) return
    if (this.spinner) this.spinner.fail(text)
    else console.error(`${deps.chalk.red('✖')} ${text}`)
    this.spinner = undefined
  }

  info(text: string): void {
    if (!this.json) console.log(deps.chalk.dim(text))
  }
}

async function runSend(flags: SendFlags): Promise<number> {
  deps = await loadDeps()
  const report = new Reporter(flags.json === true)
  const url = flags.rpcUrl
  const wsUrl = wsUrlFor(url)
  const isWsUrl = /^wss?:\/\//i.test(url)
  let ws: WsRpc | undefined
  const fail = (error: unknown, stage: string): number => {
    const code = error instanceof TransportError ? EXIT_CONNECTION : EXIT_FAILED
    const message = error instanceof Error ? error.message : String(error)
    if (flags.json) {
      const rpcCode = error instanceof RpcCallError ? { code: error.code, data: error.data } : {}
      console.log(JSON.stringify({ error: message, stage, ...rpcCode }))
    } else {
      report.fail(`${stage}: ${message}`)
    }
    return code
  }
  try {
    const usage = checkFlags(flags, url)
    if (usage) return fail(new Error(usage), 'invalid arguments')
    // A WebSocket lets us watch pre-confirmations as they happen; plain HTTP falls back to polling.
    if (wsUrl) {
      try {
        ws = await WsRpc.connect(wsUrl)
      } catch (error) {
        if (isWsUrl) throw error
      }
    }
    const rpc: Rpc = isWsUrl ? (ws as WsRpc) : httpRpc(url)

    report.step(flags.raw ? 'Reading the raw transaction…' : 'Preparing the transaction…')
    let prepared: Prepared
    try {
      prepared = flags.raw ? await describeRaw(flags.raw as Hex) : await prepare(rpc, flags)
    } catch (error) {
      return fail(error, 'cannot prepare the transaction')
    }
    const what = [
      prepared.from ? `from ${prepared.from}` : undefined,
      prepared.to ? `to ${prepared.to}` : prepared.to === null ? 'deploying a contract' : undefined,
      prepared.value !== undefined ? `value ${formatEther(prepared.value, 18)} ETH` : undefined,
      prepared.nonce !== undefined ? `nonce ${prepared.nonce}` : undefined,
    ]
      .filter(Boolean)
      .join(', ')
    report.done(what ? `Signed: ${what}` : 'Raw transaction read')

    const outcome = await submitAndFollow(rpc, ws, prepared.raw, flags, report)
    if (flags.json) {
      console.log(
        JSON.stringify({
          hash: outcome.hash,
          from: prepared.from,
          to: prepared.to,
          nonce: prepared.nonce,
          value: prepared.value?.toString(),
          status: outcome.status,
          blockNumber: outcome.blockNumber,
          blockHash: outcome.blockHash,
          flashblockIndex: outcome.flashblockIndex,
          gasUsed: outcome.gasUsed?.toString(),
          transport: ws ? 'websocket' : 'http',
          timings: { acceptedMs: outcome.acceptedMs, preconfirmedMs: outcome.preconfirmedMs, sealedMs: outcome.sealedMs },
        }),
      )
    }
    return outcome.status === 'reverted' ? EXIT_FAILED : 0
  } catch (error) {
    if (error instanceof StageError) return fail(error.cause, error.stage)
    return fail(error, error instanceof TransportError ? 'connection failed' : 'failed')
  } finally {
    ws?.close()
  }
}

function checkFlags(flags: SendFlags, url: string): string | undefined {
  if (!wsUrlFor(url)) return `--rpc-url must start with http://, https://, ws:// or wss:// (got "${url}")`
  if (flags.raw !== undefined) {
    if (!deps.viem.isHex(flags.raw) || flags.raw.length < 4) return '--raw must be 0x-prefixed hex'
    if (flags.to || flags.data || flags.privateKey || flags.value !== undefined || flags.gas !== undefined) {
      return '--raw is already signed: it takes no --to, --value, --data, --gas or --private-key'
    }
    return undefined
  }
  if (flags.to !== undefined && !deps.viem.isAddress(flags.to, { strict: false })) return `--to is not an address: ${flags.to}`
  if (flags.data !== undefined && !deps.viem.isHex(flags.data)) return '--data must be 0x-prefixed hex'
  if (flags.to === undefined && flags.data === undefined) return 'give --to (and --value), --data to deploy, or --raw'
  if (flags.privateKey !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(flags.privateKey)) {
    return '--private-key must be 32 bytes of 0x-prefixed hex'
  }
  return undefined
}

async function describeRaw(raw: Hex): Promise<Prepared> {
  try {
    const tx = deps.viem.parseTransaction(raw as TransactionSerialized)
    const from = await deps.viem
      .recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized })
      .catch(() => undefined)
    return { raw, from, to: tx.to ?? null, nonce: tx.nonce, value: tx.value ?? 0n }
  } catch {
    // Let the node judge what viem cannot parse; its error text is the one that matters.
    return { raw }
  }
}

/** Signs with the chosen account, taking chain id, nonce, fees and gas from the endpoint. */
async function prepare(rpc: Rpc, flags: SendFlags): Promise<Prepared> {
  const account = flags.privateKey
    ? deps.accounts.privateKeyToAccount(flags.privateKey as Hex)
    : deps.accounts.mnemonicToAccount(flags.mnemonic, { addressIndex: flags.from })
  const to = flags.to as Hex | undefined
  const data = flags.data as Hex | undefined
  const value = flags.value ?? 0n
  const call = { from: account.address, to, value: hex(value), data }
  const [chainId, nonce, block, tip, gas] = await Promise.all([
    rpc.request<string>('eth_chainId'),
    rpc.request<string>('eth_getTransactionCount', [account.address, 'pending']),
    rpc.request<{ baseFeePerGas?: string } | null>('eth_getBlockByNumber', ['pending', false]),
    rpc.request<string>('eth_maxPriorityFeePerGas').catch(() => undefined),
    flags.gas !== undefined ? Promise.resolve(hex(flags.gas)) : rpc.request<string>('eth_estimateGas', [call, 'pending']),
  ])
  const base = {
    chainId: Number(chainId),
    nonce: Number(nonce),
    to,
    value,
    data,
    gas: BigInt(gas),
  }
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

class StageError extends Error {
  constructor(
    readonly stage: string,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause))
  }
}

const hex = (n: bigint) => `0x${n.toString(16)}`
const elapsed = (t0: number) => Math.round(performance.now() - t0)

interface Receipt {
  blockHash: string
  blockNumber: string
  status: string
  gasUsed: string
}

/**
 * Submits and follows. With a WebSocket it subscribes to newFlashblockTransactions and newHeads
 * before submitting, so nothing is missed; without one (or when the node lacks the flashblock
 * subscription) it polls the receipt: a zero blockHash means pre-confirmed, a real one sealed.
 */
async function submitAndFollow(rpc: Rpc, ws: WsRpc | undefined, raw: Hex, flags: SendFlags, report: Reporter): Promise<Outcome> {
  const preconfAt = new Map<string, number>()
  const heads = new Map<number, { at: number; hash: string }>()
  let wake: (() => void) | undefined
  let live = false
  let t0 = 0
  if (ws) {
    try {
      await ws.subscribe(['newFlashblockTransactions'], (txHash: string) => {
        const k = String(txHash).toLowerCase()
        if (!preconfAt.has(k)) preconfAt.set(k, elapsed(t0))
        wake?.()
      })
      await ws.subscribe(['newHeads'], (head: { number: string; hash: string }) => {
        heads.set(Number(head.number), { at: elapsed(t0), hash: head.hash })
        wake?.()
      })
      live = true
    } catch (error) {
      if (error instanceof TransportError) throw error
      // The endpoint has no flashblock subscriptions: poll instead.
    }
  }

  report.step('Submitting…')
  t0 = performance.now()
  let hash: string
  try {
    hash = String(await rpc.request<string>('eth_sendRawTransaction', [raw])).toLowerCase()
  } catch (error) {
    throw new StageError(error instanceof TransportError ? 'connection failed' : 'rejected', error)
  }
  const outcome: Outcome = { hash, acceptedMs: elapsed(t0) }
  report.done(`Accepted ${hash} (${outcome.acceptedMs} ms)`)

  const deadline = t0 + flags.timeout
  let closedError: Error | undefined
  ws?.onClose((error) => {
    closedError = error
    wake?.()
  })
  /** Resolves on the next notification (or after `ms`); throws once the deadline has passed. */
  const next = (ms: number) =>
    new Promise<void>((resolve, reject) => {
      if (closedError) return reject(closedError)
      const left = deadline - performance.now()
      if (left <= 0) return reject(new FollowTimeout())
      const timer = setTimeout(
        () => {
          wake = undefined
          resolve()
        },
        Math.min(ms, left),
      )
      wake = () => {
        clearTimeout(timer)
        wake = undefined
        resolve()
      }
    })
  const receiptOf = () => rpc.request<Receipt | null>('eth_getTransactionReceipt', [hash])
  const sealedReceipt = (r: Receipt | null) => r !== null && r.blockHash !== ZERO_HASH

  try {
    report.step('Waiting for pre-confirmation…')
    let receipt: Receipt | null = null
    for (;;) {
      if (live) {
        const at = preconfAt.get(hash)
        if (at !== undefined) {
          outcome.preconfirmedMs = at
          receipt = await receiptOf()
          break
        }
        await next(1000)
      } else {
        receipt = await receiptOf()
        if (receipt) {
          outcome.preconfirmedMs = elapsed(t0)
          break
        }
        await next(POLL_MS)
      }
    }
    await fillStatus(rpc, hash, outcome, receipt)
    const where = outcome.flashblockIndex !== undefined ? `flashblock ${outcome.flashblockIndex} of block` : 'block'
    report.done(`Pre-confirmed in ${where} ${outcome.blockNumber ?? '?'} (+${outcome.preconfirmedMs} ms)`)

    report.step(`Waiting for block ${outcome.blockNumber ?? ''} to be sealed…`)
    for (;;) {
      if (sealedReceipt(receipt)) {
        outcome.sealedMs ??= elapsed(t0)
        break
      }
      if (live && outcome.blockNumber !== undefined) {
        const head = heads.get(outcome.blockNumber) ?? [...heads.entries()].find(([n]) => n > (outcome.blockNumber ?? 0))?.[1]
        if (head) {
          receipt = await receiptOf()
          if (sealedReceipt(receipt)) {
            outcome.sealedMs = head.at
            continue
          }
        }
        await next(1000)
      } else {
        await next(POLL_MS)
        receipt = await receiptOf()
      }
    }
    const sealed = receipt as Receipt
    outcome.blockNumber = Number(sealed.blockNumber)
    outcome.blockHash = sealed.blockHash
    outcome.status = sealed.status === '0x1' ? 'success' : 'reverted'
    outcome.gasUsed = BigInt(sealed.gasUsed)
    const text = `Sealed in block ${outcome.blockNumber} ${outcome.blockHash} (+${outcome.sealedMs} ms), gas used ${outcome.gasUsed}`
    if (outcome.status === 'success') report.done(text)
    else report.fail(`${text}: reverted (status 0)`)
    return outcome
  } catch (error) {
    if (error instanceof FollowTimeout) {
      const stage = outcome.preconfirmedMs === undefined ? 'not pre-confirmed' : 'not sealed'
      throw new StageError(stage, new Error(`${hash} still waiting after ${flags.timeout} ms`))
    }
    throw error
  }
}

/** Block number and, on pcnode, the flashblock index (pcnode_transactionStatus; other nodes lack it). */
async function fillStatus(rpc: Rpc, hash: string, outcome: Outcome, receipt: Receipt | null): Promise<void> {
  if (receipt) outcome.blockNumber = Number(receipt.blockNumber)
  try {
    const status = await rpc.request<{ blockNumber?: string; flashblockIndex?: string }>('pcnode_transactionStatus', [hash])
    if (status.flashblockIndex !== undefined) outcome.flashblockIndex = Number(status.flashblockIndex)
    if (status.blockNumber !== undefined) outcome.blockNumber ??= Number(status.blockNumber)
  } catch (error) {
    if (error instanceof TransportError) throw error
  }
}
