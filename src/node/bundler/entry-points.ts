// The EntryPoints the bundler serves (ERC-4337; viem's constants/address.ts): their addresses, versions,
// ABIs, and the SenderCreator each deploys accounts through. v0.6–v0.8 are preinstalled on the OP
// profiles; v0.9 is served where the chain holds its code (a fork of Base), as no npm package has it.
import { type Abi, type Address, getContractAddress } from 'viem'
import {
  entryPoint06Abi,
  entryPoint06Address,
  entryPoint07Abi,
  entryPoint07Address,
  entryPoint08Abi,
  entryPoint08Address,
  entryPoint09Abi,
  entryPoint09Address,
} from 'viem/account-abstraction'

export type EntryPointVersion = '0.6' | '0.7' | '0.8' | '0.9'

export interface EntryPoint {
  address: Address
  version: EntryPointVersion
  abi: Abi
  /** The contract the EntryPoint calls factories from (its `senderCreator`), as preinstalled. */
  senderCreator: Address
}

/** Newest first: eth_supportedEntryPoints lists them in this order (alto's preference order). */
export const ENTRY_POINTS: readonly EntryPoint[] = [
  {
    address: entryPoint09Address,
    version: '0.9',
    abi: entryPoint09Abi,
    // The EntryPoint's constructor creates it first (nonce 1), as v0.8's.
    senderCreator: getContractAddress({ from: entryPoint09Address, nonce: 1n }),
  },
  {
    address: entryPoint08Address,
    version: '0.8',
    abi: entryPoint08Abi,
    senderCreator: '0x449ED7C3e6Fee6a97311d4b55475DF59C44AdD33',
  },
  {
    address: entryPoint07Address,
    version: '0.7',
    abi: entryPoint07Abi,
    senderCreator: '0xEFC2c1444eBCC4Db75e7613d20C6a62fF67A167C',
  },
  {
    address: entryPoint06Address,
    version: '0.6',
    abi: entryPoint06Abi,
    senderCreator: '0x7fc98430eAEdbb6070B35B39D798725049088348',
  },
]

/** The EntryPoint at `address` (any case), if the bundler serves it. */
export function entryPointAt(address: string): EntryPoint | undefined {
  const lower = address.toLowerCase()
  return ENTRY_POINTS.find((e) => e.address.toLowerCase() === lower)
}
