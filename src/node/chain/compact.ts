// Sealed blocks share the values they have in common with the block before them. A node seals a
// block every 2 s for hours, and each field of a record is its own heap object: a Uint8Array with
// its own ArrayBuffer (~200 bytes besides its bytes) or a bigint. Most of them repeat from block
// to block (the coinbase, the zero bloom, the roots of empty lists, the L1-info deposit's sender,
// target and fee parameters…): an empty Base block's record takes ~7 KiB, about half of it such
// repeats. Records are plain data, never written in place once sealed (fields are
// replaced, not mutated), so equal values can be one object. The bytes that differ move into
// shared chunks (bytes.ts packed).
import { packed, sameBytes } from '../bytes.js'
import type { BlockRecord } from '../types.js'

/** Byte fields longer than this (calldata, raw transactions) are not compared. */
const MAX_SHARED_BYTES = 256
/**
 * Points `block`'s header, transactions and receipts at `prev`'s equal values (same index, same
 * type) and moves the rest of their bytes into chunks.
 */
export function shareWithPrevious(block: BlockRecord, prev: BlockRecord | undefined): void {
  block.hash = packed(block.hash)
  if (block.payloadId) block.payloadId = packed(block.payloadId)
  shareFields(block.header, prev?.header)
  if (prev && sameBytes(block.header.parentHash, prev.hash)) block.header.parentHash = prev.hash
  block.txs.forEach((t, i) => {
    const p = prev?.txs[i]?.tx.type === t.tx.type ? prev.txs[i] : undefined
    shareFields(t.tx, p?.tx)
    if (t.tx.deposit) shareFields(t.tx.deposit, p?.tx.deposit)
    shareFields(t.receipt, p?.receipt)
    if (t.receipt.l1) shareFields(t.receipt.l1, p?.receipt.l1)
    for (const log of t.receipt.logs) {
      if (Object.isFrozen(log)) continue
      log.address = packed(log.address)
      log.data = packed(log.data)
      log.topics = log.topics.map(packed)
    }
  })
}

/**
 * A transaction loaded from a state file decodes its fields when first read (getters: engine/tx/record.ts);
 * it is left as it is, unread. Asked of one field, not of every field (a descriptor per field of
 * every record cost ~14 µs a block).
 */
function decodesLazily(tx: object): boolean {
  return typeof Object.getOwnPropertyDescriptor(tx, 'nonce')?.get === 'function'
}

/** `into`'s values equal to `from`'s become `from`'s; its other bytes move into a chunk. */
function shareFields(into: object, from: object | undefined): void {
  if (Object.isFrozen(into) || decodesLazily(into) || (from && decodesLazily(from))) return
  const target = into as Record<string, unknown>
  const source = (from ?? {}) as Record<string, unknown>
  for (const key of Object.keys(target)) {
    const value = target[key]
    const other = source[key]
    if (typeof value === 'bigint') {
      // Equal bigints compare === but are separate objects: keep the earlier one.
      if (value === other) target[key] = other
    } else if (value instanceof Uint8Array && value !== other) {
      const same = other instanceof Uint8Array && value.length <= MAX_SHARED_BYTES && sameBytes(value, other)
      target[key] = same ? other : packed(value)
    }
  }
}
