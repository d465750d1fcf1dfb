// The transaction pool: validated transactions waiting for a flashblock, per sender by nonce.
// Validation texts are geth's (core/txpool/errors.go, validation.go), since clients match them.
import { hexKey } from '../bytes.js'
import { TxGasCapError, TxRejectedError } from '../errors.js'
import { effectiveTip, maxFee, maxTip } from '../fees.js'
import type { PoolTxInfo, TxRecord } from '../types.js'

export interface AccountView {
  nonce: bigint
  balance: bigint
}

export interface ValidationContext {
  blockGasLimit: bigint
  baseFee: bigint
  /** EIP-7825 per-transaction cap (2^24 from Osaka), if active. */
  txGasCap?: bigint
  /** The transaction's intrinsic gas and EIP-7623 calldata floor (0 before Prague): engine's. */
  intrinsicGas: bigint
  floorDataGas: bigint
  /** Gas per blob under the current hardfork. */
  blobGasPerBlob: bigint
  account: AccountView
  /**
   * OP stack: the L1 data fee and the operator fee on the gas limit, paid beside gas (op-geth's pool
   * counts them): an upper bound, and the exact figures when the bound does not settle it.
   */
  rollupFees?: { bound: RollupFeeParts; exact(): RollupFeeParts }
  /** Whether the account's state includes pre-confirmed transactions (a block is open and served). */
  preconfirmed?: boolean
}

interface RollupFeeParts {
  l1Fee: bigint
  operatorFee: bigint
}

/** Minimum bump, in percent, for a replacement (geth's PriceBump). */
const PRICE_BUMP = 10n
const MAX_POOL_SIZE = 200_000

/** Cost a sender must cover: gas * fee cap + value (+ blob gas * blob fee cap). */
export function upfrontCost(tx: TxRecord, blobGasPerBlob: bigint): bigint {
  let cost = tx.gasLimit * maxFee(tx) + tx.value
  if (tx.blobVersionedHashes) cost += BigInt(tx.blobVersionedHashes.length) * blobGasPerBlob * (tx.maxFeePerBlobGas ?? 0n)
  return cost
}

function rollupPart({ l1Fee, operatorFee }: RollupFeeParts): string {
  const op = operatorFee > 0n ? ` and operator fee ${operatorFee}` : ''
  return `the cost includes the L1 data fee ${l1Fee}${op} wei, which OP-stack chains charge beside gas`
}

/** `nonce too low`, with the nonces a client should have used (for the pre-confirmation hint). */
export class NonceTooLowError extends TxRejectedError {
  constructor(
    message: string,
    readonly next: bigint,
    readonly pending: bigint,
  ) {
    super(message)
  }
}

/**
 * Told of every transaction that enters the pool: `new` when it arrives (a send, a requeue), `restored`
 * when the pool is put back as it was (a snapshot, a state file, a re-opened block), which followers
 * were told of already.
 */
export type PoolListener = (info: PoolTxInfo, arrival: 'new' | 'restored') => void

export class TxPool {
  private readonly bySender = new Map<string, Map<bigint, PoolTxInfo>>()
  private readonly byHash = new Map<string, PoolTxInfo>()
  private readonly listeners: PoolListener[] = []

  /** anvil's ready listener: the block builder learns of new work from the pool, not from the senders. */
  onAdded(listener: PoolListener): void {
    this.listeners.push(listener)
  }

  get size(): number {
    return this.byHash.size
  }

  has(hash: Uint8Array): boolean {
    return this.byHash.has(hexKey(hash))
  }

  get(hash: Uint8Array): PoolTxInfo | undefined {
    return this.byHash.get(hexKey(hash))
  }

  /** What `from` has pooled at `nonce`, if anything. */
  atNonce(from: Uint8Array, nonce: bigint): PoolTxInfo | undefined {
    return this.bySender.get(hexKey(from))?.get(nonce)
  }

  /** One address per sender with pooled transactions. */
  senders(): Uint8Array[] {
    return [...this.bySender.values()].map((txs) => (txs.values().next().value as PoolTxInfo).tx.from)
  }

  all(): PoolTxInfo[] {
    return [...this.byHash.values()]
  }

