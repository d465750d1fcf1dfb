// geth's tracing hooks (core/tracing/hooks.go: OnEnter, OnExit, OnOpcode, OnLog) on ethereumjs'
// EVM, in pcnode's plain terms, for one trace execution: attached by ExecView.run when a trace asks,
// detached after, so untraced execution costs nothing. What ethereumjs gives and geth differs from
// (research/base-fork-tracing.md §3.2), reconciled here so every tracer sees geth's stream:
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
import { OP, type RunState, wrapOpcodes } from './opcode-wrappers.js'
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
  enter?(frame: TraceFrame): void
  exit?(end: TraceFrameEnd): void
  /** May return a promise (a state read): execution waits for it. */
  step?(step: StepInfo): void | Promise<void>
  /** A step reported earlier turned out to fail (its frame ended with the step's error). */
  stepFailed?(step: StepInfo): void
  /** A LOG opcode ran (also in frames that later revert). */
  log?(log: LogEntry): void
  /** Called at every step, jump and frame: throw to stop the execution (a timeout). */
  checkpoint?(): void
}

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

const addressOf = (word: bigint) => setLengthLeft(bigIntToBytes(word), 32).subarray(12)

/**
 * Attaches `hooks` to `vm` for one execution. `detach` undoes it; `failure` is an error a hook's
 * promise rejected with (execution cannot be stopped from there), for the caller to throw.
 */
