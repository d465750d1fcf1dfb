// The method table: every JSON-RPC method name mapped to its handler, grouped by concern.
import type { DevNode } from '../../node/node.js'
import type { MethodTable } from '../dispatch.js'
import { blockMethods } from './blocks.js'
import { bundlerMethods } from './bundler.js'
import { debugMethods } from './debug.js'
import { decodeMethods } from './decode.js'
import { devMethods } from './dev.js'
import { executionMethods } from './execution.js'
import { faultMethods } from './faults.js'
import { feeMethods } from './fees.js'
import { withFork } from './fork.js'
import { logMethods } from './logs.js'
import { metaMethods } from './meta.js'
import { otterscanMethods } from './otterscan.js'
import { pubsubMethods } from './pubsub.js'
import { signingMethods } from './signing.js'
import { simulateMethods } from './simulate.js'
import { stateMethods } from './state.js'
import { transactionMethods } from './transactions.js'
import { userOpStatusMethods } from './user-op-status.js'
import { walletMethods } from './wallet.js'

export function methodTable(node: DevNode): MethodTable {
  return withFork(node, {
    ...metaMethods(Number(node.chainId)),
    ...stateMethods(node),
    ...blockMethods(node),
    ...transactionMethods(node),
    ...executionMethods(node),
    ...feeMethods(node),
    ...logMethods(node),
    ...signingMethods(node),
    ...devMethods(node),
    ...faultMethods(node),
    ...simulateMethods(node),
    ...pubsubMethods(node),
    ...debugMethods(node),
    ...otterscanMethods(node),
    ...walletMethods(node),
    ...bundlerMethods(node),
    ...decodeMethods(node),
    ...userOpStatusMethods(node),
  })
}
