// Parsers for the structured parameters methods share: block references, call objects,
// state/block overrides, log filters.
import type {
  AccountOverride,
  BlockOverrides,
  BlockRef,
  BlockTag,
  CallRequest,
  LogFilter,
  StateOverrides,
  Withdrawal,
} from '../node/types.js'
import { invalidParams } from './errors.js'
import { parseAddress, parseData, parseFixed, parseHash, parseQuantity, parseSlot } from './hex.js'

const TAGS = new Set<BlockTag>(['latest', 'pending', 'safe', 'finalized', 'earliest'])

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Block number, tag, hash, or EIP-1898 object; `fallback` when absent. */
export function parseBlockRef(value: unknown, name = 'block', fallback: BlockTag = 'latest'): BlockRef {
  if (value === undefined || value === null) return { tag: fallback }
  if (typeof value === 'string') {
    if (TAGS.has(value as BlockTag)) return { tag: value as BlockTag }
    // The OP stack's unsafe head is `latest` (base/base rpc/eth.rs BlockNumberOrTagExt remaps it for
    // eth_getBlockByNumber, which op-conductor calls with it; pcnode takes it wherever a tag goes).
    if (value === 'unsafe') return { tag: 'latest' }
    if (/^0x[0-9a-fA-F]{64}$/.test(value)) return { hash: parseHash(value, name) }
    if (/^0x[0-9a-fA-F]+$/.test(value)) return { number: BigInt(value) }
    throw invalidParams(`invalid argument ${name}: hex string without 0x prefix or invalid block tag "${value}"`)
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return { number: BigInt(value) }
  if (isObject(value)) {
    if (value.blockHash !== undefined) {
      // requireCanonical is moot: every block pcnode knows by hash is canonical.
      return { hash: parseHash(value.blockHash, `${name}.blockHash`) }
    }
    if (value.blockNumber !== undefined) return parseBlockRef(value.blockNumber, `${name}.blockNumber`)
  }
  throw invalidParams(`invalid argument ${name}: expected a block number, tag or hash`)
}

const CALL_FIELDS = new Set([
  'from',
  'to',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'value',
  'data',
  'input',
  'nonce',
  'accessList',
  'authorizationList',
  'maxFeePerBlobGas',
  'blobVersionedHashes',
  'type',
  'chainId',
  'blobs',
  'commitments',
  'proofs',
])

export function parseCallRequest(value: unknown, name = 'transaction'): CallRequest {
  if (!isObject(value)) throw invalidParams(`invalid argument ${name}: expected a transaction object`)
  for (const key of Object.keys(value)) {
    if (!CALL_FIELDS.has(key)) throw invalidParams(`invalid argument ${name}: unknown field "${key}"`)
  }
  // geth decodes gas and nonce as uint64 and the fee and value fields as uint256: larger numbers are
  // refused while parsing, as geth's JSON decoding refuses them.
  const q = (key: string, bits = 256) =>
    value[key] === undefined || value[key] === null ? undefined : parseBoundedQuantity(value[key], `${name}.${key}`, bits)
  const a = (key: string) =>
    value[key] === undefined || value[key] === null ? undefined : parseAddress(value[key], `${name}.${key}`)
  const req: CallRequest = {
    from: a('from'),
    to: a('to'),
    gas: q('gas', 64),
    gasPrice: q('gasPrice'),
    maxFeePerGas: q('maxFeePerGas'),
    maxPriorityFeePerGas: q('maxPriorityFeePerGas'),
    value: q('value'),
    nonce: q('nonce', 64),
    maxFeePerBlobGas: q('maxFeePerBlobGas'),
  }
  const input = value.input ?? value.data
  if (value.input !== undefined && value.data !== undefined && value.input !== value.data) {
    throw invalidParams(
      `invalid argument ${name}: both "data" and "input" are set and not equal. Please use "input" to pass transaction call data`,
    )
  }
  if (input !== undefined && input !== null) req.data = parseData(input, `${name}.input`)
  if (req.gasPrice !== undefined && (req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined)) {
    throw invalidParams('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  }
  if (req.maxFeePerGas !== undefined && req.maxPriorityFeePerGas !== undefined && req.maxPriorityFeePerGas > req.maxFeePerGas) {
    throw invalidParams(`maxFeePerGas (${req.maxFeePerGas}) < maxPriorityFeePerGas (${req.maxPriorityFeePerGas})`)
  }
  if (Array.isArray(value.accessList)) {
    req.accessList = value.accessList.map((entry, i) => {
      if (!isObject(entry)) throw invalidParams(`invalid argument ${name}.accessList[${i}]`)
      const keys = Array.isArray(entry.storageKeys) ? entry.storageKeys : []
      return {
        address: parseAddress(entry.address, `${name}.accessList[${i}].address`),
        storageKeys: keys.map((k, j) => parseHash(k, `${name}.accessList[${i}].storageKeys[${j}]`)),
      }
    })
  }
  if (Array.isArray(value.authorizationList)) {
    req.authorizationList = value.authorizationList.map((entry, i) => {
      const n = `${name}.authorizationList[${i}]`
      if (!isObject(entry)) throw invalidParams(`invalid argument ${n}`)
      return {
        chainId: parseQuantity(entry.chainId, `${n}.chainId`),
        address: parseAddress(entry.address, `${n}.address`),
        nonce: parseQuantity(entry.nonce, `${n}.nonce`),
        yParity: parseQuantity(entry.yParity ?? entry.v ?? '0x0', `${n}.yParity`),
        r: parseQuantity(entry.r ?? '0x0', `${n}.r`),
        s: parseQuantity(entry.s ?? '0x0', `${n}.s`),
      }
    })
  }
  if (Array.isArray(value.blobVersionedHashes)) {
    req.blobVersionedHashes = value.blobVersionedHashes.map((h, i) => parseHash(h, `${name}.blobVersionedHashes[${i}]`))
  }
  // `type` is checked but not kept: the fields present decide the transaction's type, as in geth.
  if (value.type !== undefined && value.type !== null) parseQuantity(value.type, `${name}.type`)
  return req
}

/** A quantity of at most `bits` bits. */
export function parseBoundedQuantity(value: unknown, name: string, bits: number): bigint {
  const n = parseQuantity(value, name)
  if (n >> BigInt(bits) !== 0n) throw invalidParams(`invalid argument ${name}: hex number > ${bits} bits`)
  return n
}

export function parseStateOverrides(value: unknown, name = 'stateOverrides'): StateOverrides | undefined {
  if (value === undefined || value === null) return undefined
  if (!isObject(value)) throw invalidParams(`invalid argument ${name}: expected an object of address to account override`)
  // One entry per address: two spellings of one address (checksummed, lowercase): the last wins.
  const byAddress = new Map<string, AccountOverride>()
  for (const [address, raw] of Object.entries(value)) {
    const n = `${name}[${address}]`
    const addr = parseAddress(address, n)
    if (!isObject(raw)) throw invalidParams(`invalid argument ${n}: expected an account override object`)
    const o: AccountOverride = { address: addr }
    for (const key of Object.keys(raw)) {
      if (!['balance', 'nonce', 'code', 'state', 'stateDiff', 'movePrecompileToAddress'].includes(key)) {
        throw invalidParams(`invalid argument ${n}: unknown field "${key}"`)
      }
    }
    if (raw.balance != null) o.balance = parseQuantity(raw.balance, `${n}.balance`)
    if (raw.nonce != null) o.nonce = parseQuantity(raw.nonce, `${n}.nonce`)
    if (raw.code != null) o.code = parseData(raw.code, `${n}.code`)
    if (raw.state != null) o.state = parseStorage(raw.state, `${n}.state`)
    if (raw.stateDiff != null) o.stateDiff = parseStorage(raw.stateDiff, `${n}.stateDiff`)
    if (raw.movePrecompileToAddress != null)
      o.movePrecompileToAddress = parseAddress(raw.movePrecompileToAddress, `${n}.movePrecompileToAddress`)
    const key = address.toLowerCase()
    byAddress.delete(key)
    byAddress.set(key, o)
  }
  return [...byAddress.values()]
}

function parseStorage(value: unknown, name: string): Array<[Uint8Array, Uint8Array]> {
  if (!isObject(value)) throw invalidParams(`invalid argument ${name}: expected an object of slot to value`)
  return Object.entries(value).map(([slot, v]) => [parseSlot(slot, `${name} key`), parseFixed(v, 32, `${name}[${slot}]`)])
}

export function parseBlockOverrides(value: unknown, name = 'blockOverrides'): BlockOverrides | undefined {
  if (value === undefined || value === null) return undefined
  if (!isObject(value)) throw invalidParams(`invalid argument ${name}: expected an object`)
  // geth's types: number, base fees uint256; time, gas limit uint64 (ethereumjs' headers take uint64 numbers).
  const q = (key: string, bits = 256) =>
    value[key] == null ? undefined : parseBoundedQuantity(value[key], `${name}.${key}`, bits)
  const out: BlockOverrides = {
    number: q('number', 64),
    time: q('time', 64),
    gasLimit: q('gasLimit', 64),
    baseFeePerGas: q('baseFeePerGas'),
    blobBaseFee: q('blobBaseFee'),
  }
  if (value.feeRecipient != null) out.feeRecipient = parseAddress(value.feeRecipient, `${name}.feeRecipient`)
  // viem sends prevRandao as a quantity ("0x1234"): accept up to 32 bytes, left-padded.
  if (value.prevRandao != null) out.prevRandao = parseSlot(value.prevRandao, `${name}.prevRandao`)
  if (value.beaconRoot != null) out.beaconRoot = parseHash(value.beaconRoot, `${name}.beaconRoot`)
  if (value.withdrawals != null) out.withdrawals = parseWithdrawals(value.withdrawals, `${name}.withdrawals`)
  return out
}

function parseWithdrawals(value: unknown, name: string): Withdrawal[] {
  if (!Array.isArray(value)) throw invalidParams(`invalid argument ${name}: expected an array`)
  return value.map((w, i) => {
    const n = `${name}[${i}]`
    if (!isObject(w)) throw invalidParams(`invalid argument ${n}: expected a withdrawal object`)
    return {
      index: parseQuantity(w.index, `${n}.index`),
      validatorIndex: parseQuantity(w.validatorIndex, `${n}.validatorIndex`),
      address: parseAddress(w.address, `${n}.address`),
      amount: parseQuantity(w.amount, `${n}.amount`),
    }
  })
}

export function parseLogFilter(value: unknown, name = 'filter'): LogFilter {
  if (value === undefined || value === null) return {}
  if (!isObject(value)) throw invalidParams(`invalid argument ${name}: expected a filter object`)
  const filter: LogFilter = {}
  if (value.blockHash != null) {
    if (value.fromBlock != null || value.toBlock != null)
      throw invalidParams('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other')
    filter.blockHash = parseHash(value.blockHash, `${name}.blockHash`)
  }
  if (value.fromBlock != null) filter.fromBlock = parseBlockRef(value.fromBlock, `${name}.fromBlock`)
  if (value.toBlock != null) filter.toBlock = parseBlockRef(value.toBlock, `${name}.toBlock`)
  if (value.address != null) {
    const list = Array.isArray(value.address) ? value.address : [value.address]
    filter.addresses = list.map((a, i) => parseAddress(a, `${name}.address[${i}]`))
  }
  if (value.topics != null) {
    if (!Array.isArray(value.topics)) throw invalidParams(`invalid argument ${name}.topics: expected an array`)
    if (value.topics.length > 4) throw invalidParams('exceed max topics')
    filter.topics = value.topics.map((t, i) => {
      if (t === null) return null
      const list = Array.isArray(t) ? t : [t]
      return list.map((h, j) => parseHash(h, `${name}.topics[${i}][${j}]`))
    })
  }
  return filter
}
