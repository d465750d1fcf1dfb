// `pcnode wallet create`: the counterfactual address of a PcnodeSmartWallet (owners: one address or one
// passkey) from the predeployed factory, optionally deployed from a dev account. A JSON-RPC client only:
// this file, like every client subcommand, must not import @ethereumjs/* (nor ../index.js), so running it
// never loads the engine. viem, chalk and the contract artifacts load inside the actions (deps()): the CLI
// entry imports this file, and `pcnode start` should not pay ~0.5 s for them. The helpers at the bottom
// (connecting, exit codes, keys) are shared with typed-data.ts.
import type { Command } from 'commander'
import type { Address, Chain, Hex, HttpTransport, PublicClient } from 'viem'
import type { HDAccount, PrivateKeyAccount } from 'viem/accounts'
import { DEFAULT_MNEMONIC } from '../node/options.js'
import { DEFAULT_RPC_URL, RpcCallError, rpcRequest, rpcUrlOption, TransportError, unreachable } from './rpc-client.js'
import { parseBigInt, parseInteger } from './units.js'

interface CreateFlags {
  owner?: string
  passkeyPubkey?: string
  nonce?: bigint
  deploy?: boolean
  from: number
  mnemonic: string
  rpcUrl: string
  json?: boolean
}

/** Registers `pcnode wallet` (and `wallet create`); returns the group so more subcommands can be added. */
export function walletCommand(program: Command): Command {
  const wallet = clientGroup(program, 'wallet', 'smart wallets from the predeployed PcnodeWalletFactory')
  wallet
    .command('create')
    .description("print a wallet's counterfactual address (owned by one address or one passkey); --deploy deploys it")
    .option('--owner <address>', 'owner address (an EOA, or a contract verified through ERC-1271)')
    .option('--passkey-pubkey <x,y>', 'owner passkey: P-256 public key coordinates, hex or decimal, comma-separated')
    // No bigint default: commander's help JSON-encodes defaults.
    .option('--nonce <n>', 'wallet nonce: one owner set can have many wallets (default 0)', parseBigInt('nonce'))
    .option('--deploy', 'deploy the wallet through the factory (from a dev account)')
    .option('--from <index>', 'dev account that sends the deployment', parseInteger('from'), 0)
    .option('-m, --mnemonic <words>', 'mnemonic of the dev accounts', DEFAULT_MNEMONIC)
    .option('--rpc-url <url>', 'JSON-RPC endpoint of the node (without a scheme: http://)', rpcUrlOption(), DEFAULT_RPC_URL)
    .option('--json', 'print {address, factory, factoryData, deployed} as JSON')
    .action((flags: CreateFlags) => runClient(() => create(flags)))
  return wallet
}

async function create(flags: CreateFlags): Promise<void> {
  if ((flags.owner === undefined) === (flags.passkeyPubkey === undefined)) {
    throw new UsageError('give exactly one of --owner <address> or --passkey-pubkey <x,y>')
  }
  const { viem, accounts, chalk, contracts } = await deps()
  const owner = flags.owner !== undefined ? await parseOwnerAddress(flags.owner) : await parsePasskey(flags.passkeyPubkey!)
  const owners = [owner.bytes]
  const nonce = flags.nonce ?? 0n
  const node = await connect(flags.rpcUrl)
  const address = await walletAddress(node.client, owners, nonce)
  const factory = contracts.WALLET_FACTORY_ADDRESS
  const data = contracts.factoryData(owners, nonce)
  let deployed = await hasCode(node.client, address)
  let transactionHash: Hex | undefined
  if (flags.deploy && !deployed) {
    const account = accounts.mnemonicToAccount(flags.mnemonic, { addressIndex: flags.from })
    const sender = viem.createWalletClient({ chain: node.chain, transport: node.transport, account })
    transactionHash = await sender.sendTransaction({ to: factory, data })
    const receipt = await waitForReceipt(node.client, transactionHash)
    if (receipt.status !== 'success') throw new FailedError(`deployment transaction ${transactionHash} reverted`)
    deployed = await hasCode(node.client, address)
    if (!deployed) throw new FailedError(`deployment transaction ${transactionHash} left no code at ${address}`)
  }
  if (flags.json) {
    const out: Record<string, unknown> = { address, factory, factoryData: data, deployed }
    if (transactionHash) out.transactionHash = transactionHash
    console.log(JSON.stringify(out))
    return
  }
  const label = (s: string) => chalk.bold(s.padEnd(13))
  console.log(`${label('Wallet')}${chalk.green(address)}`)
  console.log(`${label('Owner')}${owner.describe}`)
  console.log(`${label('Nonce')}${nonce}`)
  console.log(`${label('Factory')}${factory}`)
  console.log(`${label('Factory data')}${data}`)
  if (transactionHash) console.log(`${label('Deployed')}${chalk.green('yes')}, transaction ${transactionHash}`)
  else if (deployed) console.log(`${label('Deployed')}${chalk.green('yes')}`)
  else console.log(`${label('Deployed')}${chalk.yellow('no')} (counterfactual: its signatures are ERC-6492-wrapped)`)
}

