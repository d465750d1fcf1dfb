// `pcnode typed-data prepare` and `pcnode typed-data verify`: the CLI side of the example typed-data app
// (src/app). `prepare` asks a running app for a payload; `verify` checks a signature over a payload file
// directly against a node (viem's verifyTypedData: EOA, ERC-1271, ERC-6492), or through the app's
// POST /typed-data/verify with --app-url. Signing is `pcnode typed-data sign` (typed-data.ts).
// A client only: no @ethereumjs/* and no ../app/* imports (the app's server code stays out of the CLI);
// viem and chalk load inside the actions (deps()).
import { readFile } from 'node:fs/promises'
import type { Command } from 'commander'
import type { Hex } from 'viem'
import { DEFAULT_RPC_URL, rpcUrlOption } from './rpc-client.js'
import { readTypedDataFile, typedDataCommand, typedDataHash } from './typed-data.js'
import { connect, deps, EXIT_FAILED, FailedError, runClient, UsageError } from './wallet.js'

export const DEFAULT_APP_URL = 'http://127.0.0.1:3001'

interface PrepareFlags {
  address: string
  action: string
  resource: string
  appUrl: string
  json?: boolean
}

interface VerifyFlags {
  signature: string
  address: string
  rpcUrl?: string
  appUrl?: string
  json?: boolean
}

/** Adds `prepare` and `verify` to the `pcnode typed-data` group. */
export function registerTypedDataApp(program: Command): void {
  const group = typedDataCommand(program)
  group
    .command('prepare')
    .description('get a payload to sign from a running example app (GET /typed-data/prepare)')
    .requiredOption('--address <address>', 'the signer (EOA or smart wallet) the payload is for')
    .requiredOption('--action <action>', 'what the signer authorizes, e.g. read')
    .requiredOption('--resource <resource>', 'what it applies to, e.g. /reports/2026')
    .option('--app-url <url>', 'URL of the example app (pcnode start runs it)', DEFAULT_APP_URL)
    .option('--json', 'print only the payload JSON (save it to a file for sign and verify)')
    .action((flags: PrepareFlags) => runClient(() => prepare(flags)))
  group
    .command('verify')
    .description('verify a signature over the EIP-712 payload in FILE: against a node, or through the app with --app-url')
    .argument('<file>', 'JSON file with the typed data, e.g. from `pcnode typed-data prepare --json`')
    .requiredOption('--signature <hex>', 'the signature (an EOA, ERC-1271 wallet or ERC-6492-wrapped signature)')
    .requiredOption('--address <address>', 'the signer address')
    .option(
      '--rpc-url <url>',
      `JSON-RPC endpoint of the node (default: ${DEFAULT_RPC_URL}; without a scheme: http://)`,
      rpcUrlOption(),
    )
    .option('--app-url <url>', "verify through the app's POST /typed-data/verify instead (nonce, expiry, signature)")
    .option('--json', 'print the result as JSON')
    .action((file: string, flags: VerifyFlags) => runClient(() => verify(file, flags)))
}

async function prepare(flags: PrepareFlags): Promise<void> {
  const { viem, chalk } = await deps()
  if (!viem.isAddress(flags.address, { strict: false })) throw new UsageError(`--address: not an address: ${flags.address}`)
  const base = appBase(flags.appUrl)
  const query = new URLSearchParams({ userAddress: flags.address, action: flags.action, resource: flags.resource })
  const { status, body } = await request(base, `/typed-data/prepare?${query}`)
  if (status !== 200) throw new FailedError(`the app answered ${status}: ${appError(body)}`)
  if (flags.json) {
    console.log(JSON.stringify(body, null, 2))
    return
  }
  const payload = body as { domain?: Record<string, unknown>; primaryType?: string; message?: Record<string, unknown> }
  const label = (s: string) => chalk.bold(s.padEnd(13))
  const domain = payload.domain ?? {}
  console.log(`${label('Domain')}${domain.name} v${domain.version}, chain ${domain.chainId}, ${domain.verifyingContract}`)
  console.log(`${label('Primary type')}${payload.primaryType}`)
  for (const [key, value] of Object.entries(payload.message ?? {})) {
    const shown = key === 'expiry' ? `${value} (${new Date(Number(value) * 1000).toISOString()})` : String(value)
    console.log(`${label(`  ${key}`)}${shown}`)
  }
  console.log('')
  console.log(JSON.stringify(body, null, 2))
  console.error(chalk.dim('(--json prints only the payload, to save it for `pcnode typed-data sign FILE`)'))
}

