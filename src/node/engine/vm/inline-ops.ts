// The cheap opcodes of hot loops run on the interpreter's own state with no call per opcode: the
// stack's array and length, the program counter and the gas left kept in locals (gas as a number),
// written back when an opcode is met that this does not run. ethereumjs runs each of these as
// runStep: a bigint useGas, a handler that pops into a fresh array (Stack.popN) and pushes back.
//
// Semantics, mirrored from @ethereumjs/evm 10.1.3 (dist/esm/opcodes/functions.js for the handlers,
// opcodes/gas.js and opcodes/util.js subMemUsage for the memory opcodes' gas, stack.js for the
// stack): an opcode runs here only when it cannot fail. Whenever it could (a stack too short or
// full, a jump to anything but a JUMPDEST, not enough gas, memory to grow, a PUSH with no cached
// value), this returns with the state written back and the program counter on that opcode, and
// interpreter.ts runs it the ordinary way, which raises ethereumjs' own error with its own message.
// Only ethereumjs' own handlers run here (a simulation or trace that wraps one gets it called).

import type { Common } from '@ethereumjs/common'
import { getOpcodesForHF } from '@ethereumjs/evm'
import type { OpHandler } from '../hooks/opcode-wrappers.js'
import type { Keccak } from './crypto.js'

export interface OpcodeInfo {
  code: number
  fee: number
  feeBigInt: bigint
  isAsync: boolean
  dynamicGas: boolean
  isInvalid: boolean
}
export interface OpEntry {
  opHandler: OpHandler
  opcodeInfo: OpcodeInfo
  gasHandler?: unknown
}
/** The slice of ethereumjs' private RunState this reads and writes (stack.js, memory.js, interpreter.js). */
export interface InlineState {
  stack: { _store: bigint[]; _len: number; _maxHeight: number }
  memory: { _store: Uint8Array }
  memoryWordCount: bigint
  programCounter: number
  opCode: number
  code: Uint8Array
  validJumps: Uint8Array
  cachedPushes: Record<number, bigint>
  gasLeft: bigint
}
/** Per run: the code's size as getCodeSize() answers it (JUMP's bound), KECCAK256's word gas, the hasher. */
export interface InlineContext {
  codeSize: number
  keccakWordGas: number
  keccak: Keccak | undefined
}

const ADD = 0x01
const SUB = 0x03
const LT = 0x10
const GT = 0x11
const EQ = 0x14
const ISZERO = 0x15
const AND = 0x16
const OR = 0x17
const XOR = 0x18
const KECCAK256 = 0x20
const POP = 0x50
const MLOAD = 0x51
const MSTORE = 0x52
const JUMP = 0x56
const JUMPI = 0x57
const JUMPDEST = 0x5b
const PUSH0 = 0x5f
const PUSH1 = 0x60
const PUSH32 = 0x7f
const DUP1 = 0x80
const DUP16 = 0x8f
const SWAP1 = 0x90
const SWAP16 = 0x9f

/** Opcodes whose gas is their base fee plus memory gas, run here only when memory does not grow. */
const MEMORY_OPS = [KECCAK256, MLOAD, MSTORE]
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)
export const INLINE_OPS = [
  ...[ADD, SUB, LT, GT, EQ, ISZERO, AND, OR, XOR, POP, JUMP, JUMPI, JUMPDEST, PUSH0],
  ...range(PUSH1, PUSH32),
  ...range(DUP1, DUP16),
  ...range(SWAP1, SWAP16),
  ...MEMORY_OPS,
]

/** ethereumjs' own handler (and, for the memory opcodes, gas handler) of each opcode run here. */
const handlerOf: Array<OpHandler | undefined> = []
const gasHandlerOf: unknown[] = []

/** Notes ethereumjs' own handlers (the same functions for every hardfork: getOpcodesForHF copies one map). */
export function noteOwnHandlers(common: Common): void {
  if (handlerOf.length > 0) return
  const own = getOpcodesForHF(common)
  for (const op of INLINE_OPS) handlerOf[op] = own.handlers.get(op) as OpHandler | undefined
  for (const op of MEMORY_OPS) gasHandlerOf[op] = own.dynamicGasHandlers.get(op)
}

