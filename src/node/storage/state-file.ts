// The state file (`pcnode start --state FILE`, anvil_dumpState / anvil_loadState): versioned JSON,
// hex strings, one account / block / pool entry per line. README "State file" documents the format.
//
// It holds the head's state (every account with balance, nonce, code and storage), the sealed
// history with receipts and logs, and the pool. Transactions of the open (unsealed) block are saved
// as pool entries and pre-confirmed again after a load. Headers are stored whole and checked
// against their hashes on load, so block hashes survive exactly. Writes go to a temporary file that
// is fsynced and renamed over the old one: a crash leaves the previous or the new file, never a mix.
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { gunzipSync } from 'node:zlib'
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { CODEHASH_PREFIX } from '@ethereumjs/statemanager'
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import {
  Account,
  Address,
  concatBytes,
  createAccountFromRLP,
  equalsBytes,
  KECCAK256_NULL,
  KECCAK256_RLP,
  unpadBytes,
} from '@ethereumjs/util'
import { Bloom } from '@ethereumjs/vm'
import { hexKey } from '../chain/chain.js'
import { type NodeParts, replacePool } from '../chain/snapshots.js'
import type { Engine } from '../engine/engine.js'
import { trieRoot } from '../engine/trie.js'
import type { ResolvedOptions } from '../options.js'
import type { BlockRecord, HeaderFields, IncludedTx, LogEntry, PoolTxInfo, ReceiptData } from '../types.js'

export const STATE_FORMAT = 'pcnode-state'
export const STATE_VERSION = 1

type Hex = `0x${string}`

// --- the format ------------------------------------------------------------------------------

export interface AccountJson {
  nonce: Hex
  balance: Hex
  code?: Hex
  /** 32-byte slot → 32-byte value; zero slots are absent. */
  storage?: Record<Hex, Hex>
}

export type HeaderJson = { [K in keyof HeaderFields]: Hex }

export interface ReceiptJson {
  status: Hex
  gasUsed: Hex
  cumulativeGasUsed: Hex
  effectiveGasPrice: Hex
  contractAddress?: Hex
  logs: Array<{ address: Hex; topics: Hex[]; data: Hex }>
  blobGasUsed?: Hex
  blobGasPrice?: Hex
}

export interface TxJson {
  hash: Hex
  from: Hex
  /** The signed transaction as eth_sendRawTransaction takes it (EIP-2718 envelope). */
  raw: Hex
  flashblockIndex: Hex
  receipt: ReceiptJson
}

export interface BlockJson {
  hash: Hex
  size: Hex
  flashblocks: Hex
  header: HeaderJson
  transactions: TxJson[]
}

export interface PoolJson {
  hash: Hex
  from: Hex
  raw: Hex
  /** Sent from an impersonated account: the signature is a placeholder and `from` is the sender. */
  impersonated?: true
}

export interface StateFileJson {
  format: typeof STATE_FORMAT
  version: typeof STATE_VERSION
  chainId: Hex
  hardfork: string
  savedAt: string
  /** Seconds evm_increaseTime / evm_setNextBlockTimestamp put between the wall clock and block time. */
  timeOffset: number
  /** The head block's number and hash, for people reading the file. */
  blockNumber: Hex
  blockHash: Hex
  /** Root of `accounts`; checked on load (delete it to load hand-edited accounts). */
  stateRoot?: Hex
  accounts: Record<Hex, AccountJson>
  blocks: BlockJson[]
  pool: PoolJson[]
}

const HEADER_KEYS: Array<keyof HeaderFields> = [
  'parentHash',
  'number',
  'timestamp',
  'gasLimit',
  'gasUsed',
  'baseFeePerGas',
  'coinbase',
  'stateRoot',
  'transactionsRoot',
  'receiptsRoot',
  'logsBloom',
  'mixHash',
  'extraData',
  'withdrawalsRoot',
  'blobGasUsed',
  'excessBlobGas',
  'parentBeaconBlockRoot',
  'requestsHash',
]
const HEADER_BYTES: Partial<Record<keyof HeaderFields, number>> = {
  parentHash: 32,
  coinbase: 20,
  stateRoot: 32,
  transactionsRoot: 32,
  receiptsRoot: 32,
  logsBloom: 256,
  mixHash: 32,
  extraData: -1,
  withdrawalsRoot: 32,
  parentBeaconBlockRoot: 32,
  requestsHash: 32,
}