async function verify(file: string, flags: VerifyFlags): Promise<void> {
  const { viem, chalk } = await deps()
  if (flags.appUrl !== undefined && flags.rpcUrl !== undefined) {
    throw new UsageError('give --rpc-url (verify against a node) or --app-url (verify through the app), not both')
  }
  const signature = flags.signature.startsWith('0x') ? flags.signature : `0x${flags.signature}`
  if (!viem.isHex(signature, { strict: true }) || signature.length < 4 || signature.length % 2 !== 0) {
    throw new UsageError('--signature: expected hex bytes')
  }
  if (!viem.isAddress(flags.address, { strict: false })) throw new UsageError(`--address: not an address: ${flags.address}`)

  if (flags.appUrl !== undefined) {
    // The app gets the file's JSON as it is (as the browser would send it), not a re-encoding.
    const base = appBase(flags.appUrl)
    const typedData = await readJsonFile(file)
    const { status, body } = await request(base, '/typed-data/verify', { typedData, signature, address: flags.address })
    if (flags.json) console.log(JSON.stringify({ status, body }))
    else if (status === 200) console.log(`${chalk.green(`${status} valid`)}: ${describeSuccess(body)}`)
    else console.log(`${chalk.red(String(status))}: ${appError(body)}`)
    if (status !== 200) process.exitCode = EXIT_FAILED
    return
  }

  const payload = await readTypedDataFile(file)
  const hash = typedDataHash(viem, payload, file)
  const node = await connect(flags.rpcUrl ?? DEFAULT_RPC_URL) // fails (exit 2) when the node cannot be reached
  const valid = await node.client.verifyTypedData({
    address: flags.address as Hex,
    domain: payload.domain,
    types: payload.types as never,
    primaryType: payload.primaryType,
    message: payload.message,
    signature: signature as Hex,
  })
  const expiry = payload.message.expiry
  const expired = typeof expiry === 'bigint' && expiry < BigInt(Math.floor(Date.now() / 1000))
  if (flags.json) {
    console.log(JSON.stringify({ valid, address: flags.address, hash, chainId: node.chainId }))
  } else {
    const verdict = valid ? chalk.green('valid') : chalk.red('invalid')
    console.log(`${verdict}: signature by ${flags.address} over ${hash} (EIP-712, ${payload.primaryType}), chain ${node.chainId}`)
    if (expired) console.error(chalk.yellow(`note: message.expiry ${expiry} has passed (the app would refuse it)`))
  }
  if (!valid) process.exitCode = EXIT_FAILED
}

function appBase(appUrl: string): string {
  try {
    // Without a scheme, http:// (as --rpc-url).
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(appUrl) ? appUrl : `http://${appUrl}`)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error()
    return url.toString().replace(/\/+$/, '')
  } catch {
    throw new UsageError(`--app-url: not an http(s) URL: ${appUrl}`)
  }
}

/** GET (no body) or POST JSON to the app; a connection failure is exit 2, a non-JSON answer exit 1. */
async function request(base: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  let res: Response
  try {
    res = await fetch(`${base}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    })
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    throw new UsageError(`cannot reach the app ${base}: ${cause?.code ?? cause?.message ?? (error as Error).message}`)
  }
  const text = await res.text()
  try {
    return { status: res.status, body: JSON.parse(text) }
  } catch {
    throw new FailedError(`the app at ${base} answered ${res.status} with something other than JSON: ${text.slice(0, 200)}`)
  }
}

function appError(body: unknown): string {
  const error = (body as { error?: unknown } | null)?.error
  return typeof error === 'string' ? error : JSON.stringify(body)
}

function describeSuccess(body: unknown): string {
  const b = body as { message?: string; action?: unknown; resource?: unknown; data?: { action?: unknown; resource?: unknown } }
  const action = b.action ?? b.data?.action
  const resource = b.resource ?? b.data?.resource
  return `${b.message ?? 'verified'}${action !== undefined ? ` (action ${action} on ${resource})` : ''}`
}

async function readJsonFile(file: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`)
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new FailedError(`${file} is not JSON: ${(error as Error).message}`)
  }
}
