// geth's rules for what a trace step and frame say, where ethereumjs words them differently: the
// error texts (core/vm/errors.go), the failures geth finds before an opcode runs and reports on it
// (interpreter.go: stack, then gas; a dynamic-gas error wrapped as out of gas), and the gas a CALL
// forwards (gas_table.go callGas, EIP-150). Used by trace.ts.
import { OPS, opMaxStack, opName, opPops } from '../opcode-table.js'

/** What these rules read of a step: its opcode and the error already found on it. */
export interface StepLike {
  op: number
  error?: string
}

/** Interpreter state the trace reads at a frame's end (the implicit STOP, a stack error's opcode). */
export interface EndState {
  code: Uint8Array
  programCounter: number
  gasLeft: bigint
  gasRefund: bigint
  stack: { getStack(): bigint[] }
  memory: { _store: Uint8Array }
  memoryWordCount: bigint
}

/** ethereumjs' error texts → geth's (core/vm/errors.go); `step` is the frame's last opcode. */
export function gethError(error: string, step: StepLike | undefined): string {
  switch (error) {
    case 'out of gas':
    case 'stack underflow':
    case 'stack overflow':
      return step?.error ?? error
    case 'invalid opcode':
      return `invalid opcode: ${opName(step?.op ?? OPS.INVALID)}`
    case 'invalid JUMP':
      return 'invalid jump destination'
    case 'revert':
      return 'execution reverted'
    case 'static state change':
      return step?.op === OPS.SSTORE ? 'out of gas: write protection' : 'write protection'
    case 'create collision':
      return 'contract address collision'
    case 'code store out of gas':
      return 'contract creation code storage out of gas'
    case 'code size to deposit exceeds maximum code size':
      return 'max code size exceeded'
    case 'invalid bytecode deployed':
      return 'invalid code: must not begin with 0xef'
    case 'initcode exceeds max initcode size':
      return 'max initcode size exceeded'
    case 'insufficient balance':
      return 'insufficient balance for transfer'
    case 'value out of range':
      return 'return data out of bounds'
    default:
      return error
  }
}

/** The failure geth finds before running a step (interpreter.go: stack, then gas), if any. */
export function foreseenError(op: number, stackLength: number, gas: bigint, cost: bigint, isStatic: boolean): string | undefined {
  if (stackLength < opPops(op)) return `stack underflow (${stackLength} <=> ${opPops(op)})`
  if (stackLength > opMaxStack(op)) return `stack limit reached ${stackLength} (${opMaxStack(op)})`
  if (op === OPS.SSTORE) {
    // gasSStoreEIP2200's errors, wrapped as out of gas by the interpreter.
    if (isStatic) return 'out of gas: write protection'
    if (gas <= 2300n) return 'out of gas: not enough gas for reentrancy sentry'
  }
  if (cost > gas) return 'out of gas'
  return undefined
}

/**
 * Without a step listener (callTracer), the opcode a stack or invalid-opcode error came from:
 * ethereumjs refuses an invalid opcode before moving the pc, and moves it past any other opcode
 * before running it, so a stack error is the one before the pc or, when its gas handler failed
 * first, the one at it. The stack is as the opcode found it (Stack.popN checks first).
 */
export function failedStep(raw: string, rs: EndState | undefined): StepLike | undefined {
  if (!rs?.code) return undefined
  if (raw === 'invalid opcode') return { op: rs.code[rs.programCounter] } as StepLike
  const stack = rs.stack.getStack()
  for (const pc of [rs.programCounter - 1, rs.programCounter]) {
    const op = rs.code[pc]
    if (op === undefined) continue
    const error = foreseenError(op, stack.length, rs.gasLeft, 0n, false)
    if (error?.startsWith('stack')) return { op, error } as StepLike
  }
  return undefined
}

/** EIP-150: what a CALL forwards of `requested` with `available` gas left after its own cost. */
export function callGas(available: bigint, requested: bigint): bigint {
  if (available < 0n) return requested
  const all = available - available / 64n
  return requested < all ? requested : all
}
