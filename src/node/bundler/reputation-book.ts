// The bundler's ERC-7562 reputation and staking bookkeeping around its mempool: which entities an op
// names and whether each is staked (its stake read from the EntryPoint), the refusals at
// eth_sendUserOperation (GREP-010 banned, GREP-020 throttled past THROTTLED_ENTITY_MEMPOOL_COUNT,
// UREP-010/020 unstaked past its share: -32504 and -32505 with ERC-7769's data), opsSeen when an op is
// accepted, opsIncluded when its UserOperationEvent is seen, the blame when an op fails its second
// validation at bundling (EREP-015/016/020/030) and when a bundle that passed it reverts on-chain
// (GREP-040), which waiting ops a bundle may take, and which have
// waited too long for a throttled entity (THROTTLED_ENTITY_LIVE_BLOCKS).
import { type Address, formatEther, isAddressEqual, toHex } from 'viem'
import { DEV_PAYMASTERS } from '../../contracts/paymaster.js'
import type { EntryPoint } from './entry-points.js'
import { PaymasterDepositTooLowError, ReputationRefusedError, StakeTooLowError } from './errors.js'
import type { OpRecord } from './mempool.js'
import type { BundlerParts } from './parts.js'
import { REPUTATION, type ReputationStatus, ReputationTable } from './reputation.js'
import type { StakedEntities } from './rules.js'
import { simulateBundle } from './simulate-bundle.js'
import { DEVNET_STAKE_MINIMUMS, meetsMinimums, readStake, type StakeInfo, type StakeMinimums } from './stake.js'
import { factoryCall, gasLimitSum, nonceKey, paymasterOf, type UserOp } from './user-op.js'

export type EntityRole = 'account' | 'factory' | 'paymaster'

interface Named {
  role: EntityRole
  address: Address
}

/** What an accepted op was counted against: opsIncluded follows opsSeen for these addresses only. */
interface Counted {
  entryPoint: Address
  op: UserOp
  seen: Address[]
  accountStaked: boolean
}

/** The entities an op names: its sender, the factory that deploys it (not v0.8's 7702 marker), its paymaster. */
export function entitiesOf(op: UserOp): Named[] {
  const named: Named[] = [{ role: 'account', address: op.sender }]
  const factory = factoryCall(op)?.factory
  if (factory) named.push({ role: 'factory', address: factory })
  const paymaster = paymasterOf(op)
  if (paymaster) named.push({ role: 'paymaster', address: paymaster })
  return named
}

/** What an op's entities hold: which meet the stake minimums, and the paymaster's deposit (none when allow-listed). */
export interface OpStakes {
  staked: StakedEntities
  paymasterDeposit?: bigint
}

/** The most the EntryPoint may charge for `op` (its prefund: v0.6 counts verificationGasLimit thrice with a paymaster). */
function maxCost(entryPoint: EntryPoint, op: UserOp): bigint {
  if (entryPoint.version !== '0.6') return gasLimitSum(op) * op.maxFeePerGas
  const mul = paymasterOf(op) ? 3n : 1n
  return (op.callGasLimit + op.verificationGasLimit * mul + op.preVerificationGas) * op.maxFeePerGas
}

/**
 * The entity an AA code blames: AA1x the factory; AA2x the factory when there is one (EREP-020), else
 * the account; AA3x the paymaster, unless the account is staked, which answers for it (EREP-030).
 */
function blamedFor(op: UserOp, reason: string, accountStaked: boolean): Address | undefined {
  const entities = entitiesOf(op)
  const of = (role: EntityRole) => entities.find((e) => e.role === role)?.address
  const code = reason.slice(0, 3)
  if (code === 'AA1') return of('factory')
  if (code === 'AA2') return of('factory') ?? of('account')
  if (code === 'AA3') return accountStaked ? of('account') : of('paymaster')
  return undefined
}

export class ReputationBook {
  readonly table: ReputationTable
  private readonly counted = new Map<string, Counted>()

  constructor(
    private readonly parts: BundlerParts,
    now: () => bigint,
    /** false with --bundler-unsafe: no stake is read and no op refused or counted (alto's unsafe mode keeps no reputation). */
    private readonly enforced: boolean,
    readonly minimums: StakeMinimums = DEVNET_STAKE_MINIMUMS,
  ) {
    // pcnode's development paymaster is the node's own: allow-listed, as the reference bundler's whitelist.
    this.table = new ReputationTable(now, new Set(DEV_PAYMASTERS.map((p) => p.address.toLowerCase())))
  }

  /** debug_bundler_getStakeStatus. */
  async stakeStatus(entryPoint: EntryPoint, address: Address): Promise<{ stakeInfo: StakeInfo; isStaked: boolean }> {
    const stakeInfo = await readStake(this.parts, entryPoint, address)
    return { stakeInfo, isStaked: meetsMinimums(stakeInfo, this.minimums) }
  }

