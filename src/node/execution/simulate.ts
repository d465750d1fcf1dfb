// eth_simulateV1 on ethereumjs: blocks of unsigned calls chained on one another (state, number,
// timestamp), with state and block overrides, ETH-transfer tracing and optional validation, all
// inside one state checkpoint that is reverted at the end. Callers run it in the engine's queue.
// Semantics follow geth's internal/ethapi/simulate.go (the conformance fixtures come from geth),
// with the spec's -380xx codes and Base's defaults (block-time timestamp step, zero stateRoot).
import type { Block } from '@ethereumjs/block'
import type { EVMResult, Message } from '@ethereumjs/evm'
import { RLP } from '@ethereumjs/rlp'
import { Capability, getCalldataFloorGas, type TypedTransaction } from '@ethereumjs/tx'
import {
  Account,
  Address,
  bigIntMax,
  bigIntToBytes,
  bigIntToUnpaddedBytes,
  bytesToBigInt,
  setLengthLeft,
  toChecksumAddress,
} from '@ethereumjs/util'
import { encodeReceipt, type RunTxResult, type VM } from '@ethereumjs/vm'
import { BEACON_ROOTS_ADDRESS, blockAt, type Engine, HISTORY_ADDRESS, txGasCap } from '../engine/engine.js'
import { orderedTrieRoot } from '../engine/trie.js'
import { InvalidParamsError, SimulateError } from '../errors.js'
import { BASE_PROFILE, type ChainProfile } from '../profile.js'
import { effectiveGasPrice } from '../sequencer/producer.js'
import type {
  BlockOverrides,
  BlockRecord,
  CallRequest,
  HeaderFields,
  IncludedTx,
  LogEntry,
  StateOverrides,
  Withdrawal,
} from '../types.js'
import { applyBlockOverrides, applyStateOverrides, callTransaction, describeFailure, runCallTx, ZERO_ADDRESS } from './call.js'

/** geth's and reth's limits; each is a -38026 "client adjustable limit" when exceeded. */
export const SIMULATE_LIMITS = { blocks: 256, callsPerBlock: 5_000, totalCalls: 10_000, gas: 50_000_000n }

export interface SimulateBlockInput {
  blockOverrides?: BlockOverrides
  stateOverrides?: StateOverrides
  calls: CallRequest[]
}

export interface SimulateInput {
  blocks: SimulateBlockInput[]
  traceTransfers?: boolean
  validation?: boolean
}

export interface SimulatedCall {
  status: 0 | 1
  gasUsed: bigint
  /** Gas used before refunds (what the call needs as its limit). */
  maxUsedGas: bigint
  returnData: Uint8Array
  /** The call's logs in execution order, with the ETH-transfer logs when tracing. */
  logs: LogEntry[]
  /** Block-wide index of the first log. */
  firstLogIndex: number
  error?: { code: number; message: string; data?: Uint8Array }
}

export interface SimulatedBlock {
  /** A sealed-looking block record: header, hash, size and the calls as transactions. */
  block: BlockRecord
  calls: SimulatedCall[]
  withdrawals: Withdrawal[]
}

export interface SimulateContext {
  engine: Engine
  /** The VM holding the base block's state (the live one for "pending"). */
  vm: VM
  base: { header: HeaderFields; hash: Uint8Array }
  /** Default step between simulated timestamps, in seconds (Base: the block time). */
  timeStep: bigint
  /** Which stateRoot the simulated blocks report (profile.ts); Base's zero root when absent. */
  profile?: Pick<ChainProfile, 'simulatedStateRoot' | 'oneMovePerTarget'>
}

/** ERC-7528's native-asset address and the ERC-20 Transfer topic, as geth's logtracer emits them. */
const TRANSFER_ADDRESS = Buffer.from('eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', 'hex')
const TRANSFER_TOPIC = Buffer.from('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', 'hex')
const EMPTY_TRIE_ROOT = Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex')
const EMPTY_REQUESTS_HASH = Buffer.from('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex')
const MAX_NONCE = 2n ** 64n - 1n
const GWEI = 1_000_000_000n

