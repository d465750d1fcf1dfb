// Sealed blocks share the values they have in common with the block before them. A node seals a
// block every 2 s for hours, and each field of a record is its own heap object: a Uint8Array with
// its own ArrayBuffer (~200 bytes besides its bytes) or a bigint. Most of them repeat from block
// to block (the coinbase, the zero bloom, the roots of empty lists, the L1-info deposit's sender,
// target and fee parameters…): an empty Base block's record took ~7 KiB, about half of it such
// repeats (issue 18). Records are plain data, never written in place once sealed (fields are
// replaced, not mutated), so equal values can be one object.
import { sameBytes } from '../bytes.js'
import type { BlockRecord } from '../types.js'

/** Byte fields longer than this (calldata, raw transactions) are not compared. */
const MAX_SHARED_BYTES = 256

/** Points `block`'s header, transactions and receipts at `prev`'s equal values (same index, same type). */
export function shareWithPrevious(block: BlockRecord, prev: BlockRecord | undefined): void {
  if (!prev) return
  shareFields(block.header, prev.header)
  if (sameBytes(block.header.parentHash, prev.hash)) block.header.parentHash = prev.hash
  const count = Math.min(block.txs.length, prev.txs.length)
  for (let i = 0; i < count; i++) {
    const t = block.txs[i]
    const p = prev.txs[i]
    if (t.tx.type !== p.tx.type) continue
    shareFields(t.tx, p.tx)
    if (t.tx.deposit && p.tx.deposit) shareFields(t.tx.deposit, p.tx.deposit)
    shareFields(t.receipt, p.receipt)
    if (t.receipt.l1 && p.receipt.l1) shareFields(t.receipt.l1, p.receipt.l1)
  }
}

/**
 * A transaction loaded from a state file decodes its fields when first read (getters: engine/tx.ts);
 * it is left as it is, unread. Asked of one field, not of every field (a descriptor per field of
 * every record cost ~14 µs a block).
 */
function decodesLazily(tx: object): boolean {
  return typeof Object.getOwnPropertyDescriptor(tx, 'nonce')?.get === 'function'
}

function shareFields(into: object, from: object): void {
  if (Object.isFrozen(into) || decodesLazily(into) || decodesLazily(from)) return
  const target = into as Record<string, unknown>
  const source = from as Record<string, unknown>
  for (const key of Object.keys(target)) {
    const value = target[key]
    const other = source[key]
    if (typeof value === 'bigint') {
      // Equal bigints compare === but are separate objects: keep the earlier one.
      if (value === other) target[key] = other
    } else if (
      value instanceof Uint8Array &&
      other instanceof Uint8Array &&
      value !== other &&
      value.length <= MAX_SHARED_BYTES &&
      sameBytes(value, other)
    ) {
      target[key] = other
    }
  }
}
