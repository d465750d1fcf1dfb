// geth's 4byteTracer (eth/tracers/native/4byte.go): how often each 4-byte selector was called with
// each argument size ("0xa9059cbb-64": 1), over CALL, CALLCODE, DELEGATECALL and STATICCALL frames
// (the transaction's own included), precompiles left out.
import type { TraceFrame } from '../engine/index.js'
import { hex, sortedObject } from './format.js'
import type { Tracer, TxContext } from './tracer.js'

export class FourByteTracer implements Tracer {
  private readonly ids = new Map<string, number>()
  private precompiles = new Set<string>()

  readonly hooks = { enter: (frame: TraceFrame) => this.enter(frame) }

  txStart(ctx: TxContext): void {
    this.precompiles = ctx.precompiles
  }

  private enter(frame: TraceFrame): void {
    if (frame.input.length < 4) return
    if (frame.type !== 'CALL' && frame.type !== 'CALLCODE' && frame.type !== 'DELEGATECALL' && frame.type !== 'STATICCALL') return
    if (this.precompiles.has(hex(frame.to).slice(2))) return
    const key = `${hex(frame.input.subarray(0, 4))}-${frame.input.length - 4}`
    this.ids.set(key, (this.ids.get(key) ?? 0) + 1)
  }

  result(): unknown {
    return sortedObject(this.ids)
  }
}

/** geth's noopTracer: runs with every hook and answers {}. */
export class NoopTracer implements Tracer {
  readonly hooks = {}
  result(): unknown {
    return {}
  }
}