/** Checks the request-level limits before any state is touched (geth's order). */
export function checkSimulateInput(input: SimulateInput): void {
  if (input.blocks.length === 0) throw new InvalidParamsError('empty input')
  if (input.blocks.length > SIMULATE_LIMITS.blocks) throw new SimulateError(-38026, 'too many blocks')
  let total = 0
  for (const [i, b] of input.blocks.entries()) {
    if (b.calls.length > SIMULATE_LIMITS.callsPerBlock) {
      throw new SimulateError(-38026, `too many calls in block ${i}: ${b.calls.length} > ${SIMULATE_LIMITS.callsPerBlock}`)
    }
    total += b.calls.length
    if (total > SIMULATE_LIMITS.totalCalls) {
      throw new SimulateError(-38026, `too many calls: more than ${SIMULATE_LIMITS.totalCalls} in total`)
    }
  }
}

interface PlannedBlock {
  number: bigint
  time: bigint
  /** undefined for the empty blocks that fill a gap in numbers. */
  input?: SimulateBlockInput
}

/** Numbers and timestamps of every block, gap fillers included; both must strictly increase. */
export function planBlocks(base: HeaderFields, blocks: SimulateBlockInput[], step: bigint): PlannedBlock[] {
  const out: PlannedBlock[] = []
  let prevNumber = base.number
  let prevTime = base.timestamp
  for (const input of blocks) {
    const number = input.blockOverrides?.number ?? prevNumber + 1n
    if (number <= prevNumber) throw new SimulateError(-38020, `block numbers must be in order: ${number} <= ${prevNumber}`)
    if (number - base.number > BigInt(SIMULATE_LIMITS.blocks)) throw new SimulateError(-38026, 'too many blocks')
    for (let n = prevNumber + 1n; n < number; n++) {
      prevTime += step
      out.push({ number: n, time: prevTime })
    }
    prevNumber = number
    let time = input.blockOverrides?.time
    if (time === undefined) time = prevTime + step
    else if (time <= prevTime) throw new SimulateError(-38021, `block timestamps must be in order: ${time} <= ${prevTime}`)
    prevTime = time
    out.push({ number, time, input })
  }
  return out
}

export async function simulate(ctx: SimulateContext, input: SimulateInput): Promise<SimulatedBlock[]> {
  checkSimulateInput(input)
  const plan = planBlocks(ctx.base.header, input.blocks, ctx.timeStep)
  const run = new Simulation(ctx, input.validation === true, input.traceTransfers === true)
  const state = ctx.vm.stateManager
  await state.checkpoint()
  const unhook = run.hook()
  try {
    const out: SimulatedBlock[] = []
    let parent = ctx.base
    for (const planned of plan) {
      const sim = await run.block(planned, parent)
      out.push(sim)
      parent = { header: sim.block.header, hash: sim.block.hash }
    }
    return out
  } finally {
    unhook()
    await state.revert()
  }
}

type Frame = { logs: LogEntry[]; create?: LogEntry }

/**
 * traceTransfers: one frame per EVM message, opened on beforeMessage and closed on afterMessage.
 * A value-carrying frame starts with its Transfer log; LOG opcodes append to the running frame, so
 * real and synthetic logs keep execution order. A failed frame's logs are dropped, a successful
 * one's move to its parent (geth's logtracer).
 */
class TransferTracer {
  private frames: Frame[] = []
  private done: LogEntry[] = []
  /** Logs captured since the last reset, dropped ones included: geth's log index counts them all. */
  private captured = 0
  /** `captured` of the call last taken. */
  takenCount = 0

  reset(): void {
    this.frames = []
    this.done = []
    this.captured = 0
  }

  /** The finished call's logs. */
  take(): LogEntry[] {
    const logs = this.done
    this.takenCount = this.captured
    this.reset()
    return logs
  }

  private push(frame: Frame | undefined, log: LogEntry): void {
    if (!frame) return
    frame.logs.push(log)
    this.captured++
  }

  readonly before = (msg: Message): void => {
    const frame: Frame = { logs: [] }
    this.frames.push(frame)
    // DELEGATECALL and CALLCODE move no value between accounts (CALLCODE: `to` is the caller itself).
    const callCode = msg.to !== undefined && !msg.codeAddress.equals(msg.to)
    if (msg.value > 0n && !msg.delegatecall && !callCode) {
      const log = transferLog(msg.caller.bytes, msg.to?.bytes ?? ZERO_ADDRESS, msg.value)
      this.push(frame, log)
      if (msg.to === undefined) frame.create = log
    }
  }

