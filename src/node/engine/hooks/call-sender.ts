// geth skips the sender-is-EOA check (EIP-3607) for eth_call and eth_simulateV1; ethereumjs' runTx
// has no option to (vm/src/runTx.ts: RunTxOpts has skipNonce/skipBalance/… only). This runs a
// call's transaction with the sender's code hash reading as empty for that one check — it is the
// first code-hash read of the first getAccount(sender) runTx makes — and real everywhere after.
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { type Address, equalsBytes, KECCAK256_NULL } from '@ethereumjs/util'
import { type RunTxOpts, type RunTxResult, runTx, type VM } from '@ethereumjs/vm'

const DELEGATION_PREFIX = Uint8Array.from([0xef, 0x01, 0x00])

export async function runTxIgnoringSenderCode(vm: VM, opts: RunTxOpts): Promise<RunTxResult> {
  const state = vm.stateManager as MerkleStateManager
  const sender = opts.tx.getSenderAddress()
  const account = await state.getAccount(sender)
  if (!account || equalsBytes(account.codeHash, KECCAK256_NULL)) return runTx(vm, opts)
  const code = await state.getCode(sender)
  // An EIP-7702 delegation is code runTx accepts from a sender anyway.
  if (code.length >= 3 && equalsBytes(code.subarray(0, 3), DELEGATION_PREFIX)) return runTx(vm, opts)
  const getAccount = state.getAccount
  const unhook = () => {
    delete (state as { getAccount?: unknown }).getAccount
    if (state.getAccount !== getAccount) state.getAccount = getAccount
  }
  state.getAccount = async (address: Address) => {
    const found = await getAccount.call(state, address)
    if (!found || !address.equals(sender)) return found
    unhook()
    const real = found.codeHash
    let reads = 0
    Object.defineProperty(found, 'codeHash', {
      configurable: true,
      get: () => (reads++ === 0 ? KECCAK256_NULL : real),
      set: (value: Uint8Array) => Object.defineProperty(found, 'codeHash', { value, writable: true, configurable: true }),
    })
    return found
  }
  try {
    return await runTx(vm, opts)
  } finally {
    unhook()
  }
}
