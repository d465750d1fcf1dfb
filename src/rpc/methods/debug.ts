// geth's tracing API (eth/tracers/api.go): debug_traceTransaction, debug_traceCall,
// debug_traceBlockByNumber and debug_traceBlockByHash, with geth's config object and shapes.
import { parseTraceConfig } from '../../node/tracing/config.js'
import { expectArgs } from '../dispatch.js'
import { parseHash, toData } from '../hex.js'
import { parseBlockOverrides, parseBlockRef, parseCallRequest, parseStateOverrides } from '../params.js'
import type { MethodGroup } from './group.js'

export const debugMethods: MethodGroup = (node) => {
  const traceBlock = async (ref: ReturnType<typeof parseBlockRef>, config: unknown) => {
    const entries = await node.debug.traceBlock(ref, parseTraceConfig(config, 1))
    return entries.map((e) =>
      e.error !== undefined ? { txHash: toData(e.txHash), error: e.error } : { txHash: toData(e.txHash), result: e.result },
    )
  }
  return {
    debug_traceTransaction: async (params) => {
      expectArgs(params, 1, 2)
      return node.debug.traceTransaction(parseHash(params[0], 'hash'), parseTraceConfig(params[1], 1))
    },
    debug_traceCall: async (params) => {
      expectArgs(params, 1, 3)
      const cfg = parseTraceConfig(params[2], 2, true)
      return node.debug.traceCall(parseCallRequest(params[0], 'args'), parseBlockRef(params[1], 'blockNrOrHash'), cfg, {
        stateOverrides: parseStateOverrides(cfg.stateOverrides, 'config.stateOverrides'),
        blockOverrides: parseBlockOverrides(cfg.blockOverrides, 'config.blockOverrides'),
      })
    },
    debug_traceBlockByNumber: async (params) => {
      expectArgs(params, 1, 2)
      return traceBlock(parseBlockRef(params[0], 'number'), params[1])
    },
    debug_traceBlockByHash: async (params) => {
      expectArgs(params, 1, 2)
      return traceBlock({ hash: parseHash(params[0], 'hash') }, params[1])
    },
  }
}