const hex = (bytes: Uint8Array): Hex => `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`
const qty = (n: bigint | number): Hex => `0x${n.toString(16)}`
const pad32 = (bytes: Uint8Array): Uint8Array => {
  if (bytes.length === 32) return bytes
  const out = new Uint8Array(32)
  out.set(bytes, 32 - bytes.length)
  return out
}

/** Path of the state file the options ask for: `stateFile`, else `<dataDir>/state.json`, else none. */
export function stateFilePath(options: Pick<ResolvedOptions, 'stateFile' | 'dataDir'>): string | undefined {
  if (options.stateFile) return resolve(options.stateFile)
  if (options.dataDir) return resolve(options.dataDir, 'state.json')
  return undefined
}

// --- saving ----------------------------------------------------------------------------------

/** What a save takes from the node inside the engine queue; rendering to text happens outside it. */
export interface StateCapture {
  chainId: bigint
  hardfork: string
  timeOffset: bigint
  stateRoot: Uint8Array
  /** Sorted by address, already rendered (account state changes under the queue). */
  accounts: Array<[Hex, AccountJson]>
  /** Sealed records never change, so these render outside the queue. */
  blocks: BlockRecord[]
  pool: PoolJson[]
}

export interface CaptureOptions {
  timeOffset: bigint
  /** True for transactions sent from an impersonated account (placeholder signature). */
  impersonated: (tx: TypedTransaction) => boolean
}

/** Inside the engine queue: the head's state, the history and the pool (with the open block's transactions). */
export async function captureState(parts: NodeParts, options: CaptureOptions): Promise<StateCapture> {
  const { engine, chain, pool } = parts
  const stateRoot = chain.stateRootOf(chain.head)
  const pending: PoolJson[] = (chain.pending?.txs ?? []).map((t) => poolJson(t.tx, t.hash, t.from, options))
  const pooled = pool.all().map((info) => poolJson(info.tx, info.hash, info.from, options))
  return {
    chainId: BigInt(engine.common.chainId()),
    hardfork: engine.common.hardfork(),
    timeOffset: options.timeOffset,
    stateRoot,
    accounts: await dumpAccounts(engine, stateRoot),
    blocks: chain.blocks.slice(),
    pool: [...pending, ...pooled],
  }
}

function poolJson(tx: TypedTransaction, hash: Uint8Array, from: Uint8Array, options: CaptureOptions): PoolJson {
  const entry: PoolJson = { hash: hex(hash), from: hex(from), raw: hex(tx.serialize()) }
  if (options.impersonated(tx)) entry.impersonated = true
  return entry
}

/** The live trie's node database (shared by every root, old and new). */
function trieDb(engine: Engine): TrieDb {
  return (engine.state as unknown as { _trie: MerklePatriciaTrie })._trie.database() as unknown as TrieDb
}

interface TrieDb {
  get(key: Uint8Array): Promise<Uint8Array | undefined>
  batch(ops: Array<{ type: 'put'; key: Uint8Array; value: Uint8Array }>): Promise<void>
}

/**
 * Every leaf under `root` (key = the hashed key, value = the stored RLP), in key order. A direct
 * walk over the node database: ethereumjs' walker costs ~40 µs a node, this ~2.
 */