/** Whether `entry` is ethereumjs' own opcode `op` (the memory opcodes with their own gas handler). */
export function isOwn(entry: OpEntry, op: number): boolean {
  const own = handlerOf[op]
  return own !== undefined && entry.opHandler === own && (gasHandlerOf[op] === undefined || entry.gasHandler === gasHandlerOf[op])
}

/**
 * Per position of the code (the jump analysis' opcode table): the base fee + 1 of an opcode run
 * here, 0 for any other (runInline reads the opcode from the code). Run here: ethereumjs' own handler, synchronous, with no dynamic gas but
 * the memory opcodes' own (a simulation's or a tracer's wrapped handler, a custom opcode are not).
 */
export function inlineTable(cached: OpEntry[], code: Uint8Array): Uint16Array {
  const table = new Uint16Array(cached.length)
  for (let pc = 0; pc < cached.length; pc++) {
    const entry = cached[pc]
    if (entry === undefined) continue // inside push data
    const info = entry.opcodeInfo
    const op = code[pc]
    // An opcode the hardfork lacks (PUSH0 before Shanghai) has the INVALID entry: code 0xfe.
    if (info.code !== op) continue
    const memory = gasHandlerOf[op] !== undefined
    if (!isOwn(entry, op) || info.isAsync || info.dynamicGas !== memory || info.fee >= 0xffff) continue
    table[pc] = info.fee + 1
  }
  return table
}

const TWO_POW256 = 1n << 256n

/** A 32-byte big-endian word as a bigint (four 64-bit reads: about half the cost of a hex string). */
export function wordAt(v: DataView, at: number): bigint {
  return (
    (v.getBigUint64(at) << 192n) | (v.getBigUint64(at + 8) << 128n) | (v.getBigUint64(at + 16) << 64n) | v.getBigUint64(at + 24)
  )
}
/** The hash as a word: read in place by the engine's keccak (crypto.ts), or from the digest. */
export function hashWord(keccak: Keccak, data: Uint8Array): bigint {
  if (keccak.word !== undefined) return keccak.word(data)
  const hash = keccak(data)
  return wordAt(new DataView(hash.buffer, hash.byteOffset, 32), 0)
}
/**
 * The word's four 64-bit limbs, written in place (~5x a hex string's round trip). setBigUint64
 * keeps a value's low 64 bits (ToBigUint64), so the shifted words need no asUintN.
 */
export function putWord(v: DataView, at: number, word: bigint): void {
  v.setBigUint64(at, word >> 192n)
  v.setBigUint64(at + 8, word >> 128n)
  v.setBigUint64(at + 16, word >> 64n)
  v.setBigUint64(at + 24, word)
}

/** A DataView of the memory's current bytes: one per store (ethereumjs replaces it when memory grows). */
let viewed: Uint8Array | undefined
let view: DataView | undefined
export function viewOf(store: Uint8Array): DataView {
  if (store !== viewed) {
    viewed = store
    view = new DataView(store.buffer, store.byteOffset, store.byteLength)
  }
  return view as DataView
}

/**
 * Runs opcodes from rs.programCounter (jump analysis done: `table` from inlineTable) until the
 * code ends or an opcode this does not run; writes pc, stack length and gas back. Never throws an
 * EVMError: what would fail is left to the ordinary step.
 */
