// EIP-7825's per-transaction gas cap (2^24) on raw sends through viem, in every profile: the OP
// profiles answer as reth's txpool (Base's node) does, -32003 "gas limit too high"; --profile
// ethereum answers geth's -32000 text with the figures. A gas over the block gas limit is refused
// for that first, as both clients' validators order it.
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { type TestNode, useTestNode, waitForSealed } from './helpers.js'

const CAP = 2n ** 24n

const REFUSAL = {
  flashblocks: { code: -32003, message: 'gas limit too high' },
  base: { code: -32003, message: 'gas limit too high' },
  ethereum: { code: -32000, message: `transaction gas limit too high (cap: ${CAP}, tx: ${CAP + 1n})` },
} as const

/** A transfer from dev account `index` with `gas`, signed by viem (no node-side filling). */
async function signed(node: TestNode, index: number, gas: bigint): Promise<Hex> {
  const account = privateKeyToAccount(node.accounts[index].privateKey)
  const nonce = await node.publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' })
  return account.signTransaction({
    chainId: node.chainId,
    type: 'eip1559',
    nonce,
    gas,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 10n ** 6n,
    to: node.accounts[9].address,
    value: 1n,
  })
}

describe.each(['flashblocks', 'base', 'ethereum'] as const)('EIP-7825 gas cap (profile %s)', (profile) => {
  const node = useTestNode({ profile, blockTime: 400, preconfInterval: 100 })

  it('refuses gas 2^24+1 with the profile client answer and mines gas 2^24', async () => {
    const over = await signed(node, 1, CAP + 1n)
    expect((await node.rpc('eth_sendRawTransaction', [over])).error).toEqual(REFUSAL[profile])
    const viaViem = await node.publicClient.sendRawTransaction({ serializedTransaction: over }).catch((e) => e)
    expect(viaViem.walk().code).toBe(REFUSAL[profile].code)
    expect(viaViem.details).toBe(REFUSAL[profile].message)

    const hash = await node.publicClient.sendRawTransaction({ serializedTransaction: await signed(node, 1, CAP) })
    const receipt = await waitForSealed(node, hash)
    expect(receipt.status).toBe('success')
    expect((await node.publicClient.getTransaction({ hash })).gas).toBe(CAP)
  })

  it('refuses the node-filled sends the same way (never an internal error)', async () => {
    const req = { from: node.accounts[2].address, to: node.accounts[9].address, gas: `0x${(CAP + 1n).toString(16)}` }
    expect((await node.rpc('eth_sendTransaction', [req])).error).toEqual(REFUSAL[profile])
    expect((await node.rpc('eth_fillTransaction', [req])).error).toEqual(REFUSAL[profile])
  })
})

describe.each(['flashblocks', 'base', 'ethereum'] as const)('block gas limit under the cap (profile %s)', (profile) => {
  const node = useTestNode({ profile, blockTime: 400, preconfInterval: 100, gasLimit: 16_000_000n })

  it('refuses a gas over the block gas limit for that, before the cap', async () => {
    const refusal = { code: -32000, message: 'exceeds block gas limit' }
    for (const gas of [CAP + 1n, CAP, 16_000_001n]) {
      expect((await node.rpc('eth_sendRawTransaction', [await signed(node, 1, gas)])).error).toEqual(refusal)
    }
    const req = { from: node.accounts[2].address, to: node.accounts[9].address, gas: `0x${(CAP + 1n).toString(16)}` }
    expect((await node.rpc('eth_sendTransaction', [req])).error).toEqual(refusal)
    // Under the block gas limit with room for the OP profile's L1-info deposit: mined.
    const hash = await node.publicClient.sendRawTransaction({ serializedTransaction: await signed(node, 1, 15_000_000n) })
    expect((await waitForSealed(node, hash)).status).toBe('success')
  })
})
