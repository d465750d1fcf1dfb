// eth_call and eth_estimateGas, with state overrides (and block overrides for eth_call).
import { expectArgs } from '../dispatch.js'
import { toData, toQuantity } from '../hex.js'
import { parseBlockOverrides, parseBlockRef, parseCallRequest, parseStateOverrides } from '../params.js'
import type { MethodGroup } from './group.js'

export const executionMethods: MethodGroup = (node) => ({
  eth_call: async (params) => {
    expectArgs(params, 1, 4)
    const output = await node.call(
      parseCallRequest(params[0]),
      parseBlockRef(params[1]),
      parseStateOverrides(params[2]),
      parseBlockOverrides(params[3]),
    )
    return toData(output)
  },
  /** geth's shape: `{accessList, gasUsed, error?}`; a failed call still answers, with its VM error. */
  eth_createAccessList: async (params) => {
    expectArgs(params, 1, 3)
    const result = await node.createAccessList(
      parseCallRequest(params[0]),
      parseBlockRef(params[1]),
      parseStateOverrides(params[2]),
    )
    return {
      accessList: result.accessList.map((e) => ({ address: toData(e.address), storageKeys: e.storageKeys.map(toData) })),
      gasUsed: toQuantity(result.gasUsed),
      ...(result.error ? { error: result.error } : {}),
    }
  },
  eth_estimateGas: async (params) => {
    expectArgs(params, 1, 4)
    const gas = await node.estimateGas(
      parseCallRequest(params[0]),
      parseBlockRef(params[1]),
      parseStateOverrides(params[2]),
      parseBlockOverrides(params[3]),
    )
    return toQuantity(gas)
  },
})
