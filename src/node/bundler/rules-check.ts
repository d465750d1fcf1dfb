// ERC-7562's validation rules checked over what erc7562Tracer collected from handleOps (collect, then
// check, as rundler and the eth-infinitism bundler do). The validation phase is the EntryPoint's calls
// before its BeforeExecution event; each call from the EntryPoint to the sender, the paymaster, or the
// SenderCreator (the factory's deployment) is an entity's validation, and every frame under it is
// checked for that entity:
// - OP-011 banned opcodes, OP-012 GAS not followed by *CALL, OP-080 BALANCE/SELFBALANCE unless staked;
// - OP-020 a frame out of gas; OP-031 CREATE2 other than the factory's one deployment of the sender;
// - OP-041 EXTCODEHASH/EXTCODECOPY/*CALL of an address without code, OP-042 the sender excepted
//   (EXTCODESIZE is let pass: a signature checker's test for an EOA signer);
// - OP-051..054 the EntryPoint: EXTCODESIZE ISZERO (left out by the tracer), depositTo(sender) from the
//   sender or factory, the fallback from the sender, nothing else;
// - OP-061 *CALL with value except to the EntryPoint; OP-062 only the precompiles 0x01..0x09 and
//   RIP-7212's P256VERIFY (0x100);
// - the storage rules (rules-storage.ts), OP-070 transient storage under them;
// - EREP-050 an unstaked paymaster returning a context.
import { type Address, decodeAbiParameters, type Hex, keccak256, pad, parseAbiParameters, slice, toBytes } from 'viem'
import { opName } from '../engine/index.js'
import type { Erc7562Frame } from '../tracing/erc7562-tracer.js'
import { checkStorage } from './rules-storage.js'
import type { Entity, RuleContext, Violation } from './rules-types.js'

/** keccak256("BeforeExecution()"): the EntryPoint's event between validation and execution. */
const BEFORE_EXECUTION = keccak256(toBytes('BeforeExecution()'))
/** validatePaymasterUserOp's return values in every EntryPoint version. */
const PAYMASTER_VALIDATION = parseAbiParameters('bytes context, uint256 validationData')
/** depositTo(address). */
const DEPOSIT_TO = '0xb760faf9'

const BANNED = new Set([
  0x32, // ORIGIN
  0x3a, // GASPRICE
  0x40, // BLOCKHASH
  0x41, // COINBASE
  0x42, // TIMESTAMP
  0x43, // NUMBER
  0x44, // PREVRANDAO
  0x45, // GASLIMIT
  0x48, // BASEFEE
  0x49, // BLOBHASH
  0x4a, // BLOBBASEFEE
  0xf0, // CREATE
  0xfe, // INVALID
  0xff, // SELFDESTRUCT
])
const GAS = 0x5a
const EXTCODESIZE = 0x3b
const STAKED_ONLY = new Set([0x31, 0x47]) // BALANCE, SELFBALANCE
const CALLS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL'])
/** Where precompiles live (Ethereum's from 0x01, RIP-7212's at 0x100): no code, but not OP-041's concern. */
const PRECOMPILE_RANGE = 0x1ffn
const ALLOWED_PRECOMPILES = new Set([1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 0x100n])

const isPrecompile = (address: string) => {
  const n = BigInt(address)
  return n > 0n && n <= PRECOMPILE_RANGE
}

/** The EntryPoint's calls before BeforeExecution (all of them when it never came: handleOps then failed). */
export function validationCalls(top: Erc7562Frame): Erc7562Frame[] {
  const calls = top.calls ?? []
  const event = top.logs?.find((log) => log.topics[0] === BEFORE_EXECUTION)
  return event ? calls.slice(0, Number(event.position)) : calls
}

/** The first rule the validation frames break. */
export function findViolation(top: Erc7562Frame, ctx: RuleContext): Violation | undefined {
  const created = { count: 0 }
  for (const call of validationCalls(top)) {
    if (call.from !== ctx.entryPoint) continue
    const entity: Entity | undefined =
      call.to === ctx.sender
        ? 'account'
        : call.to === ctx.senderCreator
          ? 'factory'
          : call.to !== undefined && call.to === ctx.paymaster
            ? 'paymaster'
            : undefined
    if (!entity) continue
    const found = checkFrame(call, entity, ctx, created) ?? (entity === 'paymaster' ? unstakedContext(call, ctx) : undefined)
    if (found) return found
  }
  return undefined
}

