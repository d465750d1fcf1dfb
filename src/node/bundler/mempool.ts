// The bundler's user operations by hash: waiting to be bundled, sent in a bundle, or dropped. One op
// per sender and nonce; a replacement must raise both fees by a tenth (alto's and rundler's rule).
import type { Address, Hex } from 'viem'
import type { EntryPoint } from './entry-points.js'
import { InvalidUserOpError } from './errors.js'
import { nonceKey, sameSlot, type UserOp } from './user-op.js'

export type OpStatus = 'pending' | 'submitted' | 'failed'

export interface OpRecord {
  hash: Hex
  op: UserOp
  entryPoint: EntryPoint
  status: OpStatus
  /** The bundle transaction that carries it, once submitted. */
  txHash?: Uint8Array
  /** Why it was dropped, when failed. */
  reason?: string
  /** performance.now() when accepted. */
  receivedAt: number
  /** The latest sealed block when accepted (not kept in the state file: a restored op counts from its reload). */
  block?: bigint
  /** Its UserOperationEvent was seen in its bundle and counted (opsIncluded). */
  settled?: true
  /** Contracts (lowercase) whose storage its validation touched, its sender's own left out (STO-041). */
  touched?: string[]
}

/** Ops remembered for eth_getUserOperationByHash/Receipt; the oldest are forgotten past this. */
export const MAX_REMEMBERED = 10_000
/** A replacement's fees must be at least this many percent of the op it replaces. */
const REPLACEMENT_PERCENT = 110n

export class Mempool {
  private readonly records = new Map<Hex, OpRecord>()

  get(hash: Hex): OpRecord | undefined {
    return this.records.get(hash)
  }

  /** Waiting ops of `entryPoint` in bundling order: arrival order, each sender's ops by nonce within a key. */
  pending(entryPoint?: EntryPoint): OpRecord[] {
    const waiting = [...this.records.values()].filter(
      (r) => r.status === 'pending' && (!entryPoint || r.entryPoint === entryPoint),
    )
    // Each sender-and-key group keeps the place of its first op; within a group, nonce order.
    const group = (r: OpRecord) => `${r.op.sender.toLowerCase()}:${nonceKey(r.op)}`
    const place = new Map<string, number>()
    for (const r of waiting) if (!place.has(group(r))) place.set(group(r), place.size)
    return waiting.sort((a, b) => {
      const byGroup = (place.get(group(a)) ?? 0) - (place.get(group(b)) ?? 0)
      if (byGroup !== 0) return byGroup
      return a.op.nonce < b.op.nonce ? -1 : a.op.nonce > b.op.nonce ? 1 : 0
    })
  }

  /** Ops sent in a bundle (whether or not it is included yet). */
  submitted(): OpRecord[] {
    return [...this.records.values()].filter((r) => r.status === 'submitted')
  }

  /** The ops of `sender` still ahead of a new op at `nonce` (same key, lower nonce, not yet included). */
  ahead(entryPoint: EntryPoint, sender: Address, nonce: bigint, included: (r: OpRecord) => boolean): OpRecord[] {
    const key = nonce >> 64n
    return [...this.records.values()]
      .filter(
        (r) =>
          r.entryPoint === entryPoint &&
          r.status !== 'failed' &&
          r.op.sender.toLowerCase() === sender.toLowerCase() &&
          nonceKey(r.op) === key &&
          r.op.nonce < nonce &&
          !included(r),
      )
      .sort((a, b) => (a.op.nonce < b.op.nonce ? -1 : 1))
  }

  /** Checks the replacement rule for `op`; the waiting op it replaces, if any. */
  replaced(entryPoint: EntryPoint, op: UserOp): OpRecord | undefined {
    for (const r of this.records.values()) {
      if (r.entryPoint !== entryPoint || r.status === 'failed' || !sameSlot(r.op, op)) continue
      if (r.status === 'submitted') {
        throw new InvalidUserOpError('a user operation with this sender and nonce is already in a bundle')
      }
      const fee = (r.op.maxFeePerGas * REPLACEMENT_PERCENT) / 100n
      const tip = (r.op.maxPriorityFeePerGas * REPLACEMENT_PERCENT) / 100n
      if (op.maxFeePerGas < fee || op.maxPriorityFeePerGas < tip) {
        throw new InvalidUserOpError(
          `replacement user operation underpriced: maxFeePerGas and maxPriorityFeePerGas must be at least ${fee} and ${tip} (10% above the op it replaces)`,
        )
      }
      return r
    }
    return undefined
  }

  add(record: OpRecord): void {
    if (this.records.size >= MAX_REMEMBERED) {
      const oldest = this.records.keys().next().value
      if (oldest !== undefined) this.records.delete(oldest)
    }
    this.records.set(record.hash, record)
  }

  delete(hash: Hex): void {
    this.records.delete(hash)
  }

  /** debug_bundler_clearState: every op forgotten. */
  clear(): void {
    this.records.clear()
  }
}
