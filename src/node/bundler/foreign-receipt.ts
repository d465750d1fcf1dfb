// eth_getUserOperationReceipt for an op this bundler did not send (another bundler, handleOps called
// directly): its UserOperationEvent found in the chain's logs, read as the bundler reads its own.
import { encodeEventTopics, type Hex, hexToBytes, toHex } from 'viem'
import { entryPoint07Abi } from 'viem/account-abstraction'
import type { IncludedTx } from '../types.js'
import { ENTRY_POINTS, type EntryPoint, entryPointAt } from './entry-points.js'
import type { BundlerParts } from './parts.js'
import { outcomeIn, type UserOpOutcome } from './receipt.js'

/** UserOperationEvent's topic, the same in every EntryPoint version. */
const [USER_OPERATION_EVENT] = encodeEventTopics({ abi: entryPoint07Abi, eventName: 'UserOperationEvent' }) as [Hex]

export function foreignReceipt(parts: BundlerParts, hash: Hex): { entryPoint: EntryPoint; outcome: UserOpOutcome } | undefined {
  let found: IncludedTx | undefined
  try {
    found = parts.logs({
      fromBlock: { tag: 'earliest' },
      toBlock: { tag: 'pending' },
      addresses: ENTRY_POINTS.map((e) => hexToBytes(e.address)),
      topics: [[hexToBytes(USER_OPERATION_EVENT)], [hexToBytes(hash)]],
    })[0]?.tx
  } catch {
    return undefined // a range the node will not search (pruned or too long): not found
  }
  const log = found?.receipt.logs.find((l) => toHex(l.topics[1] ?? new Uint8Array()) === hash)
  const entryPoint = log && entryPointAt(toHex(log.address))
  const outcome = found && entryPoint && outcomeIn(entryPoint, hash, found)
  return outcome ? { entryPoint, outcome } : undefined
}