async function parseOwnerAddress(value: string): Promise<{ bytes: Hex; describe: string }> {
  const { viem, contracts } = await deps()
  if (!viem.isAddress(value, { strict: false })) throw new UsageError(`--owner: not an address: ${value}`)
  return { bytes: contracts.encodeAddressOwner(value), describe: `${value} (address)` }
}

async function parsePasskey(value: string): Promise<{ bytes: Hex; describe: string }> {
  const parts = value.split(',').map((s) => s.trim())
  let x: bigint
  let y: bigint
  try {
    if (parts.length !== 2) throw new Error()
    ;[x, y] = parts.map((p) => BigInt(p))
  } catch {
    throw new UsageError(`--passkey-pubkey: expected two coordinates "x,y" (hex or decimal), got ${value}`)
  }
  const [{ viem, contracts }, { p256 }] = await Promise.all([deps(), import('@noble/curves/nist.js')])
  try {
    p256.Point.fromAffine({ x, y }).assertValidity()
  } catch {
    throw new UsageError('--passkey-pubkey: (x, y) is not a point on the P-256 curve')
  }
  const hex = (n: bigint) => viem.numberToHex(n, { size: 32 })
  return { bytes: contracts.encodePasskeyOwner(x, y), describe: `passkey x=${hex(x)}\n${' '.repeat(21)}y=${hex(y)}` }
}

// ---------------------------------------------------------------- shared by the client subcommands

/** Exit codes of the client subcommands: 0 ok, 1 invalid or failed, 2 usage or connection errors. */
export const EXIT_FAILED = 1
export const EXIT_USAGE = 2

export class UsageError extends Error {}
export class FailedError extends Error {}

/** The modules a client action needs, loaded on first use (see the header). */
export async function deps() {
  const [viem, accounts, chalk, contracts] = await Promise.all([
    import('viem'),
    import('viem/accounts'),
    import('chalk'),
    import('../contracts/index.js'),
  ])
  return { viem, accounts, chalk: chalk.default, contracts }
}

/**
 * A command group for client subcommands (`pcnode <name> …`), created once: calling it again returns the
 * existing group, so subcommands can be added from several files. Commander's own usage errors (unknown
 * option, missing argument) exit with 2, which subcommands added to the group inherit.
 */
export function clientGroup(program: Command, name: string, description: string): Command {
  const existing = program.commands.find((c) => c.name() === name)
  if (existing) return existing
  return program
    .command(name)
    .description(description)
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE))
}

/** Runs a client action, mapping errors to a message on stderr and the exit code. */
export async function runClient(action: () => Promise<void>): Promise<void> {
  try {
    await action()
  } catch (error) {
    const { message, code } = await describeError(error)
    const { chalk } = await deps()
    console.error(chalk.red(`error: ${message}`))
    process.exitCode = code
  }
}

