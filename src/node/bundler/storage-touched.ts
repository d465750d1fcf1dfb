// The contracts whose storage an op's validation read or wrote, from the erc7562Tracer frames of its
// entities' validation calls (a DELEGATECALL or CALLCODE uses its caller's storage). ERC-7562 STO-041
// holds an op back from a bundle while one of them is the sender of another waiting op.
import type { Erc7562Frame } from '../tracing/erc7562-tracer.js'
import { validationCalls } from './rules-check.js'

/** Lowercase addresses of the op's entities (the EntryPoint's own storage is not the op's concern). */
export interface EntityAddresses {
  entryPoint: string
  sender: string
  senderCreator: string
  paymaster?: string
}

/** The contracts whose storage the validation of the op with these entities touched (its sender's own left out). */
export function storageTouched(top: Erc7562Frame, entities: EntityAddresses): string[] {
  const found = new Set<string>()
  const visit = (frame: Erc7562Frame, owner: string | undefined) => {
    const slots = frame.accessedSlots
    const used =
      Object.keys(slots.reads).length +
      Object.keys(slots.writes).length +
      Object.keys(slots.transientReads).length +
      Object.keys(slots.transientWrites).length
    if (owner && used > 0) found.add(owner)
    for (const call of frame.calls ?? []) {
      visit(call, call.type === 'DELEGATECALL' || call.type === 'CALLCODE' ? owner : call.to)
    }
  }
  for (const call of validationCalls(top)) {
    if (call.from !== entities.entryPoint) continue
    if (call.to !== entities.sender && call.to !== entities.senderCreator && call.to !== entities.paymaster) continue
    visit(call, call.to)
  }
  found.delete(entities.sender)
  found.delete(entities.entryPoint)
  return [...found]
}
