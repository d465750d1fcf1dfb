// Account state reads at any block; "pending" is the pre-confirmed state.
import { expectArgs } from '../dispatch.js'
import { invalidParams } from '../errors.js'
import { parseAddress, parseSlot, toData, toFixed, toQuantity } from '../hex.js'
import { parseBlockRef } from '../params.js'
import type { MethodGroup } from './group.js'

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
  /**
   * reth's (and anvil's) eth_getAccountInfo: balance, nonce and code in one answer. Forks of pcnode
   * read accounts with it, and forge's preflight asks it.
   */
  eth_getAccountInfo: async (params) => {
    expectArgs(params, 1, 2)
    const address = parseAddress(params[0], 'address')
    const ref = parseBlockRef(params[1])
    const [balance, nonce, code] = await Promise.all([
      node.getBalance(address, ref),
      node.getTransactionCount(address, ref),
      node.getCode(address, ref),
    ])
    return { balance: toQuantity(balance), nonce: toQuantity(nonce), code: toData(code) }
  },
  /** EIP-1186, as geth answers it: 32-byte keys come back as given, shorter ones as quantities. */
  eth_getProof: async (params) => {
    expectArgs(params, 2, 3)
    const address = parseAddress(params[0], 'address')
    if (!Array.isArray(params[1])) throw invalidParams('invalid argument 1: expected an array of storage keys')
    const keys = params[1].map((k, i) => {
      const name = `storageKeys[${i}]`
      if (typeof k !== 'string') throw invalidParams(`invalid argument ${name}: expected a hex string`)
      return { slot: parseSlot(k, name), whole: /^0x[0-9a-fA-F]{64}$/.test(k) }
    })
    const proof = await node.getProof(
      address,
      keys.map((k) => k.slot),
      parseBlockRef(params[2]),
    )
    return {
      address: toData(address),
      accountProof: proof.accountProof.map(toData),
      balance: toQuantity(proof.balance),
      codeHash: toData(proof.codeHash),
      nonce: toQuantity(proof.nonce),
      storageHash: toData(proof.storageHash),
      storageProof: proof.storageProof.map((p, i) => ({
        key: keys[i].whole ? toData(p.key) : toQuantity(BigInt(toData(p.key))),
        value: toQuantity(p.value),
        proof: p.proof.map(toData),
      })),
    }
  },
  eth_accounts: () => node.accounts.map((a) => a.address),
  eth_requestAccounts: () => node.accounts.map((a) => a.address),
  eth_coinbase: () => `0x${'0'.repeat(40)}`,
})
