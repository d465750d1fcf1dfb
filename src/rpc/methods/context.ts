import type { DevNode } from '../../node/node.js'
import type { MethodTable } from '../dispatch.js'

/** Each method group is a function of the node returning its slice of the table. */
export type MethodGroup = (node: DevNode) => MethodTable
