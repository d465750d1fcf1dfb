// A user operation's status: pcnode_userOperationStatus (its stages and their times, as
// pcnode_transactionStatus gives a transaction's) and alto's pimlico_getUserOperationStatus
// ({status, transactionHash}, alto's src/types/schemas.ts userOperationStatus), both read off
// node/bundler/op-stages.ts.
import type { Hex } from 'viem'
import type { OpState, OpStatus } from '../../node/bundler/op-stages.js'
import { blockMillis } from '../../node/opstack/denim.js'
import { expectArgs } from '../dispatch.js'
import { parseHash, toData, toQuantity } from '../hex.js'
import type { MethodGroup } from './group.js'

/** alto's words for pcnode's states: its mempool's not_submitted, a sent bundle's submitted, included, rejected, failed. */
const PIMLICO_STATUS: Record<OpState, string> = {
  pending: 'not_submitted',
  bundled: 'submitted',
  preconfirmed: 'included',
  confirmed: 'included',
  failed: 'failed',
  dropped: 'rejected',
  replaced: 'rejected',
  refused: 'rejected',
  unknown: 'not_found',
}

export const userOpStatusMethods: MethodGroup = (node) => {
  const statusOf = (value: unknown): OpStatus => node.opStages.status(toData(parseHash(value, 'userOpHash')) as Hex)
  return {
    pcnode_userOperationStatus: (params) => {
      expectArgs(params, 1, 1)
      const s = statusOf(params[0])
      const out: Record<string, unknown> = { status: s.status }
      if (s.entryPoint) out.entryPoint = s.entryPoint
      if (s.sender) out.sender = s.sender
      if (s.transactionHash) out.transactionHash = toData(s.transactionHash)
      const t = s.included
      if (t) {
        out.blockNumber = toQuantity(t.block.header.number)
        // A Denim block (profile base) is built whole: it has no flashblocks to place the bundle in.
        if (blockMillis(t.block) === undefined) out.flashblockIndex = toQuantity(t.flashblockIndex)
        if (t.block.sealed) out.blockHash = toData(t.block.hash)
      }
      if (s.success !== undefined) out.success = s.success
      if (s.revertReason !== undefined) out.revertReason = s.revertReason
      if (s.reason !== undefined) out.reason = s.reason
      if (s.code !== undefined) out.code = s.code
      if (s.replacedBy) out.replacedBy = s.replacedBy
      return { ...out, ...s.times }
    },
    pimlico_getUserOperationStatus: (params) => {
      expectArgs(params, 1, 1)
      const s = statusOf(params[0])
      // A rejected op carries no transaction in alto's answer, even when its bundle had been sent.
      const status = PIMLICO_STATUS[s.status]
      const tx = status === 'rejected' || !s.transactionHash ? null : toData(s.transactionHash)
      return { status, transactionHash: tx }
    },
  }
}