function checkFrame(frame: Erc7562Frame, entity: Entity, ctx: RuleContext, created: { count: number }): Violation | undefined {
  const broken = (rule: string, what: string, needsStake?: true): Violation => ({
    entity,
    rule,
    what,
    ...(needsStake ? { needsStake } : {}),
  })
  const to = frame.to
  if (CALLS.has(frame.type) && to === ctx.entryPoint && frame.from !== ctx.entryPoint) return entryPointCall(frame, ctx, broken)
  if (CALLS.has(frame.type) && to !== undefined && isPrecompile(to)) {
    return ALLOWED_PRECOMPILES.has(BigInt(to)) ? undefined : broken('OP-062', `a call to precompile ${to}`)
  }
  if ((frame.type === 'CALL' || frame.type === 'CALLCODE') && frame.value !== undefined && BigInt(frame.value) !== 0n) {
    return broken('OP-061', `a call with value to ${to}`)
  }
  if (frame.type === 'CREATE2') {
    created.count++
    if (entity !== 'factory' || to !== ctx.sender || created.count > 1) {
      return broken('OP-031', `CREATE2 of ${to ?? 'a contract that failed'}: only the factory's one deployment of the sender`)
    }
  }
  if (frame.type === 'CREATE') return broken('OP-011', 'CREATE')
  if (frame.outOfGas) return broken('OP-020', `${frame.type} to ${to} ran out of gas`)
  for (const key of Object.keys(frame.usedOpcodes)) {
    const op = Number(key)
    if (BANNED.has(op)) return broken('OP-011', opName(op))
    if (op === GAS) return broken('OP-012', 'GAS not followed by a call')
    if (STAKED_ONLY.has(op) && !ctx.staked[entity]) return broken('OP-080', `${opName(op)} needs a staked ${entity}`, true)
  }
  for (const [address, { contractSize, opcode }] of Object.entries(frame.contractSize)) {
    if (contractSize > 0 || address === ctx.sender || isPrecompile(address)) continue
    // EXTCODESIZE is how signature checkers tell an EOA signer from an ERC-1271 one (solady's
    // SignatureCheckerLib under viem's toSoladySmartAccount, OpenZeppelin's SignatureChecker): strict
    // OP-041 would refuse every such account whose owner is an EOA, so pcnode lets it pass.
    if (opcode === EXTCODESIZE) continue
    return broken('OP-041', `${opName(opcode)} of ${address}, which has no code`)
  }
  if (frame.extCodeAccessInfo.includes(ctx.entryPoint)) {
    return broken('OP-054', 'EXTCODE* of the EntryPoint other than EXTCODESIZE followed by ISZERO (OP-051)')
  }
  const storage = checkStorage(frame, entity, ctx)
  if (storage) return storage
  for (const call of frame.calls ?? []) {
    const found = checkFrame(call, entity, ctx, created)
    if (found) return found
  }
  return undefined
}

/**
 * EREP-050: an unstaked paymaster's validatePaymasterUserOp returns an empty context (so no postOp
 * runs for it). The current ERC-7562 text lists the rule as removed; the reference bundler's
 * ERC7562Parser still checks it, and pcnode follows the reference bundler.
 */
function unstakedContext(frame: Erc7562Frame, ctx: RuleContext): Violation | undefined {
  if (ctx.staked.paymaster || frame.error !== undefined || !frame.output) return undefined
  let context: Hex
  try {
    ;[context] = decodeAbiParameters(PAYMASTER_VALIDATION, frame.output as Hex)
  } catch {
    return undefined // not validatePaymasterUserOp's shape: the EntryPoint refuses that itself
  }
  if (context === '0x') return undefined
  return {
    entity: 'paymaster',
    rule: 'EREP-050',
    what: `an unstaked paymaster returned a context (${(context.length - 2) / 2} bytes) from validatePaymasterUserOp`,
    needsStake: true,
  }
}

/** OP-052/053/054: depositTo(sender) from the sender or factory, the fallback from the sender; nothing else. */
function entryPointCall(
  frame: Erc7562Frame,
  ctx: RuleContext,
  broken: (rule: string, what: string) => Violation,
): Violation | undefined {
  const input = frame.input as Hex
  const from = frame.from
  if (input === '0x' && from === ctx.sender) return undefined
  if (
    input.length === 74 &&
    slice(input, 0, 4) === DEPOSIT_TO &&
    slice(input, 4) === pad(ctx.sender as Address) &&
    (from === ctx.sender || from === ctx.factory)
  ) {
    return undefined
  }
  const what = input === '0x' ? 'its fallback' : input.length >= 10 ? `selector ${input.slice(0, 10)}` : `input ${input}`
  return broken(
    'OP-054',
    `a call to the EntryPoint (${what}) from ${from}: only depositTo(sender) from the sender or factory and the fallback from the sender`,
  )
}
