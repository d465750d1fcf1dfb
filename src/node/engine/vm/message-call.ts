// eth_call's common case without runTx's bookkeeping. A call that pays no fee, moves no value and
// carries no access list, blobs or authorizations has an output (return data, error, logs) that
// depends only on the EVM run runTx starts: the sender's nonce bump, the warm addresses and the gas
// left after intrinsic gas. The rest of runTx (upfront cost, fee credits, refunds, receipt, bloom,
// EIP-161 cleanup) changes only gas figures and state the call's revert drops, and is most of a
// plain call's cost outside the EVM.
// The steps follow ethereumjs' runTx (vm/src/runTx.ts) in order; test/message-call.test.ts runs
// calls both ways and compares their outputs.
import type { Block } from '@ethereumjs/block'
import type { EVMResult } from '@ethereumjs/evm'
import { getCalldataFloorGas, type TypedTransaction } from '@ethereumjs/tx'
import { Account, type Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { hexKey } from '../../bytes.js'
import { precompileMap } from '../hooks/precompiles.js'

// EIPs that change runTx's steps around the EVM run (state gas and its reservoir, block access
// lists, binary trees, EIP-2780's top-frame charges): with any active, calls take runTx.
const REWORKED_BY = [8037, 7928, 7864, 2780]

/** Whether the transaction of a call can run as a bare message on `vm` (see above). */
export function runsAsMessage(vm: VM, tx: TypedTransaction, baseFee: bigint): boolean {
  if (tx.to === undefined || tx.value !== 0n || baseFee !== 0n || tx.type !== 2) return false
  const fees = tx as TypedTransaction & { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint; accessList: unknown[] }
  if (fees.maxFeePerGas !== 0n || fees.maxPriorityFeePerGas !== 0n || fees.accessList.length > 0) return false
  return !REWORKED_BY.some((eip) => vm.common.isActivatedEIP(eip))
}

/**
 * Runs `tx` (runsAsMessage) from `caller` as runTx would up to the EVM's result; undefined when
 * its gas is below the minimum runTx accepts (runTx then refuses it in its own words). State
 * changes stay in the journal's checkpoints, committed into the caller's, which reverts them.
 */
export async function runAsMessage(vm: VM, tx: TypedTransaction, block: Block, caller: Address): Promise<EVMResult | undefined> {
  // runTx's minimum: intrinsic gas and the EIP-7623 calldata floor (0 before Prague).
  const intrinsic = tx.getIntrinsicGas()
  if (tx.gasLimit < intrinsic || tx.gasLimit < getCalldataFloorGas(tx as never, caller)) return undefined
  const journal = vm.evm.journal
  const state = vm.stateManager
  await journal.cleanup()
  await journal.checkpoint()
  try {
    const account = (await state.getAccount(caller)) ?? new Account()
    account.nonce += 1n
    await journal.putAccount(caller, account)
    await journal.checkpoint()
    let result: EVMResult
    try {
      if (vm.common.isActivatedEIP(2929)) {
        for (const address of precompileMap(vm).keys()) journal.addAlwaysWarmAddress(address)
        journal.addAlwaysWarmAddress(hexKey(caller.bytes))
        journal.addAlwaysWarmAddress(hexKey((tx.to as Address).bytes))
        if (vm.common.isActivatedEIP(3651)) journal.addAlwaysWarmAddress(hexKey(block.header.coinbase.bytes))
      }
      result = await vm.evm.runCall({
        block,
        gasPrice: 0n,
        caller,
        gasLimit: tx.gasLimit - intrinsic,
        to: tx.to,
        value: 0n,
        data: tx.data,
        skipNonceIncrement: true,
      })
    } catch (error) {
      await journal.revert()
      throw error
    }
    await journal.commit()
    await journal.commit()
    return result
  } catch (error) {
    await journal.revert()
    throw error
  } finally {
    journal.cleanJournal()
    state.originalStorageCache.clear()
  }
}
