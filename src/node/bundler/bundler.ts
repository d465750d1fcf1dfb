// The node's built-in ERC-4337 bundler (the eth_*UserOperation* methods, alto's gas-price method and
// the debug_bundler_* controls of the bundler spec tests): ops are checked by running handleOps on the
// pre-confirmed state, kept in the mempool, and in auto mode bundled at once into a handleOps
// transaction from the bundler's account, so they are pre-confirmed in the next flashblock.
import { type Address, type Hex, hexToBytes, toHex } from 'viem'
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import type { StateOverrides } from '../types.js'
import type { BundlerAccount } from './account.js'
import { aggregatorOf } from './aggregator.js'
import { ENTRY_POINTS, type EntryPoint, entryPointAt } from './entry-points.js'
import { InvalidUserOpError, UnsupportedAggregatorError } from './errors.js'
import { estimateUserOpGas, type GasEstimate } from './estimate.js'
import { foreignReceipt } from './foreign-receipt.js'
import { Mempool, type OpRecord } from './mempool.js'
import { checkFields } from './op-fields.js'
import { refusedEvent } from './op-stages.js'
import type { BundlerParts } from './parts.js'
import { DevPaymaster } from './paymaster.js'
import { outcomeIn, type UserOpOutcome } from './receipt.js'
import { REPUTATION, type ReputationEntry, type ReputationStatus } from './reputation.js'
import { entitiesOf, ReputationBook } from './reputation-book.js'
import { type FailedOp, refusal } from './revert.js'
import { checkRoles, heldByStorage } from './roles.js'
import { checkRules, type StakedEntities, type Violation, violationError } from './rules.js'
import { bundleGasLimit, simulateBundle } from './simulate-bundle.js'
import type { StakeInfo } from './stake.js'
import { handleOpsData, type UserOp, userOpHash } from './user-op.js'

export type BundlingMode = 'auto' | 'manual'

export interface FeeTier {
  maxFeePerGas: bigint
  maxPriorityFeePerGas: bigint
}

export class Bundler {
  private mode: BundlingMode = 'auto'
  /** Read by op-persist.ts, which keeps its waiting ops in the state file. */
  readonly mempool = new Mempool()
  /** Bundling runs one at a time, so the bundler's transactions take consecutive nonces. */
  private queue: Promise<Hex[]> = Promise.resolve([])
  private readonly signer: PrivateKeyAccount
  /** ERC-7677's pm_* methods, for pcnode's development paymaster. */
  readonly paymaster: DevPaymaster
  /** ERC-7562's reputation and stake checks (debug_bundler_*Reputation, getStakeStatus). */
  readonly reputation: ReputationBook
  /** The last admission to each EntryPoint's mempool (oneAtATime). */
  private readonly admissions = new Map<EntryPoint, Promise<unknown>>()

  constructor(
    private readonly parts: BundlerParts,
    account: BundlerAccount,
    /** unsafe: ERC-7562's rules are not checked (--bundler-unsafe). */
    private readonly settings: { unsafe: boolean } = { unsafe: false },
  ) {
    this.signer = privateKeyToAccount(account.privateKey)
    this.paymaster = new DevPaymaster(parts)
    this.reputation = new ReputationBook(parts, () => parts.now(), !settings.unsafe)
  }

  get address(): Address {
    return this.signer.address
  }

  get bundlingMode(): BundlingMode {
    return this.mode
  }

  /** The EntryPoints this chain has code for (the OP profiles preinstall them). */
  async supportedEntryPoints(): Promise<Address[]> {
    const found: Address[] = []
    for (const e of ENTRY_POINTS) if ((await this.parts.code(hexToBytes(e.address))).length > 0) found.push(e.address)
    return found
  }

  private async served(address: Address): Promise<EntryPoint> {
    const entryPoint = entryPointAt(address)
    if (!entryPoint || (await this.parts.code(hexToBytes(entryPoint.address))).length === 0) {
      const list = (await this.supportedEntryPoints()).join(', ') || 'none on this chain'
      throw new InvalidUserOpError(`EntryPoint ${address} is not supported (supported: ${list})`)
    }
    return entryPoint
  }

