// The built-in ERC-4337 bundler's methods (ERC-7769; alto's pimlico_getUserOperationGasPrice; the
// debug_bundler_* controls the eth-infinitism bundler spec tests drive) and ERC-7677's paymaster
// methods for pcnode's development paymaster: parsed here, answered by node/bundler/.
import { getAddress, type Hex, toHex } from 'viem'
import { type ReputationEntry, STATUS_NUMBER } from '../../node/bundler/reputation.js'
import { expectArgs } from '../dispatch.js'
import { invalidParams } from '../errors.js'
import { parseAddress, parseHash, parseQuantity } from '../hex.js'
import { parseStateOverrides } from '../params.js'
import { formatUserOperation, formatUserOperationReceipt, parseUserOperation } from '../user-operation.js'
import type { MethodGroup } from './group.js'

const entryPointArg = (value: unknown, name = 'entryPoint') => getAddress(toHex(parseAddress(value, name)))
const hashArg = (value: unknown) => toHex(parseHash(value, 'userOpHash')) as Hex

/** debug_bundler_setReputation's entries: { address, opsSeen, opsIncluded } with hex quantities. */
function reputationEntries(value: unknown): ReputationEntry[] {
  if (!Array.isArray(value)) throw invalidParams('invalid argument 0: expected an array of { address, opsSeen, opsIncluded }')
  return value.map((e, i) => {
    if (typeof e !== 'object' || e === null) throw invalidParams(`invalid argument 0: entry ${i} is not an object`)
    const { address, opsSeen, opsIncluded } = e as Record<string, unknown>
    return {
      address: getAddress(toHex(parseAddress(address, `0[${i}].address`))),
      opsSeen: parseQuantity(opsSeen, `0[${i}].opsSeen`),
      opsIncluded: parseQuantity(opsIncluded, `0[${i}].opsIncluded`),
    }
  })
}

