// The contracts pcnode itself puts on its chains, by address, with the ABI each is decoded with
// where one is at hand (the EntryPoints, Multicall3, Permit2, the OP predeploys pcnode compiles,
// the smart wallet and its factory); the other preinstalls (Safe, CreateX, …) are named and decoded
// through the 4-byte table. And that table's ABIs: the signatures (signatures.ts) first, then every
// ABI above and the rest pcnode compiles (the B20 precompiles, the paymasters).
import type { Abi } from 'viem'
import { multicall3Abi } from 'viem'
import { entryPoint06Abi, entryPoint07Abi, entryPoint08Abi } from 'viem/account-abstraction'
import * as compiled from '../../contracts/artifacts.js'
import { WALLET_FACTORY_ADDRESS, WALLET_IMPLEMENTATION_ADDRESS } from '../../contracts/index.js'
import { ENTRYPOINT_V08, PREINSTALLS } from '../../contracts/preinstalls.js'
import { PERMIT2_ADDRESS } from '../genesis/opstack.js'
import { PREDEPLOYS } from '../opstack/params.js'
import { permit2Abi } from './permit2.js'
import { SIGNATURE_ABIS } from './signatures.js'

export interface KnownContract {
  name: string
  abi?: Abi
}

const ABI_BY_NAME: Record<string, Abi> = {
  MultiCall3: multicall3Abi,
  EntryPoint_v060: entryPoint06Abi,
  EntryPoint_v070: entryPoint07Abi,
  EntryPoint_v080: entryPoint08Abi,
  Permit2: permit2Abi,
  L1Block: compiled.L1Block.abi,
  GasPriceOracle: compiled.GasPriceOracle.abi,
  PcnodeWalletFactory: compiled.PcnodeWalletFactory.abi,
  PcnodeSmartWallet: compiled.PcnodeSmartWallet.abi,
}

/** Lower-case address → the contract pcnode places there. */
export function knownContracts(): Map<string, KnownContract> {
  const names = new Map<string, string>()
  for (const [name, address] of Object.entries(PREDEPLOYS)) names.set(`0x${Buffer.from(address).toString('hex')}`, name)
  for (const { name, address } of PREINSTALLS) names.set(address.toLowerCase(), name)
  names.set(PERMIT2_ADDRESS.toLowerCase(), 'Permit2')
  names.set(ENTRYPOINT_V08.address.toLowerCase(), ENTRYPOINT_V08.name)
  names.set(WALLET_FACTORY_ADDRESS.toLowerCase(), 'PcnodeWalletFactory')
  names.set(WALLET_IMPLEMENTATION_ADDRESS.toLowerCase(), 'PcnodeSmartWallet')
  return new Map([...names].map(([address, name]) => [address, { name, abi: ABI_BY_NAME[name] }]))
}

const COMPILED: Abi[] = Object.values(compiled).flatMap((a) => (typeof a === 'object' && 'abi' in a ? [a.abi as Abi] : []))

/** The 4-byte table's ABIs in order: the first to decode a selector or topic names it. */
export const TABLE_ABIS: readonly Abi[] = [
  ...SIGNATURE_ABIS,
  entryPoint07Abi,
  entryPoint08Abi,
  entryPoint06Abi,
  multicall3Abi,
  permit2Abi,
  ...COMPILED,
]