  /** eth_estimateUserOperationGas. */
  async estimate(entryPointAddress: Address, op: UserOp, overrides?: StateOverrides): Promise<GasEstimate> {
    const entryPoint = await this.served(entryPointAddress)
    return estimateUserOpGas(this.parts, entryPoint, op, this.address, overrides)
  }

  /** eth_sendUserOperation: checked by running it (after the sender's ops still ahead of it), then kept; its hash. */
  async send(entryPointAddress: Address, op: UserOp): Promise<Hex> {
    try {
      return await this.accept(entryPointAddress, op)
    } catch (error) {
      this.parts.opEvent(refusedEvent(this.parts.chainId, entryPointAddress, op, error))
      throw error
    }
  }

  private async accept(entryPointAddress: Address, op: UserOp): Promise<Hex> {
    const entryPoint = await this.served(entryPointAddress)
    checkFields(this.parts, entryPoint, op)
    return this.oneAtATime(entryPoint, () => this.admit(entryPoint, op))
  }

  /**
   * Admissions to one EntryPoint's mempool run one after another: the limits (UREP-010/020, GREP-020,
   * EREP-010, STO-040) count the ops already waiting, and two sends checked side by side across the
   * awaits of their validation would both see room for one.
   */
  private oneAtATime<T>(entryPoint: EntryPoint, run: () => Promise<T>): Promise<T> {
    const next = (this.admissions.get(entryPoint) ?? Promise.resolve()).then(run)
    this.admissions.set(
      entryPoint,
      next.catch(() => undefined),
    )
    return next
  }

  private async admit(entryPoint: EntryPoint, op: UserOp): Promise<Hex> {
    const hash = userOpHash(this.parts.chainId, entryPoint, op)
    this.forgetVanishedBundles()
    const known = this.mempool.get(hash)
    if (known && known.status !== 'failed') throw new InvalidUserOpError(`user operation ${hash} is already known`)
    const replaced = this.mempool.replaced(entryPoint, op)
    const ahead = this.mempool
      .ahead(entryPoint, op.sender, op.nonce, (r) => this.included(r) !== undefined)
      .filter((r) => r !== replaced)
    if (!this.settings.unsafe && !replaced) checkRoles(op, this.mempool.pending(entryPoint))
    const stakes = await this.reputation.stakes(entryPoint, op)
    this.reputation.admit(entryPoint, op, stakes, this.mempool.pending(entryPoint), replaced)
    const touched = await this.validate(entryPoint, [...ahead.map((r) => r.op), op], stakes.staked)
    if (replaced) {
      this.mempool.delete(replaced.hash)
      this.parts.opEvent({ kind: 'replaced', hash: replaced.hash, by: hash })
    }
    this.mempool.add({
      hash,
      op,
      entryPoint,
      status: 'pending',
      receivedAt: performance.now(),
      block: this.parts.blockNumber(),
      touched,
    })
    this.reputation.accepted(hash, entryPoint, op, stakes.staked, replaced?.hash)
    this.parts.opEvent({ kind: 'received', hash, sender: op.sender, entryPoint: entryPoint.address, version: entryPoint.version })
    // Its failure is logged by bundle(); the send has succeeded either way.
    if (this.mode === 'auto') this.bundle().catch(() => {})
    return hash
  }

  /**
   * handleOps with `ops` (the new one last) as the bundle will run it: traced under ERC-7562's rules, or
   * with --bundler-unsafe a plain call. A trace that cannot run (a node fault, not the op's) is logged and
   * the call made instead, as unsafe mode would.
   */
  private async validate(entryPoint: EntryPoint, ops: UserOp[], staked: StakedEntities): Promise<string[] | undefined> {
    if (!this.settings.unsafe) {
      let outcome: Awaited<ReturnType<typeof checkRules>> | undefined
      try {
        outcome = await checkRules(this.parts.traceCall, entryPoint, ops, this.address, staked)
      } catch (error) {
        this.parts.log(`bundler: ERC-7562 rules not checked (${(error as Error).message})`)
      }
      if (outcome) {
        if (outcome.failure) throw await this.refused(entryPoint, ops, outcome.failure)
        if (outcome.violation) throw this.violationError(outcome.violation, ops.at(-1) as UserOp)
        return outcome.touched
      }
    }
    const failure = await simulateBundle(this.parts, entryPoint, ops, this.address)
    if (failure) throw await this.refused(entryPoint, ops, failure)
    return undefined
  }

