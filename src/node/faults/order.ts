// The order a restarted flashblock stream runs the open block's transactions in
// (pcnode_restartFlashblocks): a failover's new sequencer may sequence the same transactions
// differently, but a sender's transactions can only run in nonce order.
import { hexKey } from '../bytes.js'
import type { TxRecord } from '../types.js'

export const RESTART_ORDERS = ['same', 'reverse', 'shuffle'] as const
export type RestartOrder = (typeof RESTART_ORDERS)[number]

/**
 * `txs` (in block order) rearranged: reversed or shuffled (with `random`), then each sender's
 * transactions put back in nonce order into the places that sender got.
 */
export function reorder<T extends { tx: TxRecord }>(txs: T[], order: RestartOrder, random: () => number): T[] {
  if (order === 'same' || txs.length < 2) return txs.slice()
  const places = txs.slice()
  if (order === 'reverse') places.reverse()
  else {
    // Fisher–Yates.
    for (let i = places.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[places[i], places[j]] = [places[j], places[i]]
    }
  }
  const bySender = new Map<string, T[]>()
  for (const t of txs) {
    const key = hexKey(t.tx.from)
    const list = bySender.get(key)
    if (list) list.push(t)
    else bySender.set(key, [t])
  }
  // Block order is nonce order within a sender: take each sender's next one for its next place.
  const next = new Map<string, number>()
  return places.map((t) => {
    const key = hexKey(t.tx.from)
    const i = next.get(key) ?? 0
    next.set(key, i + 1)
    return (bySender.get(key) as T[])[i]
  })
}
