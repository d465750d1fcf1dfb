// ERC-7562's reputation table: opsSeen and opsIncluded per entity, kept per EntryPoint (ALT-040: per
// mempool), decayed every hour of the chain's clock as `value * 23 // 24` (so evm_increaseTime moves it),
// and the status they give: BANNED when opsSeen // 10 > opsIncluded + 50, THROTTLED when it exceeds
// opsIncluded + 10, else OK. Entities on the allow list are always OK (the reference bundler's whitelist).
import { type Address, getAddress } from 'viem'

/** ERC-7562's constants, as the reference bundler, alto and rundler use them. */
export const REPUTATION = {
  MIN_INCLUSION_RATE_DENOMINATOR: 10n,
  THROTTLING_SLACK: 10n,
  BAN_SLACK: 50n,
  SAME_SENDER_MEMPOOL_COUNT: 4,
  SAME_UNSTAKED_ENTITY_MEMPOOL_COUNT: 10n,
  MAX_OPS_ALLOWED_UNSTAKED_ENTITY: 10_000n,
  THROTTLED_ENTITY_MEMPOOL_COUNT: 4,
  THROTTLED_ENTITY_BUNDLE_COUNT: 4,
  THROTTLED_ENTITY_LIVE_BLOCKS: 10n,
  BAN_OPS_SEEN_PENALTY: 10_000n,
} as const

export type ReputationStatus = 'ok' | 'throttled' | 'banned'

/** The number debug_bundler_dumpReputation gives each status (the reference bundler's enum, alto's and rundler's). */
export const STATUS_NUMBER: Record<ReputationStatus, number> = { ok: 0, throttled: 1, banned: 2 }

export interface ReputationEntry {
  address: Address
  opsSeen: bigint
  opsIncluded: bigint
}

const HOUR = 3600n
/** Past this many hours every value has decayed to nothing (10,000 × (23/24)^300 < 1). */
const FORGOTTEN_AFTER_HOURS = 300n

export class ReputationTable {
  /** EntryPoint (lowercase) → entity (lowercase) → entry. */
  private readonly byEntryPoint = new Map<string, Map<string, ReputationEntry>>()
  private lastDecay: bigint | undefined

  constructor(
    /** The chain's time in seconds (the pending block's timestamp). */
    private readonly now: () => bigint,
    /** Entities that are always OK (lowercase addresses). */
    private readonly allowList: ReadonlySet<string> = new Set(),
  ) {}

  private table(entryPoint: Address): Map<string, ReputationEntry> {
    const key = entryPoint.toLowerCase()
    let table = this.byEntryPoint.get(key)
    if (!table) {
      table = new Map()
      this.byEntryPoint.set(key, table)
    }
    return table
  }

  private entry(entryPoint: Address, address: Address): ReputationEntry {
    this.decay()
    const table = this.table(entryPoint)
    let entry = table.get(address.toLowerCase())
    if (!entry) {
      entry = { address: getAddress(address), opsSeen: 0n, opsIncluded: 0n }
      table.set(address.toLowerCase(), entry)
    }
    return entry
  }

  /** The hours of chain time since the last decay, each applied once; a clock that went back (evm_revert) restarts the count. */
  private decay(): void {
    const now = this.now()
    if (this.lastDecay === undefined || now < this.lastDecay) {
      this.lastDecay = now
      return
    }
    const hours = (now - this.lastDecay) / HOUR
    if (hours === 0n) return
    this.lastDecay += hours * HOUR
    for (const table of this.byEntryPoint.values()) {
      for (const [key, e] of table) {
        for (let i = 0n; i < hours && i < FORGOTTEN_AFTER_HOURS; i++) {
          e.opsSeen = (e.opsSeen * 23n) / 24n
          e.opsIncluded = (e.opsIncluded * 23n) / 24n
        }
        if (hours >= FORGOTTEN_AFTER_HOURS || (e.opsSeen === 0n && e.opsIncluded === 0n)) table.delete(key)
      }
    }
  }

  isAllowListed(address: Address): boolean {
    return this.allowList.has(address.toLowerCase())
  }

  /** ERC-7562's reputation calculation. */
  status(entryPoint: Address, address: Address): ReputationStatus {
    if (this.isAllowListed(address)) return 'ok'
    this.decay()
    const e = this.table(entryPoint).get(address.toLowerCase())
    if (!e) return 'ok'
    const maxSeen = e.opsSeen / REPUTATION.MIN_INCLUSION_RATE_DENOMINATOR
    if (maxSeen > e.opsIncluded + REPUTATION.BAN_SLACK) return 'banned'
    if (maxSeen > e.opsIncluded + REPUTATION.THROTTLING_SLACK) return 'throttled'
    return 'ok'
  }

  /** The entry as it stands (zeros for an entity never seen). */
  get(entryPoint: Address, address: Address): ReputationEntry {
    this.decay()
    return this.table(entryPoint).get(address.toLowerCase()) ?? { address: getAddress(address), opsSeen: 0n, opsIncluded: 0n }
  }

  /** opsSeen moved by `delta` (never below zero). */
  seen(entryPoint: Address, address: Address, delta = 1n): void {
    const e = this.entry(entryPoint, address)
    e.opsSeen = e.opsSeen + delta < 0n ? 0n : e.opsSeen + delta
  }

  /** GREP-040: the entity broke a bundle that passed its second validation; banned (opsSeen BAN_OPS_SEEN_PENALTY, opsIncluded 0). */
  penalize(entryPoint: Address, address: Address): void {
    const e = this.entry(entryPoint, address)
    e.opsSeen = REPUTATION.BAN_OPS_SEEN_PENALTY
    e.opsIncluded = 0n
  }

  included(entryPoint: Address, address: Address): void {
    this.entry(entryPoint, address).opsIncluded++
  }

  /**
   * UREP-020: whether an unstaked entity with `count` ops in the mempool may have one more:
   * count < SAME_UNSTAKED_ENTITY_MEMPOOL_COUNT + inclusionRate × min(opsIncluded, MAX_OPS_ALLOWED_UNSTAKED_ENTITY),
   * compared exactly (multiplied through by opsSeen).
   */
  underUnstakedShare(entryPoint: Address, address: Address, count: number): boolean {
    const e = this.get(entryPoint, address)
    const base = REPUTATION.SAME_UNSTAKED_ENTITY_MEMPOOL_COUNT
    if (e.opsSeen === 0n) return BigInt(count) < base
    const capped =
      e.opsIncluded < REPUTATION.MAX_OPS_ALLOWED_UNSTAKED_ENTITY ? e.opsIncluded : REPUTATION.MAX_OPS_ALLOWED_UNSTAKED_ENTITY
    return BigInt(count) * e.opsSeen < base * e.opsSeen + e.opsIncluded * capped
  }

  /** debug_bundler_setReputation: the given entries replace what was there. */
  set(entryPoint: Address, entries: ReputationEntry[]): void {
    this.decay()
    const table = this.table(entryPoint)
    for (const e of entries) table.set(e.address.toLowerCase(), { ...e, address: getAddress(e.address) })
  }

  /** debug_bundler_dumpReputation: every entity of `entryPoint` with its status. */
  dump(entryPoint: Address): Array<ReputationEntry & { status: ReputationStatus }> {
    this.decay()
    return [...this.table(entryPoint).values()].map((e) => ({ ...e, status: this.status(entryPoint, e.address) }))
  }

  /** debug_bundler_clearReputation and clearState. */
  clear(): void {
    this.byEntryPoint.clear()
  }
}