async function walkLeaves(db: TrieDb, root: Uint8Array, onLeaf: (key: Uint8Array, value: Uint8Array) => void): Promise<void> {
  if (equalsBytes(root, KECCAK256_RLP)) return
  const visit = async (ref: Uint8Array | Uint8Array[], path: number[]): Promise<void> => {
    let node: Uint8Array[]
    if (Array.isArray(ref)) {
      node = ref // a node under 32 bytes, embedded in its parent
    } else {
      const encoded = await db.get(ref)
      if (!encoded) throw new Error(`missing trie node ${hex(ref)}`)
      node = RLP.decode(encoded) as Uint8Array[]
    }
    if (node.length === 17) {
      for (let i = 0; i < 16; i++) {
        const child = node[i] as Uint8Array | Uint8Array[]
        if (Array.isArray(child) || child.length > 0) await visit(child, [...path, i])
      }
      return
    }
    const [compact, value] = node
    const nibbles = [...path]
    if (compact[0] & 0x10) nibbles.push(compact[0] & 0x0f)
    for (let i = 1; i < compact.length; i++) nibbles.push(compact[i] >> 4, compact[i] & 0x0f)
    if (compact[0] & 0x20) {
      const key = new Uint8Array(nibbles.length >> 1)
      for (let i = 0; i < key.length; i++) key[i] = (nibbles[2 * i] << 4) | nibbles[2 * i + 1]
      onLeaf(key, value)
    } else {
      await visit(value as Uint8Array | Uint8Array[], nibbles)
    }
  }
  await visit(root, [])
}

/** Every account of the state at `root`, keys mapped back through the live state's preimages. */
async function dumpAccounts(engine: Engine, root: Uint8Array): Promise<Array<[Hex, AccountJson]>> {
  const preimages = engine.state.preimages
  if (!preimages) throw new Error('the live state records no key preimages')
  const db = trieDb(engine)
  const leaves: Array<[Uint8Array, Uint8Array]> = []
  await walkLeaves(db, root, (key, value) => leaves.push([key, value]))
  const out: Array<[Hex, AccountJson]> = []
  for (const [hashed, rlp] of leaves) {
    const address = preimages.addressOf(hexKey(hashed), engine.keccak)
    if (address === undefined) throw new Error(`no preimage for account key ${hex(hashed)}`)
    const account = createAccountFromRLP(rlp)
    const entry: AccountJson = { nonce: qty(account.nonce), balance: qty(account.balance) }
    if (account.isContract()) {
      const code = await db.get(concatBytes(CODEHASH_PREFIX, account.codeHash))
      if (!code) throw new Error(`missing code ${hex(account.codeHash)} of 0x${address}`)
      entry.code = hex(code)
    }
    if (!equalsBytes(account.storageRoot, KECCAK256_RLP)) {
      const storage: Array<[Hex, Hex]> = []
      await walkLeaves(db, account.storageRoot, (hashedSlot, value) => {
        const slot = preimages.slotOf(address, hexKey(hashedSlot), engine.keccak)
        if (slot === undefined) throw new Error(`no preimage for storage key ${hex(hashedSlot)} of 0x${address}`)
        storage.push([`0x${slot}`, hex(pad32(RLP.decode(value) as Uint8Array))])
      })
      storage.sort((a, b) => (a[0] < b[0] ? -1 : 1))
      entry.storage = Object.fromEntries(storage)
    }
    out.push([`0x${address}`, entry])
  }
  return out.sort((a, b) => (a[0] < b[0] ? -1 : 1))
}

/** Envelopes of loaded transactions: saving them again needs no decoding. */
const rawTxs = new WeakMap<IncludedTx, Uint8Array>()

/** Rendered blocks, kept per sealed record: periodic saves then only render what is new. */
const renderedBlocks = new WeakMap<BlockRecord, string>()

function renderBlock(block: BlockRecord): string {
  let text = renderedBlocks.get(block)
  if (text === undefined) {
    text = JSON.stringify(blockJson(block))
    renderedBlocks.set(block, text)
  }
  return text
}

function blockJson(block: BlockRecord): BlockJson {
  const header = {} as HeaderJson
  for (const key of HEADER_KEYS) {
    const value = block.header[key]
    header[key] = typeof value === 'bigint' ? qty(value) : hex(value)
  }
  return {
    hash: hex(block.hash),
    size: qty(block.size),
    flashblocks: qty(block.flashblocks),
    header,
    transactions: block.txs.map((t) => ({
      hash: hex(t.hash),
      from: hex(t.from),
      raw: hex(rawTxs.get(t) ?? t.tx.serialize()),
      flashblockIndex: qty(t.flashblockIndex),
      receipt: receiptJson(t.receipt),
    })),
  }
}

