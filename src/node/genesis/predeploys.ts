// Genesis predeploys: the smart-wallet factory and, through its constructor, the wallet implementation.
// The factory's creation code runs in the VM (rather than its runtime code being written into state) because
// both contracts carry immutables that point at each other: the implementation accepts `initialize` only
// from the address that deployed it. CREATE from a fixed deployer at nonce 0 gives the same two addresses on
// every chain id and for every compiler output; the constants in src/contracts/index.ts are checked here.
import {
  PcnodeWalletFactory,
  PREDEPLOY_DEPLOYER_ADDRESS,
  WALLET_FACTORY_ADDRESS,
  WALLET_IMPLEMENTATION_ADDRESS,
} from '../../contracts/index.js'
import type { Engine } from '../engine/index.js'

/** Plenty for the factory plus the implementation (~2.6M gas); runCall does not check a block limit. */
const DEPLOY_GAS = 30_000_000n

/**
 * Runs the factory's creation code from PREDEPLOY_DEPLOYER_ADDRESS. Call inside the genesis checkpoint
 * (writeGenesisState): the deployer ends with nonce 1, the factory and implementation with their code.
 */
export async function installPredeploys(engine: Engine): Promise<void> {
  const result = await engine.runCreation(hex(PREDEPLOY_DEPLOYER_ADDRESS), hex(PcnodeWalletFactory.bytecode), DEPLOY_GAS)
  if (result.error) throw new Error(`genesis: deploying the wallet factory failed: ${result.error}`)
  const factory = result.createdAddress && `0x${Buffer.from(result.createdAddress).toString('hex')}`
  if (factory !== WALLET_FACTORY_ADDRESS.toLowerCase()) {
    throw new Error(`genesis: wallet factory deployed at ${factory}, expected ${WALLET_FACTORY_ADDRESS}`)
  }
  const implementation = await engine.live.code(hex(WALLET_IMPLEMENTATION_ADDRESS))
  if (implementation.length === 0) throw new Error(`genesis: no wallet implementation at ${WALLET_IMPLEMENTATION_ADDRESS}`)
}

function hex(value: string): Uint8Array {
  return Uint8Array.from(Buffer.from(value.slice(2), 'hex'))
}
