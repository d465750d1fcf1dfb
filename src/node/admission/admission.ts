// How a transaction enters the pool (anvil's backend/validate.rs with its pool): raw sends decoded
// with geth's texts, eth_sendTransaction's defaults filled and signed by a dev key, impersonated
// sends built unsigned, then validation against the pre-confirmed state; the pool tells the sequencer.
import type { DevAccount } from '../accounts.js'
import { hexKey, sameBytes } from '../bytes.js'
import type { Chain } from '../chain/chain.js'
import type { Engine } from '../engine/index.js'
import { DEPOSIT_TX_TYPE, ZERO_ADDRESS } from '../engine/index.js'
import { InvalidParamsError, type NodeError, TxGasCapError, TxRejectedError } from '../errors.js'
import { SUGGESTED_TIP } from '../fees.js'
import type { PreconfHints } from '../hints.js'
import type { OpStack } from '../opstack/opstack.js'
import { DEPOSITOR_ACCOUNT } from '../opstack/params.js'
import type { TxPool } from '../pool/pool.js'
import { NonceTooLowError } from '../pool/pool.js'
import type { ChainProfile } from '../profile.js'
import type { CallRequest, HeaderFields, PoolTxInfo, TxRecord } from '../types.js'
import { SenderLocks } from './sender-locks.js'

/** What filling a transaction asks of the node's execution: the pending nonce and an estimate. */
export interface FillSources {
  pendingNonce(from: Uint8Array): Promise<bigint>
  estimateGas(req: CallRequest): Promise<bigint>
  pendingBaseFee(): bigint
  /** The header fields the next block opens with, when none is open (validation's gas limit and base fee). */
  nextHeader(): HeaderFields
}

/** What admission works with: it decodes and validates with the engine, reads the chain, pools. */
export interface AdmissionParts {
  engine: Engine
  chain: Chain
  pool: TxPool
  /** The OP-stack rules (profiles flashblocks and base); undefined on Ethereum. */
  opStack: OpStack | undefined
  /** Explains a nonce a pre-confirmed transaction used (hints.ts). */
  hints: PreconfHints
  /** Whether `address` sends unsigned (anvil_impersonateAccount). */
  impersonating(address: Uint8Array): boolean
  /** How a send over the EIP-7825 cap is refused (geth's or reth's answer). */
  profile: Pick<ChainProfile, 'txGasCapRefusal'>
}

export class Admission {
  private readonly keys = new Map<string, DevAccount>()
  /** Sends the node fills, one sender at a time: each takes the nonce after the one before it. */
  private readonly senders = new SenderLocks()

  constructor(
    private readonly ctx: AdmissionParts,
    accounts: DevAccount[],
    private readonly sources: FillSources,
  ) {
    for (const a of accounts) this.keys.set(a.address.slice(2).toLowerCase(), a)
  }

  /** The dev account of `address`, for the signing methods. */
  devAccount(address: Uint8Array): DevAccount | undefined {
    return this.keys.get(hexKey(address))
  }

  /**
   * Decodes, validates against the pre-confirmed state and pools a signed transaction. On an OP
   * stack, a deposit (type 0x7e, as anvil takes them) waits for the start of a block instead, and
   * blob transactions are refused, as Base refuses them.
   */
  async sendRawTransaction(raw: Uint8Array): Promise<Uint8Array> {
    const { opStack, engine } = this.ctx
    if (!opStack && raw[0] === DEPOSIT_TX_TYPE) throw new TxRejectedError('transaction type not supported')
    let tx: TxRecord
    try {
      tx = await engine.decodeTransaction(raw)
    } catch (error) {
      throw error instanceof TxGasCapError ? this.gasCapRefusal(error) : error
    }
    if (opStack && tx.blobVersionedHashes) throw new TxRejectedError('transaction type not supported')
    if (tx.deposit) return this.submitDeposit(tx)
    return this.submit(tx)
  }

