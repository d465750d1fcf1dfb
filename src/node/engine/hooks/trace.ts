// geth's tracing hooks (core/tracing/hooks.go: OnEnter, OnExit, OnOpcode, OnLog) on ethereumjs'
// EVM, in pcnode's plain terms, the one instrumentation API (as reth's Inspector): attached by
// ExecView for one traced execution or a simulation's transfer tracer (observe), detached after, so
// unwatched execution costs nothing. What ethereumjs gives and geth differs from,
// reconciled here so every tracer sees geth's stream:
// - frame types: ethereumjs' Message has no CALLCODE/STATICCALL/CREATE2 flag (a CALL inside a
//   STATICCALL is static too), so the CALL-family and CREATE opcode handlers name the next frame;
// - frames geth enters and ethereumjs never starts: a call or create that fails fast (depth limit,
//   insufficient balance) is a frame with its error in geth (core/vm/evm.go captureBegin runs
//   before those checks); SELFDESTRUCT is a frame too (instructions.go opSelfdestruct);
// - steps: depth is 1-based; a CALL's cost includes the gas it forwards (gas_table.go gasCall adds
//   callGasTemp); code that runs off its end executes an implicit STOP (contract.go GetOp);
//   out-of-gas and stack errors belong to the step that failed (interpreter.go logs them before
//   executing), other errors only to the frame;
// - error texts are geth's (core/vm/errors.go).
// The `step` event, the message events and the opcode map are ethereumjs internals selfcheck.ts
// checks at start-up.
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import { bigIntToBytes, generateAddress, generateAddress2, setLengthLeft } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import type { LogEntry } from '../../types.js'
import { OPS, opPops } from '../opcode-table.js'
import { logWrappers, OP, type OpcodeWrapper, type RunState, stackAddress, wrapOpcodes } from './opcode-wrappers.js'
import { callGas, type EndState, failedStep, foreseenError, gethError } from './trace-geth.js'

export type FrameType = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT'

/** A frame as geth's OnEnter reports it. */
export interface TraceFrame {
  type: FrameType
  /** geth's OnEnter depth: 0 for the transaction's own frame. */
  depth: number
  from: Uint8Array
  /** The callee; for a creation, the address it deploys to. */
  to: Uint8Array
  input: Uint8Array
  /** Gas the frame starts with (the transaction's own: its limit less intrinsic gas). */
  gas: bigint
  /** undefined for STATICCALL (geth passes nil). DELEGATECALL carries its parent's value. */
  value: bigint | undefined
  /**
   * A call or create that failed before it started (depth limit, insufficient balance): geth
   * enters and fails it at once; ethereumjs never ran it, so it moved nothing and ran no code.
   */
  failedToStart?: true
}

/** A frame's end as geth's OnExit reports it. */
export interface TraceFrameEnd {
  depth: number
  output: Uint8Array
  gasUsed: bigint
  /** geth's error text; undefined on success. */
  error?: string
}

/** One opcode as geth's OnOpcode reports it, before it runs. */
export interface StepInfo {
  pc: number
  op: number
  /** Gas left before the opcode. */
  gas: bigint
  /** Its cost (a CALL's includes the gas it forwards). */
  cost: bigint
  /** 1-based, as geth's struct logs. */
  depth: number
  /** Bottom first. */
  stack: bigint[]
  memory: Uint8Array
  /** The last call's return data (RETURNDATASIZE's buffer). */
  returnData: Uint8Array
  refund: bigint
  /** Whose storage the code runs on (the caller's under DELEGATECALL). */
  address: Uint8Array
  /** The frame running the code (caller, value and input for JS tracers). */
  frame: TraceFrame
  /** A failure geth reports on this step (out of gas, stack), set before it runs when foreseeable. */
  error?: string
}

export interface TraceHooks {
  /** May return a promise, as step (a JS tracer's worker): execution waits for it. */
  enter?(frame: TraceFrame): void | Promise<void>
  exit?(end: TraceFrameEnd): void | Promise<void>
  /** May return a promise (a state read): execution waits for it. */
  step?(step: StepInfo): void | Promise<void>
  /** A step reported earlier turned out to fail (its frame ended with the step's error). */
  stepFailed?(step: StepInfo): void
  /** A LOG opcode ran (also in frames that later revert). */
  log?(log: LogEntry): void
  /** Called at every step, jump and frame: throw to stop the execution (a timeout). */
  checkpoint?(): void
}

/** A frame entered and not yet left, with what the trace tracks in it. */
interface OpenFrame {
  frame: TraceFrame
  isStatic: boolean
  lastStep?: StepInfo
  returnData: Uint8Array
}