export const bundlerMethods: MethodGroup = (node) => ({
  eth_supportedEntryPoints: (params) => {
    expectArgs(params, 0, 0)
    return node.bundler.supportedEntryPoints()
  },
  eth_estimateUserOperationGas: async (params) => {
    expectArgs(params, 2, 3)
    const op = parseUserOperation(params[0], 'optional')
    const gas = await node.bundler.estimate(entryPointArg(params[1]), op, parseStateOverrides(params[2], 'stateOverride'))
    return {
      preVerificationGas: toHex(gas.preVerificationGas),
      verificationGasLimit: toHex(gas.verificationGasLimit),
      callGasLimit: toHex(gas.callGasLimit),
      ...(gas.paymasterVerificationGasLimit !== undefined
        ? { paymasterVerificationGasLimit: toHex(gas.paymasterVerificationGasLimit) }
        : {}),
      ...(gas.paymasterPostOpGasLimit !== undefined ? { paymasterPostOpGasLimit: toHex(gas.paymasterPostOpGasLimit) } : {}),
    }
  },
  eth_sendUserOperation: (params) => {
    expectArgs(params, 2, 2)
    return node.bundler.send(entryPointArg(params[1]), parseUserOperation(params[0], 'required'))
  },
  eth_getUserOperationByHash: (params) => {
    expectArgs(params, 1, 1)
    const found = node.bundler.lookup(hashArg(params[0]))
    if (!found) return null
    const { record, outcome } = found
    const block = outcome?.included.block
    return {
      userOperation: formatUserOperation(record.op),
      entryPoint: record.entryPoint.address,
      transactionHash: outcome ? toHex(outcome.included.tx.hash) : null,
      blockHash: block?.sealed ? toHex(block.hash) : outcome ? toHex(node.blockHash(block!)) : null,
      blockNumber: block ? toHex(block.header.number) : null,
    }
  },
  eth_getUserOperationReceipt: (params) => {
    expectArgs(params, 1, 1)
    const hash = hashArg(params[0])
    const found = node.bundler.receipt(hash)
    return found ? formatUserOperationReceipt(hash, found.entryPoint.address, found.outcome) : null
  },
  pimlico_getUserOperationGasPrice: (params) => {
    expectArgs(params, 0, 0)
    const tiers = node.bundler.gasPrice()
    const out: Record<string, { maxFeePerGas: Hex; maxPriorityFeePerGas: Hex }> = {}
    for (const [name, t] of Object.entries(tiers)) {
      out[name] = { maxFeePerGas: toHex(t.maxFeePerGas), maxPriorityFeePerGas: toHex(t.maxPriorityFeePerGas) }
    }
    return out
  },
  pm_getPaymasterStubData: async (params) => {
    expectArgs(params, 3, 4)
    parseUserOperation(params[0], 'optional')
    return node.bundler.paymaster.stubData(entryPointArg(params[1]), parseQuantity(params[2], 'chainId'))
  },
  pm_getPaymasterData: async (params) => {
    expectArgs(params, 3, 4)
    const op = parseUserOperation(params[0], 'optional')
    return node.bundler.paymaster.data(op, entryPointArg(params[1]), parseQuantity(params[2], 'chainId'))
  },
  /** pcnode's switch for the development paymaster: false makes pm_* refuse (an app's failure path). */
  pcnode_setPaymasterSponsoring: (params) => {
    expectArgs(params, 1, 1)
    if (typeof params[0] !== 'boolean') throw invalidParams('invalid argument 0: expected true or false')
    node.bundler.paymaster.setSponsoring(params[0])
    return null
  },
  debug_bundler_clearState: (params) => {
    expectArgs(params, 0, 0)
    node.bundler.clearState()
    return 'ok'
  },
  debug_bundler_clearMempool: (params) => {
    expectArgs(params, 0, 0)
    node.bundler.clearMempool()
    return 'ok'
  },
  /** Status as a number (0 ok, 1 throttled, 2 banned), as the reference bundler, alto, rundler and the spec tests have it. */
  debug_bundler_dumpReputation: async (params) => {
    expectArgs(params, 0, 1)
    const entryPoint = params[0] === undefined ? (await node.bundler.supportedEntryPoints())[0] : entryPointArg(params[0])
    if (!entryPoint) return []
    return (await node.bundler.dumpReputation(entryPoint)).map((e) => ({
      address: e.address,
      opsSeen: toHex(e.opsSeen),
      opsIncluded: toHex(e.opsIncluded),
      status: toHex(STATUS_NUMBER[e.status]),
    }))
  },
  debug_bundler_setReputation: async (params) => {
    expectArgs(params, 1, 2)
    const entries = reputationEntries(params[0])
    const entryPoint = params[1] === undefined ? (await node.bundler.supportedEntryPoints())[0] : entryPointArg(params[1], '1')
    if (!entryPoint) throw invalidParams('no EntryPoint on this chain')
    await node.bundler.setReputation(entryPoint, entries)
    return 'ok'
  },
  debug_bundler_clearReputation: (params) => {
    expectArgs(params, 0, 0)
    node.bundler.reputation.table.clear()
    return 'ok'
  },
  /** The reference bundler's shape: stake and unstakeDelaySec as decimal strings. */
  debug_bundler_getStakeStatus: async (params) => {
    expectArgs(params, 2, 2)
    const address = getAddress(toHex(parseAddress(params[0], 'address')))
    const { stakeInfo, isStaked } = await node.bundler.stakeStatus(entryPointArg(params[1]), address)
    return {
      stakeInfo: {
        addr: stakeInfo.addr,
        stake: stakeInfo.stake.toString(),
        unstakeDelaySec: stakeInfo.unstakeDelaySec.toString(),
      },
      isStaked,
    }
  },
  debug_bundler_dumpMempool: async (params) => {
    expectArgs(params, 0, 1)
    const entryPoint = params[0] === undefined ? (await node.bundler.supportedEntryPoints())[0] : entryPointArg(params[0])
    if (!entryPoint) return []
    return (await node.bundler.dumpMempool(entryPoint)).map(formatUserOperation)
  },
  debug_bundler_sendBundleNow: async (params) => {
    expectArgs(params, 0, 0)
    const [hash] = await node.bundler.bundle()
    return hash ?? null
  },
  debug_bundler_setBundlingMode: (params) => {
    expectArgs(params, 1, 1)
    const mode = params[0]
    if (mode !== 'auto' && mode !== 'manual') throw invalidParams('invalid argument 0: bundling mode must be "auto" or "manual"')
    node.bundler.setMode(mode)
    return 'ok'
  },
})
