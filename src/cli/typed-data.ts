// `pcnode typed-data …`: EIP-712 payloads from JSON files. `sign` signs as an EOA, or as the PcnodeSmartWallet
// owned by that key (Coinbase Smart Wallet format: the owner's ECDSA signature over the wallet's replay-safe
// hash in a SignatureWrapper, ERC-6492-wrapped while the wallet is undeployed). A JSON-RPC client only: no
// @ethereumjs/* imports here, and the heavy modules load inside the action (see wallet.ts).
import { readFile } from 'node:fs/promises'
import type { Command } from 'commander'
import type { Hex, TypedDataDomain, TypedDataParameter } from 'viem'
import { DEFAULT_MNEMONIC } from '../node/options.js'
import { DEFAULT_RPC_URL, rpcUrlOption } from './rpc-client.js'
import { parseBigInt, parseInteger } from './units.js'
import {
  clientGroup,
  connect,
  deps,
  FailedError,
  hasCode,
  runClient,
  signingAccount,
  UsageError,
  walletAddress,
} from './wallet.js'

/** An EIP-712 payload as eth_signTypedData_v4 takes it, with uint/int values as bigint after parsing. */
export interface TypedDataPayload {
  domain: TypedDataDomain
  types: Record<string, readonly TypedDataParameter[]>
  primaryType: string
  message: Record<string, unknown>
}

interface SignFlags {
  account?: number
  privateKey?: string
  mnemonic: string
  smartWallet?: boolean
  walletNonce?: bigint
  rpcUrl: string
  json?: boolean
}

/**
 * Registers the `pcnode typed-data` group with its `sign` subcommand and returns the group. Calling it again
 * returns the same group, so further subcommands (`prepare`, `verify`) can be added from their own files:
 *   typedDataCommand(program).command('verify')…
 * They inherit exit code 2 for usage errors; wrap actions in runClient() (wallet.ts) for the other codes.
 */
export function typedDataCommand(program: Command): Command {
  const group = clientGroup(program, 'typed-data', 'EIP-712 typed data: sign payloads as an EOA or a smart wallet')
  if (group.commands.some((c) => c.name() === 'sign')) return group
  group
    .command('sign')
    .description('sign the EIP-712 payload in FILE ({domain, types, primaryType, message})')
    .argument('<file>', 'JSON file with the typed data (uint fields as numbers or strings)')
    .option('--account <index>', 'sign with dev account <index> of the mnemonic', parseInteger('account'))
    .option('--private-key <key>', 'sign with this private key')
    .option('-m, --mnemonic <words>', 'mnemonic of the dev accounts', DEFAULT_MNEMONIC)
    .option('--smart-wallet', "sign as the smart wallet owned by the key (owners [key's address])")
    .option('--wallet-nonce <n>', 'nonce of that smart wallet (default 0)', parseBigInt('wallet nonce'))
    .option(
      '--rpc-url <url>',
      'JSON-RPC endpoint of the node, used with --smart-wallet (without a scheme: http://)',
      rpcUrlOption(),
      DEFAULT_RPC_URL,
    )
    .option('--json', 'print {signature, address} as JSON')
    .action((file: string, flags: SignFlags) => runClient(() => sign(file, flags)))
  return group
}

async function sign(file: string, flags: SignFlags): Promise<void> {
  if (flags.walletNonce !== undefined && !flags.smartWallet) throw new UsageError('--wallet-nonce needs --smart-wallet')
  const payload = await readTypedDataFile(file)
  const account = await signingAccount(flags)
  const { viem, chalk, contracts } = await deps()
  const hash = typedDataHash(viem, payload, file)

  if (!flags.smartWallet) {
    const signature = await account.signTypedData(payload as never)
    if (flags.json) {
      console.log(JSON.stringify({ signature, address: account.address }))
      return
    }
    print(chalk, [
      ['Signer', `${account.address} (EOA)`],
      ['Hash', `${hash} (EIP-712, ${payload.primaryType})`],
      ['Signature', signature],
    ])
    return
  }

  const node = await connect(flags.rpcUrl)
  const owners = [contracts.encodeAddressOwner(account.address)]
  const nonce = flags.walletNonce ?? 0n
  const address = await walletAddress(node.client, owners, nonce)
  const deployed = await hasCode(node.client, address)
  // The owner signs the wallet's replay-safe hash (bound to the wallet and the node's chain), not `hash` itself.
  const ownerSignature = await account.sign({ hash: contracts.replaySafeHash({ address, chainId: node.chainId, hash }) })
  const wrapped = contracts.wrapSignature({ ownerIndex: 0, signatureData: ownerSignature })
  const signature = deployed
    ? wrapped
    : viem.serializeErc6492Signature({
        address: contracts.WALLET_FACTORY_ADDRESS,
        data: contracts.factoryData(owners, nonce),
        signature: wrapped,
      })
  if (flags.json) {
    console.log(JSON.stringify({ signature, address }))
    return
  }
  const chainId = payload.domain.chainId
  print(chalk, [
    ['Address', `${address} (smart wallet, nonce ${nonce})`],
    ['Owner', `${account.address} (owner index 0)`],
    ['Deployed', deployed ? 'yes' : 'no: the signature is ERC-6492-wrapped (factory + createAccount calldata)'],
    ['Hash', `${hash} (EIP-712, ${payload.primaryType})`],
    ['Signature', signature],
  ])
  if (chainId !== undefined && BigInt(chainId) !== BigInt(node.chainId)) {
    console.error(chalk.yellow(`note: the payload's domain names chain ${chainId}; the wallet is on chain ${node.chainId}`))
  }
}