  /** A user deposit: queued for the start of a block, where deposits run (opstack/opstack.ts). */
  private submitDeposit(tx: TxRecord): Uint8Array {
    const { chain, opStack } = this.ctx
    if (chain.getTx(tx.hash) || opStack?.isQueued(tx.hash)) throw new TxRejectedError('already known')
    // The system depositor's deposits are the node's own (the L1-info and BaseTime deposits).
    if (sameBytes(tx.from, DEPOSITOR_ACCOUNT)) {
      throw new TxRejectedError(`deposits from the system depositor 0x${hexKey(DEPOSITOR_ACCOUNT)} are the node's own`)
    }
    const blockGasLimit = (chain.pending ?? chain.head).header.gasLimit
    if (tx.gasLimit > blockGasLimit) throw new TxRejectedError('exceeds block gas limit')
    opStack?.queueDeposit(tx)
    return tx.hash
  }

  /** eth_sendTransaction: a dev account signs (or an impersonated sender sends unsigned). */
  async sendTransaction(req: CallRequest): Promise<Uint8Array> {
    if (!req.from) throw new InvalidParamsError('missing from')
    const account = this.devAccount(req.from)
    if (!account && this.ctx.impersonating(req.from)) return this.sendUnsigned(req)
    if (!account) throw new TxRejectedError(`unknown account 0x${hexKey(req.from)}`)
    const from = req.from
    return this.senders.with(hexKey(from), async () => {
      const fields = await this.fill(req, from)
      return this.submit(this.ctx.engine.buildTransaction(fields, { privateKey: hexBytes(account.privateKey) }))
    })
  }

  /**
   * A transaction from `req.from` with no key (impersonation, eth_sendUnsignedTransaction): the usual
   * defaults and a placeholder signature that makes its hash unique per sender, as anvil does.
   */
  async sendUnsigned(req: CallRequest): Promise<Uint8Array> {
    const from = req.from
    if (!from) throw new InvalidParamsError('missing from')
    return this.senders.with(hexKey(from), async () => {
      const fields = await this.fill(req, from)
      return this.submit(this.ctx.engine.buildTransaction(fields, { impersonated: from }))
    })
  }

  /**
   * anvil_reorg's request objects: filled as eth_sendTransaction fills them but at `nonce` (the
   * sender's in the reorg's common block), signed by the dev key or unsigned when impersonated, as
   * anvil builds them; not pooled.
   */
  async buildSigned(req: CallRequest, nonce: bigint): Promise<TxRecord> {
    const from = req.from
    if (!from) throw new InvalidParamsError('missing from')
    const account = this.devAccount(from)
    if (!account && !this.ctx.impersonating(from)) throw new TxRejectedError(`unknown account 0x${hexKey(from)}`)
    const fields = await this.fill({ ...req, nonce }, from)
    const signer = account ? { privateKey: hexBytes(account.privateKey) } : { impersonated: from }
    return this.ctx.engine.buildTransaction(fields, signer)
  }

  /**
   * eth_fillTransaction (geth's): `req` with its defaults filled as eth_sendTransaction fills them,
   * unsigned. No sender given: the zero address, as geth's. The gas is estimated at "pending" (geth
   * estimates at latest; on a pre-confirming node a transaction runs on the pre-confirmed state).
   * Blob transactions are refused with the text viem takes as "fall back to its own filling".
   */
  async fillTransaction(req: CallRequest): Promise<TxRecord> {
    if (req.blobVersionedHashes || req.maxFeePerBlobGas !== undefined) {
      throw new TxRejectedError('eth_fillTransaction is not available for blob transactions on pcnode')
    }
    const from = req.from ?? ZERO_ADDRESS
    const fields = await this.fill(req, from)
    return this.ctx.engine.unsignedTransaction(fields, from)
  }