  /** Each entity's stake against the minimums (an allow-listed entity counts as staked), and the paymaster's deposit. */
  async stakes(entryPoint: EntryPoint, op: UserOp): Promise<OpStakes> {
    const out: OpStakes = { staked: {} }
    if (!this.enforced) return out
    await Promise.all(
      entitiesOf(op).map(async ({ role, address }) => {
        if (this.table.isAllowListed(address)) {
          out.staked[role] = true
          return
        }
        const info = await readStake(this.parts, entryPoint, address)
        out.staked[role] = meetsMinimums(info, this.minimums)
        if (role === 'paymaster') out.paymasterDeposit = info.deposit
      }),
    )
    return out
  }

  /**
   * Refuses an op whose entities' reputation or stake keeps it out of the mempool (`waiting`: the ops of
   * its EntryPoint already there), or whose paymaster cannot pay for it besides its waiting ops. A
   * replacement keeps the slot of the op it replaces, so of the limits only the deposit applies to it.
   */
  admit(entryPoint: EntryPoint, op: UserOp, stakes: OpStakes, waiting: OpRecord[], replacing: OpRecord | undefined): void {
    if (!this.enforced) return
    const { staked } = stakes
    const ep = entryPoint.address
    for (const { role, address } of entitiesOf(op)) {
      const status = this.table.status(ep, address)
      if (status === 'banned') {
        throw new ReputationRefusedError(`${role} ${address} is banned ${this.figures(ep, address, status)}`, { [role]: address })
      }
      if (replacing) continue
      const count = waiting.filter((r) => entitiesOf(r.op).some((e) => isAddressEqual(e.address, address))).length
      if (status === 'throttled' && count >= REPUTATION.THROTTLED_ENTITY_MEMPOOL_COUNT) {
        throw new ReputationRefusedError(
          `${role} ${address} is throttled ${this.figures(ep, address, status)} and has ${count} user operations in the mempool, the most a throttled entity may have (GREP-020)`,
          { [role]: address },
        )
      }
      if (staked[role]) continue
      const full =
        role === 'account' ? count >= REPUTATION.SAME_SENDER_MEMPOOL_COUNT : !this.table.underUnstakedShare(ep, address, count)
      if (full) {
        throw this.stakeTooLow(
          role,
          address,
          `${role} ${address} is unstaked and has ${count} user operations in the mempool, the most ERC-7562 allows an unstaked ${role} (${role === 'account' ? 'UREP-010' : 'UREP-020'}); ${this.stakeNeeded()} lifts the limit`,
        )
      }
    }
    if (stakes.paymasterDeposit !== undefined) {
      this.checkDeposit(entryPoint, op, stakes.paymasterDeposit, replacing ? waiting.filter((r) => r !== replacing) : waiting)
    }
  }

  /** -32505 with ERC-7769's data: the entity and the stake minimums. */
  stakeTooLow(role: EntityRole, address: Address, message: string): StakeTooLowError {
    const { minStake, minUnstakeDelay } = this.minimums
    return new StakeTooLowError(message, {
      [role]: address,
      minimumStake: toHex(minStake),
      minimumUnstakeDelay: toHex(minUnstakeDelay),
    })
  }

  /** The stake the minimums ask for, in words. */
  stakeNeeded(): string {
    const { minStake, minUnstakeDelay } = this.minimums
    return `a locked stake of ${formatEther(minStake)} ETH${minUnstakeDelay > 0n ? ` with an unstake delay of at least ${minUnstakeDelay} s` : ''}`
  }

  /** EREP-010: the paymaster's deposit must pay for every waiting op naming it, this one included. */
  private checkDeposit(entryPoint: EntryPoint, op: UserOp, deposit: bigint, waiting: OpRecord[]): void {
    const paymaster = paymasterOf(op)
    if (!paymaster) return
    let total = maxCost(entryPoint, op)
    for (const r of waiting) {
      const other = paymasterOf(r.op)
      if (other && isAddressEqual(other, paymaster)) total += maxCost(entryPoint, r.op)
    }
    if (total > deposit) {
      throw new PaymasterDepositTooLowError(
        `paymaster ${paymaster} deposit too low: ${formatEther(deposit)} ETH cannot pay the ${formatEther(total)} ETH its waiting user operations and this one may cost (ERC-7562 EREP-010)`,
        { paymaster },
      )
    }
  }

  private figures(entryPoint: Address, address: Address, status: ReputationStatus): string {
    const e = this.table.get(entryPoint, address)
    return `(ERC-7562 ${status === 'banned' ? 'GREP-010' : 'GREP-020'}: opsSeen ${e.opsSeen}, opsIncluded ${e.opsIncluded})`
  }

