// A viem chain for a pcnode devnet. `experimental_preconfirmationTime` is what viem's Base
// preconf chains set: clients then default to the "pending" (pre-confirmed) block tag and
// waitForTransactionReceipt polls at that interval, so apps see pre-confirmations as on Base.
// The small 'viem/chains/utils' entry: the library entry must not pay for all of viem at import.
import type { Chain } from 'viem'
import { defineChain } from 'viem/chains/utils'

export interface PcnodeChainOptions {
  /** Chain id; pcnode's default 31337. */
  id?: number
  /** HTTP JSON-RPC URL; default http://127.0.0.1:8545. */
  rpcUrl?: string
  /** WebSocket URL; default the RPC URL with ws(s):// (pcnode serves both on one port). */
  wsUrl?: string
  /** The node's pre-confirmation interval in ms (default 200). */
  preconfInterval?: number
  /** The node's block time in ms (default 2000); viem derives its default polling interval from it. */
  blockTime?: number
  name?: string
}

export function pcnodeChain(options: PcnodeChainOptions = {}): Chain {
  const rpcUrl = options.rpcUrl ?? 'http://127.0.0.1:8545'
  const wsUrl = options.wsUrl ?? rpcUrl.replace(/^http/i, 'ws')
  return defineChain({
    id: options.id ?? 31337,
    name: options.name ?? 'pcnode',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl], webSocket: [wsUrl] } },
    blockTime: options.blockTime ?? 2000,
    experimental_preconfirmationTime: options.preconfInterval ?? 200,
    testnet: true,
  })
}
