// Watching execution in pcnode's own terms: message frames, logs in execution order and
// self-destructs, from ethereumjs' `beforeMessage`/`afterMessage` events and LOG/SELFDESTRUCT
// wrappers (opcode-wrappers.ts). Attached for one simulation or trace only, so execution costs nothing
// extra when nobody watches.
import type { EVMResult, Message } from '@ethereumjs/evm'
import type { VM } from '@ethereumjs/vm'
import type { LogEntry } from '../../types.js'
import { logWrappers, OP, stackAddress, wrapOpcodes } from './opcode-wrappers.js'

export interface FrameStart {
  caller: Uint8Array
  /** undefined for a contract creation. */
  to?: Uint8Array
  /** Whose code runs: differs from `to` for DELEGATECALL and CALLCODE (undefined for a creation). */
  codeAddress?: Uint8Array
  value: bigint
  delegatecall: boolean
  isStatic: boolean
  depth: number
  gasLimit: bigint
  data: Uint8Array
}

export interface FrameEnd {
  createdAddress?: Uint8Array
  /** The EVM's error ('revert', 'out of gas', …); undefined when the frame succeeded. */
  error?: string
  returnValue: Uint8Array
  gasUsed: bigint
}

export interface ExecutionObserver {
  enter?(frame: FrameStart): void
  exit?(frame: FrameEnd): void
  /** A LOG opcode ran (in execution order; a reverted frame's logs are reported too). */
  log?(log: LogEntry): void
  /** SELFDESTRUCT is about to run in `from`, sending `value` to `to`. */
  selfDestruct?(from: Uint8Array, to: Uint8Array, value: bigint): void
}

/** Attaches `observer` to `vm`'s EVM; call the returned function to detach it. */
export function observe(vm: VM, observer: ExecutionObserver): () => void {
  const events = vm.evm.events
  const before = (msg: Message) =>
    observer.enter?.({
      caller: msg.caller.bytes,
      to: msg.to?.bytes,
      codeAddress: msg.to ? msg.codeAddress.bytes : undefined,
      value: msg.value,
      delegatecall: msg.delegatecall,
      isStatic: msg.isStatic,
      depth: msg.depth,
      gasLimit: msg.gasLimit,
      data: msg.data,
    })
  const after = (result: EVMResult) =>
    observer.exit?.({
      createdAddress: result.createdAddress?.bytes,
      error: result.execResult.exceptionError?.error,
      returnValue: result.execResult.returnValue,
      gasUsed: result.execResult.executionGasUsed,
    })
  if (observer.enter) events?.on('beforeMessage', before)
  if (observer.exit) events?.on('afterMessage', after)
  const wrappers = observer.log ? logWrappers((log) => observer.log?.(log)) : []
  if (observer.selfDestruct) {
    wrappers.push([
      OP.SELFDESTRUCT,
      (orig) => (runState, common) => {
        const [target] = runState.stack.peek(1)
        observer.selfDestruct?.(
          runState.interpreter.getAddress().bytes,
          stackAddress(target),
          runState.interpreter.getSelfBalance(),
        )
        return orig(runState, common)
      },
    ])
  }
  const unwrap = wrapOpcodes(vm, wrappers)
  return () => {
    unwrap()
    events?.off('beforeMessage', before)
    events?.off('afterMessage', after)
  }
}
