// `pcnode start`'s activity log: after the banner, one line per accepted transaction, per sealed
// block holding the user's transactions and each of their outcomes (gas, the created contract, or
// the revert decoded), per refused send, per dropped transaction and per injected fault or reorg.
// `--quiet` levels (start-flags.ts LogLevel) thin it to what went wrong. The palette follows anvil's: its lines
// are plain, errors red and warnings yellow (tracing's levels), values it highlights green.
import type { ChalkInstance } from 'chalk'
import type { StartedNode } from '../index.js'
import { blockMillis } from '../node/opstack/denim.js'
import { isSystemDeposit } from '../node/opstack/opstack.js'
import type { ReceiptData } from '../node/types.js'
import { decodeRevertReason } from '../shared/revert.js'
import type { LogLevel } from './start-flags.js'
import { followUserOps } from './start-log-userops.js'
import { formatEther } from './units.js'

/**
 * Follows the node's events and prints their lines. Lines are written once per turn of the event
 * loop, after the replies: a terminal write per transaction would sit on every send's path.
 */
export function followActivity(chalk: ChalkInstance, started: StartedNode, level: LogLevel = 0): void {
  if (level >= 2) return
  const all = level === 0
  const { events } = started.node
  let queued: Array<() => string> = []
  const log = (line: () => string) => {
    const at = Date.now()
    if (queued.length === 0) setImmediate(flush)
    queued.push(() => `${chalk.dim(time(at))} ${line()}`)
  }
  const flush = () => {
    const lines = queued
    queued = []
    process.stdout.write(`${lines.map((line) => line()).join('\n')}\n`)
  }
  if (all) {
    events.on('pendingTx', ({ tx }) => {
      log(() => {
        const to = tx.to ? `to ${hex(tx.to)}` : 'creates a contract'
        const value = tx.value > 0n ? `, ${formatEther(tx.value)} ETH` : ''
        return `tx    ${hex(tx.hash)} from ${hex(tx.from)} ${to}${value}, nonce ${tx.nonce}`
      })
    })
  }
  events.on('refused', ({ reason, hash, from }) => {
    const which = hash ? hex(hash) : from ? `from ${hex(from)}` : 'a send'
    log(() => `${chalk.red('refused')} ${which}: ${reason}`)
  })
  // Blocks holding only what every block makes for itself (the OP stack's system deposits) get no
  // line: an idle chain makes one a second or five (Denim), and they say nothing new. They are
  // counted instead, on the next block line.
  let idle = 0
  events.on('block', ({ block }) => {
    const own = block.txs.filter((t) => !isSystemDeposit(t.tx))
    if (own.length === 0) {
      idle++
      return
    }
    const h = block.header
    if (all) {
      const millis = blockMillis(block)
      // Denim blocks are whole (no flashblocks) and five share a second: their time says which.
      const how =
        millis === undefined ? `${block.flashblocks} flashblocks` : `at ${h.timestamp}.${String(millis).padStart(3, '0')}`
      const before = idle > 0 ? ` (${idle} idle block${idle > 1 ? 's' : ''} before it)` : ''
      log(() => `block #${h.number} ${hex(block.hash)} ${own.length} tx, gas ${h.gasUsed}, ${how}${before}`)
    }
    idle = 0
    // Each transaction's outcome, as anvil prints them as they are mined; -q: the failed ones, with their block.
    for (const t of own) {
      if (all) log(() => `      ${hex(t.tx.hash)} ${outcome(chalk, t.receipt)}`)
      else if (t.receipt.status !== 1) log(() => `${hex(t.tx.hash)} in block #${h.number} ${outcome(chalk, t.receipt)}`)
    }
  })
  events.on('dropped', ({ info, reason }) => {
    log(() => `${chalk.red('drop')}  ${hex(info.tx.hash)}: ${reason}`)
  })
  // Each injected pre-confirmation fault, anvil_reorg, and each change of the fault settings.
  events.on('fault', ({ message }) => {
    log(() => `${chalk.yellow('fault')} ${message}`)
  })
  followUserOps(chalk, events, log, all)
}

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`

function time(at: number): string {
  return new Date(at).toISOString().slice(11, 23)
}

/** A mined transaction's outcome: gas, the contract it created, or why it failed (the revert decoded). */
function outcome(chalk: ChalkInstance, r: ReceiptData): string {
  const gas = `gas ${r.gasUsed}`
  if (r.status === 1) return r.contractAddress ? `created ${chalk.green(hex(r.contractAddress))}, ${gas}` : `ok, ${gas}`
  const failure = r.failure
  const output = failure?.output ?? new Uint8Array()
  // A custom error is named by its selector (the log has no ABI to decode it with).
  const custom = output.length >= 4 ? `custom error ${hex(output.subarray(0, 4))}` : 'reverted'
  const reason = failure?.error === 'revert' ? (decodeRevertReason(output) ?? custom) : failure?.error
  return `${chalk.red('failed')}${reason ? `: ${reason}` : ''}, ${gas}`
}