export function attachTrace(vm: VM, hooks: TraceHooks): { detach(): void; failure(): unknown } {
  const events = vm.evm.events
  if (!events) throw new Error('trace: the EVM has no event emitter')
  const frames: OpenFrame[] = []
  let pendingType: FrameType | undefined
  let entered = 0
  let failed: unknown
  const checkpoint = () => {
    if (failed !== undefined) throw failed
    hooks.checkpoint?.()
  }
  const settle = (result: void | Promise<void>, resolve?: () => void) => {
    if (result instanceof Promise) {
      result.then(
        () => resolve?.(),
        (error) => {
          failed ??= error
          resolve?.()
        },
      )
    } else {
      resolve?.()
    }
  }
  const step = (info: StepInfo): void | Promise<void> => hooks.step?.(info)

  const open = (frame: TraceFrame, isStatic: boolean) => {
    entered++
    frames.push({ frame, isStatic, returnData: new Uint8Array() })
    hooks.enter?.(frame)
  }

  const before = async (msg: Message): Promise<void> => {
    checkpoint()
    const parent = frames.at(-1)
    const type: FrameType =
      msg.depth === 0 ? (msg.to ? 'CALL' : 'CREATE') : (pendingType ?? (msg.to ? 'CALL' : msg.salt ? 'CREATE2' : 'CREATE'))
    pendingType = undefined
    let from = msg.caller.bytes
    let to: Uint8Array
    if (!msg.to) {
      // The caller's nonce has moved already (interpreter.create, runTx): the address used the one before.
      if (msg.salt) {
        to = generateAddress2(msg.caller.bytes, msg.salt, msg.data)
      } else {
        const nonce = (await vm.stateManager.getAccount(msg.caller))?.nonce ?? 1n
        to = generateAddress(msg.caller.bytes, bigIntToBytes(nonce - 1n))
      }
    } else if (type === 'DELEGATECALL') {
      // geth: from the delegating contract to the code it borrows.
      from = msg.to.bytes
      to = msg.codeAddress.bytes
    } else if (type === 'CALLCODE') {
      to = msg.codeAddress.bytes
    } else {
      to = msg.to.bytes
    }
    open(
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

  const after = async (result: EVMResult): Promise<void> => {
    const open = frames.pop()
    if (!open) return
    const exec = result.execResult
    const raw = exec.exceptionError?.error
    const needsOp = raw !== undefined && (raw.startsWith('stack ') || raw === 'invalid opcode')
    const last = open.lastStep
    const error =
      raw === undefined
        ? undefined
        : gethError(raw, last ?? (needsOp ? failedStep(raw, exec.runState as unknown as EndState) : undefined))
    if (raw !== undefined && last && last.error === undefined && (raw === 'out of gas' || raw.startsWith('stack '))) {
      last.error = raw === 'out of gas' ? 'out of gas' : error
      hooks.stepFailed?.(last)
    }
    if (raw === undefined && last && !HALTS.has(last.op) && hooks.step) {
      // Ran off the end of its code: geth executes the STOP GetOp answers there.
      const rs = exec.runState as unknown as EndState | undefined
      if (rs) {
        await step({
          pc: rs.programCounter,
          op: OPS.STOP,
          gas: rs.gasLeft,
          cost: 0n,
          depth: open.frame.depth + 1,
          stack: rs.stack.getStack(),
          memory: rs.memory._store.slice(0, Number(rs.memoryWordCount) * 32),
          returnData: open.returnData,
          refund: rs.gasRefund,
          address: last.address,
          frame: open.frame,
        })
      }
    }
    const parent = frames.at(-1)
    if (parent) {
      // geth's evm.returnData after the call: its output on success or revert (a create's on revert only).
      const creates = open.frame.type === 'CREATE' || open.frame.type === 'CREATE2'
      parent.returnData =
        raw === undefined
          ? creates
            ? new Uint8Array()
            : exec.returnValue
          : raw === 'revert'
            ? exec.returnValue
            : new Uint8Array()
    }
    hooks.exit?.({ depth: open.frame.depth, output: exec.returnValue, gasUsed: exec.executionGasUsed, error })
  }

  const onStep = (ev: InterpreterStep): void | Promise<void> => {
    checkpoint()
    const open = frames.at(-1)
    if (!open) return
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
      returnData: open.returnData,
      refund: BigInt(ev.gasRefund),
      address: ev.address.bytes,
      frame: open.frame,
      error: foreseenError(op, stack.length, gas, cost, open.isStatic),
    }
    open.lastStep = info
    return step(info)
  }

  // Two-argument listeners: ethereumjs awaits their callback (evm.ts _emit), so a hook may read state.
  const beforeListener = (msg: Message, resolve?: () => void) => settle(before(msg), resolve)
  const afterListener = (result: EVMResult, resolve?: () => void) => settle(after(result), resolve)
  const stepListener = (ev: InterpreterStep, resolve?: () => void) => settle(onStep(ev), resolve)
  events.on('beforeMessage', beforeListener)
  events.on('afterMessage', afterListener)
  if (hooks.step) events.on('step', stepListener)

  const wrappers: Parameters<typeof wrapOpcodes>[1] = []
  for (const [op, type] of FRAME_OPS) {
    wrappers.push([
      op,
      (orig) => async (runState, common) => {
        const parent = frames.at(-1)
        const creates = type === 'CREATE' || type === 'CREATE2'
        const args = runState.stack.peek(opPops(op))
        const value = type === 'DELEGATECALL' || type === 'STATICCALL' ? 0n : creates ? args[0] : args[2]
        const failFast =
          parent !== undefined &&
          (parent.frame.depth + 1 > STACK_LIMIT ||
            ((type === 'CALL' || type === 'CALLCODE' || creates) && runState.interpreter.getSelfBalance() < value))
        let synthetic: TraceFrame | undefined
        if (failFast && parent) synthetic = failedFrame(runState, type, args, parent)
        const count = entered
        pendingType = type
        try {
          return await orig(runState, common)
        } finally {
          pendingType = undefined
          if (synthetic && entered === count) {
            // geth enters the frame, then fails it (evm.go Call / create).
            open(synthetic, parent?.isStatic ?? false)
            frames.pop()
            hooks.exit?.({
              depth: synthetic.depth,
              output: new Uint8Array(),
              gasUsed: 0n,
              error: synthetic.depth > STACK_LIMIT ? 'max call depth exceeded' : 'insufficient balance for transfer',
            })
          }
        }
      },
    ])
  }
  if (hooks.log) {
    for (let op = OP.LOG0; op <= OP.LOG4; op++) {
      wrappers.push([
        op,
        (orig) => (runState, common) => {
          const logs = runState.interpreter._result.logs
          const count = logs.length
          orig(runState, common)
          if (logs.length > count) {
            const [address, topics, data] = logs[logs.length - 1]
            hooks.log?.({ address, topics, data })
          }
        },
      ])
    }
  }
  wrappers.push([
    OP.SELFDESTRUCT,
    (orig) => (runState, common) => {
      const parent = frames.at(-1)
      if (parent) {
        const [target] = runState.stack.peek(1)
        const frame: TraceFrame = {
          type: 'SELFDESTRUCT',
          depth: parent.frame.depth + 1,
          from: runState.interpreter.getAddress().bytes,
          to: addressOf(target),
          input: new Uint8Array(),
          gas: 0n,
          value: runState.interpreter.getSelfBalance(),
        }
        // geth reports it as a frame of its own, entered and left at once (opSelfdestruct).
        hooks.enter?.(frame)
        hooks.exit?.({ depth: frame.depth, output: new Uint8Array(), gasUsed: 0n })
      }
      return orig(runState, common)
    },
  ])
  if (!hooks.step && hooks.checkpoint) {
    // Loops turn at jumps: a timeout reaches a loop without a step listener's cost.
    for (const op of [OPS.JUMP, OPS.JUMPI]) {
      wrappers.push([
        op,
        (orig) => (runState, common) => {
          checkpoint()
          return orig(runState, common)
        },
      ])
    }
  }
  const unwrap = wrapOpcodes(vm, wrappers)
  return {
    detach: () => {
      unwrap()
      events.off('beforeMessage', beforeListener)
      events.off('afterMessage', afterListener)
      events.off('step', stepListener)
    },
    failure: () => failed,
  }
}

/** The frame geth enters for a call or create that fails before it starts. */
function failedFrame(runState: RunState, type: FrameType, args: bigint[], parent: OpenFrame): TraceFrame {
  const creates = type === 'CREATE' || type === 'CREATE2'
  const self = runState.interpreter.getAddress().bytes
  const memory = (offset: bigint, length: bigint) =>
    length === 0n ? new Uint8Array() : runState.memory.read(Number(offset), Number(length), true).slice()
  const gas = runState.messageGasLimit ?? 0n
  if (creates) {
    const input = memory(args[1], args[2])
    const to =
      type === 'CREATE2'
        ? generateAddress2(self, setLengthLeft(bigIntToBytes(args[3]), 32), input)
        : generateAddress(self, bigIntToBytes(runState.interpreter._env.contract.nonce))
    return { type, depth: parent.frame.depth + 1, from: self, to, input, gas, value: args[0] }
  }
  const value = type === 'CALL' || type === 'CALLCODE' ? args[2] : undefined
  const [inOffset, inLength] = value === undefined ? [args[2], args[3]] : [args[3], args[4]]
  const stipend = value !== undefined && value > 0n ? 2300n : 0n
  return {
    type,
    depth: parent.frame.depth + 1,
    from: self,
    to: addressOf(args[1]),
    input: memory(inOffset, inLength),
    gas: gas + stipend,
    value: type === 'DELEGATECALL' ? parent.frame.value : value,
  }
}