/** Frames named by the opcode that starts them. */
const FRAME_OPS: Array<[number, FrameType]> = [
  [OPS.CALL, 'CALL'],
  [OPS.CALLCODE, 'CALLCODE'],
  [OPS.DELEGATECALL, 'DELEGATECALL'],
  [OPS.STATICCALL, 'STATICCALL'],
  [OPS.CREATE, 'CREATE'],
  [OPS.CREATE2, 'CREATE2'],
]
const CALL_OPS = new Set<number>([OPS.CALL, OPS.CALLCODE, OPS.DELEGATECALL, OPS.STATICCALL])
const HALTS = new Set<number>([OPS.STOP, OPS.RETURN, OPS.REVERT, OPS.SELFDESTRUCT])
const STACK_LIMIT = 1024

const creates = (type: FrameType) => type === 'CREATE' || type === 'CREATE2'

/** Hooks attached to an EVM. */
export interface TraceAttachment {
  detach(): void
  /** An error a hook (or its promise) failed with (execution cannot be stopped from there), for the caller to throw. */
  failure(): unknown
}

/**
 * Attaches `hooks` to `vm` until `detach`: for one execution (a trace) or several (a simulation's
 * transfer tracer); frames open and close within each execution.
 */
export function attachTrace(vm: VM, hooks: TraceHooks): TraceAttachment {
  const events = vm.evm.events
  if (!events) throw new Error('trace: the EVM has no event emitter')
  const trace = new Trace(vm, hooks)
  // Two-argument listeners: ethereumjs awaits their callback (evm.ts _emit), so a hook may read state.
  const beforeListener = (msg: Message, resolve?: () => void) => trace.settle(trace.enterMessage(msg), resolve)
  const afterListener = (result: EVMResult, resolve?: () => void) => trace.settle(trace.exitMessage(result), resolve)
  const stepListener = (ev: InterpreterStep, resolve?: () => void) => trace.settle(trace.step(ev), resolve)
  events.on('beforeMessage', beforeListener)
  events.on('afterMessage', afterListener)
  if (hooks.step) events.on('step', stepListener)
  const unwrap = wrapOpcodes(vm, trace.wrappers())
  return {
    detach: () => {
      unwrap()
      events.off('beforeMessage', beforeListener)
      events.off('afterMessage', afterListener)
      events.off('step', stepListener)
    },
    failure: () => trace.failed,
  }
}

/** One attached trace: the frames open in the EVM and what the hooks have been told of them. */
class Trace {
  private readonly frames: OpenFrame[] = []
  /** The type of the frame the running CALL-family or CREATE opcode starts (Message has no flag for it). */
  private pendingType: FrameType | undefined
  /** Frames entered so far: a frame opcode after which none was entered failed before its frame started. */
  private entered = 0
  /** What a hook's promise rejected with. */
  failed: unknown

  constructor(
    private readonly vm: VM,
    private readonly hooks: TraceHooks,
  ) {}

  /** Stops the execution (by throwing) once a hook has failed or the hooks' checkpoint throws. */
  checkpoint(): void {
    if (this.failed !== undefined) throw this.failed
    this.hooks.checkpoint?.()
  }

  /** Lets ethereumjs go on once a hook's promise has settled, keeping the first rejection. */
  settle(result: void | Promise<void>, resolve?: () => void): void {
    if (result instanceof Promise) {
      result.then(
        () => resolve?.(),
        (error) => {
          this.failed ??= error
          resolve?.()
        },
      )
    } else {
      resolve?.()
    }
  }

  /** ethereumjs' `beforeMessage`: geth's OnEnter, with the frame's type and addresses as geth names them. */
  async enterMessage(msg: Message): Promise<void> {
    this.checkpoint()
    const parent = this.frames.at(-1)
    const type: FrameType =
      msg.depth === 0 ? (msg.to ? 'CALL' : 'CREATE') : (this.pendingType ?? (msg.to ? 'CALL' : msg.salt ? 'CREATE2' : 'CREATE'))
    this.pendingType = undefined
    const { from, to } = await this.endpoints(msg, type)
    await this.open(
      {
        type,
        depth: msg.depth,
        from,
        to,
        input: msg.data,
        gas: msg.gasLimit,
        value: type === 'STATICCALL' ? undefined : msg.value,
      },
      msg.isStatic || (parent?.isStatic ?? false),
    )
  }

