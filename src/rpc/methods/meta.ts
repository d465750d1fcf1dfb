// web3_*, net_* and the eth_* methods that answer from configuration alone. These work before
// the engine has loaded, so a client's first eth_chainId is answered at once.
import { keccak_256 } from '@noble/hashes/sha3.js'
import { expectArgs, type MethodTable } from '../dispatch.js'
import { parseData, toData, toQuantity } from '../hex.js'

export const CLIENT_VERSION = 'pcnode/v0.1.0'

export function metaMethods(chainId: number): MethodTable {
  return {
    web3_clientVersion: () => CLIENT_VERSION,
    web3_sha3: (params) => {
      expectArgs(params, 1, 1)
      return toData(keccak_256(parseData(params[0], 'data')))
    },
    net_version: () => String(chainId),
    net_listening: () => true,
    net_peerCount: () => '0x0',
    eth_chainId: () => toQuantity(chainId),
    eth_syncing: () => false,
    eth_mining: () => true,
    eth_hashrate: () => '0x0',
    eth_protocolVersion: () => '0x41',
  }
}
