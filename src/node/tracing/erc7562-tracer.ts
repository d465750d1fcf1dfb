// geth's erc7562Tracer (eth/tracers/native/erc7562.go, geth ≥ 1.16): callTracer's frame tree, each
// frame with what ERC-7562's validation rules look at in the frame's own code: the storage slots it read
// (with their value at the first read), wrote, and touched transiently (keyed by slot, the storage being
// the frame's: its `to`, or its `from` under DELEGATECALL/CALLCODE); the addresses its EXTCODE* read
// (EXTCODESIZE followed by ISZERO left out, OP-051); the code size of each address its EXTCODE* and
// *CALL reached first, with the opcode; the count of each opcode it ran (the ignored ones left out, GAS
// counted only when no *CALL follows it, OP-012); whether it ran out of gas; and on the top frame the
// transaction's KECCAK256 preimages, sorted. Keys in geth's order (gen_callframewithopcodes_json.go),
// maps as encoding/json writes them (keys sorted as strings), `logs` with withLog as callTracer's.
import { type FrameType, OPS, type StepInfo, type TraceFrame, type TraceFrameEnd } from '../engine/index.js'
import type { LogEntry } from '../types.js'
import { endFrame, type FrameLog, FrameStack, frameLog } from './call-frame.js'
import type { Erc7562Config } from './erc7562-config.js'
import { hex, quantity, sortedObject, word } from './format.js'
import type { Tracer, TxContext, TxEnd } from './tracer.js'

const GAS = 0x5a
const ISZERO = 0x15
const SSTORE = 0x55
const TLOAD = 0x5c
const TSTORE = 0x5d
const KECCAK256 = 0x20
/** geth's GetMemoryCopyPadded refuses to pad past 1 MiB (eth/tracers/internal/util.go memoryPadLimit). */
const MEMORY_PAD_LIMIT = 1024 * 1024

const CALLS = new Set<number>([OPS.CALL, OPS.CALLCODE, OPS.DELEGATECALL, OPS.STATICCALL])
const EXTS = new Set<number>([OPS.EXTCODESIZE, OPS.EXTCODECOPY, OPS.EXTCODEHASH])

/** The storage slots a frame touched: those it read with their value at the first read, the others with how often. */
interface AccessedSlots<Values, Counts> {
  reads: Values
  writes: Counts
  transientReads: Counts
  transientWrites: Counts
}

/** One frame as geth writes it (fields in its order; undefined ones left out). */
export interface Erc7562Frame {
  from: string
  gas: string
  gasUsed: string
  to?: string
  input: string
  output?: string
  error?: string
  revertReason?: string
  logs?: FrameLog[]
  value?: string
  accessedSlots: AccessedSlots<Record<string, string[]>, Record<string, number>>
  extCodeAccessInfo: string[]
  usedOpcodes: Record<string, number>
  contractSize: Record<string, { contractSize: number; opcode: number }>
  outOfGas: boolean
  keccak?: string[]
  calls?: Erc7562Frame[]
  type: FrameType
}

/** A frame being traced. */
interface Open {
  frame: TraceFrame
  to?: string
  /** Hex at once: the engine's buffers may be views of memory that later opcodes overwrite. */
  input: string
  output?: string
  gas: bigint
  gasUsed: bigint
  error?: string
  revertReason?: string
  outOfGas: boolean
  slots: AccessedSlots<Map<string, string[]>, Map<string, number>>
  extCode: string[]
  opcodes: Map<number, number>
  contractSize: Map<string, { contractSize: number; opcode: number }>
  logs?: FrameLog[]
  calls: Open[]
}

/** The last opcode seen (geth's lastOpWithStack): its code and stack top. */
interface LastOp {
  op: number
  top: bigint | undefined
}

function count<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1)
}
const addressOf = (value: bigint) => `0x${(value & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`

export class Erc7562Tracer implements Tracer {
  private readonly frames = new FrameStack<Open>()
  private last: LastOp | undefined
  private readonly keccak = new Set<string>()
  private gasLimit = 0n
  private ctx!: TxContext

  constructor(private readonly cfg: Erc7562Config) {}

  readonly hooks = {
    enter: (frame: TraceFrame) => this.enter(frame),
    exit: (end: TraceFrameEnd) => this.exit(end),
    step: (step: StepInfo) => this.step(step),
    log: (log: LogEntry) => this.log(log),
  }

  txStart(ctx: TxContext): void {
    this.ctx = ctx
    this.gasLimit = ctx.gasLimit
    this.frames.start(ctx.firstLogIndex)
  }

  private enter(frame: TraceFrame): void {
    const open: Open = {
      frame,
      to: hex(frame.to),
      input: hex(frame.input),
      gas: frame.depth === 0 ? this.gasLimit : frame.gas,
      gasUsed: 0n,
      outOfGas: false,
      slots: { reads: new Map(), writes: new Map(), transientReads: new Map(), transientWrites: new Map() },
      extCode: [],
      opcodes: new Map(),
      contractSize: new Map(),
      calls: [],
    }
    this.frames.enter(open, frame.depth)
  }

  private exit(end: TraceFrameEnd): void {
    const open = this.frames.exit(end.error !== undefined)
    if (!open) return
    if (end.depth > 0) {
      open.gasUsed = end.gasUsed
      // geth: vm.ErrOutOfGas or vm.ErrCodeStoreOutOfGas.
      open.outOfGas = end.error === 'out of gas' || end.error === 'contract creation code storage out of gas'
    }
    endFrame(open, open.frame.type, end)
  }