function receiptJson(r: ReceiptData): ReceiptJson {
  const out: ReceiptJson = {
    status: qty(r.status),
    gasUsed: qty(r.gasUsed),
    cumulativeGasUsed: qty(r.cumulativeGasUsed),
    effectiveGasPrice: qty(r.effectiveGasPrice),
    logs: r.logs.map((l) => ({ address: hex(l.address), topics: l.topics.map(hex), data: hex(l.data) })),
  }
  if (r.contractAddress) out.contractAddress = hex(r.contractAddress)
  if (r.blobGasUsed !== undefined) out.blobGasUsed = qty(r.blobGasUsed)
  if (r.blobGasPrice !== undefined) out.blobGasPrice = qty(r.blobGasPrice)
  return out
}

/** The file's text: valid JSON with one account, block or pool entry per line (greppable, diffable). */
export function renderState(c: StateCapture): string {
  const head = c.blocks[c.blocks.length - 1]
  const top: Omit<StateFileJson, 'accounts' | 'blocks' | 'pool'> = {
    format: STATE_FORMAT,
    version: STATE_VERSION,
    chainId: qty(c.chainId),
    hardfork: c.hardfork,
    savedAt: new Date().toISOString(),
    timeOffset: Number(c.timeOffset),
    blockNumber: qty(head.header.number),
    blockHash: hex(head.hash),
    stateRoot: hex(c.stateRoot),
  }
  const parts: string[] = [JSON.stringify(top).slice(0, -1), ',\n"accounts":{']
  c.accounts.forEach(([address, account], i) => {
    parts.push(`${i ? ',' : ''}\n${JSON.stringify(address)}:${JSON.stringify(account)}`)
  })
  parts.push('\n},\n"blocks":[')
  c.blocks.forEach((block, i) => {
    parts.push(`${i ? ',' : ''}\n${renderBlock(block)}`)
  })
  parts.push('\n],\n"pool":[')
  c.pool.forEach((entry, i) => {
    parts.push(`${i ? ',' : ''}\n${JSON.stringify(entry)}`)
  })
  parts.push('\n]}\n')
  return parts.join('')
}

// --- loading ---------------------------------------------------------------------------------

export interface DecodedAccount {
  address: Uint8Array
  nonce: bigint
  balance: bigint
  code: Uint8Array
  storage: Array<[Uint8Array, Uint8Array]>
}

export interface DecodedState {
  timeOffset: bigint
  stateRoot: Uint8Array | undefined
  accounts: DecodedAccount[]
  blocks: BlockRecord[]
  pool: Array<{ info: PoolTxInfo; impersonated: boolean }>
}

/** A problem with the file's content, located by its JSON path. */
export class StateFormatError extends Error {
  override name = 'StateFormatError'
}

function fail(path: string, problem: string): never {
  throw new StateFormatError(`${path}: ${problem}`)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function quantity(value: unknown, path: string): bigint {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value)) fail(path, `expected a hex quantity, got ${show(value)}`)
  return BigInt(value)
}

function bytes(value: unknown, path: string, size?: number): Uint8Array {
  // Buffer.from stops at the first non-hex pair, so a short result means bad input (cheaper than a regex).
  const buffer = typeof value === 'string' && value.startsWith('0x') ? Buffer.from(value.slice(2), 'hex') : undefined
  if (!buffer || buffer.length * 2 !== (value as string).length - 2)
    fail(path, `expected 0x-prefixed hex bytes, got ${show(value)}`)
  const out = new Uint8Array(buffer)
  if (size !== undefined && out.length !== size) fail(path, `expected ${size} bytes, got ${out.length}`)
  return out
}

function list(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) fail(path, `expected an array, got ${show(value)}`)
  return value
}

function object(value: unknown, path: string): Record<string, unknown> {
  if (!isObject(value)) fail(path, `expected an object, got ${show(value)}`)
  return value
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 40 ? `${text.slice(0, 40)}…` : text
}