  readonly after = (result: EVMResult): void => {
    const frame = this.frames.pop()
    if (!frame) return
    if (frame.create && result.createdAddress) frame.create.topics[2] = setLengthLeft(result.createdAddress.bytes, 32)
    if (result.execResult.exceptionError !== undefined) return
    const parent = this.frames.at(-1)
    if (parent) parent.logs.push(...frame.logs)
    else this.done = frame.logs
  }

  log(entry: LogEntry): void {
    this.push(this.frames.at(-1), entry)
  }

  selfDestruct(from: Uint8Array, to: Uint8Array, value: bigint): void {
    if (value > 0n) this.push(this.frames.at(-1), transferLog(from, to, value))
  }
}

function transferLog(from: Uint8Array, to: Uint8Array, value: bigint): LogEntry {
  return {
    address: TRANSFER_ADDRESS,
    topics: [TRANSFER_TOPIC, setLengthLeft(from, 32), setLengthLeft(to, 32)],
    data: setLengthLeft(bigIntToBytes(value), 32),
  }
}

// The slice of ethereumjs' interpreter state the opcode wrappers touch (private API, pinned version).
interface RunState {
  stack: { pop(): bigint; push(v: bigint): void; peek(n?: number): bigint[] }
  interpreter: {
    getAddress(): Address
    getSelfBalance(): bigint
    getBlockNumber(): bigint
    _result: { logs: Array<[Uint8Array, Uint8Array[], Uint8Array]> }
  }
  stateManager: VM['stateManager']
}
type OpHandler = (runState: RunState, common: unknown) => unknown
type OpEntry = { opHandler: OpHandler; opcodeInfo: unknown; gasHandler?: unknown }

class Simulation {
  /** geth's RPC gas cap, shared by all calls of the request and consumed by the gas they use. */
  private budget = SIMULATE_LIMITS.gas
  private readonly tracer: TransferTracer | undefined
  /** What BASEFEE / BLOBBASEFEE report while a call runs on a zero-base-fee copy of the block. */
  private shownBaseFee: bigint | undefined
  private shownBlobBaseFee: bigint | undefined
  /** The current block with base fee 0, for calls that pay nothing under an overridden base fee. */
  private zeroFeeBlock: Block | undefined

  constructor(
    private readonly ctx: SimulateContext,
    private readonly validation: boolean,
    traceTransfers: boolean,
  ) {
    this.tracer = traceTransfers ? new TransferTracer() : undefined
  }

  /**
   * Wraps opcode handlers for the simulation's duration: LOG0-4 and SELFDESTRUCT feed the transfer
   * tracer, BASEFEE/BLOBBASEFEE show overridden values, BLOCKHASH reads the EIP-2935 history
   * contract (which each simulated block writes). Returns the undo.
   */
  hook(): () => void {
    const { vm } = this.ctx
    const map = (vm.evm as unknown as { _opcodeMap: OpEntry[] })._opcodeMap
    const saved = new Map<number, OpEntry>()
    const wrap = (op: number, make: (orig: OpHandler) => OpHandler) => {
      const entry = map[op]
      saved.set(op, entry)
      map[op] = { ...entry, opHandler: make(entry.opHandler) }
    }
    const tracer = this.tracer
    if (tracer) {
      for (let op = 0xa0; op <= 0xa4; op++) {
        wrap(op, (orig) => (runState, common) => {
          const logs = runState.interpreter._result.logs
          const before = logs.length
          orig(runState, common)
          if (logs.length > before) {
            const [address, topics, data] = logs[logs.length - 1]
            tracer.log({ address, topics, data })
          }
        })
      }
      wrap(0xff, (orig) => (runState, common) => {
        const [target] = runState.stack.peek(1)
        const to = setLengthLeft(bigIntToBytes(target), 20)
        tracer.selfDestruct(
          runState.interpreter.getAddress().bytes,
          to.subarray(to.length - 20),
          runState.interpreter.getSelfBalance(),
        )
        return orig(runState, common)
      })
      vm.evm.events?.on('beforeMessage', tracer.before)
      vm.evm.events?.on('afterMessage', tracer.after)
    }
    wrap(0x48, (orig) => (runState, common) => {
      if (this.shownBaseFee === undefined) return orig(runState, common)
      runState.stack.push(this.shownBaseFee)
    })
    wrap(0x4a, (orig) => (runState, common) => {
      if (this.shownBlobBaseFee === undefined) return orig(runState, common)
      runState.stack.push(this.shownBlobBaseFee)
    })
    const common = this.ctx.engine.common
    if (common.isActivatedEIP(2935)) {
      const window = BigInt(common.param('historyServeWindow'))
      wrap(0x40, () => async (runState) => {
        const number = runState.stack.pop()
        const current = runState.interpreter.getBlockNumber()
        if (number >= current || current - number > 256n) return runState.stack.push(0n)
        // Blocks of the chain: their hash, as geth reads it (the history contract only holds blocks since Prague).
        const known = number <= this.ctx.base.header.number ? this.ctx.engine.blockHashes.lookup(number) : undefined
        if (known) return runState.stack.push(bytesToBigInt(known))
        const key = setLengthLeft(bigIntToBytes(number % window), 32)
        const value = await runState.stateManager.getStorage(HISTORY_ADDRESS, key).catch(() => new Uint8Array())
        runState.stack.push(bytesToBigInt(value))
      })
    }
    return () => {
      for (const [op, entry] of saved) map[op] = entry
      if (tracer) {
        vm.evm.events?.off('beforeMessage', tracer.before)
        vm.evm.events?.off('afterMessage', tracer.after)
      }
    }
  }