function print(chalk: { bold: (s: string) => string }, rows: Array<[string, string]>): void {
  for (const [label, value] of rows) console.log(`${chalk.bold(label.padEnd(11))}${value}`)
}

/** Reads and normalises a typed-data JSON file; a missing file is a usage error, bad contents invalid input. */
/** The EIP-712 hash of a payload read from `file`; one viem cannot hash is a FailedError naming the file. */
export function typedDataHash(viem: typeof import('viem'), payload: TypedDataPayload, file: string): Hex {
  try {
    return viem.hashTypedData(payload as never)
  } catch (error) {
    throw new FailedError(`invalid typed data in ${file}: ${(error as { shortMessage?: string }).shortMessage ?? error}`)
  }
}

export async function readTypedDataFile(file: string): Promise<TypedDataPayload> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new FailedError(`${file} is not JSON: ${(error as Error).message}`)
  }
  try {
    return parseTypedData(json)
  } catch (error) {
    throw new FailedError(`invalid typed data in ${file}: ${(error as Error).message}`)
  }
}

/**
 * Checks the shape of `{domain, types, primaryType, message}` and turns every uint/int value of the message
 * (numbers, decimal or hex strings) and the domain's chainId into bigint, as viem's encoder wants them.
 * JSON numbers beyond 2^53 have already lost precision, so they are refused: write them as strings.
 */
export function parseTypedData(json: unknown): TypedDataPayload {
  if (!isObject(json)) throw new Error('expected an object {domain, types, primaryType, message}')
  const { domain = {}, types, primaryType, message } = json
  if (!isObject(domain)) throw new Error('domain must be an object')
  if (!isObject(types)) throw new Error('types must be an object')
  for (const [name, fields] of Object.entries(types)) {
    if (!Array.isArray(fields) || !fields.every((f) => isObject(f) && typeof f.name === 'string' && typeof f.type === 'string')) {
      throw new Error(`types.${name} must be a list of {name, type}`)
    }
  }
  if (typeof primaryType !== 'string' || !(primaryType in types)) throw new Error('primaryType must name one of types')
  if (!isObject(message)) throw new Error('message must be an object')
  const structs = types as Record<string, TypedDataParameter[]>
  const normalisedDomain = { ...domain } as Record<string, unknown>
  if (domain.chainId !== undefined) normalisedDomain.chainId = toInteger(domain.chainId, 'domain.chainId')
  return {
    domain: normalisedDomain as TypedDataDomain,
    types: structs,
    primaryType,
    message: normaliseStruct(structs, primaryType, message, 'message') as Record<string, unknown>,
  }
}

function normaliseStruct(types: Record<string, TypedDataParameter[]>, name: string, value: unknown, path: string): unknown {
  if (!isObject(value)) throw new Error(`${path} must be an object (${name})`)
  const out: Record<string, unknown> = { ...value }
  for (const field of types[name]) {
    out[field.name] = normaliseValue(types, field.type, value[field.name], `${path}.${field.name}`)
  }
  return out
}

function normaliseValue(types: Record<string, TypedDataParameter[]>, type: string, value: unknown, path: string): unknown {
  const array = /^(.*)\[(\d*)\]$/.exec(type)
  if (array) {
    if (!Array.isArray(value)) throw new Error(`${path} must be an array (${type})`)
    return value.map((v, i) => normaliseValue(types, array[1], v, `${path}[${i}]`))
  }
  if (type in types) return normaliseStruct(types, type, value, path)
  if (/^u?int\d*$/.test(type)) return toInteger(value, path)
  return value
}

function toInteger(value: unknown, path: string): bigint {
  if (typeof value === 'bigint') return value
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value))
      throw new Error(`${path}: ${value} is not an exact integer (write large numbers as strings)`)
    return BigInt(value)
  }
  if (typeof value === 'string' && /^(-?[0-9]+|0x[0-9a-fA-F]+)$/.test(value.trim())) return BigInt(value.trim())
  throw new Error(`${path} must be an integer (a number, or a decimal or 0x string)`)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
