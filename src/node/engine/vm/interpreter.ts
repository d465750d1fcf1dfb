// The interpreter's step loop without a microtask per opcode. ethereumjs' Interpreter.run awaits
// runStep() for every opcode, and runStep is an async function: a loop of cheap opcodes (PUSH, ADD,
// JUMPI…) pays a promise and a microtask turn each, most of a keccak loop's time. This replaces
// Interpreter.prototype.run with the same loop (ethereumjs 10.1.3 interpreter.ts, legacy code)
// that runs an opcode inline when it has neither an async handler nor dynamic gas, and awaits
// runStep() for the rest (SLOAD, CALL, MSTORE's memory gas…), which do exactly what they did.
// After the jump analysis, the cheapest opcodes (PUSH, DUP, SWAP, arithmetic, jumps, memory
// within what is paid for) run in inline-ops.ts with no call per opcode, up to any opcode that
// could fail or that it does not cover, which this loop then runs as above.
// Whatever the inline path does not cover (EOF code, step listeners of tracers, the debug and
// profiler modes, Verkle/binary-tree witnesses) goes to the original run. selfcheck.ts compares the
// two on a program with loops, memory and jumps at start-up.
import { EVMError } from '@ethereumjs/evm'
import type { VM } from '@ethereumjs/vm'
import { wrapOpcodes } from '../hooks/opcode-wrappers.js'
import type { Keccak } from './crypto.js'
import {
  hashWord,
  type InlineContext,
  type InlineState,
  inlineTable,
  isOwn,
  noteOwnHandlers,
  type OpEntry,
  putWord,
  runInline,
  viewOf,
  wordAt,
} from './inline-ops.js'

interface RunState extends InlineState {
  stack: InlineState['stack'] & { pop(): bigint; push(v: bigint): void; popN(n: number): bigint[]; peek(n?: number): bigint[] }
  memory: InlineState['memory'] & {
    read(offset: number, size: number, avoidCopy?: boolean): Uint8Array
    extend(offset: number, size: number): void
  }
  highestMemCost: bigint
  shouldDoJumpAnalysis: boolean
  env: { accessWitness?: { revert(): void } }
  eip7928PostTargetCallOog?: unknown
  eip8037BurnLeftoverAfterCreateHaltOntoAlive?: boolean
}
type RunResult = { runState: RunState; exceptionError: unknown }
/** The slice of ethereumjs' private Interpreter the loop uses (pinned version; selfcheck.ts checks it). */
export interface InterpreterShape {
  _runState: RunState
  _evm: { DEBUG: boolean; events: { listenerCount(name: string): number }; _opcodeMap: OpEntry[] }
  _env: { code: Uint8Array }
  common: {
    isActivatedEIP(eip: number): boolean
    param(name: string): bigint
    customCrypto: { keccak256?: Keccak }
  }
  profilerOpts?: { enabled?: boolean }
  run(code: Uint8Array, opts?: { pc?: number }): Promise<RunResult>
  runStep(entry?: OpEntry): Promise<void>
  useGas(amount: bigint, context?: unknown): void
  _getValidJumpDestinations(code: Uint8Array): { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: OpEntry[] }
}

const JUMP = 0x56
const JUMPI = 0x57
const JUMPSUB = 0x5e
const EOF_FORMAT = 0xef

const KECCAK256 = 0x20
const MLOAD = 0x51
const MSTORE = 0x52

/**
 * The memory opcodes of hot loops, run inline with their gas: ethereumjs' gas handlers for them
 * are async functions with nothing to wait for (opcodes/gas.ts), and its handlers go through hex
 * strings checked by a regular expression for every 32-byte word (bigIntToBytes, bytesToHex).
 * Same results: memory expansion as subMemUsage (opcodes/util.ts), KECCAK256's word gas, words
 * as 32 big-endian bytes. Only while the opcode map holds ethereumjs' own handlers (a simulation
 * or a trace that wraps one gets runStep).
 */
interface MemoryGas {
  memoryGas: bigint
  quadCoefficient: bigint
  keccakWordGas: bigint
}

