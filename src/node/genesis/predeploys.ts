// Genesis predeploys: the smart-wallet factory and, through its constructor, the wallet implementation.
// The factory's creation code runs in the VM (rather than its runtime code being written into state) because
// both contracts carry immutables that point at each other: the implementation accepts `initialize` only
// from the address that deployed it. CREATE from a fixed deployer at nonce 0 gives the same two addresses on
// every chain id and for every compiler output; the constants in src/contracts/index.ts are checked here.
import { Address, hexToBytes } from '@ethereumjs/util'
import {
  PcnodeWalletFactory,
  PREDEPLOY_DEPLOYER_ADDRESS,
  WALLET_FACTORY_ADDRESS,
  WALLET_IMPLEMENTATION_ADDRESS,
} from '../../contracts/index.js'
import type { Engine } from '../engine/engine.js'

/** Plenty for the factory plus the implementation (~2.6M gas); runCall does not check a block limit. */
const DEPLOY_GAS = 30_000_000n

/**
 * Runs the factory's creation code from PREDEPLOY_DEPLOYER_ADDRESS. Call inside the genesis checkpoint
 * (writeGenesisState): the deployer ends with nonce 1, the factory and implementation with their code.
 */
export async function installPredeploys(engine: Engine): Promise<void> {
  const { evm } = engine.vm
  const result = await evm.runCall({
    caller: new Address(hexToBytes(PREDEPLOY_DEPLOYER_ADDRESS)),
    data: hexToBytes(PcnodeWalletFactory.bytecode),
    gasLimit: DEPLOY_GAS,
  })
  // Drop the call's warm/touched sets so they don't leak into the first transaction.
  await evm.journal.cleanup()
  const error = result.execResult.exceptionError
  if (error) throw new Error(`genesis: deploying the wallet factory failed: ${error.error}`)
  const factory = result.createdAddress?.toString().toLowerCase()
  if (factory !== WALLET_FACTORY_ADDRESS.toLowerCase()) {
    throw new Error(`genesis: wallet factory deployed at ${factory}, expected ${WALLET_FACTORY_ADDRESS}`)
  }
  const implementation = await engine.state.getCode(new Address(hexToBytes(WALLET_IMPLEMENTATION_ADDRESS)))
  if (implementation.length === 0) throw new Error(`genesis: no wallet implementation at ${WALLET_IMPLEMENTATION_ADDRESS}`)
}
