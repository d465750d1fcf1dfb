// An OP-stack chain's rules as the node applies them (Base's, under the `base` profile): what a
// block's header carries (fee vault as miner, Jovian extraData and base fee), the L1-info deposit
// that opens it, the fees charged beside gas and what receipts report of them, and the user
// deposits waiting for the start of a block. The formulas are in fees.ts, L1Block in l1-block.ts.
import { hexKey } from '../bytes.js'
import type { RollupFees, StateView } from '../engine/index.js'
import type { HeaderFields, L1ReceiptFields, TxRecord } from '../types.js'
import { baseTimeMillisOf } from './base-time.js'
import { DENIM_SCALING } from './denim.js'
import { daFootprint, fastLzSize, l1Cost, nextBaseFee, operatorFee } from './fees.js'
import { isL1InfoDeposit, type L1BlockValues, l1InfoDeposit, nextL1Block, readL1Block } from './l1-block.js'
import { BASE_EIP1559, decodeExtraData, encodeExtraData, type L1FeeParams, PREDEPLOYS } from './params.js'

/** The vaults a transaction's fees are paid into (engine/opstack/rollup.ts credits them; tracers look them up). */
export const FEE_VAULTS = {
  baseFee: PREDEPLOYS.BaseFeeVault,
  l1Fee: PREDEPLOYS.L1FeeVault,
  operatorFee: PREDEPLOYS.OperatorFeeVault,
} as const

/** GasPriceOracle.getL1Fee's allowance for the signature an unsigned transaction lacks (Fjord). */
const UNSIGNED_OVERHEAD = 68

/** FastLZ sizes of transaction envelopes, computed once per envelope. */
const flzSizes = new WeakMap<Uint8Array, number>()
function flzOf(bytes: Uint8Array): number {
  let size = flzSizes.get(bytes)
  if (size === undefined) {
    size = fastLzSize(bytes)
    flzSizes.set(bytes, size)
  }
  return size
}

/** What the pool asks of a send's L1 and operator fees (pool/pool.ts). */
export interface RollupFeeCheck {
  bound: { l1Fee: bigint; operatorFee: bigint }
  exact(): { l1Fee: bigint; operatorFee: bigint }
}

/** A deposit every block makes for itself: the L1-info deposit, Denim's BaseTime deposit. */
export function isSystemDeposit(tx: TxRecord): boolean {
  return isL1InfoDeposit(tx) || baseTimeMillisOf(tx) !== undefined
}

export class OpStack {
  /** The L1 fee inputs of the open block (its L1-info deposit's): sends are checked against them. */
  current: L1FeeParams
  /** Asked for, not yet in an L1-info deposit. */
  private changes: Partial<L1FeeParams> = {}
  /** In the open block's L1-info deposit: made again if that block is re-opened, done once it is sealed. */
  private applying: Partial<L1FeeParams> = {}
  private readonly deposits: TxRecord[] = []
  private readonly depositListeners: Array<(tx: TxRecord) => void> = []

  constructor(
    initial: L1FeeParams,
    /** When Base's Denim upgrade activates (profile base), in seconds; undefined: never. */
    readonly denimTime?: bigint,
  ) {
    this.current = initial
  }

  /** Whether a block at `timestamp` is a Denim block (base/base RollupConfig::is_denim_active). */
  isDenim(timestamp: bigint): boolean {
    return this.denimTime !== undefined && timestamp >= this.denimTime
  }

  // --- blocks -------------------------------------------------------------------------------

  /**
   * Header fields of the block after `parent` (Jovian, OP specs jovian/exec-engine.md): the base fee
   * from the parent's EIP-1559 parameters; the first Denim block (`first`: its parent made before
   * Denim, as denim.ts isDenimBlock tells the producer) carries ten times the denominator and a
   * tenth of the gas limit (base/base derive/attributes/stateful.rs).
   */
  headerFields(
    parent: HeaderFields,
    first = false,
  ): Pick<HeaderFields, 'coinbase' | 'extraData' | 'baseFeePerGas' | 'excessBlobGas' | 'gasLimit'> {
    const params = decodeExtraData(parent.extraData) ?? BASE_EIP1559
    return {
      coinbase: PREDEPLOYS.SequencerFeeVault,
      gasLimit: first ? parent.gasLimit / DENIM_SCALING : parent.gasLimit,
      extraData: encodeExtraData(first ? { ...params, denominator: params.denominator * DENIM_SCALING } : params),
      baseFeePerGas: nextBaseFee(parent, params),
      excessBlobGas: 0n,
    }
  }

  /** L1 values from the next block on (pcnode_setL1Fees, the CLI flags): the next L1-info deposit carries them. */
  setL1Fees(changes: Partial<L1FeeParams>): void {
    this.changes = { ...this.changes, ...changes }
  }

