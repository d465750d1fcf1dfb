// Each user operation's life in the built-in bundler, as pcnode_userOperationStatus and alto's
// pimlico_getUserOperationStatus report it: received, bundled into a handleOps transaction,
// pre-confirmed, sealed, or refused / replaced / dropped with the reason, and the wall-clock time of
// each stage (milliseconds since the epoch, as pcnode_transactionStatus gives a transaction's).
// Fed by the bundler's userOp events and the sequencer's flashblock and block events; it announces
// the pre-confirmation and sealing of each op as userOp events too, for the terminal log.
import type { Address, Hex } from 'viem'
import { decodeRevertReason } from '../../shared/revert.js'
import { hexKey } from '../bytes.js'
import { NodeError } from '../errors.js'
import type { NodeEvents, UserOpEvent } from '../events.js'
import type { IncludedTx } from '../types.js'
import { type EntryPoint, entryPointAt } from './entry-points.js'
import { outcomeIn, type UserOpOutcome } from './receipt.js'
import { type UserOp, userOpHash } from './user-op.js'

export interface OpStageTimes {
  receivedAt?: number
  bundledAt?: number
  preconfirmedAt?: number
  sealedAt?: number
  /** The op left the mempool (dropped, replaced, refused), or its bundle's pre-confirmation was dropped. */
  droppedAt?: number
}

/** The op's state, pcnode_transactionStatus's words where they fit. */
export type OpState =
  | 'pending'
  | 'bundled'
  | 'preconfirmed'
  | 'confirmed'
  | 'failed'
  | 'dropped'
  | 'replaced'
  | 'refused'
  | 'unknown'

export interface OpStatus {
  status: OpState
  entryPoint?: Address
  sender?: Address
  /** The handleOps transaction that carries (or carried) it. */
  transactionHash?: Uint8Array
  /** Where the bundle is, once pre-confirmed or sealed. */
  included?: IncludedTx
  /** Once included: whether the op's call succeeded, and its revert reason when not. */
  success?: boolean
  revertReason?: string
  /** Why it was refused, dropped or failed; `code` is the ERC-7769 code a refusal was answered with. */
  reason?: string
  code?: number
  replacedBy?: Hex
  times: OpStageTimes
}

/** What the stages need of the node and the bundler. */
export interface OpStagesParts {
  /** The op's outcome in its bundle once it is visible (pre-confirmed or sealed), ops of other bundlers too. */
  outcome(hash: Hex): { entryPoint: EntryPoint; outcome: UserOpOutcome } | undefined
  /** A transaction's receipt, pre-confirmed or sealed. */
  receipt(txHash: Uint8Array): IncludedTx | undefined
  /** Whether a transaction still waits (in the pool, or in a block not yet shown). */
  waiting(txHash: Uint8Array): boolean
  /** Whether the bundler's mempool still holds the op (debug_bundler_clearState and clearMempool forget them all). */
  held(hash: Hex): boolean
}

interface OpEntry {
  times: OpStageTimes
  entryPoint?: EntryPoint
  sender?: Address
  txHash?: Uint8Array
  end?: { status: 'dropped' | 'replaced' | 'refused'; reason: string; code?: number; by?: Hex }
}

/** Ops (and bundles) whose stages are kept, as many as the mempool remembers. */
const MAX_TRACKED = 10_000

export class OpStages {
  private readonly ops = new Map<Hex, OpEntry>()
  /** Bundle transaction (hex key) → the ops it carries. */
  private readonly bundles = new Map<string, Hex[]>()

  constructor(
    private readonly events: NodeEvents,
    private readonly parts: OpStagesParts,
  ) {
    events.on('userOp', (e) => this.onOp(e))
    events.on('flashblock', ({ txs, replayed }) => {
      // A restarted stream announces its transactions again; the first pre-confirmation stands.
      for (const t of txs) if (!replayed?.has(hexKey(t.tx.hash))) this.included(t, 'preconfirmed')
    })
    events.on('block', ({ block }) => {
      for (const t of block.txs) if (!t.tx.deposit) this.included(t, 'sealed')
    })
    events.on('preconfDropped', ({ tx }) => {
      for (const hash of this.bundles.get(hexKey(tx.tx.hash)) ?? []) {
        const entry = this.ops.get(hash)
        if (!entry) continue
        entry.times.droppedAt = Date.now()
        delete entry.times.preconfirmedAt // pre-confirmed again if the bundle returns to the pool
      }
    })
  }

