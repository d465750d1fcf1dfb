import { parseEther, zeroHash } from 'viem'
import { describe, expect, it } from 'vitest'
import { useTestNode, waitForReceipt } from './helpers.js'

describe('transfers and pre-confirmed receipts', () => {
  // Long block time: the receipt must be served while the block is still open.
  const node = useTestNode({ blockTime: 60_000, preconfInterval: 50 })

  it('serves a pre-confirmed receipt before the block is sealed, then the sealed one', async () => {
    const wallet = node.wallet(0)
    const to = node.accounts[1].address
    const before = await node.publicClient.getBalance({ address: to, blockTag: 'pending' })
    const hash = await wallet.sendTransaction({ to, value: parseEther('1.5') })
    const receipt = await waitForReceipt(node, hash)
    expect(receipt.status).toBe('success')
    expect(receipt.transactionIndex).toBe(1) // index 0: the block's L1-info deposit
    expect(receipt.blockHash).toBe(zeroHash)
    expect(receipt.blockNumber).toBe(1n)
    expect(await node.publicClient.getBlockNumber()).toBe(0n)
    expect(await node.publicClient.getBalance({ address: to, blockTag: 'pending' })).toBe(before + parseEther('1.5'))
    expect(await node.publicClient.getBalance({ address: to, blockTag: 'latest' })).toBe(before)

    const pending = await node.publicClient.getBlock({ blockTag: 'pending' })
    expect(pending.transactions).toContain(hash)

    const tx = await node.publicClient.getTransaction({ hash })
    expect(tx.blockHash).toBeNull()
    expect(tx.blockNumber).toBe(1n)

    const sealed = await node.node.mine()
    const after = await node.publicClient.getTransactionReceipt({ hash })
    expect(after.blockHash).toBe(`0x${Buffer.from(sealed.hash).toString('hex')}`)
    const block = await node.publicClient.getBlock({ blockNumber: 1n })
    expect(block.hash).toBe(after.blockHash)
    expect(block.transactions).toEqual([expect.stringMatching(/^0x[0-9a-f]{64}$/), hash])
    expect(await node.publicClient.getBalance({ address: to, blockTag: 'latest' })).toBe(before + parseEther('1.5'))
  })
})
