// Receipts as the receipts trie holds them (EIP-2718 typed encoding) and log blooms.
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes } from '@ethereumjs/util'
import { Bloom, encodeReceipt as encode } from '@ethereumjs/vm'
import type { LogEntry, ReceiptData } from '../types.js'

/** The OP-stack deposit transaction type (OP specs, deposits.md). */
export const DEPOSIT_TX_TYPE = 0x7e

/**
 * The consensus encoding of a receipt: [status, cumulativeGasUsed, bloom, logs], typed by `type`.
 * A deposit's (type 0x7e) adds depositNonce and depositReceiptVersion 1 (Canyon; op-geth's
 * receipt.go, depositReceiptRLP).
 */
export function encodeReceipt(
  type: number,
  r: Pick<ReceiptData, 'status' | 'cumulativeGasUsed' | 'logsBloom' | 'logs' | 'depositNonce'>,
): Uint8Array {
  const logs = r.logs.map((l) => [l.address, l.topics, l.data] as [Uint8Array, Uint8Array[], Uint8Array])
  if (type === DEPOSIT_TX_TYPE) {
    const fields = [
      bigIntToUnpaddedBytes(BigInt(r.status)),
      bigIntToUnpaddedBytes(r.cumulativeGasUsed),
      r.logsBloom,
      logs,
      bigIntToUnpaddedBytes(r.depositNonce ?? 0n),
      bigIntToUnpaddedBytes(1n),
    ]
    const body = RLP.encode(fields)
    const out = new Uint8Array(body.length + 1)
    out[0] = DEPOSIT_TX_TYPE
    out.set(body, 1)
    return out
  }
  return encode({ status: r.status, cumulativeBlockGasUsed: r.cumulativeGasUsed, bitvector: r.logsBloom, logs }, type as never)
}

/** The 2048-bit bloom of these logs' addresses and topics. */
export function logsBloom(logs: LogEntry[], keccak: (data: Uint8Array) => Uint8Array): Uint8Array {
  const bloom = new Bloom(undefined, { customCrypto: { keccak256: keccak } } as never)
  for (const log of logs) {
    bloom.add(log.address)
    for (const topic of log.topics) bloom.add(topic)
  }
  return bloom.bitvector
}