  private onOp(e: UserOpEvent): void {
    const now = Date.now()
    switch (e.kind) {
      case 'received':
        // A fresh entry: the same op may be sent again after it was dropped.
        this.ops.delete(e.hash)
        this.track(e.hash, { times: { receivedAt: now }, entryPoint: entryPointAt(e.entryPoint), sender: e.sender })
        return
      case 'refused':
        // Ops still on their way keep their stages (a resend of a pending op is refused as already known).
        if (e.hash && (!this.ops.has(e.hash) || this.ops.get(e.hash)?.end)) {
          this.track(e.hash, {
            times: { droppedAt: now },
            sender: e.sender,
            end: { status: 'refused', reason: e.reason, code: e.code },
          })
        }
        return
      case 'replaced':
      case 'dropped': {
        const entry = this.ops.get(e.hash) ?? this.track(e.hash, { times: {} })
        entry.times.droppedAt = now
        entry.end =
          e.kind === 'replaced'
            ? { status: 'replaced', reason: `replaced by ${e.by}`, by: e.by }
            : { status: 'dropped', reason: e.reason }
        return
      }
      case 'bundled': {
        const key = hexKey(e.txHash)
        this.bundles.set(key, e.hashes)
        if (this.bundles.size > MAX_TRACKED) this.bundles.delete(this.bundles.keys().next().value as string)
        for (const hash of e.hashes) {
          const entry = this.ops.get(hash) ?? this.track(hash, { times: {} })
          entry.txHash = e.txHash
          entry.times.bundledAt = now
        }
        // Included before the bundler announced it (sending and announcing are not one step): its stage now.
        const t = this.parts.receipt(e.txHash)
        if (t) this.included(t, t.block.sealed ? 'sealed' : 'preconfirmed')
        return
      }
      default:
        return // preconfirmed / sealed: announced by this class itself
    }
  }

  private track(hash: Hex, entry: OpEntry): OpEntry {
    this.ops.set(hash, entry)
    if (this.ops.size > MAX_TRACKED) this.ops.delete(this.ops.keys().next().value as Hex)
    return entry
  }

  /** A bundle pre-confirmed or sealed: each of its ops' time, and its announcement. */
  private included(t: IncludedTx, stage: 'preconfirmed' | 'sealed'): void {
    const hashes = this.bundles.get(hexKey(t.tx.hash))
    if (!hashes) return
    const now = Date.now()
    const announced: UserOpEvent[] = []
    for (const hash of hashes) {
      const entry = this.ops.get(hash)
      if (!entry) continue
      const field = stage === 'preconfirmed' ? 'preconfirmedAt' : 'sealedAt'
      if (entry.times[field] !== undefined) continue
      entry.times[field] = now
      const outcome = entry.entryPoint && outcomeIn(entry.entryPoint, hash, t)
      announced.push({
        kind: stage,
        hash,
        txHash: t.tx.hash,
        blockNumber: t.block.header.number,
        flashblockIndex: t.flashblockIndex,
        success: outcome?.success ?? false,
        ...(outcome?.success ? {} : { reason: outcome ? revertText(outcome.reason) : 'its bundle ran without it' }),
      })
    }
    // After the event's other listeners: the terminal log's block line comes before its ops' lines.
    if (announced.length > 0) {
      queueMicrotask(() => {
        for (const e of announced) this.events.emit('userOp', e)
      })
    }
  }

  /** The op's state now, and the times of the stages it reached. */
  status(hash: Hex): OpStatus {
    const entry = this.ops.get(hash)
    const known = {
      ...(entry?.entryPoint ? { entryPoint: entry.entryPoint.address } : {}),
      ...(entry?.sender ? { sender: entry.sender } : {}),
      ...(entry?.txHash ? { transactionHash: entry.txHash } : {}),
    }
    const times = { ...entry?.times }
    if (entry?.end) {
      const { status, reason, code, by } = entry.end
      return { status, ...known, reason, ...(code !== undefined ? { code } : {}), ...(by ? { replacedBy: by } : {}), times }
    }
    const found = this.parts.outcome(hash)
    if (found) {
      const { outcome } = found
      const t = outcome.included
      return {
        status: t.block.sealed ? 'confirmed' : 'preconfirmed',
        ...known,
        entryPoint: found.entryPoint.address,
        sender: outcome.sender,
        transactionHash: t.tx.hash,
        included: t,
        success: outcome.success,
        ...(outcome.success ? {} : { revertReason: revertText(outcome.reason) }),
        times,
      }
    }
    if (!entry) return { status: 'unknown', times }
    if (entry.txHash) {
      const bundle = this.parts.receipt(entry.txHash)
      if (bundle) return { status: 'failed', ...known, included: bundle, reason: 'its bundle ran without it', times }
      if (this.parts.waiting(entry.txHash)) return { status: 'bundled', ...known, times }
      return { status: 'dropped', ...known, reason: 'its bundle is no longer on the chain nor waiting', times }
    }
    if (!this.parts.held(hash)) {
      return { status: 'dropped', ...known, reason: 'no longer in the mempool (debug_bundler_clearState or clearMempool)', times }
    }
    return { status: 'pending', ...known, times }
  }
}

/** The op's call revert data as text: Error(string) and Panic decoded, else the raw data. */
function revertText(data: Hex | undefined): string {
  if (!data || data === '0x') return 'reverted'
  const bytes = Uint8Array.from(Buffer.from(data.slice(2), 'hex'))
  return decodeRevertReason(bytes) ?? `reverted with ${data}`
}

/** The userOp event for a refused eth_sendUserOperation: its hash when the EntryPoint is known, its ERC-7769 code. */
export function refusedEvent(chainId: bigint, entryPointAddress: Address, op: UserOp, error: unknown): UserOpEvent {
  const entryPoint = entryPointAt(entryPointAddress)
  let hash: Hex | undefined
  try {
    hash = entryPoint ? userOpHash(chainId, entryPoint, op) : undefined
  } catch {
    hash = undefined // fields the hash cannot be computed from: the refusal names the sender only
  }
  return {
    kind: 'refused',
    ...(hash ? { hash } : {}),
    sender: op.sender,
    code: error instanceof NodeError ? error.code : -32603,
    reason: (error as Error).message,
  }
}
