// The fault settings (--preconf-* flags, startNode options, pcnode_setPreconfFaults) and their
// bounds. Bad values name the field and the bound (-32602 over RPC).
import { InvalidParamsError } from '../errors.js'

export interface PreconfFaultSettings {
  /** Fraction of pre-confirmed transactions left out of the block they were pre-confirmed in, 0..1. */
  dropRate: number
  /** Seed of every random choice a fault makes (uint32). */
  seed: number
  /** Flashblock intervals vary by up to this many ms either way (0 = regular). */
  jitterMs: number
  /** A dropped transaction goes back to the pool once its block seals (else it is discarded). */
  requeue: boolean
  /**
   * pcnode's explicit notification of a drop to pendingLogs / newFlashblockTransactions
   * subscribers (opt-in: Base's RPC sends none).
   */
  notifyDropped: boolean
  /**
   * Chance per sealed block that the last `reorgDepth` blocks are built again at their heights
   * (new hashes): an unsafe head replaced, as when an OP chain's sequencer re-sequences. 0..1.
   */
  reorgRate: number
  /** Blocks each reorg replaces (1..MAX_REORG_DEPTH). */
  reorgDepth: number
}

export const DEFAULT_FAULT_SETTINGS: PreconfFaultSettings = {
  dropRate: 0,
  seed: 0,
  jitterMs: 0,
  requeue: false,
  notifyDropped: false,
  reorgRate: 0,
  reorgDepth: 1,
}

/** Deepest reorg fault: each replaced block is run again while the chain waits. */
export const MAX_REORG_DEPTH = 64

/** Most jitter accepted: a minute, setTimeout's range with room to spare. */
export const MAX_JITTER_MS = 60_000

export const FAULT_SETTING_NAMES = Object.keys(DEFAULT_FAULT_SETTINGS) as Array<keyof PreconfFaultSettings>

/** Throws InvalidParamsError for the first value out of its bounds. */
export function checkFaultSettings(s: Partial<PreconfFaultSettings>): void {
  const { dropRate, seed, jitterMs, requeue, notifyDropped, reorgRate, reorgDepth } = s
  for (const [name, rate] of [
    ['dropRate', dropRate],
    ['reorgRate', reorgRate],
  ] as const) {
    if (rate !== undefined && !(typeof rate === 'number' && rate >= 0 && rate <= 1)) {
      throw new InvalidParamsError(`invalid ${name} ${String(rate)}: expected a number from 0 to 1`)
    }
  }
  if (reorgDepth !== undefined && !(Number.isInteger(reorgDepth) && reorgDepth >= 1 && reorgDepth <= MAX_REORG_DEPTH)) {
    throw new InvalidParamsError(`invalid reorgDepth ${String(reorgDepth)}: expected whole blocks from 1 to ${MAX_REORG_DEPTH}`)
  }
  if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff)) {
    throw new InvalidParamsError(`invalid seed ${String(seed)}: expected an integer from 0 to 4294967295`)
  }
  if (jitterMs !== undefined && !(Number.isInteger(jitterMs) && jitterMs >= 0 && jitterMs <= MAX_JITTER_MS)) {
    throw new InvalidParamsError(`invalid jitterMs ${String(jitterMs)}: expected whole milliseconds from 0 to ${MAX_JITTER_MS}`)
  }
  if (requeue !== undefined && typeof requeue !== 'boolean') throw new InvalidParamsError('invalid requeue: expected a boolean')
  if (notifyDropped !== undefined && typeof notifyDropped !== 'boolean') {
    throw new InvalidParamsError('invalid notifyDropped: expected a boolean')
  }
}
