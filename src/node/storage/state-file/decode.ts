// Loading: a parsed state document checked and converted for this node's chain, every problem
// reported with its JSON path.
import { constants } from 'node:buffer'
import { getHeapStatistics } from 'node:v8'
import { gunzipSync } from 'node:zlib'
import { toData as hex } from '../../../shared/hex.js'
import { jsonShapeProblem } from '../../../shared/json-shape.js'
import { hexKey } from '../../bytes.js'
import { type AccountDump, type Engine, logsBloom } from '../../engine/index.js'
import { InvalidParamsError } from '../../errors.js'
import { emptyHeader, HEADER_FIELDS } from '../../header-fields.js'
import {
  type BlockRecord,
  type HeaderFields,
  type IncludedTx,
  L1_RECEIPT_FIELDS,
  type L1ReceiptFields,
  type LogEntry,
  type PoolTxInfo,
  type ReceiptData,
} from '../../types.js'
import { STATE_FORMAT, STATE_VERSION } from './format.js'

const equalsBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0
const pad32 = (bytes: Uint8Array): Uint8Array => {
  if (bytes.length === 32) return bytes
  const out = new Uint8Array(32)
  out.set(bytes, 32 - bytes.length)
  return out
}

export interface DecodedState {
  timeOffset: bigint
  stateRoot: Uint8Array | undefined
  accounts: AccountDump[]
  blocks: BlockRecord[]
  pool: PoolTxInfo[]
}

/** A problem with the file's content, located by its JSON path (anvil_loadState answers -32602). */
export class StateFormatError extends InvalidParamsError {}

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

/**
 * The most JSON text a state file read at start may hold: V8's longest string, which is also the
 * most pcnode can write (it renders the file as one string).
 */
export const STATE_FILE_MAX_BYTES = constants.MAX_STRING_LENGTH
/**
 * The most JSON text anvil_loadState takes, gzip inflated. A request body holds at most 10 MiB, so
 * 5 MiB of gzip as hex; pcnode's own state files compress about 8 to 1, so that is about 40 MiB of
 * state. 128 MiB leaves room for states that compress better, and keeps a small gzip from
 * inflating to gigabytes inside the node.
 */
export const LOAD_STATE_MAX_BYTES = 128 * 2 ** 20

/**
 * The shape a state text may have, checked before JSON.parse builds it. V8 ends the process (a
 * fatal error, not an exception) on an array of more than 2^27 elements, and fills its heap long
 * before that on dense ones: one array holds at most 2^24 elements, and the document at most as
 * many values as the heap has room for at ~128 bytes each (an empty object costs ~70 bytes of
 * heap for 3 bytes of text). A real state has one value per ~60 bytes of text, far below both.
 */
function stateShapeLimits() {
  return {
    maxDepth: 128,
    maxArrayLength: 2 ** 24,
    maxValues: Math.floor(getHeapStatistics().heap_size_limit / 128),
  }
}

const MIB = 2 ** 20

/**
 * JSON text (or hex of it, or gzip of it, as anvil_loadState may receive) → the parsed document.
 * Refuses text over `maxBytes` (once inflated) or shaped to exhaust V8, before parsing it.
 */
export function parseStateText(input: string | Uint8Array, maxBytes = LOAD_STATE_MAX_BYTES): unknown {
  let data: Uint8Array | string = input
  if (typeof data === 'string' && data.startsWith('0x')) {
    const buffer = Buffer.from(data.slice(2), 'hex')
    if (buffer.length * 2 !== data.length - 2) throw new StateFormatError('not valid hex')
    data = buffer
  }
  const tooBig = () => new StateFormatError(`more than ${Math.round(maxBytes / MIB)} MiB of JSON, the most a state load takes`)
  if (typeof data !== 'string') {
    let buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    if (buffer[0] === 0x1f && buffer[1] === 0x8b) {
      try {
        buffer = gunzipSync(buffer, { maxOutputLength: maxBytes })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooBig()
        throw new StateFormatError(`not valid gzip (${(error as Error).message})`)
      }
    }
    if (buffer.length > maxBytes) throw tooBig()
    data = buffer.toString('utf8')
  } else if (data.length > maxBytes) {
    throw tooBig()
  }
  if (data.trim() === '') throw new StateFormatError('empty (no JSON content)')
  const shape = jsonShapeProblem(data, stateShapeLimits())
  if (shape) throw new StateFormatError(`refused before parsing: the JSON ${shape.message}`)
  try {
    return JSON.parse(data)
  } catch (error) {
    throw new StateFormatError(`not valid JSON (${(error as Error).message})`)
  }
}

