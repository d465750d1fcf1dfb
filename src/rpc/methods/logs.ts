// eth_getLogs; a range reaching "pending" includes pre-confirmed logs.
import { expectArgs } from '../dispatch.js'
import { formatMatchedLog } from '../format.js'
import { parseLogFilter } from '../params.js'
import type { MethodGroup } from './group.js'

export const logMethods: MethodGroup = (node) => ({
  eth_getLogs: (params) => {
    expectArgs(params, 1, 1)
    return node.getLogs(parseLogFilter(params[0])).map(formatMatchedLog)
  },
})