  async block(planned: PlannedBlock, parent: { header: HeaderFields; hash: Uint8Array }): Promise<SimulatedBlock> {
    const { engine, vm } = this.ctx
    const { common } = engine
    const overrides = planned.input?.blockOverrides
    const parentHeader = engine.header(parent.header)
    // geth carries gas limit and fee recipient forward from the previous block; the rest is reset.
    const defaults: HeaderFields = {
      parentHash: parent.hash,
      number: planned.number,
      timestamp: planned.time,
      gasLimit: parent.header.gasLimit,
      gasUsed: 0n,
      baseFeePerGas: this.validation ? parentHeader.calcNextBaseFee() : 0n,
      coinbase: parent.header.coinbase,
      stateRoot: new Uint8Array(32),
      transactionsRoot: EMPTY_TRIE_ROOT,
      receiptsRoot: EMPTY_TRIE_ROOT,
      logsBloom: new Uint8Array(256),
      mixHash: new Uint8Array(32),
      extraData: new Uint8Array(),
      withdrawalsRoot: EMPTY_TRIE_ROOT,
      blobGasUsed: 0n,
      excessBlobGas: parentHeader.calcNextExcessBlobGas(common),
      parentBeaconBlockRoot: new Uint8Array(32),
      requestsHash: EMPTY_REQUESTS_HASH,
    }
    const header = applyBlockOverrides(defaults, overrides)
    const record: BlockRecord = { header, hash: new Uint8Array(32), sealed: true, txs: [], flashblocks: 0, size: 0n }
    const restorePrecompiles = await applyStateOverrides(
      vm,
      planned.input?.stateOverrides,
      (this.ctx.profile ?? BASE_PROFILE).oneMovePerTarget,
    )
    const calls: SimulatedCall[] = []
    // Per transaction: its receipt and its encoding, for the roots and the block size.
    const receipts: Uint8Array[] = []
    const encoded: Uint8Array[] = []
    try {
      await this.systemCalls(header)
      const block = blockAt(common, header)
      this.shownBlobBaseFee = overrides?.blobBaseFee
      this.zeroFeeBlock = undefined
      let logIndex = 0
      for (const req of planned.input?.calls ?? []) {
        const call = await this.call(req, header, block, record, receipts, encoded, logIndex)
        logIndex += this.tracer ? this.tracer.takenCount : call.logs.length
        calls.push(call)
      }
    } finally {
      restorePrecompiles()
      this.shownBaseFee = undefined
      this.shownBlobBaseFee = undefined
    }
    const withdrawals = overrides?.withdrawals ?? []
    for (const w of withdrawals) {
      if (w.amount === 0n) continue
      const address = new Address(w.address)
      const account = (await vm.stateManager.getAccount(address)) ?? new Account()
      account.balance += w.amount * GWEI
      await vm.stateManager.putAccount(address, account)
    }
    header.stateRoot = await (this.ctx.profile ?? BASE_PROFILE).simulatedStateRoot(() => vm.stateManager.getStateRoot())
    this.seal(record, receipts, encoded, withdrawals)
    return { block: record, calls, withdrawals }
  }