  /** Highest nonce N such that the sender's nonces state..N-1 are all pooled (geth's pending nonce). */
  pendingNonce(from: Uint8Array, stateNonce: bigint): bigint {
    const txs = this.bySender.get(hexKey(from))
    let nonce = stateNonce
    while (txs?.has(nonce)) nonce++
    return nonce
  }

  /** Stateful checks against the pre-confirmed state; throws TxRejectedError with geth's text. */
  validate(info: PoolTxInfo, ctx: ValidationContext): PoolTxInfo | undefined {
    const { tx } = info
    if (this.byHash.has(hexKey(tx.hash))) throw new TxRejectedError('already known')
    if (tx.gasLimit > ctx.blockGasLimit) throw new TxRejectedError('exceeds block gas limit')
    // After the block gas limit, as geth's and reth's validators order them.
    if (ctx.txGasCap !== undefined && tx.gasLimit > ctx.txGasCap) throw new TxGasCapError(ctx.txGasCap, tx.gasLimit)
    if (maxTip(tx) > maxFee(tx)) {
      throw new TxRejectedError(
        `max priority fee per gas higher than max fee per gas: address ${toAddr(tx.from)}, maxPriorityFeePerGas: ${maxTip(tx)}, maxFeePerGas: ${maxFee(tx)}`,
      )
    }
    if (tx.gasLimit < ctx.intrinsicGas) {
      throw new TxRejectedError(`intrinsic gas too low: gas ${tx.gasLimit}, minimum needed ${ctx.intrinsicGas}`)
    }
    if (tx.gasLimit < ctx.floorDataGas) {
      throw new TxRejectedError(`intrinsic gas too low: gas ${tx.gasLimit}, minimum needed ${ctx.floorDataGas}`)
    }
    if (maxFee(tx) < ctx.baseFee) {
      throw new TxRejectedError(
        `max fee per gas less than block base fee: address ${toAddr(tx.from)}, maxFeePerGas: ${maxFee(tx)}, baseFee: ${ctx.baseFee}`,
      )
    }
    if (tx.nonce < ctx.account.nonce) {
      // geth's text, then the nonce to use: the pre-confirmed state's plus what waits in the pool.
      const pending = this.pendingNonce(tx.from, ctx.account.nonce)
      const why = ctx.preconfirmed ? ' (read nonces at "pending": pre-confirmed transactions are not in "latest")' : ''
      throw new NonceTooLowError(
        `nonce too low: next nonce ${ctx.account.nonce}, tx nonce ${tx.nonce}; pending nonce ${pending}${why}`,
        ctx.account.nonce,
        pending,
      )
    }
    const gasAndValue = upfrontCost(tx, ctx.blobGasPerBlob)
    let rollup = ctx.rollupFees?.bound
    let cost = gasAndValue + (rollup ? rollup.l1Fee + rollup.operatorFee : 0n)
    if (ctx.account.balance < cost && ctx.rollupFees) {
      rollup = ctx.rollupFees.exact()
      cost = gasAndValue + rollup.l1Fee + rollup.operatorFee
    }
    if (ctx.account.balance < cost) {
      // op-geth's text (the cost includes the L1 fee); then what of it is not gas, for wallets that forget it.
      const beside = rollup && rollup.l1Fee + rollup.operatorFee > 0n ? `; ${rollupPart(rollup)}` : ''
      throw new TxRejectedError(
        `insufficient funds for gas * price + value: balance ${ctx.account.balance}, tx cost ${cost}, overshot ${cost - ctx.account.balance}${beside}`,
      )
    }
    const existing = this.bySender.get(hexKey(tx.from))?.get(tx.nonce)
    if (existing) {
      const bump = (v: bigint) => (v * (100n + PRICE_BUMP)) / 100n
      if (maxFee(tx) < bump(maxFee(existing.tx)) || maxTip(tx) < bump(maxTip(existing.tx))) {
        throw new TxRejectedError('replacement transaction underpriced')
      }
    }
    if (this.byHash.size >= MAX_POOL_SIZE) throw new TxRejectedError('txpool is full')
    return existing
  }

  /** Adds a validated transaction and tells the listeners; returns the one it replaced, if any. */
  add(info: PoolTxInfo, arrival: 'new' | 'restored' = 'new'): PoolTxInfo | undefined {
    const key = hexKey(info.tx.from)
    let txs = this.bySender.get(key)
    if (!txs) {
      txs = new Map()
      this.bySender.set(key, txs)
    }
    const replaced = txs.get(info.tx.nonce)
    if (replaced) this.byHash.delete(hexKey(replaced.tx.hash))
    txs.set(info.tx.nonce, info)
    this.byHash.set(hexKey(info.tx.hash), info)
    for (const listener of this.listeners) listener(info, arrival)
    return replaced
  }

