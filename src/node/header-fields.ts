// The block header's fields in one table: their names on the node's records, in JSON-RPC and in
// the state file, their kinds and sizes, and the neutral values of a header nobody filled in.
// Everything that lists header fields (genesis, the producer, simulated blocks, the engine, the
// state file, the RPC formatter) reads this table, so a new hardfork field is added here once.
import type { HeaderFields } from './types.js'

export type HeaderField = keyof HeaderFields

export interface HeaderFieldSpec {
  name: HeaderField
  /** Quantities are bigint, the rest bytes of `size` (undefined: any length). */
  kind: 'quantity' | 'bytes'
  size?: number
  /** The field's name in JSON-RPC block objects (geth's), where it differs. */
  rpc?: string
  /** Added after state-file version 1 was written: a file without it means the neutral value. */
  optional?: boolean
}

/** In the header's RLP order (Yellow Paper, EIP-1559, 4895, 4844, 4788, 7685; ommers hash left out: always empty). */
export const HEADER_FIELDS: readonly HeaderFieldSpec[] = [
  { name: 'parentHash', kind: 'bytes', size: 32 },
  { name: 'coinbase', kind: 'bytes', size: 20, rpc: 'miner' },
  { name: 'stateRoot', kind: 'bytes', size: 32 },
  { name: 'transactionsRoot', kind: 'bytes', size: 32 },
  { name: 'receiptsRoot', kind: 'bytes', size: 32 },
  { name: 'logsBloom', kind: 'bytes', size: 256 },
  { name: 'difficulty', kind: 'quantity', optional: true },
  { name: 'number', kind: 'quantity' },
  { name: 'gasLimit', kind: 'quantity' },
  { name: 'gasUsed', kind: 'quantity' },
  { name: 'timestamp', kind: 'quantity' },
  { name: 'extraData', kind: 'bytes' },
  { name: 'mixHash', kind: 'bytes', size: 32 },
  { name: 'nonce', kind: 'bytes', size: 8, optional: true },
  { name: 'baseFeePerGas', kind: 'quantity' },
  { name: 'withdrawalsRoot', kind: 'bytes', size: 32 },
  { name: 'blobGasUsed', kind: 'quantity' },
  { name: 'excessBlobGas', kind: 'quantity' },
  { name: 'parentBeaconBlockRoot', kind: 'bytes', size: 32 },
  { name: 'requestsHash', kind: 'bytes', size: 32 },
]

/** Root of an empty Merkle-Patricia trie: keccak256(rlp("")). */
export const EMPTY_TRIE_ROOT = Uint8Array.from(
  Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex'),
)
/** EIP-7685 hash of no execution-layer requests: sha256 of nothing (no 7002/7251 contracts run). */
export const EMPTY_REQUESTS_HASH = Uint8Array.from(
  Buffer.from('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex'),
)
/** keccak256(rlp([])): the ommers hash of every post-merge block. */
export const EMPTY_UNCLES_HASH = Uint8Array.from(
  Buffer.from('1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347', 'hex'),
)

/**
 * A header with every field at its neutral value (empty roots, zero hashes and bloom, no extra
 * data, the empty requests hash), with `fields` on top. Fresh arrays each call: records own them.
 */
export function emptyHeader(fields: Partial<HeaderFields> = {}): HeaderFields {
  return {
    parentHash: new Uint8Array(32),
    number: 0n,
    timestamp: 0n,
    gasLimit: 0n,
    gasUsed: 0n,
    baseFeePerGas: 0n,
    coinbase: new Uint8Array(20),
    stateRoot: EMPTY_TRIE_ROOT,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    extraData: new Uint8Array(),
    withdrawalsRoot: EMPTY_TRIE_ROOT,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconBlockRoot: new Uint8Array(32),
    requestsHash: EMPTY_REQUESTS_HASH,
    ...fields,
  }
}

/** OR of the blooms: a block's logsBloom from its receipts'. */
export function combineBlooms(blooms: Iterable<Uint8Array>): Uint8Array {
  const out = new Uint8Array(256)
  for (const bloom of blooms) for (let i = 0; i < 256; i++) out[i] |= bloom[i]
  return out
}