  /** EIP-4788 and EIP-2935 ring buffers, as the producer writes them when it opens a block. */
  private async systemCalls(header: HeaderFields): Promise<void> {
    const { vm, engine } = this.ctx
    const state = vm.stateManager
    const { common } = engine
    if (common.isActivatedEIP(4788) && (await state.getCode(BEACON_ROOTS_ADDRESS)).length > 0) {
      const len = BigInt(common.param('historicalRootsLength'))
      const slot = header.timestamp % len
      await state.putStorage(BEACON_ROOTS_ADDRESS, setLengthLeft(bigIntToBytes(slot), 32), bigIntToBytes(header.timestamp))
      await state.putStorage(BEACON_ROOTS_ADDRESS, setLengthLeft(bigIntToBytes(slot + len), 32), header.parentBeaconBlockRoot)
    }
    if (common.isActivatedEIP(2935) && (await state.getCode(HISTORY_ADDRESS)).length > 0) {
      const window = BigInt(common.param('historyServeWindow'))
      const slot = (header.number - 1n) % window
      await state.putStorage(HISTORY_ADDRESS, setLengthLeft(bigIntToBytes(slot), 32), header.parentHash)
    }
  }

  private async call(
    req: CallRequest,
    header: HeaderFields,
    block: Block,
    record: BlockRecord,
    receipts: Uint8Array[],
    encoded: Uint8Array[],
    firstLogIndex: number,
  ): Promise<SimulatedCall> {
    const { engine, vm } = this.ctx
    const { common } = engine
    const from = new Address(req.from ?? ZERO_ADDRESS)
    const account = await vm.stateManager.getAccount(from)
    const stateNonce = account?.nonce ?? 0n
    const nonce = req.nonce ?? stateNonce

    // Gas: the block's remainder unless given, then capped by the request's budget and EIP-7825.
    const remaining = header.gasLimit - header.gasUsed
    let gas = req.gas ?? remaining
    if (gas > remaining) throw new SimulateError(-38015, `block gas limit reached: remaining: ${remaining}, required: ${gas}`)
    const budgetCapped = gas > this.budget
    if (budgetCapped) gas = this.budget
    const uncapped = gas
    const cap = txGasCap(common)
    if (cap !== undefined && gas > cap) gas = cap
    // geth's message shape for invalid transactions, which abort the whole request.
    const invalid = (code: number, message: string) => new SimulateError(code, `err: ${message} (supplied gas ${gas})`)
    // geth prints checksummed addresses; only errors need it.
    const sender = () => toChecksumAddress(from.toString())
    const budgetSpent = () =>
      new SimulateError(-38026, `client adjustable limit reached: gas budget of ${SIMULATE_LIMITS.gas} exhausted`)

    if (this.validation) {
      if (stateNonce < nonce) throw invalid(-38011, `nonce too high: address ${sender()}, tx: ${nonce} state: ${stateNonce}`)
      if (stateNonce > nonce) throw invalid(-38010, `nonce too low: address ${sender()}, tx: ${nonce} state: ${stateNonce}`)
      if (stateNonce >= MAX_NONCE) throw invalid(-32603, `nonce has max value: address ${sender()}, nonce: ${stateNonce}`)
    }

    // Without validation a call may name no blob fee; ethereumjs still wants one >= the blob price.
    const blobPrice = req.blobVersionedHashes ? block.header.getBlobGasPrice() : 0n
    const blobFeeCap = req.maxFeePerBlobGas ?? 0n
    const txReq =
      !this.validation && req.blobVersionedHashes && blobFeeCap < blobPrice ? { ...req, maxFeePerBlobGas: blobPrice } : req
    let tx: TypedTransaction
    try {
      // ethereumjs refuses nonce 2^64-1 in a transaction; without validation the nonce is unchecked.
      tx = callTransaction(common, txReq, gas, nonce >= MAX_NONCE ? MAX_NONCE - 1n : nonce)
      // geth runs (and hashes) simulated calls without the EIP-7825 cap; ethereumjs checks it only
      // when building a transaction.
      if (uncapped > gas) {
        ;(tx as { gasLimit: bigint }).gasLimit = uncapped
        gas = uncapped
      }
      // Nonce 2^64-1 (no validation): geth hashes it as given and wraps the sender's nonce to 0.
      if (nonce >= MAX_NONCE) (tx as { nonce: bigint }).nonce = nonce
    } catch (error) {
      const message = (error as Error).message
      if (/initcode size/i.test(message)) throw invalid(-38025, `max initcode size exceeded: code size ${req.data?.length ?? 0}`)
      if (error instanceof InvalidParamsError) throw error
      throw new InvalidParamsError(`invalid call: ${message.split(' (')[0]}`)
    }

    // Fees: geth skips these checks only for a call that pays nothing when validation is off.
    const t = tx as unknown as { maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint; gasPrice?: bigint }
    const feeCap = t.maxFeePerGas ?? t.gasPrice ?? 0n
    const tip = t.maxPriorityFeePerGas ?? t.gasPrice ?? 0n
    const paysNothing = feeCap === 0n && tip === 0n
    if (this.validation || !paysNothing) {
      if (tip > feeCap) {
        throw invalid(
          -32602,
          `max priority fee per gas higher than max fee per gas: address ${sender()}, maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${feeCap}`,
        )
      }
      if (feeCap < header.baseFeePerGas) {
        throw invalid(
          -38012,
          `max fee per gas less than block base fee: address ${sender()}, maxFeePerGas: ${feeCap}, baseFee: ${header.baseFeePerGas}`,
        )
      }
    }
    const blobCount = tx.type === 3 ? BigInt((tx as unknown as { numBlobs(): number }).numBlobs()) : 0n
    if (blobCount > 0n) {
      const blobBaseFee = this.shownBlobBaseFee ?? blobPrice
      if ((this.validation || blobFeeCap > 0n) && blobFeeCap < blobBaseFee) {
        throw invalid(
          -38012,
          `max fee per blob gas less than block blob gas fee: address ${sender()}, blobGasFeeCap: ${blobFeeCap}, blobBaseFee: ${blobBaseFee}`,
        )
      }
    }
    // Balance: checked with or without validation, as geth does (gas at the fee cap, plus value).
    const blobGas = blobCount * common.param('blobGasPerBlob')
    const want = gas * feeCap + tx.value + blobGas * blobFeeCap
    const have = account?.balance ?? 0n
    if (have < want)
      throw invalid(-38014, `insufficient funds for gas * price + value: address ${sender()} have ${have} want ${want}`)
    const intrinsic = tx.getIntrinsicGas()
    if (gas < intrinsic) {
      if (budgetCapped) throw budgetSpent()
      throw invalid(-38013, `intrinsic gas too low: have ${gas}, want ${intrinsic}`)
    }
    const floor = getCalldataFloorGas(tx, from)
    if (gas < floor) {
      if (budgetCapped) throw budgetSpent()
      throw invalid(-38013, `insufficient gas for floor data gas cost: have ${gas}, want ${floor}`)
    }

    // A call that pays nothing under an overridden base fee runs on a zero-base-fee copy of the
    // block (ethereumjs can't skip its fee check as geth's NoBaseFee does); BASEFEE still shows it.
    const zeroFee = !this.validation && paysNothing && header.baseFeePerGas > 0n
    if (zeroFee) this.zeroFeeBlock ??= blockAt(common, { ...header, baseFeePerGas: 0n })
    const execBlock = zeroFee && this.zeroFeeBlock ? this.zeroFeeBlock : block
    this.shownBaseFee = zeroFee ? header.baseFeePerGas : undefined
    this.tracer?.reset()
    let result: RunTxResult
    try {
      result = await runCallTx(vm, {
        tx,
        block: execBlock,
        blockGasUsed: header.gasUsed,
        skipNonce: true,
        skipBalance: !this.validation,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
      })
    } catch (error) {
      throw mapRunError(error, invalid)
    }

    // An overridden blob base fee below the real one: ethereumjs charged the real price; geth the override.
    const shownBlobFee = this.shownBlobBaseFee
    if (result.blobGasUsed && shownBlobFee !== undefined && shownBlobFee < blobPrice) {
      const payer = await vm.stateManager.getAccount(from)
      if (payer) {
        payer.balance += (blobPrice - shownBlobFee) * result.blobGasUsed
        await vm.stateManager.putAccount(from, payer)
      }
    }
    if (nonce >= MAX_NONCE) {
      const after = await vm.stateManager.getAccount(from)
      if (after && after.nonce > MAX_NONCE) {
        after.nonce = 0n
        await vm.stateManager.putAccount(from, after)
      }
    }
    header.gasUsed += result.blockGasSpent ?? result.totalGasSpent
    this.budget -= result.totalGasSpent
    if (this.budget < 0n) this.budget = 0n
    if (result.blobGasUsed) header.blobGasUsed += result.blobGasUsed
    const failure = describeFailure(result)
    const logs: LogEntry[] = this.tracer
      ? this.tracer.take()
      : failure
        ? []
        : (result.execResult.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }))
    const realLogs = (result.execResult.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }))
    const serialized = tx.serialize()
    const hash = engine.keccak(serialized)
    const included: IncludedTx = {
      tx,
      hash,
      from: from.bytes,
      index: record.txs.length,
      flashblockIndex: 0,
      preconfirmedAt: 0,
      block: record,
      receipt: {
        status: failure ? 0 : 1,
        gasUsed: result.totalGasSpent,
        cumulativeGasUsed: header.gasUsed,
        effectiveGasPrice: effectiveGasPrice(tx, header.baseFeePerGas),
        contractAddress: result.createdAddress?.bytes,
        logs: failure ? [] : realLogs,
        logsBloom: result.bloom.bitvector,
        blobGasUsed: result.blobGasUsed,
        blobGasPrice: result.blobGasUsed ? blobPrice : undefined,
        firstLogIndex,
      },
    }
    record.txs.push(included)
    receipts.push(encodeReceipt(result.receipt, tx.type))
    encoded.push(serialized)
    const beforeRefund = result.execResult.executionGasUsed + intrinsic
    const call: SimulatedCall = {
      status: failure ? 0 : 1,
      gasUsed: result.totalGasSpent,
      maxUsedGas: bigIntMax(beforeRefund, result.totalGasSpent),
      // geth reports no return data for a failed call; a revert's bytes go in error.data.
      returnData: failure ? new Uint8Array() : (result.execResult.returnValue ?? new Uint8Array()),
      logs,
      firstLogIndex,
    }
    if (failure) {
      call.error =
        failure.kind === 'revert'
          ? { code: 3, message: failure.message, data: failure.output }
          : { code: -32015, message: failure.message }
    }
    return call
  }

  /** Roots, bloom, hash and size: the block as a sealed one (stateRoot stays zero, Base's profile). */
  private seal(record: BlockRecord, receipts: Uint8Array[], encoded: Uint8Array[], withdrawals: Withdrawal[]): void {
    const { engine } = this.ctx
    const h = record.header
    const txs = record.txs.map((t) => t.tx)
    h.transactionsRoot = encoded.length ? orderedTrieRoot(encoded, engine.keccak) : EMPTY_TRIE_ROOT
    h.receiptsRoot = receipts.length ? orderedTrieRoot(receipts, engine.keccak) : EMPTY_TRIE_ROOT
    const bloom = new Uint8Array(256)
    for (const t of record.txs) for (let i = 0; i < 256; i++) bloom[i] |= t.receipt.logsBloom[i]
    h.logsBloom = bloom
    const rawWithdrawals = withdrawals.map((w) => [
      bigIntToUnpaddedBytes(w.index),
      bigIntToUnpaddedBytes(w.validatorIndex),
      w.address,
      bigIntToUnpaddedBytes(w.amount),
    ])
    h.withdrawalsRoot = rawWithdrawals.length
      ? orderedTrieRoot(
          rawWithdrawals.map((w) => RLP.encode(w)),
          engine.keccak,
        )
      : EMPTY_TRIE_ROOT
    const header = engine.header(h)
    record.hash = header.hash()
    // Block RLP: [header, transactions (typed ones as byte strings), uncles, withdrawals].
    const body = txs.map((tx, i) => (tx.supports(Capability.EIP2718TypedTransaction) ? encoded[i] : tx.raw()))
    record.size = BigInt(RLP.encode([header.raw(), body as never, [], rawWithdrawals]).length)
  }
}

/** ethereumjs' runTx refusals, should one slip past the checks above, as the spec's codes. */
function mapRunError(error: unknown, invalid: (code: number, message: string) => SimulateError): Error {
  const message = error instanceof Error ? error.message : String(error)
  const short = message.split(' -> ')[0].split(' (block number')[0]
  if (/enough funds|upfront cost|max cost/.test(message))
    return invalid(-38014, `insufficient funds for gas * price + value: ${short}`)
  if (/baseFeePerGas|blobGasPrice/.test(message)) return invalid(-38012, short)
  if (/INTRINSIC_GAS_TOO_LOW|minimum gas limit/.test(message)) return invalid(-38013, `intrinsic gas too low: ${short}`)
  if (/initcode/i.test(message)) return invalid(-38025, 'max initcode size exceeded')
  if (/correct nonce/.test(message)) return invalid(-38010, short)
  return invalid(-32603, short)
}