/** subMemUsage: the cost of growing memory to cover [offset, offset + length). */
function memoryCost(rs: RunState, offset: bigint, length: bigint, g: MemoryGas): bigint {
  if (length === 0n) return 0n
  const words = (offset + length + 31n) / 32n
  if (words <= rs.memoryWordCount) return 0n
  let cost = words * g.memoryGas + (words * words) / g.quadCoefficient
  if (cost > rs.highestMemCost) {
    const previous = rs.highestMemCost
    rs.highestMemCost = cost
    cost -= previous
  }
  rs.memoryWordCount = words
  return cost
}

/** The memory, extended to cover [offset, offset + 32) as Memory.read/write would, as a DataView. */
function memoryView(rs: RunState, offset: number): DataView {
  rs.memory.extend(offset, 32)
  return viewOf(rs.memory._store)
}

/** Runs MLOAD, MSTORE or KECCAK256 inline (gas, pc, effect); false for any other opcode. */
function memoryOp(self: InterpreterShape, rs: RunState, opCode: number, base: bigint, g: MemoryGas, keccak: Keccak): boolean {
  if (opCode === MSTORE) {
    const [offset] = rs.stack.peek(1)
    self.useGas(base + memoryCost(rs, offset, 32n, g))
    rs.programCounter++
    const [at, word] = rs.stack.popN(2)
    const to = Number(at)
    putWord(memoryView(rs, to), to, word)
    return true
  }
  if (opCode === MLOAD) {
    const [offset] = rs.stack.peek(1)
    self.useGas(base + memoryCost(rs, offset, 32n, g))
    rs.programCounter++
    const from = Number(rs.stack.pop())
    rs.stack.push(wordAt(memoryView(rs, from), from))
    return true
  }
  if (opCode === KECCAK256) {
    const [offset, length] = rs.stack.peek(2)
    self.useGas(base + memoryCost(rs, offset, length, g) + g.keccakWordGas * ((length + 31n) / 32n))
    rs.programCounter++
    const [at, size] = rs.stack.popN(2)
    // Not copied: the hasher copies it into its own memory.
    const data = size === 0n ? new Uint8Array(0) : rs.memory.read(Number(at), Number(size), true)
    rs.stack.push(hashWord(keccak, data))
    return true
  }
  return false
}

const isEVMError = (e: unknown): e is { error: string } =>
  typeof e === 'object' && e !== null && (e as { errorType?: unknown }).errorType === 'EVMError'

/** The Interpreter prototype and its original run, once installed (the prototype is shared by every VM). */
let installed: { proto: InterpreterShape; original: InterpreterShape['run'] } | undefined

/** The prototype of ethereumjs' Interpreter class, which its package does not export: seen from inside an opcode. */
async function interpreterPrototype(vm: VM): Promise<InterpreterShape> {
  let proto: InterpreterShape | undefined
  const ADDRESS = 0x30
  const undo = wrapOpcodes(vm, [
    [
      ADDRESS,
      (original) => (runState, common) => {
        proto ??= Object.getPrototypeOf(runState.interpreter) as InterpreterShape
        return original(runState, common)
      },
    ],
  ])
  // Inside a checkpoint, reverted: running code warms and touches accounts, which must not reach genesis.
  await vm.stateManager.checkpoint()
  try {
    await vm.evm.runCode({ code: Uint8Array.from([ADDRESS, 0x00]), gasLimit: 100_000n } as never)
  } finally {
    undo()
    await vm.stateManager.revert()
    await vm.evm.journal.cleanup()
  }
  if (!proto) throw new Error('the interpreter was not reached')
  return proto
}

/** Installs the inline step loop (once per process) and notes ethereumjs' own opcode handlers. */
export async function installFastInterpreter(vm: VM): Promise<void> {
  noteOwnHandlers(vm.evm.common)
  if (installed) return
  const proto = await interpreterPrototype(vm)
  const original = proto.run
  proto.run = fastRun(original)
  installed = { proto, original }
}