export function runInline(rs: InlineState, table: Uint16Array, ctx: InlineContext): void {
  const startGas = rs.gasLeft
  if (startGas > BigInt(Number.MAX_SAFE_INTEGER)) return
  let gas = Number(startGas)
  const code = rs.code
  const end = code.length
  const stack = rs.stack
  const s = stack._store
  const max = stack._maxHeight
  const pushes = rs.cachedPushes
  const jumps = rs.validJumps
  const codeSize = ctx.codeSize
  // Memory the opcodes may touch without growing it: what gas has paid for and the store holds
  // (a CALL pays for an output area it may not write, and Memory.extend would add it).
  const memory = rs.memory._store
  const paid = Number(rs.memoryWordCount) * 32
  const memEnd = paid < memory.length ? paid : memory.length
  let len = stack._len
  let pc = rs.programCounter
  let last = -1
  loop: while (pc < end) {
    const entry = table[pc]
    if (entry === 0) break
    const op = code[pc]
    let cost = entry - 1
    // PUSH, DUP and SWAP first: most of any code's opcodes, and a range each.
    if (op >= PUSH1 && op <= SWAP16) {
      if (op <= PUSH32) {
        // The jump analysis' value (zero-padded past the code's end), at the byte after the opcode.
        const value = pushes[pc + 1]
        if (len >= max || value === undefined || gas < cost) break
        s[len++] = value
        pc += op - PUSH0 + 1
      } else if (op <= DUP16) {
        const n = op - DUP1 + 1
        if (len < n || len >= max || gas < cost) break
        s[len] = s[len - n]
        len++
        pc++
      } else {
        const n = op - SWAP1 + 1
        if (len <= n || gas < cost) break
        const top = s[len - 1]
        s[len - 1] = s[len - 1 - n]
        s[len - 1 - n] = top
        pc++
      }
    } else
      switch (op) {
        case PUSH0:
          if (len >= max || gas < cost) break loop
          s[len++] = 0n
          pc++
          break
        case ADD:
        case SUB:
        case LT:
        case GT:
        case EQ:
        case AND:
        case OR:
        case XOR: {
          if (len < 2 || gas < cost) break loop
          // popN(2): a is the top, b the one below; the result takes b's place.
          const a = s[len - 1]
          const b = s[len - 2]
          let r: bigint
          if (op === ADD) {
            r = a + b
            if (r >= TWO_POW256) r -= TWO_POW256 // mod(a + b, 2^256)
          } else if (op === SUB) {
            r = a - b
            if (r < 0n) r += TWO_POW256 // mod(a - b, 2^256)
          } else if (op === LT) r = a < b ? 1n : 0n
          else if (op === GT) r = a > b ? 1n : 0n
          else if (op === EQ) r = a === b ? 1n : 0n
          else if (op === AND) r = a & b
          else if (op === OR) r = a | b
          else r = a ^ b
          s[len - 2] = r
          len--
          pc++
          break
        }
        case ISZERO:
          if (len < 1 || gas < cost) break loop
          s[len - 1] = s[len - 1] === 0n ? 1n : 0n
          pc++
          break
        case POP:
          if (len < 1 || gas < cost) break loop
          len--
          pc++
          break
        case JUMPDEST:
          if (gas < cost) break loop
          pc++
          break
        case JUMP: {
          if (len < 1 || gas < cost) break loop
          // Number() of a word past 2^53 is past the code too: the bound check as `dest > getCodeSize()`.
          const dest = Number(s[len - 1])
          if (dest > codeSize || jumps[dest] !== 1) break loop
          len--
          pc = dest
          break
        }
        case JUMPI: {
          if (len < 2 || gas < cost) break loop
          if (s[len - 2] === 0n) pc++
          else {
            const dest = Number(s[len - 1])
            if (dest > codeSize || jumps[dest] !== 1) break loop
            pc = dest
          }
          len -= 2
          break
        }
        case MLOAD:
        case MSTORE: {
          if (len < (op === MSTORE ? 2 : 1) || gas < cost) break loop
          const at = Number(s[len - 1])
          // Memory gas (subMemUsage) is 0 when the word lies within the memory paid for.
          if (!(at + 32 <= memEnd)) break loop
          if (op === MLOAD) s[len - 1] = wordAt(viewOf(memory), at)
          else {
            putWord(viewOf(memory), at, s[len - 2])
            len -= 2
          }
          pc++
          break
        }
        case KECCAK256: {
          if (len < 2 || ctx.keccak === undefined) break loop
          const at = Number(s[len - 1])
          const size = Number(s[len - 2])
          if (size === 0 || !(at + size <= memEnd)) break loop
          cost += ctx.keccakWordGas * Math.ceil(size / 32)
          if (gas < cost) break loop
          // Not copied: the hasher copies it into its own memory.
          s[len - 2] = hashWord(ctx.keccak, memory.subarray(at, at + size))
          len--
          pc++
          break
        }
        default:
          break loop
      }
    gas -= cost
    last = op
  }
  if (last === -1) return
  rs.opCode = last
  rs.programCounter = pc
  stack._len = len
  rs.gasLeft = BigInt(gas)
}
