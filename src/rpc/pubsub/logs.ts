// What subscriptions and filters share: ids, log matching (eth_getLogs' rules) and a block's logs
// with their block-wide indexes.
import { randomBytes } from 'node:crypto'
import { hexKey } from '../../node/bytes.js'
import type { IncludedTx, LogEntry, LogFilter } from '../../node/types.js'

/** 0x + 16 random bytes, the form geth's and reth's subscription and filter ids take. */
export function newId(): string {
  return `0x${randomBytes(16).toString('hex')}`
}

/** A predicate for one log against a filter's addresses and topics (same rules as eth_getLogs). */
export function logMatcher(filter: LogFilter | undefined): (log: LogEntry) => boolean {
  const addresses = filter?.addresses?.length ? new Set(filter.addresses.map(hexKey)) : undefined
  const topics = filter?.topics?.map((alts) => (alts?.length ? new Set(alts.map(hexKey)) : null))
  if (!addresses && !topics?.some((t) => t)) return () => true
  return (log) => {
    if (addresses && !addresses.has(hexKey(log.address))) return false
    if (topics) {
      for (let p = 0; p < topics.length; p++) {
        const alts = topics[p]
        if (!alts) continue
        const topic = log.topics[p]
        if (!topic || !alts.has(hexKey(topic))) return false
      }
    }
    return true
  }
}

export interface IndexedLog {
  log: LogEntry
  logIndex: number
  tx: IncludedTx
}

/** The logs of these transactions, with block-wide log indexes. */
export function blockLogs(txs: IncludedTx[]): IndexedLog[] {
  const out: IndexedLog[] = []
  for (const tx of txs) {
    tx.receipt.logs.forEach((log, i) => {
      out.push({ log, logIndex: tx.receipt.firstLogIndex + i, tx })
    })
  }
  return out
}
