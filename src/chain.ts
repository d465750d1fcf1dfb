// A viem chain for a pcnode devnet. `experimental_preconfirmationTime` is what viem's Base
// preconf chains set: clients then default to the "pending" (pre-confirmed) block tag and
// waitForTransactionReceipt polls at that interval, so apps see pre-confirmations as on Base.
// Under --profile base (Denim: 200 ms blocks, no pre-confirmations) it sets no preconfirmation
// time, so clients read "latest" as they do against Base today. Under the OP profiles it carries viem's OP-stack config, as viem's `base` chain does: the
// formatters that parse deposits and OP receipts, the deposit serializer, the predeploys'
// addresses, and Multicall3 (a preinstall) for batched reads.
import type { Chain } from 'viem'
import { defineChain } from 'viem/chains/utils'
import { chainConfig as opStackConfig } from 'viem/op-stack'

export interface PcnodeChainOptions {
  /** Chain id; pcnode's default 31337. */
  id?: number
  /** HTTP JSON-RPC URL; default http://127.0.0.1:8545. */
  rpcUrl?: string
  /** WebSocket URL; default the RPC URL with ws(s):// (pcnode serves both on one port). */
  wsUrl?: string
  /** The node's pre-confirmation interval in ms (default 200). */
  preconfInterval?: number
  /** The node's block time in ms (default the profile's: 2000, or 200 under base); viem derives its default polling interval from it. */
  blockTime?: number
  name?: string
  /**
   * The node's profile: 'flashblocks' (default) and 'base' add the OP-stack formatters and
   * contracts, 'ethereum' none; 'base' has no pre-confirmations to read.
   */
  profile?: 'flashblocks' | 'base' | 'ethereum'
}

export function pcnodeChain(options: PcnodeChainOptions = {}): Chain {
  const rpcUrl = options.rpcUrl ?? 'http://127.0.0.1:8545'
  const wsUrl = options.wsUrl ?? rpcUrl.replace(/^http/i, 'ws')
  const opStack =
    options.profile === 'ethereum'
      ? {}
      : {
          ...opStackConfig,
          contracts: {
            ...opStackConfig.contracts,
            multicall3: { address: '0xcA11bde05977b3631167028862bE2a173976CA11' as const },
          },
        }
  return defineChain({
    ...opStack,
    id: options.id ?? 31337,
    name: options.name ?? 'pcnode',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl], webSocket: [wsUrl] } },
    blockTime: options.blockTime ?? (options.profile === 'base' ? 200 : 2000),
    ...(options.profile === 'base' ? {} : { experimental_preconfirmationTime: options.preconfInterval ?? 200 }),
    testnet: true,
  })
}
