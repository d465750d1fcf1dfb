// eth_createAccessList as geth computes it (internal/ethapi AccessList): run the call with every
// account and slot it touches recorded, the sender, the recipient (or the created contract) and
// the precompiles left out; run again with that list until it no longer changes. The answer is the
// list, the gas the call used with it, and the VM's error if the call failed.
import { hexKey } from '../bytes.js'
import type { BlockEnv, ExecView } from '../engine/index.js'
import type { AccessListEntry, CallRequest, StateOverrides } from '../types.js'
import { runReverted } from './call.js'

/** geth stops after as many rounds as it takes; a list can only grow, so this bound is never near. */
const MAX_ROUNDS = 16

export interface AccessListResult {
  accessList: AccessListEntry[]
  gasUsed: bigint
  /** The VM's error ('execution reverted', 'out of gas', …) when the call failed with this list. */
  error?: string
}

export async function createAccessList(input: {
  view: ExecView
  env: BlockEnv
  req: CallRequest
  gas: bigint
  nonce: bigint
  /** Excluded besides the sender and the precompiles: `to`, or the address a creation deploys to. */
  recipient: Uint8Array
  validateBalance: boolean
  overrides?: StateOverrides
}): Promise<AccessListResult> {
  const { view, env, req, gas, nonce } = input
  const excluded = new Set([hexKey(req.from ?? new Uint8Array(20)), hexKey(input.recipient), ...view.precompiles()])
  let list = normalize(req.accessList ?? [], excluded)
  for (let round = 0; ; round++) {
    const outcome = await runReverted(view, env, { ...req, accessList: list }, gas, nonce, {
      validateBalance: input.validateBalance,
      overrides: input.overrides,
      accessList: true,
    })
    const touched = normalize(outcome.result.accessList ?? [], excluded)
    if (same(touched, list) || round === MAX_ROUNDS) {
      const error = outcome.result.error
      // geth's vm.ErrExecutionReverted text; ethereumjs names it 'revert'.
      return { accessList: list, gasUsed: outcome.result.gasUsed, error: error === 'revert' ? 'execution reverted' : error }
    }
    list = touched
  }
}

/** Entries in first-touch order, excluded accounts left out (their slots too, as geth's tracer does). */
function normalize(list: AccessListEntry[], excluded: Set<string>): AccessListEntry[] {
  const byAddress = new Map<string, AccessListEntry>()
  for (const entry of list) {
    const key = hexKey(entry.address)
    if (excluded.has(key)) continue
    const existing = byAddress.get(key)
    if (!existing) {
      byAddress.set(key, { address: entry.address, storageKeys: [...dedupe(entry.storageKeys)] })
    } else {
      existing.storageKeys = [...dedupe([...existing.storageKeys, ...entry.storageKeys])]
    }
  }
  return [...byAddress.values()]
}

function* dedupe(keys: Uint8Array[]): Generator<Uint8Array> {
  const seen = new Set<string>()
  for (const key of keys) {
    const k = hexKey(key)
    if (seen.has(k)) continue
    seen.add(k)
    yield key
  }
}

function same(a: AccessListEntry[], b: AccessListEntry[]): boolean {
  const flat = (list: AccessListEntry[]) =>
    list
      .map((e) => `${hexKey(e.address)}:${e.storageKeys.map(hexKey).sort().join(',')}`)
      .sort()
      .join(';')
  return flat(a) === flat(b)
}
