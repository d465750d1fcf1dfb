// The explorer's decoding, served by the node (docs/explorer.md): pcnode_decodeCall, pcnode_decodeError,
// pcnode_decodeLog and pcnode_identifyContract, read-only. The node knows what the page cannot (the user's --artifacts
// and which deployed code matches one) and decodes with viem, so the page carries no ABI decoder.
// Each answers null for what it cannot decode or name.

import { artifactsIn } from '../../node/decode/artifacts.js'
import { ContractDecoder, type ContractIdentity, DELEGATED_ACCOUNT, UNKNOWN_PROXY } from '../../node/decode/decoder.js'
import type { DevNode } from '../../node/node.js'
import type { BlockRef } from '../../node/types.js'
import { expectArgs } from '../dispatch.js'
import { invalidParams } from '../errors.js'
import { type Hex, hexToBytes, parseAddress, parseData, parseHash, toData } from '../hex.js'
import { isObject, parseBlockRef } from '../params.js'
import type { MethodGroup } from './group.js'

/** An event has at most four topics (LOG4). */
const MAX_TOPICS = 4

/** EIP-1967's implementation slot: keccak256('eip1967.proxy.implementation') - 1. */
const IMPLEMENTATION_SLOT = hexToBytes('0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc')

export const decodeMethods: MethodGroup = (node: DevNode) => {
  const dir = node.options.artifacts
  const decoder = new ContractDecoder(dir ? artifactsIn(dir) : undefined)

  /** The code at `address` (at `ref`, else pending: a pre-confirmed creation is not at latest yet), and the block read. */
  const codeAt = async (address: Uint8Array, ref: BlockRef): Promise<[Uint8Array, BlockRef]> => {
    const code = await node.getCode(address, ref)
    if (code.length > 0 || !('tag' in ref) || ref.tag !== 'latest') return [code, ref]
    return [await node.getCode(address, { tag: 'pending' }), { tag: 'pending' }]
  }

  /** The contract at `address`, and for an EIP-1967 proxy the implementation the node names. */
  const identify = async (address: Uint8Array, ref: BlockRef): Promise<ContractIdentity | undefined> => {
    const [code, at] = await codeAt(address, ref)
    if (code.length === 0) return undefined
    // An EIP-7702 account (0xef0100 ‖ address): named with the code it delegates to.
    if (code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00) {
      const target = code.subarray(3)
      const implementation = decoder.identify(toData(target), (await codeAt(target, at))[0])
      return implementation && { name: DELEGATED_ACCOUNT, source: 'known', implementation }
    }
    const who = decoder.identify(toData(address), code)
    const slot = (await node.getStorageAt(address, IMPLEMENTATION_SLOT, at)).subarray(12)
    if (slot.every((b) => b === 0)) return who
    const implementation = decoder.identify(toData(slot), (await codeAt(slot, at))[0])
    if (!implementation) return who
    return { ...(who ?? { name: UNKNOWN_PROXY, source: 'known' }), implementation }
  }

  return {
    /** [{ to?, input | data }, block?]: the call decoded, or null. */
    pcnode_decodeCall: async (params) => {
      expectArgs(params, 1, 2)
      const call = params[0]
      if (!isObject(call)) throw invalidParams('invalid argument 0: expected an object { to, input }')
      const input = toData(parseData(call.input ?? call.data, 'input')) as Hex
      const ref = parseBlockRef(params[1])
      const who = call.to === undefined || call.to === null ? undefined : await identify(parseAddress(call.to, 'to'), ref)
      return decoder.decodeCall(input, who) ?? null
    },
    /** [{ to?, data }, block?]: revert data decoded (a custom error, Error, Panic), or null. */
    pcnode_decodeError: async (params) => {
      expectArgs(params, 1, 2)
      const revert = params[0]
      if (!isObject(revert)) throw invalidParams('invalid argument 0: expected an object { to, data }')
      const data = toData(parseData(revert.data, 'data')) as Hex
      const who =
        revert.to === undefined || revert.to === null
          ? undefined
          : await identify(parseAddress(revert.to, 'to'), parseBlockRef(params[1]))
      return decoder.decodeError(data, who) ?? null
    },
    /** [{ address, topics, data }, block?]: the log decoded, or null. */
    pcnode_decodeLog: async (params) => {
      expectArgs(params, 1, 2)
      const log = params[0]
      if (!isObject(log)) throw invalidParams('invalid argument 0: expected an object { address, topics, data }')
      const address = parseAddress(log.address, 'address')
      if (!Array.isArray(log.topics) || log.topics.length > MAX_TOPICS)
        throw invalidParams(`invalid argument topics: expected an array of at most ${MAX_TOPICS} hashes`)
      const topics = log.topics.map((t, i) => toData(parseHash(t, `topics[${i}]`)) as Hex)
      const data = toData(parseData(log.data ?? '0x', 'data')) as Hex
      return decoder.decodeLog(topics, data, await identify(address, parseBlockRef(params[1]))) ?? null
    },
    /** [address, block?]: { name, source, file? } of a contract the node can name, or null. */
    pcnode_identifyContract: async (params) => {
      expectArgs(params, 1, 2)
      const who = await identify(parseAddress(params[0], 'address'), parseBlockRef(params[1]))
      return who ? identityJson(who) : null
    },
  }
}

/** { name, source, file?, implementation? } */
function identityJson(who: ContractIdentity): Record<string, unknown> {
  return {
    name: who.name,
    source: who.source,
    ...(who.file ? { file: who.file } : {}),
    ...(who.implementation ? { implementation: identityJson(who.implementation) } : {}),
  }
}
