// Dev accounts derived from a mnemonic (BIP-39 seed, BIP-32/44 path), loaded when the accounts
// asked for are not among accounts.ts's known ones.
import { pbkdf2Sync } from 'node:crypto'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { bytesToHex } from 'viem'
import { HDKey, publicKeyToAddress } from 'viem/accounts'

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
    const child = parent.deriveChild(i)
    if (!child.privateKey || !child.publicKey) throw new Error(`could not derive account ${i}`)
    // The address from the public key the derivation computed (decompressed: a square root),
    // not from the private key again: another scalar multiplication each, on another copy of
    // the curve that builds its own tables (about half the accounts' ~130 ms at each start).
    const publicKey = secp256k1.Point.fromBytes(child.publicKey).toBytes(false)
    accounts.push({ address: publicKeyToAddress(bytesToHex(publicKey)), privateKey: bytesToHex(child.privateKey) })
  }
  return accounts
}
