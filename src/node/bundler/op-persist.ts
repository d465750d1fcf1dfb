// The bundler's mempool in the state file (`--state`, anvil_dumpState / anvil_loadState), as the
// transaction pool is kept: the ops waiting to be bundled, and those whose bundle is not in a sealed
// block yet (the bundle itself is saved with the pool), under the file's "userOps" key. On load they
// are the mempool again; in auto mode the waiting ones are bundled at once, as pooled transactions
// are mined after a restart.
import { type Hex, isHex } from 'viem'
import { hexKey } from '../bytes.js'
import type { NodeEvents } from '../events.js'
import type { StateSection } from '../storage/persistence.js'
import { StateFormatError } from '../storage/state-file/decode.js'
import type { IncludedTx } from '../types.js'
import type { Bundler } from './bundler.js'
import { entryPointAt } from './entry-points.js'
import type { OpRecord } from './mempool.js'
import { type UserOp, userOpHash } from './user-op.js'

/** One op as the file keeps it: its fields as viem's UserOperation has them, quantities as hex. */
export interface UserOpJson {
  hash: Hex
  entryPoint: Hex
  status: 'pending' | 'submitted'
  /** The bundle transaction, for a submitted op. */
  transactionHash?: Hex
  userOperation: Record<string, unknown>
}

/** The op's quantity fields (bigints in viem's UserOperation). */
const QUANTITIES = [
  'nonce',
  'callGasLimit',
  'verificationGasLimit',
  'preVerificationGas',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'paymasterVerificationGasLimit',
  'paymasterPostOpGasLimit',
] as const
const REQUIRED = ['sender', 'nonce', 'callData', 'signature', ...QUANTITIES.slice(1, 6)]
const DATA = [
  'sender',
  'callData',
  'signature',
  'factory',
  'factoryData',
  'initCode',
  'paymaster',
  'paymasterData',
  'paymasterAndData',
]

export function userOpSection(
  bundler: Bundler,
  events: NodeEvents,
  chainId: bigint,
  receipt: (txHash: Uint8Array) => IncludedTx | undefined,
): StateSection {
  return {
    key: 'userOps',
    capture: () => {
      const kept = [...bundler.mempool.pending(), ...bundler.mempool.submitted()].filter(
        (r) => r.status === 'pending' || (r.txHash && !receipt(r.txHash)?.block.sealed),
      )
      return kept.map(toJson)
    },
    decode: (entries) => {
      const records = entries.map((raw, i) => fromJson(raw, `userOps[${i}]`, chainId))
      return () => {
        bundler.mempool.clear()
        for (const r of records) bundler.mempool.add(r)
        for (const r of records) {
          const { hash, op, entryPoint } = r
          events.emit('userOp', {
            kind: 'received',
            hash,
            sender: op.sender,
            entryPoint: entryPoint.address,
            version: entryPoint.version,
            restored: true,
          })
          if (r.txHash) events.emit('userOp', { kind: 'bundled', hashes: [hash], txHash: r.txHash, version: entryPoint.version })
        }
        // After the load completes (this runs inside the engine queue, which the bundle's checks need).
        if (bundler.bundlingMode === 'auto' && records.some((r) => r.status === 'pending')) {
          setImmediate(() => bundler.bundle().catch(() => {}))
        }
      }
    },
  }
}

function toJson(r: OpRecord): UserOpJson {
  const userOperation: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(r.op)) {
    if (value !== undefined) userOperation[key] = typeof value === 'bigint' ? `0x${value.toString(16)}` : value
  }
  return {
    hash: r.hash,
    entryPoint: r.entryPoint.address,
    status: r.status === 'submitted' ? 'submitted' : 'pending',
    ...(r.txHash ? { transactionHash: `0x${hexKey(r.txHash)}` as Hex } : {}),
    userOperation,
  }
}

function fromJson(raw: unknown, path: string, chainId: bigint): OpRecord {
  const fail = (problem: string): never => {
    throw new StateFormatError(`${path}: ${problem}`)
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('expected an object')
  const entry = raw as Partial<UserOpJson>
  const entryPoint = typeof entry.entryPoint === 'string' ? entryPointAt(entry.entryPoint) : undefined
  if (!entryPoint) fail(`entryPoint: not an EntryPoint this node serves (${String(entry.entryPoint)})`)
  if (entry.status !== 'pending' && entry.status !== 'submitted') fail('status: expected "pending" or "submitted"')
  const fields = entry.userOperation
  if (typeof fields !== 'object' || fields === null) fail('userOperation: expected an object')
  const op: Record<string, unknown> = { ...fields }
  for (const key of REQUIRED) if (op[key] === undefined) fail(`userOperation.${key}: missing`)
  for (const key of DATA)
    if (op[key] !== undefined && !isHex(op[key], { strict: true })) fail(`userOperation.${key}: expected hex`)
  for (const key of QUANTITIES) {
    const value = op[key]
    if (value === undefined) continue
    if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) fail(`userOperation.${key}: expected a hex quantity`)
    op[key] = BigInt(value as string)
  }
  let hash: Hex | undefined
  try {
    hash = userOpHash(chainId, entryPoint as NonNullable<typeof entryPoint>, op as unknown as UserOp)
  } catch (error) {
    fail(`userOperation: ${(error as Error).message}`)
  }
  // The hash covers every field the EntryPoint checks: an edited op does not pass for the one saved.
  if (hash !== entry.hash) fail(`hash: the op hashes to ${hash}, the file says ${String(entry.hash)}`)
  const tx = entry.transactionHash
  if (entry.status === 'submitted' && (typeof tx !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(tx))) {
    fail('transactionHash: expected the bundle transaction hash of a submitted op')
  }
  return {
    hash: hash as Hex,
    op: op as unknown as UserOp,
    entryPoint: entryPoint as NonNullable<typeof entryPoint>,
    status: entry.status as 'pending' | 'submitted',
    ...(entry.status === 'submitted' ? { txHash: Uint8Array.from(Buffer.from((tx as string).slice(2), 'hex')) } : {}),
    receivedAt: performance.now(),
  }
}
