// The fork block's header as the local chain keeps it: the upstream's block object read through
// the header field table (chain/header.ts), fields the upstream's block lacks (a chain before
// Cancun has no blob fields) marked absent.
import { emptyHeader, HEADER_FIELDS } from '../header-fields.js'
import type { BlockRecord, HeaderFields } from '../types.js'

const fromHex = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'))

/** A sealed record of the upstream block `json` (eth_getBlockByNumber(n, false)), its hash the upstream's. */
export function forkBlockRecord(json: Record<string, unknown>): BlockRecord {
  const header = emptyHeader() as unknown as Record<keyof HeaderFields, bigint | Uint8Array>
  const absent: Array<keyof HeaderFields> = []
  for (const { name, kind, rpc } of HEADER_FIELDS) {
    const value = json[rpc ?? name]
    if (typeof value !== 'string' || !/^0x[0-9a-fA-F]*$/.test(value)) {
      absent.push(name)
      continue
    }
    header[name] = kind === 'quantity' ? BigInt(value) : fromHex(value)
  }
  if (typeof json.hash !== 'string' || typeof json.number !== 'string') {
    throw new Error(`the upstream's block has no ${typeof json.hash !== 'string' ? 'hash' : 'number'}`)
  }
  const record: BlockRecord = {
    header: header as unknown as HeaderFields,
    hash: fromHex(json.hash),
    sealed: true,
    txs: [],
    flashblocks: 0,
    size: typeof json.size === 'string' ? BigInt(json.size) : 0n,
  }
  if (absent.length > 0) record.absent = absent
  // A Denim block's millisecond time (Base serves it as timestampMs).
  if (typeof json.timestampMs === 'string') record.millis = Number(BigInt(json.timestampMs) % 1000n)
  return record
}
