// Signing with the dev accounts, as a wallet would: eth_sign, personal_sign, eth_signTypedData_v4.
import type { TypedDataDefinition } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { DevAccount } from '../../node/accounts.js'
import type { DevNode } from '../../node/node.js'
import { expectArgs } from '../dispatch.js'
import { invalidParams, RpcError } from '../errors.js'
import { parseAddress, parseData } from '../hex.js'
import type { MethodGroup } from './group.js'

function signer(node: DevNode, value: unknown, name: string): DevAccount {
  const account = node.devAccount(parseAddress(value, name))
  if (!account) throw new RpcError(-32000, 'unknown account')
  return account
}

export const signingMethods: MethodGroup = (node) => ({
  eth_sign: async (params) => {
    expectArgs(params, 2, 2)
    const account = signer(node, params[0], 'address')
    const message = parseData(params[1], 'message')
    return privateKeyToAccount(account.privateKey).signMessage({ message: { raw: message } })
  },
  personal_sign: async (params) => {
    expectArgs(params, 2, 3)
    // personal_sign takes [message, address]
    const account = signer(node, params[1], 'address')
    const message = parseData(params[0], 'message')
    return privateKeyToAccount(account.privateKey).signMessage({ message: { raw: message } })
  },
  eth_signTypedData_v4: async (params) => {
    expectArgs(params, 2, 2)
    const account = signer(node, params[0], 'address')
    let typedData: unknown = params[1]
    if (typeof typedData === 'string') {
      try {
        typedData = JSON.parse(typedData)
      } catch {
        throw invalidParams('invalid argument 1: typed data is not valid JSON')
      }
    }
    if (typeof typedData !== 'object' || typedData === null) throw invalidParams('invalid argument 1: expected typed data')
    const { domain, types, primaryType, message } = typedData as Record<string, unknown>
    const { EIP712Domain: _, ...rest } = (types ?? {}) as Record<string, unknown>
    try {
      const definition = { domain, types: rest, primaryType, message } as unknown as TypedDataDefinition
      return await privateKeyToAccount(account.privateKey).signTypedData(definition)
    } catch (error) {
      throw invalidParams(`invalid typed data: ${(error as Error).message.split('\n')[0]}`)
    }
  },
  eth_signTypedData: async (params) => signingMethods(node).eth_signTypedData_v4(params, {}),
})
