// The library: `import { startNode } from 'pcnode'`. Tests and other projects embed pcnode here.
import type { AppServerOptions, StartedAppServer } from './app/server.js'
import type { DevAccount } from './node/accounts.js'
import type { DevNode } from './node/node.js'
import { type NodeOptions, resolveOptions } from './node/options.js'
import { Dispatcher, type MethodTable } from './rpc/dispatch.js'
import { metaMethods } from './rpc/methods/meta.js'
import { startRpcServer } from './rpc/server.js'

export type { AppContext, AppServerOptions, StartedAppServer, VerifyMode } from './app/server.js'
export { type PcnodeChainOptions, pcnodeChain } from './chain.js'
export type { DevAccount } from './node/accounts.js'
export {
  activationRegistryAbi,
  b20Abi,
  b20FactoryAbi,
  nonceManagerAbi,
  policyRegistryAbi,
  txContextAbi,
} from './node/b20/abi.js'
export {
  ACTIVATION_REGISTRY_ADDRESS,
  B20_FACTORY_ADDRESS,
  B20_FEATURES,
  B20_VARIANT,
  b20Address,
  DEV_ACTIVATION_ADMIN,
  NONCE_MANAGER_ADDRESS,
  POLICY_REGISTRY_ADDRESS,
  TX_CONTEXT_ADDRESS,
} from './node/b20/addresses.js'
export type { ForkStats } from './node/fork/fork.js'
export type { ForkOptions, UpstreamOptions } from './node/fork/options.js'
export type { NodeOptions } from './node/options.js'
export { DEFAULT_MNEMONIC, DEFAULTS } from './node/options.js'

export interface StartedNode {
  /** HTTP JSON-RPC URL, e.g. http://127.0.0.1:8545 */
  rpcUrl: string
  /** WebSocket JSON-RPC URL on the same port. */
  wsUrl: string
  port: number
  chainId: number
  accounts: DevAccount[]
  /** The node itself, for in-process inspection. */
  node: DevNode
  /** Stops the sequencer and closes the server. */
  stop(): Promise<void>
}

/**
 * Starts a node and its JSON-RPC server. The server listens before the engine has loaded and
 * answers eth_chainId and the other static methods at once; the rest wait for the engine.
 */
export async function startNode(options: NodeOptions = {}): Promise<StartedNode> {
  const modules = Promise.all([import('./node/node.js'), import('./rpc/methods/index.js')])
  modules.catch(() => {})
  // A fork's chain id (and profile) are the upstream's: asked before the server answers eth_chainId
  // (while the engine's modules load).
  const fork = options.fork ? await connectFork(options) : undefined
  const resolved = resolveOptions(fork ? fork.options : options)
  // Internal errors (a bug in pcnode, never the caller's input) are logged whatever `silent` says.
  const logError = resolved.logger ?? ((line: string) => console.error(`pcnode: ${line}`))
  const backend = (async () => {
    const [{ DevNode }, { methodTable }] = await modules
    const node = await DevNode.create(resolved, fork?.fork)
    return { node, table: methodTable(node) as MethodTable }
  })()
  backend.catch(() => {})
  const dispatcher = new Dispatcher(
    metaMethods(resolved.chainId),
    backend.then((b) => b.table),
    logError,
  )
  const server = await startRpcServer(dispatcher, resolved.host, resolved.port, {
    allowOrigins: resolved.allowOrigins,
    allowHosts: resolved.allowHosts,
    explorer: resolved.explorer,
  })
  let node: DevNode
  try {
    node = (await backend).node
  } catch (error) {
    await server.close()
    throw error
  }
  let stopped: Promise<void> | undefined
  return {
    rpcUrl: server.url,
    wsUrl: server.wsUrl,
    port: server.port,
    chainId: resolved.chainId,
    accounts: node.accounts,
    node,
    stop: () => {
      stopped ??= (async () => {
        try {
          await node.stop() // writes the state file (--state), which can fail
        } finally {
          await server.close()
        }
      })()
      return stopped
    },
  }
}

async function connectFork(options: NodeOptions) {
  const [{ Fork }, { forkDefaults, forkLog }] = await Promise.all([
    import('./node/fork/fork.js'),
    import('./node/fork/genesis.js'),
  ])
  const fork = await Fork.connect(options.fork as NonNullable<NodeOptions['fork']>, options.dataDir ?? '', forkLog(options))
  return { fork, options: forkDefaults(options, fork) }
}

/**
 * Starts the example typed-data app (GET /typed-data/prepare, POST /typed-data/verify, the page at /)
 * against a node's `rpcUrl`. `startNode` does not start it (`pcnode start` does). Loaded on first use:
 * the app pulls in viem, which the library entry does not pay for at import.
 */
export async function startAppServer(options: AppServerOptions): Promise<StartedAppServer> {
  const app = await import('./app/server.js')
  return app.startAppServer(options)
}