  /** A rule broken: -32502 naming it, or -32505 with ERC-7769's data where a stake would allow it. */
  private violationError(violation: Violation, op: UserOp): Error {
    const address = entitiesOf(op).find((e) => e.role === violation.entity)?.address
    if (!violation.needsStake || !address) return violationError(violation)
    return this.reputation.stakeTooLow(
      violation.entity,
      address,
      `${violationError(violation).message}; ${this.reputation.stakeNeeded()} allows it`,
    )
  }

  /** The refusal of a FailedOp: -32506 when the AA24 is the account naming a signature aggregator. */
  private async refused(entryPoint: EntryPoint, ops: UserOp[], failure: FailedOp): Promise<Error> {
    const op = ops[failure.index] ?? ops.at(-1)
    if (op && failure.reason.startsWith('AA24')) {
      const aggregator = await aggregatorOf(this.parts, entryPoint, op).catch(() => undefined)
      if (aggregator) {
        return new UnsupportedAggregatorError(
          `unsupported signature aggregator ${aggregator}: the account's validation names it, and this bundler does not aggregate signatures`,
          { aggregator },
        )
      }
    }
    return refusal(failure.reason)
  }

  /**
   * Ops whose bundle transaction is neither included nor waiting any more (evm_revert, anvil_reset, a fault
   * that dropped it for good), or was included without running them (the bundle reverted: the state moved
   * between the check and the block), are dropped, so the same op or its sender's nonce can be sent again;
   * for a bundle that reverted, the entity its failing op blames is banned (GREP-040, crashedBundle).
   */
  private forgetVanishedBundles(): void {
    const reverted = new Map<Hex, OpRecord[]>()
    for (const r of this.mempool.submitted()) {
      if (!r.txHash) continue
      const included = this.parts.receipt(r.txHash)
      if (!included && !this.parts.waiting(r.txHash)) {
        this.drop(r, `its bundle ${toHex(r.txHash)} is no longer on the chain nor waiting`)
      } else if (!included || r.settled) {
        // waiting, or its event already seen: nothing to read again
      } else if (!outcomeIn(r.entryPoint, r.hash, included)) {
        this.drop(r, `its bundle ${toHex(r.txHash)} ran without it (${included.receipt.status === 1 ? 'no event' : 'reverted'})`)
        if (included.receipt.status === 0) reverted.set(toHex(r.txHash), [...(reverted.get(toHex(r.txHash)) ?? []), r])
      } else {
        this.reputation.included(r.hash)
        r.settled = true
      }
    }
    for (const [txHash, records] of reverted) {
      const [first] = records
      if (!first) continue
      this.reputation
        .crashedBundle(
          first.entryPoint,
          records.map((r) => r.op),
          this.address,
        )
        .then((blamed) => blamed && this.parts.log(`bundler: bundle ${txHash} reverted; ${blamed} is banned (ERC-7562 GREP-040)`))
        .catch((error) =>
          this.parts.log(`bundler: bundle ${txHash} reverted, its ops not run again (${(error as Error).message})`),
        )
    }
  }

  /** The op's bundle transaction receipt, once visible (pre-confirmed or sealed). */
  private included(record: OpRecord) {
    return record.txHash ? this.parts.receipt(record.txHash) : undefined
  }

  /** eth_getUserOperationByHash: the op, and where it was included once it was. */
  lookup(hash: Hex): { record: OpRecord; outcome?: UserOpOutcome } | undefined {
    const record = this.mempool.get(hash)
    if (!record || record.status === 'failed') return undefined
    return { record, outcome: this.outcome(record) }
  }