/**
 * Checks and converts a parsed state document for this node's chain (on a fork: saved on the same
 * fork block); throws StateFormatError with a JSON path.
 */
export function decodeState(doc: unknown, engine: Engine, fork?: { number: bigint; hash: string }): DecodedState {
  const root = object(doc, '(top)')
  if (root.format !== STATE_FORMAT) fail('format', `expected "${STATE_FORMAT}", got ${show(root.format)}`)
  if (root.version !== STATE_VERSION)
    fail('version', `this pcnode reads version ${STATE_VERSION}, the file is ${show(root.version)}`)
  const chainId = quantity(root.chainId, 'chainId')
  if (chainId !== engine.chainId) {
    fail('chainId', `the file is for chain id ${chainId}, this node runs chain id ${engine.chainId} (--chain-id)`)
  }
  if (root.hardfork !== engine.hardfork()) {
    fail('hardfork', `the file is for ${show(root.hardfork)}, this node runs "${engine.hardfork()}" (--hardfork)`)
  }
  const first = checkFork(root.fork, fork)
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
  const blocks = decodeBlocks(list(root.blocks, 'blocks'), engine, first, root.fork !== undefined)
  const pool = list(root.pool ?? [], 'pool').map((raw, i) => decodePoolEntry(raw, `pool[${i}]`, engine))
  return {
    timeOffset: BigInt(offset),
    stateRoot: root.stateRoot === undefined ? undefined : bytes(root.stateRoot, 'stateRoot', 32),
    accounts,
    blocks,
    pool,
  }
}

/** The number of the file's first block: 0, or the fork block it was saved on, which must be this node's. */
function checkFork(raw: unknown, fork: { number: bigint; hash: string } | undefined): bigint {
  if (raw === undefined) {
    if (fork) fail('fork', `the file was saved on a chain that is not a fork; this node forks block ${fork.number}`)
    return 0n
  }
  const f = object(raw, 'fork')
  const number = quantity(f.blockNumber, 'fork.blockNumber')
  const hash = hex(bytes(f.blockHash, 'fork.blockHash', 32))
  const start = `start pcnode with --fork-url and --fork-block-number ${number} to load it`
  if (!fork) fail('fork', `the file was saved on a fork of block ${number} (${hash}): ${start}`)
  if (hash !== fork.hash.toLowerCase()) {
    fail(
      'fork.blockHash',
      `the file was saved on a fork of block ${number} (${hash}), this node forks block ${fork.number} (${fork.hash}): ${start}`,
    )
  }
  return number
}

function decodeAccount(address: string, raw: unknown, path: string): AccountDump {
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
  if (a.deleted !== undefined && a.deleted !== true) fail(`${path}.deleted`, `expected true, got ${show(a.deleted)}`)
  return {
    ...(a.deleted === true ? { deleted: true } : {}),
    address: bytes(address, `${path} (the key)`, 20),
    nonce: quantity(a.nonce ?? '0x0', `${path}.nonce`),
    balance: quantity(a.balance ?? '0x0', `${path}.balance`),
    code: bytes(a.code ?? '0x', `${path}.code`),
    storage,
  }
}