  /**
   * An op entered the mempool: opsSeen of its factory and paymaster, and of its sender when staked (the
   * reference bundler's and alto's rule). A replaced op's entities give back theirs (GREP-050).
   */
  accepted(hash: string, entryPoint: EntryPoint, op: UserOp, staked: StakedEntities, replacedHash?: string): void {
    if (!this.enforced) return
    if (replacedHash) this.forget(replacedHash, { unsee: true })
    const seen = entitiesOf(op)
      .filter((e) => e.role !== 'account' || staked.account)
      .map((e) => e.address)
    for (const address of seen) this.table.seen(entryPoint.address, address)
    this.counted.set(hash, { entryPoint: entryPoint.address, op, seen, accountStaked: staked.account === true })
  }

  /** The op's UserOperationEvent was seen: opsIncluded of the entities it was counted against. */
  included(hash: string): void {
    const c = this.counted.get(hash)
    if (!c) return
    for (const address of c.seen) this.table.included(c.entryPoint, address)
    this.counted.delete(hash)
  }

  /**
   * The op failed its second validation (the bundle's check) with the EntryPoint's `reason`: the entity the
   * AA code blames (blamedFor) keeps the opsSeen it got, the others give theirs back (EREP-015, EREP-016).
   */
  failedValidation(hash: string, reason: string): void {
    const c = this.counted.get(hash)
    if (!c) return
    const blamed = blamedFor(c.op, reason, c.accountStaked)
    for (const address of c.seen) if (!blamed || !isAddressEqual(address, blamed)) this.table.seen(c.entryPoint, address, -1n)
    this.counted.delete(hash)
  }

  /**
   * GREP-040: a bundle that passed its second validation reverted on-chain. The EntryPoint's FailedOp is
   * not in the receipt, so the bundle's ops are run again on the state that broke it, and the entity the
   * op it fails on blames is banned. A bundle that runs now (the state moved again) blames no one.
   */
  async crashedBundle(entryPoint: EntryPoint, ops: UserOp[], bundler: Address): Promise<Address | undefined> {
    if (!this.enforced) return undefined
    const failure = await simulateBundle(this.parts, entryPoint, ops, bundler)
    const op = failure && ops[failure.index]
    if (!failure || !op) return undefined
    const { staked } = await this.stakes(entryPoint, op)
    const blamed = blamedFor(op, failure.reason, staked.account === true)
    if (blamed) this.table.penalize(entryPoint.address, blamed)
    return blamed
  }

  /** An op that left without a verdict on its entities (its bundle vanished, the state was cleared). */
  forget(hash: string, { unsee }: { unsee: boolean } = { unsee: false }): void {
    const c = this.counted.get(hash)
    if (c && unsee) for (const address of c.seen) this.table.seen(c.entryPoint, address, -1n)
    this.counted.delete(hash)
  }

  /**
   * The waiting ops a bundle takes: none naming a banned entity (GREP-010 removes them from the mempool),
   * and at most THROTTLED_ENTITY_BUNDLE_COUNT naming each throttled one (GREP-020; the rest wait, with the
   * later nonces of their sender and key, which could not run before them).
   */
  forBundle(entryPoint: EntryPoint, waiting: OpRecord[]): { take: OpRecord[]; banned: OpRecord[] } {
    const take: OpRecord[] = []
    const banned: OpRecord[] = []
    const throttledCount = new Map<string, number>()
    const held = new Set<string>()
    for (const r of waiting) {
      const group = `${r.op.sender.toLowerCase()}:${nonceKey(r.op)}`
      if (held.has(group)) continue
      const addresses = entitiesOf(r.op).map((e) => e.address.toLowerCase() as Address)
      const statuses = addresses.map((a) => this.table.status(entryPoint.address, a))
      if (statuses.includes('banned')) {
        banned.push(r)
        continue
      }
      const throttled = addresses.filter((_, i) => statuses[i] === 'throttled')
      if (throttled.some((a) => (throttledCount.get(a) ?? 0) >= REPUTATION.THROTTLED_ENTITY_BUNDLE_COUNT)) {
        held.add(group)
        continue
      }
      for (const a of throttled) throttledCount.set(a, (throttledCount.get(a) ?? 0) + 1)
      take.push(r)
    }
    return { take, banned }
  }

  /**
   * GREP-020's THROTTLED_ENTITY_LIVE_BLOCKS: the waiting ops naming an entity that is throttled now and
   * that have waited that many blocks since they were accepted (`sealed` the block just sealed). An op
   * with no block yet (restored from the state file) starts counting here.
   */
  outlived(entryPoint: EntryPoint, waiting: OpRecord[], sealed: bigint): OpRecord[] {
    if (!this.enforced) return []
    return waiting.filter((r) => {
      r.block ??= sealed
      if (sealed - r.block < REPUTATION.THROTTLED_ENTITY_LIVE_BLOCKS) return false
      return entitiesOf(r.op).some((e) => this.table.status(entryPoint.address, e.address) === 'throttled')
    })
  }

  /** debug_bundler_clearMempool: the ops are gone, their entities' counters stay as they are. */
  forgetOps(): void {
    this.counted.clear()
  }

  /** debug_bundler_clearState. */
  clear(): void {
    this.table.clear()
    this.counted.clear()
  }
}
