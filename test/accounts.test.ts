// Dev accounts (node/accounts.ts): the default mnemonic's listed accounts are what the derivation
// gives, and other mnemonics and counts are derived.
import { describe, expect, it } from 'vitest'
import { devAccounts } from '../src/node/accounts.js'
import { deriveAccounts } from '../src/node/derive-accounts.js'
import { DEFAULT_MNEMONIC } from '../src/node/options.js'

describe('dev accounts', () => {
  it("lists the default mnemonic's first ten as the derivation gives them", async () => {
    const listed = await devAccounts(DEFAULT_MNEMONIC, 10)
    expect(listed).toEqual(deriveAccounts(DEFAULT_MNEMONIC, 10))
    expect(listed[0].address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
  })

  it('derives more accounts, and those of other mnemonics', async () => {
    const twelve = await devAccounts(DEFAULT_MNEMONIC, 12)
    expect(twelve.slice(0, 10)).toEqual(await devAccounts(DEFAULT_MNEMONIC, 10))
    expect(twelve[11]).toEqual(deriveAccounts(DEFAULT_MNEMONIC, 12)[11])
    const other = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
    // BIP-44 m/44'/60'/0'/0/0 of the BIP-39 test mnemonic (as MetaMask and ethers derive it).
    expect((await devAccounts(other, 1))[0].address).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94')
  })
})
