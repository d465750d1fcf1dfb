// Genesis paymasters (OP profiles): pcnode's development paymaster for EntryPoint v0.7, v0.8 and v0.6, each
// created from the fixed deployer with its deposit: the address holds PAYMASTER_DEPOSIT before its
// creation code runs, and the constructor moves that balance into the EntryPoint (depositTo).
import { encodeAbiParameters, hexToBytes } from 'viem'
import {
  DEV_PAYMASTERS,
  PAYMASTER_DEPLOYER_ADDRESS,
  PAYMASTER_DEPOSIT,
  PAYMASTER_SIGNER_ADDRESS,
  PcnodePaymaster,
  PcnodePaymasterV06,
} from '../../contracts/paymaster.js'
import type { Engine } from '../engine/index.js'

/** Plenty for the paymaster's creation and deposit; runCall does not check a block limit. */
const DEPLOY_GAS = 5_000_000n

/** Call inside the genesis checkpoint, after the EntryPoints are installed. */
export async function installPaymasters(engine: Engine): Promise<void> {
  for (const paymaster of DEV_PAYMASTERS) {
    await engine.live.putAccount(hexToBytes(paymaster.address), { nonce: 0n, balance: PAYMASTER_DEPOSIT })
    const args = encodeAbiParameters([{ type: 'address' }, { type: 'address' }], [paymaster.entryPoint, PAYMASTER_SIGNER_ADDRESS])
    const creation = paymaster.version === '0.6' ? PcnodePaymasterV06.bytecode : PcnodePaymaster.bytecode
    const code = hexToBytes(`${creation}${args.slice(2)}`)
    const result = await engine.runCreation(hexToBytes(PAYMASTER_DEPLOYER_ADDRESS), code, DEPLOY_GAS)
    if (result.error) throw new Error(`genesis: deploying the v${paymaster.version} paymaster failed: ${result.error}`)
    const created = result.createdAddress && `0x${Buffer.from(result.createdAddress).toString('hex')}`
    if (created !== paymaster.address.toLowerCase()) {
      throw new Error(`genesis: v${paymaster.version} paymaster deployed at ${created}, expected ${paymaster.address}`)
    }
  }
}