  /** A frame's `from` and `to` as geth reports them. */
  private async endpoints(msg: Message, type: FrameType): Promise<{ from: Uint8Array; to: Uint8Array }> {
    const from = msg.caller.bytes
    if (!msg.to) {
      // The caller's nonce has moved already (interpreter.create, runTx): the address used the one before.
      if (msg.salt) return { from, to: generateAddress2(msg.caller.bytes, msg.salt, msg.data) }
      const nonce = (await this.vm.stateManager.getAccount(msg.caller))?.nonce ?? 1n
      return { from, to: generateAddress(msg.caller.bytes, bigIntToBytes(nonce - 1n)) }
    }
    // geth: from the delegating contract to the code it borrows.
    if (type === 'DELEGATECALL') return { from: msg.to.bytes, to: msg.codeAddress.bytes }
    if (type === 'CALLCODE') return { from, to: msg.codeAddress.bytes }
    return { from, to: msg.to.bytes }
  }

  private open(frame: TraceFrame, isStatic: boolean): void | Promise<void> {
    this.entered++
    this.frames.push({ frame, isStatic, returnData: new Uint8Array() })
    return this.hooks.enter?.(frame)
  }

  /** ethereumjs' `afterMessage`: geth's OnExit, with geth's error text and the step it belongs to. */
  async exitMessage(result: EVMResult): Promise<void> {
    const ending = this.frames.pop()
    if (!ending) return
    const exec = result.execResult
    const raw = exec.exceptionError?.error
    const needsOp = raw !== undefined && (raw.startsWith('stack ') || raw === 'invalid opcode')
    const last = ending.lastStep
    const error =
      raw === undefined
        ? undefined
        : gethError(raw, last ?? (needsOp ? failedStep(raw, exec.runState as unknown as EndState) : undefined))
    if (raw !== undefined && last && last.error === undefined && (raw === 'out of gas' || raw.startsWith('stack '))) {
      last.error = raw === 'out of gas' ? 'out of gas' : error
      this.hooks.stepFailed?.(last)
    }
    if (raw === undefined && last && !HALTS.has(last.op) && this.hooks.step) {
      await this.implicitStop(ending, last, exec.runState as unknown as EndState | undefined)
    }
    const parent = this.frames.at(-1)
    if (parent) {
      // geth's evm.returnData after the call: its output on success or revert (a create's on revert only).
      parent.returnData =
        raw === undefined
          ? creates(ending.frame.type)
            ? new Uint8Array()
            : exec.returnValue
          : raw === 'revert'
            ? exec.returnValue
            : new Uint8Array()
    }
    await this.hooks.exit?.({ depth: ending.frame.depth, output: exec.returnValue, gasUsed: exec.executionGasUsed, error })
  }

  /** A frame that ran off the end of its code: geth executes the STOP GetOp answers there. */
  private async implicitStop(ending: OpenFrame, last: StepInfo, rs: EndState | undefined): Promise<void> {
    if (!rs) return
    await this.hooks.step?.({
      pc: rs.programCounter,
      op: OPS.STOP,
      gas: rs.gasLeft,
      cost: 0n,
      depth: ending.frame.depth + 1,
      stack: rs.stack.getStack(),
      memory: rs.memory._store.slice(0, Number(rs.memoryWordCount) * 32),
      returnData: ending.returnData,
      refund: rs.gasRefund,
      address: last.address,
      frame: ending.frame,
    })
  }

  /** ethereumjs' `step`: geth's OnOpcode, with geth's cost for calls and the failure geth foresees. */
  step(ev: InterpreterStep): void | Promise<void> {
    this.checkpoint()
    const running = this.frames.at(-1)
    if (!running) return
    const op = ev.opcode.code
    const gas = ev.gasLeft
    let cost = ev.opcode.dynamicFee ?? BigInt(ev.opcode.fee)
    const stack = ev.stack
    if (CALL_OPS.has(op) && stack.length >= opPops(op)) cost += callGas(gas - cost, stack[stack.length - 1])
    const info: StepInfo = {
      pc: ev.pc,
      op,
      gas,
      cost,
      depth: ev.depth + 1,
      stack,
      memory: ev.memory,
      returnData: running.returnData,
      refund: BigInt(ev.gasRefund),
      address: ev.address.bytes,
      frame: running.frame,
      error: foreseenError(op, stack.length, gas, cost, running.isStatic),
    }
    running.lastStep = info
    return this.hooks.step?.(info)
  }