  /** eth_getUserOperationReceipt: undefined until its bundle is pre-confirmed. */
  receipt(hash: Hex): { entryPoint: EntryPoint; outcome: UserOpOutcome } | undefined {
    const record = this.mempool.get(hash)
    if (record) {
      const outcome = this.outcome(record)
      return outcome && { entryPoint: record.entryPoint, outcome }
    }
    return foreignReceipt(this.parts, hash)
  }

  private outcome(record: OpRecord): UserOpOutcome | undefined {
    const included = this.included(record)
    return included ? outcomeIn(record.entryPoint, record.hash, included) : undefined
  }

  /** pimlico_getUserOperationGasPrice: three tiers over the node's suggestion (twice the base fee plus the tip). */
  gasPrice(): { slow: FeeTier; standard: FeeTier; fast: FeeTier } {
    const tip = this.parts.tip()
    const maxFee = this.parts.baseFee() * 2n + tip
    const tier = (percent: bigint): FeeTier => ({
      maxFeePerGas: (maxFee * percent) / 100n,
      maxPriorityFeePerGas: (tip * percent) / 100n,
    })
    return { slow: tier(100n), standard: tier(110n), fast: tier(125n) }
  }

  /**
   * A block was sealed: its bundles' ops are settled (GREP-040 for a bundle that reverted), and the ops a
   * throttled entity kept waiting THROTTLED_ENTITY_LIVE_BLOCKS leave (GREP-020).
   */
  blockSealed(number: bigint): void {
    try {
      this.forgetVanishedBundles()
      for (const entryPoint of ENTRY_POINTS) {
        for (const r of this.reputation.outlived(entryPoint, this.mempool.pending(entryPoint), number)) {
          this.drop(
            r,
            `an entity it names is throttled and it waited ${REPUTATION.THROTTLED_ENTITY_LIVE_BLOCKS} blocks (ERC-7562 GREP-020, THROTTLED_ENTITY_LIVE_BLOCKS)`,
          )
        }
      }
    } catch (error) {
      // The block's other listeners (the sequencer's own) must not see the bundler's fault.
      this.parts.log(`bundler: after block ${number}: ${(error as Error).message}`)
    }
  }

  /** debug_bundler_dumpMempool: the waiting ops of `entryPoint`, in bundling order. */
  async dumpMempool(entryPointAddress: Address): Promise<UserOp[]> {
    const entryPoint = await this.served(entryPointAddress)
    return this.mempool.pending(entryPoint).map((r) => r.op)
  }

  /** debug_bundler_clearState. */
  clearState(): void {
    this.mempool.clear()
    this.reputation.clear()
  }

  /** debug_bundler_clearMempool (rundler's, the spec tests'): the ops forgotten, the reputation kept. */
  clearMempool(): void {
    this.mempool.clear()
    this.reputation.forgetOps()
  }

  /** debug_bundler_dumpReputation: the entities of `entryPoint`, with the inclusions seen so far. */
  async dumpReputation(entryPointAddress: Address): Promise<Array<ReputationEntry & { status: ReputationStatus }>> {
    const entryPoint = await this.served(entryPointAddress)
    this.forgetVanishedBundles()
    return this.reputation.table.dump(entryPoint.address)
  }

  /** debug_bundler_setReputation. */
  async setReputation(entryPointAddress: Address, entries: ReputationEntry[]): Promise<void> {
    const entryPoint = await this.served(entryPointAddress)
    this.reputation.table.set(entryPoint.address, entries)
  }

  /** debug_bundler_getStakeStatus. */
  async stakeStatus(entryPointAddress: Address, address: Address): Promise<{ stakeInfo: StakeInfo; isStaked: boolean }> {
    const entryPoint = await this.served(entryPointAddress)
    return this.reputation.stakeStatus(entryPoint, address)
  }

  /** debug_bundler_setBundlingMode. */
  setMode(mode: BundlingMode): void {
    this.mode = mode
  }

  /** debug_bundler_sendBundleNow, and auto mode after each accepted op: the bundle transactions sent. */
  bundle(): Promise<Hex[]> {
    const run = this.queue.then(() => this.bundleAll())
    this.queue = run.catch((error) => {
      this.parts.log(`bundler: ${(error as Error).message}`)
      return []
    })
    return run
  }