  private log(log: LogEntry): void {
    const index = this.frames.nextLogIndex()
    if (!this.cfg.withLog) return
    const open = this.frames.current()
    if (!open) return
    open.logs ??= []
    open.logs.push(frameLog(log, index, open.calls.length))
  }

  /** geth's OnOpcode, in its order: return/revert, EXTCODE* access, contract sizes, GAS, opcode count, storage, keccak. */
  private step(step: StepInfo): Promise<void> | undefined {
    const open = this.frames.current()
    if (!open) return undefined
    const { op, stack } = step
    const n = stack.length
    const current: LastOp = { op, top: n > 0 ? stack[n - 1] : undefined }
    if (op === OPS.REVERT || op === OPS.RETURN) this.last = undefined
    const last = this.last
    if (last && EXTS.has(last.op) && last.top !== undefined && !(last.op === OPS.EXTCODESIZE && op === ISZERO)) {
      open.extCode.push(addressOf(last.top))
    }
    if (last?.op === GAS && !CALLS.has(op)) count(open.opcodes, GAS)
    if (op !== GAS && !this.cfg.ignoredOpcodes.has(op)) count(open.opcodes, op)
    this.last = current
    if (op === KECCAK256 && n >= 2) this.preimage(step.memory, stack[n - 1], stack[n - 2])
    const pending: Promise<void>[] = []
    const target = EXTS.has(op) ? stack[n - 1] : CALLS.has(op) ? stack[n - 2] : undefined
    if (target !== undefined) {
      const address = addressOf(target)
      if (!open.contractSize.has(address)) pending.push(this.codeSize(open, address, op))
    }
    if (n >= 1 && (op === OPS.SLOAD || op === SSTORE || op === TLOAD || op === TSTORE)) {
      const slot = word(stack[n - 1])
      if (op === OPS.SLOAD) {
        if (!open.slots.reads.has(slot) && !open.slots.writes.has(slot)) pending.push(this.readSlot(open, step.address, slot))
      } else if (op === SSTORE) count(open.slots.writes, slot)
      else if (op === TLOAD) count(open.slots.transientReads, slot)
      else count(open.slots.transientWrites, slot)
    }
    if (pending.length === 0) return undefined
    return Promise.all(pending).then(() => undefined)
  }

  private async codeSize(open: Open, address: string, op: number): Promise<void> {
    // Held before the read so a later opcode in the frame cannot claim the address first.
    const entry = { contractSize: 0, opcode: op }
    open.contractSize.set(address, entry)
    entry.contractSize = (await this.ctx.state.code(Buffer.from(address.slice(2), 'hex'))).length
  }

  private async readSlot(open: Open, address: Uint8Array, slot: string): Promise<void> {
    const values: string[] = []
    open.slots.reads.set(slot, values)
    values.push(word(await this.ctx.state.storage(address, Buffer.from(slot.slice(2), 'hex'))))
  }

  /** geth's GetMemoryCopyPadded: memory[offset, offset+size), zero-padded past its end. */
  private preimage(memory: Uint8Array, offset: bigint, size: bigint): void {
    const length = BigInt(memory.length)
    if (offset + size > length && offset + size - length > BigInt(MEMORY_PAD_LIMIT)) return
    const out = new Uint8Array(Number(size))
    if (offset < length) out.set(memory.subarray(Number(offset), Number(offset + size < length ? offset + size : length)))
    this.keccak.add(hex(out))
  }

  txEnd(end: TxEnd): void {
    const top = this.frames.root()
    if (top) top.gasUsed = end.gasUsed
  }

  result(): unknown {
    const root = this.frames.root()
    if (!root) throw new Error('incorrect number of top-level calls')
    const top = this.json(root, false)
    const keccak = [...this.keccak].sort()
    if (keccak.length > 0) top.keccak = keccak
    return reorder(top)
  }

  private json(open: Open, parentFailed: boolean): Erc7562Frame {
    const { frame } = open
    const failed = open.error !== undefined || parentFailed
    const out: Erc7562Frame = {
      from: hex(frame.from),
      gas: quantity(open.gas),
      gasUsed: quantity(open.gasUsed),
      to: open.to,
      input: open.input,
      output: open.output,
      error: open.error,
      revertReason: open.revertReason || undefined,
      // Logs are not emitted when the call fails (geth's clearFailedLogs).
      logs: this.cfg.withLog && !failed ? open.logs : undefined,
      value: frame.value === undefined ? undefined : quantity(frame.value),
      accessedSlots: {
        reads: sortedObject(open.slots.reads),
        writes: sortedObject(open.slots.writes),
        transientReads: sortedObject(open.slots.transientReads),
        transientWrites: sortedObject(open.slots.transientWrites),
      },
      extCodeAccessInfo: open.extCode,
      usedOpcodes: sortedObject([...open.opcodes].map(([op, n]) => [quantity(op), n] as [string, number])),
      contractSize: sortedObject(open.contractSize),
      outOfGas: open.outOfGas,
      calls: open.calls.length > 0 ? open.calls.map((c) => this.json(c, failed)) : undefined,
      type: frame.type,
    }
    return out
  }
}

/** The top frame with `keccak` moved to its place in geth's key order (after outOfGas, before calls). */
function reorder(frame: Erc7562Frame): Erc7562Frame {
  const { calls, type, keccak, ...rest } = frame
  return { ...rest, keccak, calls, type }
}
