// The shape of a method group (blocks.ts, dev.ts, …): its own file, since index.ts imports every
// group and a group importing index.ts would close an import cycle.
import type { DevNode } from '../../node/node.js'
import type { MethodTable } from '../dispatch.js'

/** Each method group is a function of the node returning its slice of the table. */
export type MethodGroup = (node: DevNode) => MethodTable