async function describeError(error: unknown): Promise<{ message: string; code: number }> {
  if (error instanceof UsageError || error instanceof TransportError) return { message: error.message, code: EXIT_USAGE }
  if (error instanceof RpcCallError) return { message: `${error.message} (code ${error.code})`, code: EXIT_FAILED }
  const { viem } = await deps()
  if (error instanceof viem.BaseError) {
    // Could not talk to the node at all (refused, timed out, HTTP error): a connection problem, not a verdict.
    const transport = error.walk((e) => e instanceof viem.HttpRequestError || e instanceof viem.TimeoutError)
    if (transport) {
      const url = (transport as InstanceType<typeof viem.HttpRequestError>).url ?? ''
      const cause = (transport as Error).cause
      const reason = cause
        ? unreachable(url, { cause }).message
        : `cannot reach the node at ${url}: ${error.details || error.shortMessage}`
      return { message: reason, code: EXIT_USAGE }
    }
    return { message: error.shortMessage + (error.details ? ` (${error.details})` : ''), code: EXIT_FAILED }
  }
  return { message: error instanceof Error ? error.message : String(error), code: EXIT_FAILED }
}

export interface NodeConnection {
  client: PublicClient
  chain: Chain
  transport: HttpTransport
  chainId: number
}

/**
 * A viem client for the node at `rpcUrl` (checked by --rpc-url's parser), on its chain id, reading the
 * pre-confirmed ("pending") state. The chain id is asked with rpcRequest: a URL that is not a node fails
 * there, saying what answered.
 */
export async function connect(rpcUrl: string): Promise<NodeConnection> {
  const url = new URL(rpcUrl)
  const chainId = Number(await rpcRequest(rpcUrl, 'eth_chainId', [], 15_000))
  // ../chain.js loads here, not at the top: it imports viem (see the header).
  const [{ viem }, { pcnodeChain }] = await Promise.all([deps(), import('../chain.js')])
  const transport = viem.http(url.toString(), { retryCount: 0, timeout: 15_000 })
  // Its pre-confirmation time makes viem default to the "pending" block tag, so a wallet deployed a
  // moment ago is seen.
  const chain = pcnodeChain({ id: chainId, rpcUrl: url.toString() })
  const client = viem.createPublicClient({ chain, transport, pollingInterval: 50 }) as PublicClient
  return { client, chain, transport, chainId }
}

/** The factory's `getAddress(owners, nonce)`; fails when the node has no PcnodeWalletFactory predeploy. */
export async function walletAddress(client: PublicClient, owners: readonly Hex[], nonce: bigint): Promise<Address> {
  const { contracts } = await deps()
  const factory = contracts.WALLET_FACTORY_ADDRESS
  if (!(await hasCode(client, factory))) throw new FailedError(`no wallet factory at ${factory} on this node (is it a pcnode?)`)
  return client.readContract({
    address: factory,
    abi: contracts.walletFactoryAbi,
    functionName: 'getAddress',
    args: [owners, nonce],
  })
}

export async function hasCode(client: PublicClient, address: Address): Promise<boolean> {
  const code = await client.getCode({ address, blockTag: 'pending' }) // pre-confirmed deployments count
  return code !== undefined && code !== '0x'
}

/** Polls for the receipt: pcnode serves it as soon as the transaction is pre-confirmed. */
async function waitForReceipt(client: PublicClient, hash: Hex, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const receipt = await client.getTransactionReceipt({ hash }).catch(() => undefined)
    if (receipt) return receipt
    if (Date.now() > deadline) throw new FailedError(`no receipt for ${hash} after ${timeoutMs / 1000} s (is the node mining?)`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The signing key: dev account `index` of `mnemonic`, or a raw private key. */
export async function signingAccount(opts: {
  account?: number
  privateKey?: string
  mnemonic: string
}): Promise<PrivateKeyAccount | HDAccount> {
  if ((opts.account === undefined) === (opts.privateKey === undefined)) {
    throw new UsageError('give exactly one of --account <index> or --private-key <key>')
  }
  const { viem, accounts } = await deps()
  if (opts.privateKey !== undefined) {
    const key = opts.privateKey.startsWith('0x') ? opts.privateKey : `0x${opts.privateKey}`
    if (!viem.isHex(key) || key.length !== 66) throw new UsageError('--private-key: expected 32 bytes of hex')
    try {
      return accounts.privateKeyToAccount(key)
    } catch {
      throw new UsageError('--private-key: not a valid secp256k1 private key')
    }
  }
  return accounts.mnemonicToAccount(opts.mnemonic, { addressIndex: opts.account })
}
