// The bundler's refusals, each with its ERC-7769 code on the class (the codes alto and rundler send):
// rpc/errors.ts maps them like every NodeError. Messages name the EntryPoint's AA code when it gave one.
import { InvalidParamsError, NodeError } from '../errors.js'

/** -32500: the EntryPoint or the account refused the op in validation (AA1x, AA2x, AA9x). */
export class UserOpRejectedError extends NodeError {
  override readonly code: number = -32500
}

/** -32501: the paymaster refused the op in validation (AA3x). */
export class PaymasterRejectedError extends NodeError {
  override readonly code: number = -32501
}

/** -32507: the account's or the paymaster's signature does not verify (AA24, AA34). */
export class SignatureRejectedError extends NodeError {
  override readonly code: number = -32507
}

/** -32521: the op's call reverted while its gas was estimated. */
export class ExecutionRevertedError extends NodeError {
  override readonly code: number = -32521
}

/** -32602: a field is missing or out of range, the EntryPoint is not served, or a replacement is underpriced. */
export class InvalidUserOpError extends InvalidParamsError {}

/** -32502: the op's validation breaks an ERC-7562 rule (a banned opcode, storage it may not touch). */
export class OpcodeViolationError extends NodeError {
  override readonly code: number = -32502
}

/** -32504: an entity the op names is banned, or throttled past its mempool share (ERC-7562 GREP-010/020). */
export class ReputationRefusedError extends NodeError {
  override readonly code: number = -32504
}

/** -32505: an entity the op names is unstaked and past an unstaked entity's mempool share, or must be staked (UREP-*). */
export class StakeTooLowError extends NodeError {
  override readonly code: number = -32505
}

/** -32508: the paymaster's deposit cannot pay for all its waiting ops as well as this one (ERC-7562 EREP-010). */
export class PaymasterDepositTooLowError extends NodeError {
  override readonly code: number = -32508
}

/** -32506: the account names a signature aggregator; this bundler does not aggregate. */
export class UnsupportedAggregatorError extends NodeError {
  override readonly code: number = -32506
}
