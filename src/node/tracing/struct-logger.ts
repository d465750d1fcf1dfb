// The default tracer: geth's struct logger (eth/tracers/logger/logger.go, as of the execution-apis
// opcode-trace spec): one entry per opcode with pc, op, gas, gasCost, depth, error, stack,
// returnData, memory (32-byte 0x words, the last padded; `[]` when empty, as reth gives it),
// storage (the contract's slots read or written so far, on SLOAD/SSTORE only) and refund; `limit`
// caps the output's size in bytes (geth stops logging once the entries it has written exceed it),
// not the number of entries.
import { OPS, opName, type StepInfo, type TraceFrameEnd } from '../engine/index.js'
import { goJsonLength, hex, sortedObject, word } from './format.js'
import type { Tracer, TxContext, TxEnd } from './tracer.js'

export interface LoggerConfig {
  enableMemory: boolean
  disableStack: boolean
  disableStorage: boolean
  enableReturnData: boolean
  /** Output size in bytes; 0 = unlimited. */
  limit: number
}

/** One entry, keys in geth's order (structLogLegacy); undefined fields are left out. */
interface Entry {
  pc: number
  op: string
  gas: number
  gasCost: number
  depth: number
  error?: string
  stack?: string[]
  returnData?: string
  memory?: string[]
  storage?: Record<string, string>
  refund?: number
}

function memoryWords(memory: Uint8Array): string[] {
  const words: string[] = []
  for (let i = 0; i < memory.length; i += 32) {
    const chunk = memory.subarray(i, i + 32)
    words.push(chunk.length === 32 ? hex(chunk) : `0x${Buffer.from(chunk).toString('hex').padEnd(64, '0')}`)
  }
  return words
}

export class StructLogger implements Tracer {
  private readonly logs: Entry[] = []
  private readonly entries = new WeakMap<StepInfo, Entry>()
  private readonly storage = new Map<string, Map<string, string>>()
  private size = 0
  private ctx: TxContext | undefined
  private output: Uint8Array = new Uint8Array()
  private error: string | undefined
  private gasUsed = 0n

  constructor(private readonly cfg: LoggerConfig) {}

  readonly hooks = {
    step: (step: StepInfo) => this.step(step),
    stepFailed: (step: StepInfo) => {
      const entry = this.entries.get(step)
      if (!entry || step.error === undefined) return
      entry.error = step.error
      if (this.cfg.limit) this.size += goJsonLength(`,"error":${JSON.stringify(step.error)}`)
    },
    exit: (end: TraceFrameEnd) => {
      if (end.depth !== 0) return
      this.output = end.output
      this.error = end.error
    },
  }

  txStart(ctx: TxContext): void {
    this.ctx = ctx
  }

  txEnd(end: TxEnd): void {
    this.gasUsed = end.gasUsed
  }

  private step(step: StepInfo): void | Promise<void> {
    if (this.cfg.limit !== 0 && this.size > this.cfg.limit) return
    const entry: Entry = {
      pc: step.pc,
      op: opName(step.op),
      gas: Number(step.gas),
      gasCost: Number(step.cost),
      depth: step.depth,
      error: step.error,
      stack: this.cfg.disableStack ? undefined : step.stack.map((v) => `0x${v.toString(16)}`),
      returnData: this.cfg.enableReturnData && step.returnData.length > 0 ? hex(step.returnData) : undefined,
      // `[]` while memory is empty, as reth (Base's node) and anvil give it; geth >= 1.15.6 leaves
      // it out, which clients written for geth read as empty anyway.
      memory: this.cfg.enableMemory ? memoryWords(step.memory) : undefined,
      storage: undefined,
      refund: step.refund === 0n ? undefined : Number(step.refund),
    }
    this.logs.push(entry)
    this.entries.set(step, entry)
    const stack = step.stack
    const storing = !this.cfg.disableStorage && (step.op === OPS.SLOAD || step.op === OPS.SSTORE)
    if (storing && stack.length >= 1) {
      const contract = hex(step.address)
      let slots = this.storage.get(contract)
      if (!slots) this.storage.set(contract, (slots = new Map()))
      const key = word(stack[stack.length - 1])
      if (step.op === OPS.SSTORE && stack.length >= 2) {
        slots.set(key, word(stack[stack.length - 2]))
        entry.storage = sortedObject(slots)
      } else if (step.op === OPS.SLOAD && this.ctx) {
        // geth reads the slot's current value (StateDB.GetState) before the SLOAD runs.
        const own = slots
        return this.ctx.state.storage(step.address, Buffer.from(key.slice(2), 'hex')).then((value) => {
          own.set(key, word(value))
          entry.storage = sortedObject(own)
          this.count(entry)
        })
      }
    }
    this.count(entry)
  }

  private count(entry: Entry): void {
    if (this.cfg.limit !== 0) this.size += goJsonLength(JSON.stringify(entry))
  }

  result(): unknown {
    const failed = this.error !== undefined
    // The output on success, the revert data on a revert, nothing for other failures.
    const returnValue = failed && this.error !== 'execution reverted' ? '0x' : hex(this.output)
    return { gas: Number(this.gasUsed), failed, returnValue, structLogs: this.logs }
  }
}