/** JSON text (or hex of it, or gzip of it, as anvil_loadState may receive) → the parsed document. */
export function parseStateText(input: string | Uint8Array): unknown {
  let data: Uint8Array | string = input
  if (typeof data === 'string' && data.startsWith('0x')) {
    const buffer = Buffer.from(data.slice(2), 'hex')
    if (buffer.length * 2 !== data.length - 2) throw new StateFormatError('not valid hex')
    data = buffer
  }
  if (typeof data !== 'string') {
    const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    data = (buffer[0] === 0x1f && buffer[1] === 0x8b ? gunzipSync(buffer) : buffer).toString('utf8')
  }
  if (data.trim() === '') throw new StateFormatError('empty (no JSON content)')
  try {
    return JSON.parse(data)
  } catch (error) {
    throw new StateFormatError(`not valid JSON (${(error as Error).message})`)
  }
}

/** Checks and converts a parsed state document for this node's chain; throws StateFormatError with a JSON path. */
export function decodeState(doc: unknown, engine: Engine): DecodedState {
  const root = object(doc, '(top)')
  if (root.format !== STATE_FORMAT) fail('format', `expected "${STATE_FORMAT}", got ${show(root.format)}`)
  if (root.version !== STATE_VERSION)
    fail('version', `this pcnode reads version ${STATE_VERSION}, the file is ${show(root.version)}`)
  const chainId = quantity(root.chainId, 'chainId')
  if (chainId !== BigInt(engine.common.chainId())) {
    fail('chainId', `the file is for chain id ${chainId}, this node runs chain id ${engine.common.chainId()} (--chain-id)`)
  }
  if (root.hardfork !== engine.common.hardfork()) {
    fail('hardfork', `the file is for ${show(root.hardfork)}, this node runs "${engine.common.hardfork()}" (--hardfork)`)
  }
  const offset = root.timeOffset ?? 0
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset)) fail('timeOffset', `expected an integer, got ${show(offset)}`)
  const seen = new Set<string>()
  const accounts = Object.entries(object(root.accounts, 'accounts')).map(([address, raw]) => {
    const account = decodeAccount(address, raw, `accounts.${address}`)
    const key = hexKey(account.address)
    if (seen.has(key)) fail(`accounts.${address}`, 'listed twice')
    seen.add(key)
    return account
  })
  const blocks = decodeBlocks(list(root.blocks, 'blocks'), engine)
  const pool = list(root.pool ?? [], 'pool').map((raw, i) => decodePoolEntry(raw, `pool[${i}]`, engine))
  return {
    timeOffset: BigInt(offset),
    stateRoot: root.stateRoot === undefined ? undefined : bytes(root.stateRoot, 'stateRoot', 32),
    accounts,
    blocks,
    pool,
  }
}

function decodeAccount(address: string, raw: unknown, path: string): DecodedAccount {
  const a = object(raw, path)
  const storage: Array<[Uint8Array, Uint8Array]> = []
  for (const [slot, value] of Object.entries(object(a.storage ?? {}, `${path}.storage`))) {
    const key = bytes(slot, `${path}.storage key ${slot}`)
    if (key.length > 32) fail(`${path}.storage key ${slot}`, 'longer than 32 bytes')
    const v = bytes(value, `${path}.storage.${slot}`)
    if (v.length > 32) fail(`${path}.storage.${slot}`, 'longer than 32 bytes')
    storage.push([pad32(key), v])
  }
  const slots = new Set(storage.map(([slot]) => hexKey(slot)))
  if (slots.size !== storage.length) fail(`${path}.storage`, 'a slot is listed twice')
  return {
    address: bytes(address, `${path} (the key)`, 20),
    nonce: quantity(a.nonce ?? '0x0', `${path}.nonce`),
    balance: quantity(a.balance ?? '0x0', `${path}.balance`),
    code: bytes(a.code ?? '0x', `${path}.code`),
    storage,
  }
}

