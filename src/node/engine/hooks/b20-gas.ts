// Gas of the B20 precompiles as Base charges it. Base's native code (base/base precompile-storage
// evm.rs, macros.rs) charges only: 6 gas per 32-byte word of calldata when a call enters from
// outside, 100 for a token's marker check (its own, warm, account), SLOAD/SSTORE as EIP-2929/2200/
// 3529 price them, a log as LOG's 375 + 375 per topic + 8 per byte (no memory), an account's code
// read as an account access (100, or 2,600 cold), and a new account's code as CREATE's deposit
// (200 per byte + 32,000 + its keccak). Its own work — dispatch, ABI decoding, memory, hashing,
// reading another precompile's storage, signature recovery — is free. pcnode runs Solidity for these
// accounts (b20-code.ts), so while a frame runs that code this swaps the EVM's opcode table for one
// that charges those costs only, gives the frame's entry charges here, and makes the precompiles it
// calls (ecrecover) free. The three singletons, and from Cobalt EIP-8130's TxContext and
// NonceManager, are in revm's static precompile map, which revm warms at the start of every
// transaction; tokens are looked up dynamically and are not warm.
import { Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { type B20Kind, entryCalldata, entryRefusal, revertCode } from './b20-entry.js'
import { type B20Fork, type B20Forks, b20ForkAt } from './b20-forks.js'
import type { OpHandler } from './opcode-wrappers.js'

interface OpcodeInfo {
  code: number
  fee: number
  feeBigInt: bigint
  dynamicGas: boolean
}
type GasHandler = (runState: MeteredState, gas: bigint, common: unknown) => Promise<bigint> | bigint
interface OpEntry {
  opHandler: OpHandler
  opcodeInfo: OpcodeInfo
  gasHandler?: GasHandler
}
interface MeteredState {
  stack: { peek(n?: number): bigint[] }
  interpreter: { isStatic(): boolean; revert(data: Uint8Array): never }
}
/** What runInterpreter receives (ethereumjs 10.1.3, private). */
export interface FrameMessage {
  code?: unknown
  caller?: { bytes: Uint8Array }
  to?: { bytes: Uint8Array }
  codeAddress?: { bytes: Uint8Array }
  delegatecall?: boolean
  data?: Uint8Array
  value?: bigint
  gasLimit: bigint
  /** Set by b20-code.ts: what giving this frame's account its marker costs (createB20). */
  b20SetCodeGas?: bigint
  /** Set by b20-code.ts: the upgrade whose logic the frame runs (the block's). */
  b20Fork?: B20Fork
}
interface FrameResult {
  executionGasUsed: bigint
  exceptionError?: unknown
  returnValue: Uint8Array
}
interface EvmShape {
  _opcodeMap: OpEntry[]
  runCode(opts: { code: Uint8Array; gasLimit: bigint }): Promise<{ executionGasUsed: bigint }>
  runInterpreter(message: FrameMessage, opts?: unknown): Promise<FrameResult>
  /** A nested call passes its message; the transaction's (or eth_call's) top-level call does not. */
  runCall(opts: { message?: unknown; block?: { header: { timestamp: bigint } } }): Promise<unknown>
  runPrecompile(
    code: unknown,
    data: Uint8Array,
    gasLimit: bigint,
  ): Promise<{ executionGasUsed: bigint }> | { executionGasUsed: bigint }
  journal: { addAlwaysWarmAddress(address: string): void }
  stateManager: { getCode(address: Address): Promise<Uint8Array> }
}

const SLOAD = 0x54
const SSTORE = 0x55
const TLOAD = 0x5c
const TSTORE = 0x5d
const LOG0 = 0xa0
const LOG4 = 0xa4
/** BALANCE, EXTCODESIZE, EXTCODECOPY, EXTCODEHASH: Base's with_account_info charges the access. */
const ACCOUNT_READS = new Set([0x31, 0x3b, 0x3c, 0x3f])
/** calldata_gas_cost: ceil(len / 32) × 6 (base/base metrics.rs CALLDATA_WORD_GAS). */
const CALLDATA_WORD_GAS = 6n
/** with_account_info on the token's own, warm, account: EIP-2929's warm read. */
const MARKER_CHECK_GAS = 100n
const LOG_GAS = 375n
const LOG_TOPIC_GAS = 375n
const LOG_DATA_GAS = 8n
const WARM_READ = 100n

const SINGLETONS = [
  'b20f000000000000000000000000000000000000',
  '8453000000000000000000000000000000000001',
  '8453000000000000000000000000000000000002',
]
const ACTIVATION_REGISTRY = new Address(Buffer.from(SINGLETONS[1], 'hex'))
/** EIP-8130's TxContext and NonceManager: in revm's static precompile map from Cobalt, so warm too. */
const EIP8130 = ['813000000000000000000000000000000000aa02', '813000000000000000000000000000000000aa01']

/**
 * A CALL or STATICCALL of the account itself. A DELEGATECALL or CALLCODE from other code is not
 * (revm's is_direct_call); the token's own announce reaches itself by DELEGATECALL, from depth > 0.
 */
function isDirect(message: FrameMessage): boolean {
  if (message.delegatecall === true) return false
  const to = message.to?.bytes
  const code = message.codeAddress?.bytes
  return to === undefined || code === undefined || Buffer.from(to).equals(Buffer.from(code))
}

export const calldataGas = (data: Uint8Array | undefined) => ((BigInt(data?.length ?? 0) + 31n) / 32n) * CALLDATA_WORD_GAS

/** A static frame's write: Base's StaticCallViolation reverts with no data and keeps the unspent gas. */
function refuseStatic(runState: MeteredState): void {
  if (runState.interpreter.isStatic()) runState.interpreter.revert(new Uint8Array(0))
}

/** The metered version of one opcode entry (as the table is when the frame starts). */
function metered(entry: OpEntry): OpEntry {
  const info = entry.opcodeInfo
  const op = info.code
  const original = entry.gasHandler
  const free = { ...info, fee: 0, feeBigInt: 0n }
  if (op === SLOAD || ACCOUNT_READS.has(op)) return { ...entry, opcodeInfo: { ...info } }
  if (op === SSTORE) {
    return {
      ...entry,
      opcodeInfo: { ...info },
      gasHandler: async (rs, gas, common) => {
        refuseStatic(rs)
        return original ? original(rs, gas, common) : gas
      },
    }
  }
  if (op === TLOAD) return { ...entry, opcodeInfo: { ...free, dynamicGas: true }, gasHandler: () => WARM_READ }
  if (op === TSTORE) {
    return {
      ...entry,
      opcodeInfo: { ...free, dynamicGas: true },
      gasHandler: (rs) => {
        refuseStatic(rs)
        return WARM_READ
      },
    }
  }
  if (op >= LOG0 && op <= LOG4) {
    return {
      ...entry,
      opcodeInfo: free,
      gasHandler: async (rs, _gas, common) => {
        refuseStatic(rs)
        const [, size] = rs.stack.peek(2)
        // ethereumjs' own handler for its checks and the memory it grows; its price is not Base's.
        if (original) await original(rs, 0n, common)
        return LOG_GAS + LOG_TOPIC_GAS * BigInt(op - LOG0) + LOG_DATA_GAS * size
      },
    }
  }
  if (!info.dynamicGas || !original) return { ...entry, opcodeInfo: free }
  // Memory, CALL's forwarded gas, KECCAK256…: ethereumjs' handler runs for its effects and checks,
  // its price is dropped (a handler is also what keeps the step loop's inline path off the entry).
  return {
    ...entry,
    opcodeInfo: free,
    gasHandler: async (rs, _gas, common) => {
      await original(rs, 0n, common)
      return 0n
    },
  }
}

/**
 * Code that b20-code.ts counts as a registry's, run by the start-up check: PUSH1 1 PUSH1 0 MSTORE
 * (memory), PUSH1 32 PUSH1 0 LOG0 (a 32-byte log), PUSH1 0 SLOAD POP (a cold slot), STOP. No PUSH0,
 * so it runs under any hardfork a chain starts at (a --genesis chain starts at chainstart).
 */
export const B20_GAS_PROBE = Uint8Array.of(
  0x60,
  0x01,
  0x60,
  0x00,
  0x52,
  0x60,
  0x20,
  0x60,
  0x00,
  0xa0,
  0x60,
  0x00,
  0x54,
  0x50,
  0x00,
)
/** What Base would charge for the probe: the log (375 + 8 × 32) and the read at the EVM's price, nothing else. */
function probeGas(common: VM['common']): bigint {
  const read = common.isActivatedEIP(2929) ? common.param('coldsloadGas') : common.param('sloadGas')
  return LOG_GAS + LOG_DATA_GAS * 32n + BigInt(read)
}

/**
 * Start-up check (selfcheck.ts): ethereumjs still reads the opcode table per frame from
 * `_opcodeMap`, still runs frames through runInterpreter, and the metered probe costs what Base
 * would charge. Run inside a checkpoint, reverted.
 */
export async function checkB20Gas(vm: VM): Promise<boolean> {
  const evm = vm.evm as unknown as EvmShape
  await vm.stateManager.checkpoint()
  try {
    const result = await evm.runCode({ code: B20_GAS_PROBE, gasLimit: 100_000n })
    return result.executionGasUsed === probeGas(vm.common)
  } finally {
    await vm.stateManager.revert()
    await vm.evm.journal.cleanup()
  }
}

/** Entry charges, the metered table, free precompiles and warm singletons for `vm`'s EVM. */
export function installB20Gas(vm: VM, kindOf: (code: unknown) => B20Kind | undefined, forks: B20Forks): void {
  const evm = vm.evm as unknown as EvmShape
  if (typeof evm.runInterpreter !== 'function' || typeof evm.runPrecompile !== 'function') {
    throw new Error('ethereumjs EVM has no runInterpreter/runPrecompile: the B20 gas hook needs updating')
  }
  const cache = new WeakMap<OpEntry, OpEntry>()
  const meteredEntries = new WeakSet<OpEntry>()
  const meteredTable = (table: OpEntry[]) =>
    table.map((entry) => {
      if (!entry || meteredEntries.has(entry)) return entry
      let m = cache.get(entry)
      if (!m) {
        m = metered(entry)
        cache.set(entry, m)
        meteredEntries.add(m)
      }
      return m
    })

  /** Frames of B20 code under way: a frame entered from one of them is Base's internal call. */
  let depth = 0
  const runInterpreter = evm.runInterpreter.bind(evm)
  evm.runInterpreter = async (message: FrameMessage, opts?: unknown) => {
    const kind = kindOf(message.code)
    if (!kind) return runInterpreter(message, opts)
    let charge = message.b20SetCodeGas ?? 0n
    let code = message.code
    let data = message.data
    if (depth === 0) {
      const entryGas = calldataGas(message.data) + (kind === 'token' ? MARKER_CHECK_GAS : 0n)
      const target = { fork: message.b20Fork, address: message.codeAddress?.bytes }
      const refusal = entryRefusal(kind, message.value ?? 0n, message.data ?? new Uint8Array(0), isDirect(message), target)
      if (refusal) code = revertCode(refusal.data)
      else if (data && isDirect(message) && (message.value ?? 0n) === 0n) data = entryCalldata(kind, data, target)
      charge += refusal && !refusal.charged ? 0n : entryGas
    }
    if (charge > message.gasLimit) {
      // Out of gas before any code: the frame fails as an EVM frame does, with all its gas.
      const result = await runInterpreter({ ...message, code: Uint8Array.of(0x60, 0x00), gasLimit: 0n }, opts)
      result.executionGasUsed = message.gasLimit
      return result
    }
    const table = evm._opcodeMap
    evm._opcodeMap = meteredTable(table)
    depth++
    try {
      const result = await runInterpreter({ ...message, code, data, gasLimit: message.gasLimit - charge }, opts)
      result.executionGasUsed += charge
      return result
    } finally {
      depth--
      evm._opcodeMap = table
    }
  }

  // Base recovers a permit's signer natively, uncharged.
  const runPrecompile = evm.runPrecompile.bind(evm)
  evm.runPrecompile = async (code: unknown, data: Uint8Array, gasLimit: bigint) => {
    const result = await runPrecompile(code, data, gasLimit)
    if (depth > 0) result.executionGasUsed = 0n
    return result
  }

  // Where the chain has the precompiles, the singletons are warm from a transaction's start, and
  // EIP-8130's two from the block's Cobalt on. The top-level call (runTx passes it the block, on a
  // journal it cleaned for the transaction) runs before any of the transaction's code, so a first
  // CALL to them is warm; one code read serves both. ethereumjs runs a call without a block in its
  // default block (timestamp 0).
  const runCall = evm.runCall.bind(evm)
  evm.runCall = async (opts) => {
    if (opts.message === undefined) {
      const code = await evm.stateManager.getCode(ACTIVATION_REGISTRY)
      if (code.length === 1 && code[0] === 0xef) {
        for (const address of SINGLETONS) evm.journal.addAlwaysWarmAddress(address)
        if (b20ForkAt(forks, opts.block?.header.timestamp ?? 0n) >= 1) {
          for (const address of EIP8130) evm.journal.addAlwaysWarmAddress(address)
        }
      }
    }
    return runCall(opts)
  }
}
