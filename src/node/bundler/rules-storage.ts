// ERC-7562's storage rules over one erc7562Tracer frame's accessed slots: STO-010 (the sender's own
// storage), STO-021/STO-022 (storage associated with the sender in a non-entity contract: once the
// account exists, or while it is created by a staked factory), STO-031..033 (a staked paymaster's or
// factory's own storage, storage associated with it, read-only storage of non-entity contracts), and
// OP-070 (transient slots under the same rules).
import type { Erc7562Frame } from '../tracing/erc7562-tracer.js'
import type { Entity, RuleContext, Violation } from './rules-types.js'

interface Access {
  slot: string
  write: boolean
  transient: boolean
}

function accesses(frame: Erc7562Frame): Access[] {
  const { reads, writes, transientReads, transientWrites } = frame.accessedSlots
  const out: Access[] = []
  for (const slot of Object.keys(writes)) out.push({ slot, write: true, transient: false })
  for (const slot of Object.keys(reads)) if (!(slot in writes)) out.push({ slot, write: false, transient: false })
  for (const slot of Object.keys(transientWrites)) out.push({ slot, write: true, transient: true })
  for (const slot of Object.keys(transientReads))
    if (!(slot in transientWrites)) out.push({ slot, write: false, transient: true })
  return out
}

/** Whose storage the frame's code runs on: its callee, or its caller under DELEGATECALL/CALLCODE (geth's `from` there). */
export function storageOwner(frame: Erc7562Frame): string | undefined {
  return frame.type === 'DELEGATECALL' || frame.type === 'CALLCODE' ? frame.from : frame.to
}

/** The first storage rule the frame's accesses break, for `entity`'s validation. */
export function checkStorage(frame: Erc7562Frame, entity: Entity, ctx: RuleContext): Violation | undefined {
  const owner = storageOwner(frame)
  if (!owner || owner === ctx.sender) return undefined
  const entities = [ctx.sender, ctx.factory, ctx.paymaster]
  const nonEntity = !entities.includes(owner)
  const entityAddress = entity === 'factory' ? ctx.factory : entity === 'paymaster' ? ctx.paymaster : undefined
  const staked = ctx.staked[entity] === true
  for (const { slot, write, transient } of accesses(frame)) {
    const op = transient ? (write ? 'TSTORE' : 'TLOAD') : write ? 'SSTORE' : 'SLOAD'
    const where = `${op} of slot ${slot} of ${owner}`
    const broken = (rule: string, what: string, needsStake?: true, who: Entity = entity): Violation => ({
      entity: who,
      // OP-070: transient slots follow the storage rules; the storage rule broken is named in `what`.
      rule: transient ? 'OP-070' : rule,
      what: transient ? `${what} (${rule})` : what,
      ...(needsStake ? { needsStake } : {}),
    })
    if (nonEntity && ctx.associations.has(slot, ctx.sender)) {
      if (!ctx.creating) continue
      // EREP-020: while the sender is created the factory answers for the validation.
      if (ctx.staked.factory) continue
      return broken('STO-022', `${where}, associated with the sender being created, needs a staked factory`, true, 'factory')
    }
    if (entityAddress !== undefined) {
      let rule: string | undefined
      if (owner === entityAddress) rule = 'STO-031'
      else if (nonEntity && ctx.associations.has(slot, entityAddress)) rule = 'STO-032'
      else if (nonEntity && !write) rule = 'STO-033'
      if (rule) {
        if (staked) continue
        return broken(rule, `${where} needs a staked ${entity}`, true)
      }
    }
    return broken('STO-021', `${where}, not storage of the sender or associated with it`)
  }
  return undefined
}
