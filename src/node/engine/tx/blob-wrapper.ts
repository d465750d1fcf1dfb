// Blob transactions as eth_sendRawTransaction receives them: the EIP-4844 network wrapper with its
// blobs, commitments and proofs (Osaka: version 1 with cell proofs). They are decoded and their
// proofs verified with the engine's KZG (vm/crypto.ts); the pool then holds the transaction as
// blocks carry it.
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { type Blob4844Tx, createBlob4844TxFromSerializedNetworkWrapper } from '@ethereumjs/tx'

/** geth's blob pool limit for a transaction with its sidecar. */
export const MAX_BLOB_WRAPPER_SIZE = 1024 * 1024 + 64 * 1024

/** True for a type-3 envelope whose payload is a network wrapper (its first item is the tx list). */
export function isBlobNetworkWrapper(raw: Uint8Array): boolean {
  if (raw.length < 2 || raw[0] !== 3) return false
  try {
    const items = RLP.decode(raw.subarray(1)) as unknown[]
    return Array.isArray(items) && Array.isArray(items[0])
  } catch {
    return false
  }
}

/** Decodes a network wrapper and verifies its blobs against their commitments and proofs. */
export async function decodeBlobNetworkWrapper(common: Common, raw: Uint8Array): Promise<Blob4844Tx> {
  if (raw.length > MAX_BLOB_WRAPPER_SIZE) {
    throw new Error(`oversized data: transaction size ${raw.length}, limit ${MAX_BLOB_WRAPPER_SIZE}`)
  }
  return createBlob4844TxFromSerializedNetworkWrapper(raw, { common })
}
