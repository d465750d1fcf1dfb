// Receipts as the receipts trie holds them (EIP-2718 typed encoding) and log blooms.
import { Bloom, encodeReceipt as encode } from '@ethereumjs/vm'
import type { LogEntry, ReceiptData } from '../types.js'

/** The consensus encoding of a receipt: [status, cumulativeGasUsed, bloom, logs], typed by `type`. */
export function encodeReceipt(
  type: number,
  r: Pick<ReceiptData, 'status' | 'cumulativeGasUsed' | 'logsBloom' | 'logs'>,
): Uint8Array {
  const logs = r.logs.map((l) => [l.address, l.topics, l.data] as [Uint8Array, Uint8Array[], Uint8Array])
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
