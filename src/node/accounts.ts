import { pbkdf2Sync } from 'node:crypto'
import { bytesToHex } from 'viem'
import { HDKey, privateKeyToAddress } from 'viem/accounts'

export interface DevAccount {
  address: `0x${string}`
  privateKey: `0x${string}`
}

/** BIP-39 seed with node's native pbkdf2 (viem's pure-JS one takes ~100 ms per call). */
function mnemonicToSeed(mnemonic: string, passphrase = ''): Uint8Array {
  const words = mnemonic.normalize('NFKD').trim().split(/\s+/).join(' ')
  return pbkdf2Sync(words, `mnemonic${passphrase}`.normalize('NFKD'), 2048, 64, 'sha512')
}

/** Accounts m/44'/60'/0'/0/i, as anvil and Hardhat derive them. */
export function deriveAccounts(mnemonic: string, count: number): DevAccount[] {
  // BIP-44 m/44'/60'/0'/0/i: the shared parent derived once (each level costs a public key).
  const parent = HDKey.fromMasterSeed(mnemonicToSeed(mnemonic)).derive("m/44'/60'/0'/0")
  const accounts: DevAccount[] = []
  for (let i = 0; i < count; i++) {
    const key = parent.deriveChild(i).privateKey
    if (!key) throw new Error(`could not derive account ${i}`)
    const privateKey = bytesToHex(key)
    accounts.push({ address: privateKeyToAddress(privateKey), privateKey })
  }
  return accounts
}