/** `first`: the number of the first block; `forked`: it is a fork block, whose header is the upstream's. */
function decodeBlocks(raw: unknown[], engine: Engine, first: bigint, forked: boolean): BlockRecord[] {
  if (raw.length === 0) fail('blocks', 'expected at least the genesis block')
  const blocks: BlockRecord[] = []
  raw.forEach((entry, n) => {
    const path = `blocks[${n}]`
    const b = object(entry, path)
    const h = object(b.header, `${path}.header`)
    const header = emptyHeader() as unknown as Record<keyof HeaderFields, bigint | Uint8Array>
    for (const { name, kind, size, optional } of HEADER_FIELDS) {
      if (optional && h[name] === undefined) continue // a field version-1 files may lack: its neutral value
      header[name] =
        kind === 'quantity' ? quantity(h[name], `${path}.header.${name}`) : bytes(h[name], `${path}.header.${name}`, size)
    }
    const fields = header as unknown as HeaderFields
    if (fields.number !== first + BigInt(n)) fail(`${path}.header.number`, `expected ${first + BigInt(n)}, got ${fields.number}`)
    const hash = bytes(b.hash, `${path}.hash`, 32)
    // A fork block's header is the upstream's (fields pcnode may not encode as it does): its hash is checked against `fork`.
    const computed = forked && n === 0 ? hash : engine.header(fields).hash()
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
  // A transaction's hash is the keccak of its envelope; its fields are decoded when first read.
  const hash = engine.keccak(data)
  if (!equalsBytes(hash, bytes(t.hash, `${path}.hash`, 32))) fail(`${path}.hash`, `the transaction hashes to ${hex(hash)}`)
  return {
    tx: engine.lazyTransaction(data, hash, bytes(t.from, `${path}.from`, 20)),
    index,
    flashblockIndex: Number(quantity(t.flashblockIndex ?? '0x0', `${path}.flashblockIndex`)),
    receipt: decodeReceipt(t.receipt, `${path}.receipt`, engine, firstLogIndex),
    preconfirmedAt: 0,
    block,
  }
}

function decodeReceipt(raw: unknown, path: string, engine: Engine, firstLogIndex: number): ReceiptData {
  const r = object(raw, path)
  const status = quantity(r.status, `${path}.status`)
  if (status > 1n) fail(`${path}.status`, 'expected 0x0 or 0x1')
  const logs: LogEntry[] = list(r.logs, `${path}.logs`).map((rawLog, i) => {
    const l = object(rawLog, `${path}.logs[${i}]`)
    const log: LogEntry = {
      address: bytes(l.address, `${path}.logs[${i}].address`, 20),
      topics: list(l.topics, `${path}.logs[${i}].topics`).map((topic, j) => bytes(topic, `${path}.logs[${i}].topics[${j}]`, 32)),
      data: bytes(l.data, `${path}.logs[${i}].data`),
    }
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
    // Derived, as runTx builds it: the address, then each topic.
    logsBloom: logsBloom(logs, engine.keccak),
    blobGasUsed: optional('blobGasUsed'),
    blobGasPrice: optional('blobGasPrice'),
    firstLogIndex,
    ...(r.depositNonce !== undefined ? { depositNonce: quantity(r.depositNonce, `${path}.depositNonce`) } : {}),
    ...(r.l1 !== undefined ? { l1: decodeL1Fields(r.l1, `${path}.l1`) } : {}),
  }
}

function decodeL1Fields(raw: unknown, path: string): L1ReceiptFields {
  const o = object(raw, path)
  return Object.fromEntries(
    L1_RECEIPT_FIELDS.map((k) => [k, quantity(o[k] ?? '0x0', `${path}.${k}`)]),
  ) as unknown as L1ReceiptFields
}

function decodePoolEntry(raw: unknown, path: string, engine: Engine): PoolTxInfo {
  const p = object(raw, path)
  const data = bytes(p.raw, `${path}.raw`)
  const impersonated = p.impersonated === true ? bytes(p.from, `${path}.from`, 20) : undefined
  try {
    return { tx: engine.restoreTransaction(data, impersonated), receivedAt: performance.now() }
  } catch (error) {
    fail(`${path}.raw`, (error as Error).message)
  }
}