function decodeBlocks(raw: unknown[], engine: Engine): BlockRecord[] {
  if (raw.length === 0) fail('blocks', 'expected at least the genesis block')
  const blocks: BlockRecord[] = []
  raw.forEach((entry, n) => {
    const path = `blocks[${n}]`
    const b = object(entry, path)
    const h = object(b.header, `${path}.header`)
    const header = {} as Record<keyof HeaderFields, bigint | Uint8Array>
    for (const key of HEADER_KEYS) {
      const size = HEADER_BYTES[key]
      header[key] =
        size === undefined
          ? quantity(h[key], `${path}.header.${key}`)
          : bytes(h[key], `${path}.header.${key}`, size < 0 ? undefined : size)
    }
    const fields = header as unknown as HeaderFields
    if (fields.number !== BigInt(n)) fail(`${path}.header.number`, `expected ${n}, got ${fields.number}`)
    const hash = bytes(b.hash, `${path}.hash`, 32)
    const computed = engine.header(fields).hash()
    if (!equalsBytes(computed, hash)) fail(`${path}.hash`, `the header hashes to ${hex(computed)}, not ${hex(hash)}`)
    if (n > 0 && !equalsBytes(fields.parentHash, blocks[n - 1].hash))
      fail(`${path}.header.parentHash`, 'is not the previous block')
    const block: BlockRecord = {
      header: fields,
      hash,
      sealed: true,
      txs: [],
      flashblocks: Number(quantity(b.flashblocks, `${path}.flashblocks`)),
      size: quantity(b.size, `${path}.size`),
    }
    let logCount = 0
    list(b.transactions, `${path}.transactions`).forEach((rawTx, index) => {
      const t = decodeIncludedTx(rawTx, `${path}.transactions[${index}]`, engine, block, index, logCount)
      logCount += t.receipt.logs.length
      block.txs.push(t)
    })
    blocks.push(block)
  })
  return blocks
}

function decodeTx(raw: unknown, path: string, engine: Engine, freeze = true): { tx: TypedTransaction; hash: Uint8Array } {
  const data = bytes(raw, path)
  let tx: TypedTransaction
  try {
    tx = createTxFromRLP(data, { common: engine.common, freeze })
  } catch (error) {
    fail(path, `not a transaction (${(error as Error).message.split(' (')[0]})`)
  }
  return { tx, hash: tx.hash() }
}

function decodeIncludedTx(
  raw: unknown,
  path: string,
  engine: Engine,
  block: BlockRecord,
  index: number,
  firstLogIndex: number,
): IncludedTx {
  const t = object(raw, path)
  const data = bytes(t.raw, `${path}.raw`)
  // A transaction's hash is the keccak of its envelope; decoding waits until something reads it
  // (decoding costs ~0.3 ms a transaction, most of it ethereumjs copying its Common).
  const hash = engine.keccak(data)
  if (!equalsBytes(hash, bytes(t.hash, `${path}.hash`, 32))) fail(`${path}.hash`, `the transaction hashes to ${hex(hash)}`)
  const included = {
    hash,
    from: bytes(t.from, `${path}.from`, 20),
    index,
    flashblockIndex: Number(quantity(t.flashblockIndex ?? '0x0', `${path}.flashblockIndex`)),
    receipt: decodeReceipt(t.receipt, `${path}.receipt`, engine, firstLogIndex),
    preconfirmedAt: 0,
    block,
  } as IncludedTx
  let tx: TypedTransaction | undefined
  Object.defineProperty(included, 'tx', {
    enumerable: true,
    configurable: true,
    get: () => (tx ??= createTxFromRLP(data, { common: engine.common })),
  })
  rawTxs.set(included, data)
  return included
}

