// The raw flashblock payload Base's builder streams (newFlashblocks with {format: "payload"}).
import type { DevNode } from '../node/node.js'
import type { BlockRecord, IncludedTx } from '../node/types.js'
import { toData, toFixed, toQuantity } from './hex.js'

/**
 * The raw flashblock payload Base's builder streams (base/node-reth `FlashblocksPayloadV1`):
 * `base` on index 0 only, a `diff` with cumulative roots and gas but only the new transactions,
 * and the legacy `metadata.receipts` (internally tagged by `type`). `new_account_balances` is left
 * out: Base removed it in Azul, and reading balances would need the execution queue.
 * `diff.block_hash` is the hash the pre-confirmed block object shows, so the two forms correlate.
 */
export function formatFlashblockPayload(
  node: DevNode,
  block: BlockRecord,
  index: number,
  txs: IncludedTx[],
): Record<string, unknown> {
  const h = block.header
  const out: Record<string, unknown> = { payload_id: toData(block.payloadId ?? h.mixHash.subarray(0, 8)), index }
  if (index === 0) {
    out.base = {
      parent_beacon_block_root: toData(h.parentBeaconBlockRoot),
      parent_hash: toData(h.parentHash),
      fee_recipient: toData(h.coinbase),
      prev_randao: toData(h.mixHash),
      block_number: toQuantity(h.number),
      gas_limit: toQuantity(h.gasLimit),
      timestamp: toQuantity(h.timestamp),
      extra_data: toData(h.extraData),
      base_fee_per_gas: toQuantity(h.baseFeePerGas),
    }
  }
  const roots = node.flashblockRoots(block)
  out.diff = {
    state_root: toData(h.stateRoot),
    receipts_root: toData(roots.receiptsRoot),
    logs_bloom: toData(roots.logsBloom),
    gas_used: toQuantity(h.gasUsed),
    block_hash: toData(node.blockHash(block)),
    transactions: txs.map((t) => toData(t.tx.raw)),
    withdrawals: [],
    withdrawals_root: toData(h.withdrawalsRoot),
    blob_gas_used: toQuantity(h.blobGasUsed),
  }
  const receipts: Record<string, unknown> = {}
  for (const t of txs) {
    receipts[toData(t.tx.hash)] = {
      type: toQuantity(t.tx.type),
      status: toQuantity(t.receipt.status),
      cumulativeGasUsed: toQuantity(t.receipt.cumulativeGasUsed),
      logs: t.receipt.logs.map((l) => ({
        address: toData(l.address),
        topics: l.topics.map((topic) => toFixed(topic, 32)),
        data: toData(l.data),
      })),
      ...(t.receipt.depositNonce !== undefined
        ? { depositNonce: toQuantity(t.receipt.depositNonce), depositReceiptVersion: '0x1' }
        : {}),
    }
  }
  out.metadata = { block_number: Number(h.number), receipts }
  return out
}