  /** The opcode wrappers this trace needs while attached. */
  wrappers(): OpcodeWrapper[] {
    const wrappers = FRAME_OPS.map(([op, type]) => this.frameOpWrapper(op, type))
    if (this.hooks.log) wrappers.push(...logWrappers((log) => this.hooks.log?.(log)))
    wrappers.push(this.selfDestructWrapper())
    if (!this.hooks.step && this.hooks.checkpoint) {
      // Loops turn at jumps: a timeout reaches a loop without a step listener's cost.
      for (const op of [OPS.JUMP, OPS.JUMPI]) {
        wrappers.push([
          op,
          (orig) => (runState, common) => {
            this.checkpoint()
            return orig(runState, common)
          },
        ])
      }
    }
    return wrappers
  }

  /**
   * A CALL-family or CREATE opcode: names the frame it starts, and enters and fails the frame geth
   * reports for a call or create that fails before it starts (depth limit, insufficient balance).
   */
  private frameOpWrapper(op: number, type: FrameType): OpcodeWrapper {
    return [
      op,
      (orig) => async (runState, common) => {
        const parent = this.frames.at(-1)
        const args = runState.stack.peek(opPops(op))
        const value = type === 'DELEGATECALL' || type === 'STATICCALL' ? 0n : creates(type) ? args[0] : args[2]
        const failFast =
          parent !== undefined &&
          (parent.frame.depth + 1 > STACK_LIMIT ||
            ((type === 'CALL' || type === 'CALLCODE' || creates(type)) && runState.interpreter.getSelfBalance() < value))
        let synthetic: TraceFrame | undefined
        if (failFast && parent) synthetic = failedFrame(runState, type, args, parent)
        const count = this.entered
        this.pendingType = type
        try {
          return await orig(runState, common)
        } finally {
          this.pendingType = undefined
          if (synthetic && this.entered === count) await this.enterFailed(synthetic, parent?.isStatic ?? false)
        }
      },
    ]
  }

  /** geth enters the frame, then fails it (evm.go Call / create). */
  private async enterFailed(frame: TraceFrame, isStatic: boolean): Promise<void> {
    await this.open(frame, isStatic)
    this.frames.pop()
    await this.hooks.exit?.({
      depth: frame.depth,
      output: new Uint8Array(),
      gasUsed: 0n,
      error: frame.depth > STACK_LIMIT ? 'max call depth exceeded' : 'insufficient balance for transfer',
    })
  }

  /** geth reports SELFDESTRUCT as a frame of its own, entered and left at once (opSelfdestruct). */
  private selfDestructWrapper(): OpcodeWrapper {
    return [
      OP.SELFDESTRUCT,
      (orig) => async (runState, common) => {
        const parent = this.frames.at(-1)
        if (parent) {
          const [target] = runState.stack.peek(1)
          const frame: TraceFrame = {
            type: 'SELFDESTRUCT',
            depth: parent.frame.depth + 1,
            from: runState.interpreter.getAddress().bytes,
            to: stackAddress(target),
            input: new Uint8Array(),
            gas: 0n,
            value: runState.interpreter.getSelfBalance(),
          }
          await this.hooks.enter?.(frame)
          await this.hooks.exit?.({ depth: frame.depth, output: new Uint8Array(), gasUsed: 0n })
        }
        return orig(runState, common)
      },
    ]
  }
}

/** The frame geth enters for a call or create that fails before it starts. */
function failedFrame(runState: RunState, type: FrameType, args: bigint[], parent: OpenFrame): TraceFrame {
  const self = runState.interpreter.getAddress().bytes
  const memory = (offset: bigint, length: bigint) =>
    length === 0n ? new Uint8Array() : runState.memory.read(Number(offset), Number(length), true).slice()
  const gas = runState.messageGasLimit ?? 0n
  if (creates(type)) {
    const input = memory(args[1], args[2])
    const to =
      type === 'CREATE2'
        ? generateAddress2(self, setLengthLeft(bigIntToBytes(args[3]), 32), input)
        : generateAddress(self, bigIntToBytes(runState.interpreter._env.contract.nonce))
    return { type, depth: parent.frame.depth + 1, from: self, to, input, gas, value: args[0], failedToStart: true }
  }
  const value = type === 'CALL' || type === 'CALLCODE' ? args[2] : undefined
  const [inOffset, inLength] = value === undefined ? [args[2], args[3]] : [args[3], args[4]]
  const stipend = value !== undefined && value > 0n ? 2300n : 0n
  return {
    type,
    depth: parent.frame.depth + 1,
    from: self,
    to: stackAddress(args[1]),
    input: memory(inOffset, inLength),
    gas: gas + stipend,
    value: type === 'DELEGATECALL' ? parent.frame.value : value,
    failedToStart: true,
  }
}
