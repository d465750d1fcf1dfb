// The bundler's own account: it signs and pays for the handleOps transactions. Derived from the
// mnemonic (so a custom mnemonic moves it too) rather than taken from the dev accounts, whose
// nonces a test or an app counts on; funded at genesis beside them (assemble.ts).
import { type Address, type Hex, keccak256, stringToHex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'

export interface BundlerAccount {
  address: Address
  privateKey: Hex
}

export function bundlerAccount(mnemonic: string): BundlerAccount {
  const privateKey = keccak256(stringToHex(`pcnode bundler: ${mnemonic}`))
  return { address: privateKeyToAddress(privateKey), privateKey }
}