  /**
   * The L1-info deposit opening a block at `timestamp` on the state `view` holds: the L1Block
   * values there, moved on by one block, with the fee changes asked for since.
   */
  async l1InfoDeposit(view: StateView, timestamp: bigint) {
    this.applying = { ...this.applying, ...this.changes }
    this.changes = {}
    return l1InfoDeposit(nextL1Block(await readL1Block(view), this.applying, timestamp))
  }

  /** The block carrying the last L1-info deposit was sealed: its changes are in the chain's state now. */
  sealed(): void {
    this.applying = {}
  }

  /** The L1 fee inputs in `view`'s L1Block (a block's, once its L1-info deposit ran). */
  readL1Fees(view: StateView): Promise<L1BlockValues> {
    return readL1Block(view)
  }

  // --- deposits from eth_sendRawTransaction ----------------------------------------------------

  /** A user deposit, to run at the start of a block (after the L1-info deposit); the listeners hear of it. */
  queueDeposit(tx: TxRecord): void {
    this.deposits.push(tx)
    for (const listener of this.depositListeners) listener(tx)
  }

  /** Told of each user deposit queued (the block builder listens, as it does to the pool). */
  onDepositQueued(listener: (tx: TxRecord) => void): void {
    this.depositListeners.push(listener)
  }

  /**
   * A deposit taken out of a discarded open block (re-opened, or saved unsealed): a user's waits for
   * the next block again; an L1-info deposit is dropped, as every block makes its own.
   */
  requeue(tx: TxRecord): void {
    if (!isSystemDeposit(tx)) this.deposits.push(tx)
  }

  /**
   * The deposits of an open block run again (faults/rerun.ts), in their order and ahead of those
   * that arrived since: they ran first. The L1-info deposit is made anew.
   */
  requeueFirst(txs: TxRecord[]): void {
    this.deposits.unshift(...txs.filter((tx) => !isSystemDeposit(tx)))
  }

  isQueued(hash: Uint8Array): boolean {
    const key = hexKey(hash)
    return this.deposits.some((tx) => hexKey(tx.hash) === key)
  }

  get depositsWaiting(): number {
    return this.deposits.length
  }

  takeDeposits(): TxRecord[] {
    return this.deposits.splice(0)
  }

  // --- fees ---------------------------------------------------------------------------------

  /** What a block with these L1 values charges besides gas (engine/opstack/rollup.ts applies it). */
  fees(p: L1FeeParams): RollupFees {
    return {
      l1Fee: (bytes, signed) => l1Cost(p, flzOf(bytes) + (signed ? 0 : UNSIGNED_OVERHEAD)).fee,
      operatorFee: (gas) => operatorFee(p, gas),
      vaults: FEE_VAULTS,
    }
  }

  /**
   * L1 and operator fees a sender must hold for `tx` beside gas and value (the pool's check):
   * `bound` without compressing (FastLZ never outputs more than the input plus one byte per 32
   * literals), `exact()` when the bound does not settle it. Compressing is most of a send's cost.
   */
  upfrontFees(tx: TxRecord): RollupFeeCheck {
    const p = this.current
    const op = operatorFee(p, tx.gasLimit)
    const worst = tx.raw.length + Math.ceil(tx.raw.length / 32)
    return {
      bound: { l1Fee: l1Cost(p, worst).fee, operatorFee: op },
      exact: () => ({ l1Fee: l1Cost(p, flzOf(tx.raw)).fee, operatorFee: op }),
    }
  }

  /** A transaction's DA footprint (Jovian): what the header's blobGasUsed sums. Deposits have none. */
  daFootprint(p: L1FeeParams, tx: TxRecord): bigint {
    return tx.deposit ? 0n : daFootprint(p, flzOf(tx.raw))
  }

  /** What the receipt of `tx` reports of the L1 fee (Base's L1BlockInfo; deposits pay none). */
  receiptFields(p: L1FeeParams, tx: TxRecord, charged: bigint | undefined): L1ReceiptFields {
    return {
      l1GasPrice: p.baseFee,
      l1GasUsed: l1Cost(p, flzOf(tx.raw)).gasUsed,
      l1Fee: charged ?? 0n,
      l1BaseFeeScalar: p.baseFeeScalar,
      l1BlobBaseFee: p.blobBaseFee,
      l1BlobBaseFeeScalar: p.blobBaseFeeScalar,
      operatorFeeScalar: p.operatorFeeScalar,
      operatorFeeConstant: p.operatorFeeConstant,
      daFootprintGasScalar: p.daFootprintGasScalar,
      daFootprint: this.daFootprint(p, tx),
    }
  }
}