  /**
   * The fields given, the rest defaulted: pending nonce, an estimate at "pending", the suggested tip
   * over twice the pending base fee; legacy when `req` has a gas price.
   */
  private async fill(req: CallRequest, from: Uint8Array) {
    const nonce = req.nonce ?? (await this.sources.pendingNonce(from))
    const gasLimit = req.gas ?? (await this.sources.estimateGas(req))
    // Refused here as a send of it would be: the transaction cannot even be built over the cap.
    const cap = this.ctx.engine.txGasCap()
    if (cap !== undefined && gasLimit > cap) throw this.gasCapRefusal(new TxGasCapError(cap, gasLimit))
    const base = { nonce, gasLimit, to: req.to, value: req.value ?? 0n, data: req.data ?? new Uint8Array() }
    const { accessList, authorizationList } = req
    // An authorization list makes an EIP-7702 transaction, which has 1559 fees only: a gas price
    // given with it is both caps (geth's TransactionArgs picks the set-code type first too).
    if (req.gasPrice !== undefined && !authorizationList) return { ...base, gasPrice: req.gasPrice, accessList }
    const tip = req.maxPriorityFeePerGas ?? req.gasPrice ?? SUGGESTED_TIP
    const maxFeePerGas = req.maxFeePerGas ?? req.gasPrice ?? this.sources.pendingBaseFee() * 2n + tip
    return { ...base, maxFeePerGas, maxPriorityFeePerGas: tip, accessList, authorizationList }
  }

  /** Pools `tx`: refused with geth's text when it cannot go in. */
  async submit(tx: TxRecord): Promise<Uint8Array> {
    const { chain, engine } = this.ctx
    if (chain.getTx(tx.hash)) throw new TxRejectedError('already known')
    const info: PoolTxInfo = { tx, receivedAt: performance.now() }
    // Admission reads the sender from the state cache, so a send does not wait behind a
    // flashblock in the serial queue. It waits when a state change is queued ahead of it (a send
    // after anvil_setBalance in one batch sees the new balance) or the cache lacks the sender.
    // It only reads the live state and fills the pool, so a trace waiting on its tracer's worker
    // lets it through (lendable), as it lets blocks through.
    const cached = engine.queue.readableNow ? engine.peekAccount(tx.from) : undefined
    if (cached !== undefined) return this.admit(info, cached ?? undefined)
    return engine.queue.run(async () => this.admit(info, await engine.live.account(tx.from)), { lendable: true })
  }

  private admit(info: PoolTxInfo, account: { nonce: bigint; balance: bigint } | undefined): Uint8Array {
    const { chain, pool } = this.ctx
    const header = chain.pending?.header ?? this.sources.nextHeader()
    try {
      this.validate(info, account, header)
    } catch (error) {
      if (error instanceof TxGasCapError) throw this.ctx.profile.txGasCapRefusal(error)
      if (error instanceof NonceTooLowError) this.ctx.hints.nonceTooLow(info.tx.from, info.tx.nonce, error.next, error.pending)
      throw error
    }
    pool.add(info)
    return info.tx.hash
  }

  /**
   * A transaction the engine would not build or decode (over the EIP-7825 cap), refused as the pool
   * would: the block gas limit first (geth's and reth's validators), then the profile's answer.
   */
  private gasCapRefusal(error: TxGasCapError): NodeError {
    const { gasLimit } = this.ctx.chain.pending?.header ?? this.sources.nextHeader()
    if (error.gas !== undefined && error.gas > gasLimit) return new TxRejectedError('exceeds block gas limit')
    return this.ctx.profile.txGasCapRefusal(error)
  }

  private validate(info: PoolTxInfo, account: { nonce: bigint; balance: bigint } | undefined, header: HeaderFields): void {
    const { engine, pool } = this.ctx
    pool.validate(info, {
      blockGasLimit: header.gasLimit,
      baseFee: header.baseFeePerGas,
      txGasCap: engine.txGasCap(),
      intrinsicGas: engine.intrinsicGas(info.tx),
      floorDataGas: engine.floorDataGas(info.tx),
      blobGasPerBlob: info.tx.blobVersionedHashes ? engine.blobGasPerBlob() : 0n,
      account: { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n },
      rollupFees: this.ctx.opStack?.upfrontFees(info.tx),
      preconfirmed: this.ctx.chain.visiblePending !== undefined,
    })
  }
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.slice(2), 'hex'))
}
