// eth_createAccessList as geth computes it (internal/ethapi AccessList, with the tracer of
// eth/tracers/logger/access_list_tracer.go): run the call with a tracer that records, opcode by
// opcode, every storage slot the running contract reads or writes (SLOAD, SSTORE: of any contract,
// the sender's and the recipient's included) and every account an opcode names (BALANCE,
// EXTCODE*, SELFDESTRUCT, the CALL family), these last unless excluded: the sender, the recipient
// (or the created contract), the precompiles and the authorities of valid EIP-7702 authorizations.
// Run again with that list until it no longer changes. The answer is the list (sorted by address,
// its keys sorted, as geth sorts it), the gas the call used with it, and the VM's error if it failed.
import { hexToBytes } from 'viem'
import { hexKey } from '../bytes.js'
import { authoritiesOf, type BlockEnv, type ExecView, type StepInfo, type TraceHooks } from '../engine/index.js'
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
  const excluded = excludedAccounts(input)
  let list = AccessListTracer.seeded(req.accessList ?? [], excluded)
  for (let round = 0; ; round++) {
    const accessList = list.entries()
    const tracer = AccessListTracer.seeded(accessList, excluded)
    const outcome = await runReverted(view, env, { ...req, accessList }, gas, nonce, {
      validateBalance: input.validateBalance,
      overrides: input.overrides,
      trace: tracer.hooks,
    })
    if (tracer.equals(list) || round === MAX_ROUNDS) {
      const error = outcome.result.error
      // geth's vm.ErrExecutionReverted text; ethereumjs names it 'revert'.
      return { accessList, gasUsed: outcome.result.gasUsed, error: error === 'revert' ? 'execution reverted' : error }
    }
    list = tracer
  }
}

/**
 * geth's addressesToExclude: sender, recipient, the precompiles, and the authorities of the
 * authorizations that name this chain (or any, chain id 0) and whose nonce can still be used.
 */
function excludedAccounts(input: { view: ExecView; req: CallRequest; recipient: Uint8Array }): Set<string> {
  const { view, req } = input
  const chainId = view.common.chainId()
  const valid = (req.authorizationList ?? []).filter(
    (a) => (a.chainId === 0n || a.chainId === chainId) && a.nonce < 2n ** 64n - 1n,
  )
  return new Set([
    hexKey(req.from ?? new Uint8Array(20)),
    hexKey(input.recipient),
    ...view.precompiles(),
    ...authoritiesOf(valid).map(hexKey),
  ])
}

/** SLOAD, SSTORE: the slot on the stack's top. */
const SLOT_OPS = new Set<number>([0x54, 0x55])
/** EXTCODECOPY, EXTCODEHASH, EXTCODESIZE, BALANCE, SELFDESTRUCT: an account on the stack's top. */
const ACCOUNT_OPS = new Set<number>([0x3c, 0x3f, 0x3b, 0x31, 0xff])
/** DELEGATECALL, CALL, STATICCALL, CALLCODE: an account second from the top (after the gas). */
const CALL_OPS = new Set<number>([0xf4, 0xf1, 0xfa, 0xf2])

const ADDRESS_MASK = (1n << 160n) - 1n

/** geth's AccessListTracer: accounts (hex keys) to their slots (hex keys), filled from the steps it sees. */
class AccessListTracer {
  private readonly list = new Map<string, Set<string>>()

  private constructor(private readonly excluded: Set<string>) {}

  /** A tracer holding `entries` less the excluded accounts (their slots too, as geth drops them). */
  static seeded(entries: AccessListEntry[], excluded: Set<string>): AccessListTracer {
    const tracer = new AccessListTracer(excluded)
    for (const entry of entries) {
      const address = hexKey(entry.address)
      if (excluded.has(address)) continue
      const slots = tracer.account(address)
      for (const key of entry.storageKeys) slots.add(hexKey(key))
    }
    return tracer
  }

  readonly hooks: TraceHooks = {
    step: (step: StepInfo) => {
      const { op, stack } = step
      const top = stack.length - 1
      if (SLOT_OPS.has(op) && top >= 0) {
        // The slot of the contract whose storage the code runs on, excluded or not.
        this.account(hexKey(step.address)).add(stack[top].toString(16).padStart(64, '0'))
      } else if (ACCOUNT_OPS.has(op) && top >= 0) {
        this.named(stack[top])
      } else if (CALL_OPS.has(op) && stack.length >= 5) {
        this.named(stack[top - 1])
      }
    },
  }

  private named(word: bigint): void {
    const address = (word & ADDRESS_MASK).toString(16).padStart(40, '0')
    if (!this.excluded.has(address)) this.account(address)
  }

  private account(address: string): Set<string> {
    let slots = this.list.get(address)
    if (!slots) this.list.set(address, (slots = new Set()))
    return slots
  }

  equals(other: AccessListTracer): boolean {
    if (this.list.size !== other.list.size) return false
    for (const [address, slots] of this.list) {
      const theirs = other.list.get(address)
      if (!theirs || theirs.size !== slots.size) return false
      for (const slot of slots) if (!theirs.has(slot)) return false
    }
    return true
  }

  /** The list as geth's accessList() gives it: accounts by address, each one's keys sorted. */
  entries(): AccessListEntry[] {
    return [...this.list.keys()].sort().map((address) => ({
      address: hexToBytes(`0x${address}`),
      storageKeys: [...(this.list.get(address) ?? [])].sort().map((key) => hexToBytes(`0x${key}`)),
    }))
  }
}
