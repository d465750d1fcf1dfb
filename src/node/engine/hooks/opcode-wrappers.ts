// Wrappers around ethereumjs opcode handlers, for what its public API cannot do: `customOpcodes`
// replaces an opcode when the EVM is built and cannot wrap the original, so these swap entries of
// the EVM's protected `_opcodeMap` for the duration of one simulation or trace and put them back.
// The RunState slice below is ethereumjs' private interpreter state; selfcheck.ts checks its shape
// at start-up.
import { type Address, bigIntToBytes, setLengthLeft } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import type { LogEntry } from '../../types.js'

/** The slice of ethereumjs' interpreter state the wrappers touch (private API, pinned version). */
export interface RunState {
  stack: { pop(): bigint; push(v: bigint): void; peek(n?: number): bigint[] }
  memory: { read(offset: number, size: number, avoidCopy?: boolean): Uint8Array }
  /** What the CALL/CREATE gas handler set aside for the next frame (trace.ts reads it). */
  messageGasLimit?: bigint
  interpreter: {
    getAddress(): { bytes: Uint8Array }
    getSelfBalance(): bigint
    getBlockNumber(): bigint
    _result: { logs: Array<[Uint8Array, Uint8Array[], Uint8Array]> }
    _env: { contract: { nonce: bigint } }
  }
  stateManager: VM['stateManager']
}
export type OpHandler = (runState: RunState, common: unknown) => unknown
interface OpEntry {
  opHandler: OpHandler
  opcodeInfo: unknown
  gasHandler?: unknown
}

/** A wrapper for one opcode: `make` receives the original handler and returns the one to run. */
export type OpcodeWrapper = [op: number, make: (original: OpHandler) => OpHandler]

export function opcodeMap(vm: VM): OpEntry[] {
  return (vm.evm as unknown as { _opcodeMap: OpEntry[] })._opcodeMap
}

/**
 * Wraps the handlers of the given opcodes (`make` receives the original); returns the undo. Wraps
 * stack: undo in reverse order of wrapping.
 */
export function wrapOpcodes(vm: VM, wrappers: OpcodeWrapper[]): () => void {
  const map = opcodeMap(vm)
  const saved: Array<[number, OpEntry]> = []
  for (const [op, make] of wrappers) {
    const entry = map[op]
    if (!entry) continue
    saved.push([op, entry])
    map[op] = { ...entry, opHandler: make(entry.opHandler) }
  }
  return () => {
    for (const [op, entry] of saved.reverse()) map[op] = entry
  }
}

export const OP = {
  BLOCKHASH: 0x40,
  BASEFEE: 0x48,
  BLOBBASEFEE: 0x4a,
  JUMP: 0x56,
  JUMPI: 0x57,
  LOG0: 0xa0,
  LOG4: 0xa4,
  SELFDESTRUCT: 0xff,
} as const

/** The address in a stack word's low 20 bytes (SELFDESTRUCT's beneficiary, a CALL's target). */
export function stackAddress(word: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(word), 32).subarray(12)
}

/**
 * Wrappers of LOG0..LOG4 telling `onLog` of each log the opcode appends to the interpreter's
 * private `_result.logs`, in execution order (also in frames that later revert).
 */
export function logWrappers(onLog: (log: LogEntry) => void): OpcodeWrapper[] {
  const wrappers: OpcodeWrapper[] = []
  for (let op = OP.LOG0; op <= OP.LOG4; op++) {
    wrappers.push([
      op,
      (orig) => (runState, common) => {
        const logs = runState.interpreter._result.logs
        const count = logs.length
        orig(runState, common)
        if (logs.length > count) {
          const [address, topics, data] = logs[logs.length - 1]
          onLog({ address, topics, data })
        }
      },
    ])
  }
  return wrappers
}

/** What a simulation changes in the block's opcodes (eth_simulateV1; geth's simulate.go). */
export interface BlockOpcodeOverrides {
  /** BASEFEE answers this while it returns a value (a call run on a zero-fee copy of the block). */
  baseFee?: () => bigint | undefined
  /** BLOBBASEFEE likewise (an overridden blob base fee). */
  blobBaseFee?: () => bigint | undefined
  /**
   * BLOCKHASH (with EIP-2935): the chain's hash of block `n` when it has one, else the EIP-2935
   * history contract's slot, which each simulated block writes.
   */
  chainBlockHash?: (n: bigint) => Uint8Array | undefined
}

/** Where BLOCKHASH reads simulated blocks' hashes: the EIP-2935 contract and its window. */
export interface HistoryContract {
  address: Address
  window: bigint
}

export function overrideBlockOpcodes(vm: VM, o: BlockOpcodeOverrides, history: HistoryContract | undefined): () => void {
  const wrappers: OpcodeWrapper[] = []
  const { baseFee, blobBaseFee, chainBlockHash } = o
  if (baseFee) {
    wrappers.push([
      OP.BASEFEE,
      (orig) => (runState, common) => {
        const shown = baseFee()
        if (shown === undefined) return orig(runState, common)
        runState.stack.push(shown)
      },
    ])
  }
  if (blobBaseFee) {
    wrappers.push([
      OP.BLOBBASEFEE,
      (orig) => (runState, common) => {
        const shown = blobBaseFee()
        if (shown === undefined) return orig(runState, common)
        runState.stack.push(shown)
      },
    ])
  }
  if (chainBlockHash && history) {
    wrappers.push([
      OP.BLOCKHASH,
      () => async (runState) => {
        const number = runState.stack.pop()
        const current = runState.interpreter.getBlockNumber()
        if (number >= current || current - number > 256n) return runState.stack.push(0n)
        const known = chainBlockHash(number)
        if (known) return runState.stack.push(toBigInt(known))
        const key = new Uint8Array(32)
        const slot = number % history.window
        for (let i = 31, v = slot; i >= 0 && v > 0n; i--, v >>= 8n) key[i] = Number(v & 0xffn)
        const value = await runState.stateManager.getStorage(history.address, key).catch(() => new Uint8Array())
        runState.stack.push(toBigInt(value))
      },
    ])
  }
  return wrapOpcodes(vm, wrappers)
}

function toBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`)
}