function decodeReceipt(raw: unknown, path: string, engine: Engine, firstLogIndex: number): ReceiptData {
  const r = object(raw, path)
  const status = quantity(r.status, `${path}.status`)
  if (status > 1n) fail(`${path}.status`, 'expected 0x0 or 0x1')
  const bloom = new Bloom(undefined, engine.common)
  const logs: LogEntry[] = list(r.logs, `${path}.logs`).map((rawLog, i) => {
    const l = object(rawLog, `${path}.logs[${i}]`)
    const log: LogEntry = {
      address: bytes(l.address, `${path}.logs[${i}].address`, 20),
      topics: list(l.topics, `${path}.logs[${i}].topics`).map((topic, j) => bytes(topic, `${path}.logs[${i}].topics[${j}]`, 32)),
      data: bytes(l.data, `${path}.logs[${i}].data`),
    }
    // The bloom is derived, as runTx builds it: the address, then each topic.
    bloom.add(log.address)
    for (const topic of log.topics) bloom.add(topic)
    return log
  })
  const optional = (key: string) => (r[key] === undefined ? undefined : quantity(r[key], `${path}.${key}`))
  return {
    status: Number(status) as 0 | 1,
    gasUsed: quantity(r.gasUsed, `${path}.gasUsed`),
    cumulativeGasUsed: quantity(r.cumulativeGasUsed, `${path}.cumulativeGasUsed`),
    effectiveGasPrice: quantity(r.effectiveGasPrice, `${path}.effectiveGasPrice`),
    contractAddress: r.contractAddress === undefined ? undefined : bytes(r.contractAddress, `${path}.contractAddress`, 20),
    logs,
    logsBloom: bloom.bitvector,
    blobGasUsed: optional('blobGasUsed'),
    blobGasPrice: optional('blobGasPrice'),
    firstLogIndex,
  }
}

function decodePoolEntry(raw: unknown, path: string, engine: Engine): { info: PoolTxInfo; impersonated: boolean } {
  const p = object(raw, path)
  const impersonated = p.impersonated === true
  const { tx, hash } = decodeTx(p.raw, `${path}.raw`, engine, !impersonated)
  let from: Uint8Array
  if (impersonated) {
    from = bytes(p.from, `${path}.from`, 20)
    const sender = new Address(from)
    tx.getSenderAddress = () => sender
  } else {
    try {
      from = tx.getSenderAddress().bytes
    } catch (error) {
      fail(`${path}.raw`, `invalid signature (${(error as Error).message.split(' (')[0]})`)
    }
  }
  return { info: { tx, hash, from, receivedAt: performance.now() }, impersonated }
}

/**
 * Inside the engine queue: makes the decoded state the node's: accounts written into an empty
 * trie (checked against the file's stateRoot), history, pool. The pending block is dropped; the
 * caller opens a new one if mining. State before the loaded head is not kept (`chain.stateFrom`).
 */
export async function applyState(parts: NodeParts, s: DecodedState): Promise<void> {
  const { engine, chain, pool, producer } = parts
  const { state } = engine
  const root = await writeAccounts(engine, s.accounts)
  if (s.stateRoot && !equalsBytes(root, s.stateRoot)) {
    throw new StateFormatError(`accounts: they hash to state root ${hex(root)}, the file says ${hex(s.stateRoot)}`)
  }
  await state.setStateRoot(root)
  if (chain.pending) chain.dropPreconfirmed(chain.pending)
  chain.pending = undefined
  chain.replaceBlocks(s.blocks)
  const head = chain.head
  chain.stateFrom = head.header.number
  chain.setStateRootOverride(head, equalsBytes(root, head.header.stateRoot) ? undefined : root)
  producer.resync()
  replacePool(
    pool,
    s.pool.map((p) => p.info),
  )
}

/**
 * Builds the state trie of `accounts` bottom-up straight into the node database (each node hashed
 * once; inserting account by account through the trie costs ~5x more) and returns its root. The
 * keys are recorded as preimages for later dumps.
 */
