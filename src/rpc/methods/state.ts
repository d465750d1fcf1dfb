// Account state reads at any block; "pending" is the pre-confirmed state.
import { expectArgs } from '../dispatch.js'
import { parseAddress, parseSlot, toData, toFixed, toQuantity } from '../hex.js'
import { parseBlockRef } from '../params.js'
import type { MethodGroup } from './context.js'

export const stateMethods: MethodGroup = (node) => ({
  eth_getBalance: async (params) => {
    expectArgs(params, 1, 2)
    return toQuantity(await node.getBalance(parseAddress(params[0], 'address'), parseBlockRef(params[1])))
  },
  eth_getTransactionCount: async (params) => {
    expectArgs(params, 1, 2)
    return toQuantity(await node.getTransactionCount(parseAddress(params[0], 'address'), parseBlockRef(params[1])))
  },
  eth_getCode: async (params) => {
    expectArgs(params, 1, 2)
    return toData(await node.getCode(parseAddress(params[0], 'address'), parseBlockRef(params[1])))
  },
  eth_getStorageAt: async (params) => {
    expectArgs(params, 2, 3)
    const value = await node.getStorageAt(
      parseAddress(params[0], 'address'),
      parseSlot(params[1], 'slot'),
      parseBlockRef(params[2]),
    )
    return toFixed(value, 32)
  },
  eth_accounts: () => node.accounts.map((a) => a.address),
  eth_requestAccounts: () => node.accounts.map((a) => a.address),
  eth_coinbase: () => `0x${'0'.repeat(40)}`,
})