/** Whether the inline loop can run this code on this interpreter; otherwise the original run does. */
function inlineable(self: InterpreterShape, code: Uint8Array): boolean {
  if (code[0] === EOF_FORMAT && self.common.isActivatedEIP(3540)) return false
  if (self._evm.DEBUG || self.profilerOpts?.enabled === true) return false
  if (self._evm.events.listenerCount('step') > 0) return false
  return !self.common.isActivatedEIP(6800) && !self.common.isActivatedEIP(7864)
}

function fastRun(original: InterpreterShape['run']): InterpreterShape['run'] {
  return async function run(this: InterpreterShape, code: Uint8Array, opts: { pc?: number } = {}): Promise<RunResult> {
    if (!inlineable(this, code)) return original.call(this, code, opts)
    const rs = this._runState
    rs.code = code
    rs.programCounter = opts.pc ?? rs.programCounter
    const start = rs.programCounter
    if (start !== 0 && (start < 0 || start >= code.length)) throw new Error('Internal error: program counter not in range')
    const map = this._evm._opcodeMap
    const common = this.common
    const g: MemoryGas = {
      memoryGas: common.param('memoryGas'),
      quadCoefficient: common.param('quadCoefficientDivGas'),
      keccakWordGas: common.param('keccak256WordGas'),
    }
    const keccak = common.customCrypto.keccak256
    const ctx: InlineContext = { codeSize: this._env.code.length, keccakWordGas: Number(g.keccakWordGas), keccak }
    let cached: OpEntry[] | undefined
    let table: Uint16Array | undefined
    let err: unknown
    while (rs.programCounter < code.length) {
      const plain = rs.eip7928PostTargetCallOog === undefined && rs.env.accessWitness === undefined
      if (table !== undefined && plain) {
        // The cheap opcodes, up to one it does not run (inline-ops.ts), which the step below runs.
        runInline(rs, table, ctx)
        if (rs.programCounter >= code.length) break
      }
      const pc = rs.programCounter
      let entry: OpEntry | undefined
      let opCode: number
      if (cached === undefined) {
        // As ethereumjs: the jump analysis runs at the first JUMP/JUMPI/JUMPSUB, from then on
        // opcodes come from its cache (this step still looks its entry up).
        opCode = code[pc]
        if (opCode === JUMP || opCode === JUMPI || opCode === JUMPSUB) {
          const { jumps, pushes, opcodesCached } = this._getValidJumpDestinations(code)
          rs.validJumps = jumps
          rs.cachedPushes = pushes
          rs.shouldDoJumpAnalysis = false
          cached = opcodesCached
          table = inlineTable(cached, code)
        }
      } else {
        entry = cached[pc]
        opCode = entry.opcodeInfo.code
      }
      rs.opCode = opCode
      const op = entry ?? map[opCode]
      const info = op.opcodeInfo
      try {
        if (plain && !info.isAsync && !info.dynamicGas) {
          // runStep's own order for such an opcode: invalid check, base gas, pc, handler.
          if (info.isInvalid) throw new EVMError(EVMError.errorMessages.INVALID_OPCODE)
          this.useGas(info.feeBigInt, info)
          rs.programCounter++
          op.opHandler(rs as never, common)
        } else if (!(plain && keccak && isOwn(op, opCode) && memoryOp(this, rs, opCode, info.feeBigInt, g, keccak))) {
          await this.runStep(entry)
        }
      } catch (error) {
        rs.env.accessWitness?.revert()
        if (!isEVMError(error)) throw error
        if (error.error !== EVMError.errorMessages.STOP) err = error
        break
      }
    }
    // EIP-8037, as the original: a halted CREATE frame burns its leftover gas.
    if (err === undefined && rs.eip8037BurnLeftoverAfterCreateHaltOntoAlive === true && rs.gasLeft > 0n) {
      rs.gasLeft = 0n
      err = new EVMError(EVMError.errorMessages.OUT_OF_GAS)
    }
    return { runState: rs, exceptionError: err }
  }
}