async function writeAccounts(engine: Engine, accounts: DecodedAccount[]): Promise<Uint8Array> {
  const { keccak } = engine
  const preimages = engine.state.preimages
  const ops: Array<{ type: 'put'; key: Uint8Array; value: Uint8Array }> = []
  const store = (key: Uint8Array, value: Uint8Array) => ops.push({ type: 'put', key, value })
  const leaves: Array<[Uint8Array, Uint8Array]> = []
  for (const a of accounts) {
    preimages?.account(a.address)
    const slots: Array<[Uint8Array, Uint8Array]> = []
    for (const [slot, value] of a.storage) {
      preimages?.slot(a.address, slot)
      const word = unpadBytes(value)
      if (word.length > 0) slots.push([keccak(slot), RLP.encode(word)])
    }
    const storageRoot = slots.length > 0 ? trieRoot(slots, keccak, store) : KECCAK256_RLP
    let codeHash = KECCAK256_NULL
    if (a.code.length > 0) {
      codeHash = keccak(a.code)
      store(concatBytes(CODEHASH_PREFIX, codeHash), a.code)
    }
    leaves.push([keccak(a.address), new Account(a.nonce, a.balance, storageRoot, codeHash).serialize()])
  }
  const root = leaves.length > 0 ? trieRoot(leaves, keccak, store) : KECCAK256_RLP
  await trieDb(engine).batch(ops)
  return root
}

// --- files -----------------------------------------------------------------------------------

let tmpCounter = 0

/** Writes `text` so that a crash at any point leaves either the old file or the new one. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const dir = dirname(file)
  await mkdir(dir, { recursive: true })
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${++tmpCounter}.tmp`)
  try {
    const handle = await open(tmp, 'w')
    try {
      await handle.writeFile(text)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(tmp, file)
  } catch (error) {
    await rm(tmp, { force: true })
    throw error
  }
  // The rename is durable once the directory entry is on disk (not supported everywhere).
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } catch {
    // e.g. EINVAL/EPERM on filesystems or platforms without directory fsync
  } finally {
    await handle.close()
  }
}

/** Removes temporary files that writers killed mid-write left next to `file` (not a live writer's). */
export async function removeStaleTemps(file: string): Promise<number> {
  const dir = dirname(file)
  const prefix = `.${basename(file)}.`
  let names: string[]
  try {
    names = await readdir(dir)
  } catch {
    return 0
  }
  let removed = 0
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)\.\d+\.tmp$/.exec(name.slice(prefix.length)) : null
    if (!m || (Number(m[1]) !== process.pid && alive(Number(m[1])))) continue
    await rm(join(dir, name), { force: true })
    removed++
  }
  return removed
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The state file's parsed document, or undefined when there is no file yet. Errors name the file. */
export async function readStateFile(file: string): Promise<unknown | undefined> {
  let data: Buffer
  try {
    data = await readFile(file)
  } catch (error) {
    const e = error as NodeJS.ErrnoException
    if (e.code === 'ENOENT') return undefined
    throw new Error(`state file ${file}: cannot read it (${e.message})`)
  }
  try {
    return parseStateText(data)
  } catch (error) {
    throw new Error(`state file ${file}: ${(error as Error).message}`)
  }
}

/** Periodic and final writes of the state file; at most one write runs at a time. */
export class StateFileWriter {
  private blocksSinceSave = 0
  private running: Promise<void> | undefined
  private queued: Promise<void> | undefined
  closed = false

  constructor(
    readonly file: string,
    private readonly interval: number,
    private readonly render: () => Promise<string>,
    private readonly onError: (error: Error) => void,
  ) {}

  /** A block was sealed: every `interval` of them, write. */
  blockSealed(): void {
    if (this.closed || this.interval === 0 || ++this.blocksSinceSave < this.interval) return
    this.blocksSinceSave = 0
    this.save().catch(this.onError)
  }

  /** Writes the current state; a call during a write waits for it and writes once more after. */
  save(): Promise<void> {
    if (this.running) {
      this.queued ??= this.running.then(
        () => this.next(),
        () => this.next(),
      )
      return this.queued
    }
    this.running = (async () => {
      const text = await this.render()
      try {
        await writeFileAtomic(this.file, text)
      } catch (error) {
        throw new Error(`state file ${this.file}: could not write it (${(error as Error).message})`)
      }
    })().finally(() => {
      this.running = undefined
    })
    return this.running
  }

  private next(): Promise<void> {
    this.queued = undefined
    return this.save()
  }

  /** Waits for writes in progress, then writes the final state. */
  async close(): Promise<void> {
    this.closed = true
    await this.queued?.catch(() => {})
    await this.running?.catch(() => {})
    await this.save()
  }
}