  private async bundleAll(): Promise<Hex[]> {
    const sent: Hex[] = []
    for (const entryPoint of ENTRY_POINTS) {
      const records = this.mempool.pending(entryPoint)
      if (records.length === 0) continue
      const hash = await this.bundleOne(entryPoint, records)
      if (hash) sent.push(hash)
    }
    return sent
  }

  /** One handleOps transaction for the waiting ops of `entryPoint`, less those the EntryPoint refuses now. */
  private async bundleOne(entryPoint: EntryPoint, waiting: OpRecord[]): Promise<Hex | undefined> {
    const { take, banned } = this.reputation.forBundle(entryPoint, waiting)
    for (const r of banned) this.drop(r, 'an entity it names is banned (ERC-7562 GREP-010)')
    const held = heldByStorage(waiting)
    let records = take.filter((r) => !held.has(r))
    while (records.length > 0) {
      const ops = records.map((r) => r.op)
      const gas = bundleGasLimit(entryPoint, ops, this.parts.txGasCap())
      const failure = await simulateBundle(this.parts, entryPoint, ops, this.address, undefined, gas)
      if (!failure) break
      const dropped = failure.index >= 0 && failure.index < records.length ? [records[failure.index] as OpRecord] : records
      for (const r of dropped) {
        this.reputation.failedValidation(r.hash, failure.reason)
        this.drop(r, failure.reason)
      }
      records = records.filter((r) => !dropped.includes(r))
    }
    if (records.length === 0) return undefined
    const ops = records.map((r) => r.op)
    try {
      const raw = await this.signBundle(entryPoint, ops)
      const txHash = await this.parts.sendRawTransaction(hexToBytes(raw))
      for (const r of records) {
        r.status = 'submitted'
        r.txHash = txHash
      }
      this.parts.opEvent({ kind: 'bundled', hashes: records.map((r) => r.hash), txHash, version: entryPoint.version })
      return toHex(txHash)
    } catch (error) {
      for (const r of records) this.drop(r, `bundle not sent: ${(error as Error).message}`)
      return undefined
    }
  }

  private drop(record: OpRecord, reason: string): void {
    record.status = 'failed'
    record.reason = reason
    this.reputation.forget(record.hash)
    this.parts.opEvent({ kind: 'dropped', hash: record.hash, reason })
  }

  /** The signed handleOps transaction: gas for every op's limits, fees no higher than the ops pay unless the base fee needs it. */
  private async signBundle(entryPoint: EntryPoint, ops: UserOp[]): Promise<Hex> {
    const gas = bundleGasLimit(entryPoint, ops, this.parts.txGasCap())
    const baseFee = this.parts.baseFee()
    let maxFeePerGas = ops.reduce((m, op) => (op.maxFeePerGas < m ? op.maxFeePerGas : m), ops[0]?.maxFeePerGas ?? 0n)
    let maxPriorityFeePerGas = ops.reduce(
      (m, op) => (op.maxPriorityFeePerGas < m ? op.maxPriorityFeePerGas : m),
      ops[0]?.maxPriorityFeePerGas ?? 0n,
    )
    if (maxFeePerGas < baseFee * 2n) maxFeePerGas = baseFee * 2n + maxPriorityFeePerGas
    if (maxPriorityFeePerGas > maxFeePerGas) maxPriorityFeePerGas = maxFeePerGas
    const nonce = await this.parts.nonce(hexToBytes(this.address))
    const common = {
      chainId: Number(this.parts.chainId),
      nonce: Number(nonce),
      to: entryPoint.address,
      data: handleOpsData(entryPoint, ops, this.address),
      gas,
      maxFeePerGas,
      maxPriorityFeePerGas,
    }
    const signedAuthorizations = ops.flatMap((op) => (op.authorization ? [op.authorization] : []))
    if (signedAuthorizations.length > 0) {
      return this.signer.signTransaction({ ...common, type: 'eip7702', authorizationList: signedAuthorizations })
    }
    return this.signer.signTransaction({ ...common, type: 'eip1559' })
  }
}
