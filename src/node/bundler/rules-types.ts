// What the ERC-7562 rule checks share: the entities, a broken rule, which entities are staked, and what
// the checks know of the op.
import type { Associations } from './rules-associations.js'

export type Entity = 'account' | 'paymaster' | 'factory'

export interface Violation {
  entity: Entity
  rule: string
  what: string
  /** The rule allows this to a staked entity, and the entity (`entity`) is not staked: ERC-7769's -32505. */
  needsStake?: true
}

/** Which of the op's entities are staked (ERC-7562 SREP-010: MIN_STAKE_VALUE and MIN_UNSTAKE_DELAY). */
export interface StakedEntities {
  account?: boolean
  paymaster?: boolean
  factory?: boolean
}

/** What the checks know of the op (addresses lowercase hex). */
export interface RuleContext {
  entryPoint: string
  senderCreator: string
  sender: string
  factory?: string
  paymaster?: string
  /** The op deploys its sender (initCode names a factory). */
  creating: boolean
  staked: StakedEntities
  associations: Associations
}