  /** The pool as it was (a snapshot, a state file): what it holds now goes, `txs` come back as restored. */
  replaceAll(txs: PoolTxInfo[]): void {
    for (const info of this.all()) this.remove(info)
    for (const info of txs) this.add(info, 'restored')
  }

  remove(info: PoolTxInfo): void {
    const key = hexKey(info.tx.from)
    const txs = this.bySender.get(key)
    if (txs?.get(info.tx.nonce) === info) {
      txs.delete(info.tx.nonce)
      if (txs.size === 0) this.bySender.delete(key)
    }
    this.byHash.delete(hexKey(info.tx.hash))
  }

  /** Removes what a sender has pooled at `nonce` (a replacement that lost to an executed tx). */
  removeNonce(from: Uint8Array, nonce: bigint): PoolTxInfo | undefined {
    const stale = this.bySender.get(hexKey(from))?.get(nonce)
    if (stale) this.remove(stale)
    return stale
  }

  /** Removes a sender's transactions below its state nonce (they can never run); returns them. */
  prune(from: Uint8Array, stateNonce: bigint): PoolTxInfo[] {
    const txs = this.bySender.get(hexKey(from))
    const pruned: PoolTxInfo[] = []
    if (!txs) return pruned
    for (const [nonce, info] of txs) if (nonce < stateNonce) pruned.push(info)
    for (const info of pruned) this.remove(info)
    return pruned
  }

  /**
   * Ready transactions, best effective tip first, each sender's in nonce order, up to `maxGas`
   * (and `maxCount`). `stateNonce` gives each sender's nonce in the pre-confirmed state.
   */
  selectReady(baseFee: bigint, maxGas: bigint, maxCount: number, stateNonce: (from: Uint8Array) => bigint): PoolTxInfo[] {
    const heads: Array<{ info: PoolTxInfo; txs: Map<bigint, PoolTxInfo> }> = []
    for (const txs of this.bySender.values()) {
      const first = txs.values().next().value as PoolTxInfo
      const info = txs.get(stateNonce(first.tx.from))
      if (info && maxFee(info.tx) >= baseFee) heads.push({ info, txs })
    }
    const tipOf = (h: { info: PoolTxInfo }) => effectiveTip(h.info.tx, baseFee)
    const heap = new MaxHeap(heads, (a, b) => {
      const d = tipOf(a) - tipOf(b)
      return d === 0n ? b.info.receivedAt - a.info.receivedAt : d > 0n ? 1 : -1
    })
    const out: PoolTxInfo[] = []
    let gas = 0n
    while (out.length < maxCount) {
      const head = heap.pop()
      if (!head) break
      if (gas + head.info.tx.gasLimit > maxGas) continue
      out.push(head.info)
      gas += head.info.tx.gasLimit
      const next = head.txs.get(head.info.tx.nonce + 1n)
      if (next && maxFee(next.tx) >= baseFee) heap.push({ info: next, txs: head.txs })
    }
    return out
  }
}

function toAddr(bytes: Uint8Array): string {
  return `0x${hexKey(bytes)}`
}

class MaxHeap<T> {
  private readonly items: T[] = []
  constructor(
    initial: T[],
    private readonly cmp: (a: T, b: T) => number,
  ) {
    for (const item of initial) this.push(item)
  }

  push(item: T): void {
    const a = this.items
    a.push(item)
    let i = a.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (this.cmp(a[i], a[parent]) <= 0) break
      ;[a[i], a[parent]] = [a[parent], a[i]]
      i = parent
    }
  }

  pop(): T | undefined {
    const a = this.items
    if (a.length === 0) return undefined
    const top = a[0]
    const last = a.pop() as T
    if (a.length > 0) {
      a[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < a.length && this.cmp(a[l], a[m]) > 0) m = l
        if (r < a.length && this.cmp(a[r], a[m]) > 0) m = r
        if (m === i) break
        ;[a[i], a[m]] = [a[m], a[i]]
        i = m
      }
    }
    return top
  }
}
