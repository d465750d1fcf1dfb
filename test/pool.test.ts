// Every transaction-pool rejection, with geth's code and message text, against a real node.
import { concatHex, type Hex, keccak256, numberToHex, parseEther, parseGwei, serializeTransaction, toRlp } from 'viem'
import { generatePrivateKey, privateKeyToAccount, sign } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { type TestNode, useTestNode, waitForReceipt } from './helpers.js'

const CHAIN_ID = 31337

describe('transaction pool rejections', () => {
  const node = useTestNode({ preconfInterval: 0, blockTime: 1000, gasLimit: 10_000_000n })
  // No mining: pooled transactions stay in the pool, so duplicates and replacements are observable.
  const idle = useTestNode({ mining: false })

  const signed = (n: TestNode, index: number, tx: Record<string, unknown>) =>
    privateKeyToAccount(n.accounts[index].privateKey).signTransaction({
      chainId: CHAIN_ID,
      type: 'eip1559',
      to: n.accounts[9].address,
      value: 1n,
      gas: 21000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: parseGwei('1'),
      ...tx,
    } as never)

  const send = (n: TestNode, raw: Hex) => n.rpc('eth_sendRawTransaction', [raw])

  it("nonce too low: geth's text, then the nonce to use", async () => {
    const first = await send(node, await signed(node, 0, { nonce: 0 }))
    await waitForReceipt(node, first.result)
    const res = await send(node, await signed(node, 0, { nonce: 0, value: 2n }))
    expect(res.error).toEqual({
      code: -32000,
      message:
        'nonce too low: next nonce 1, tx nonce 0; pending nonce 1 (read nonces at "pending": pre-confirmed transactions are not in "latest")',
    })
  })

  it('already known, for a pooled and for an included transaction', async () => {
    const raw = await signed(idle, 1, { nonce: 0 })
    expect((await send(idle, raw)).result).toBe(keccak256(raw))
    expect((await send(idle, raw)).error).toEqual({ code: -32000, message: 'already known' })
    const included = await signed(node, 1, { nonce: 0 })
    await waitForReceipt(node, (await send(node, included)).result)
    expect((await send(node, included)).error).toEqual({ code: -32000, message: 'already known' })
  })

  it('replacement needs +10% on both fee fields', async () => {
    const base = { nonce: 0, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('2') }
    const original = await signed(idle, 2, base)
    expect((await send(idle, original)).result).toBe(keccak256(original))
    const feeOnly = await send(idle, await signed(idle, 2, { ...base, maxFeePerGas: parseGwei('20') }))
    expect(feeOnly.error).toEqual({ code: -32000, message: 'replacement transaction underpriced' })
    const nine = await send(
      idle,
      await signed(idle, 2, { ...base, maxFeePerGas: parseGwei('10.9'), maxPriorityFeePerGas: parseGwei('2.18') }),
    )
    expect(nine.error?.message).toBe('replacement transaction underpriced')
    const ten = await signed(idle, 2, { ...base, maxFeePerGas: parseGwei('11'), maxPriorityFeePerGas: parseGwei('2.2') })
    expect((await send(idle, ten)).result).toBe(keccak256(ten))
    const tx = await idle.publicClient.getTransaction({ hash: keccak256(ten) })
    expect(tx.maxFeePerGas).toBe(parseGwei('11'))
  })

  it('insufficient funds for gas * price + value', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey())
    const raw = await stranger.signTransaction({
      chainId: CHAIN_ID,
      type: 'eip1559',
      to: node.accounts[0].address,
      value: parseEther('1'),
      gas: 21000n,
      nonce: 0,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: parseGwei('1'),
    })
    const res = await send(node, raw)
    expect(res.error?.code).toBe(-32000)
    // op-geth's text: the cost counts the L1 data fee (Base's), which the message then names.
    const m =
      /^insufficient funds for gas \* price \+ value: balance 0, tx cost (\d+), overshot (\d+); the cost includes the L1 data fee (\d+) wei/.exec(
        res.error?.message ?? '',
      )
    expect(m, res.error?.message).not.toBeNull()
    const [cost, overshot, l1Fee] = (m as RegExpExecArray).slice(1).map(BigInt)
    expect(l1Fee).toBeGreaterThan(0n)
    expect(cost).toBe(parseEther('1') + 21000n * parseGwei('10') + l1Fee)
    expect(overshot).toBe(cost)
  })

  it('intrinsic gas too low', async () => {
    const res = await send(node, await signed(node, 3, { nonce: 0, gas: 20_000n }))
    expect(res.error).toEqual({ code: -32000, message: 'intrinsic gas too low: gas 20000, minimum needed 21000' })
  })

  it('exceeds block gas limit', async () => {
    const res = await send(node, await signed(node, 3, { nonce: 0, gas: 12_000_000n }))
    expect(res.error).toEqual({ code: -32000, message: 'exceeds block gas limit' })
  })

  it('max fee per gas less than block base fee', async () => {
    const res = await send(node, await signed(node, 3, { nonce: 0, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }))
    expect(res.error?.code).toBe(-32000)
    expect(res.error?.message).toMatch(
      /^max fee per gas less than block base fee: address 0x[0-9a-f]{40}, maxFeePerGas: 1, baseFee: \d+$/,
    )
  })

  it('max priority fee per gas higher than max fee per gas', async () => {
    // viem refuses to sign such a transaction, so encode and sign it by hand.
    const key = node.accounts[3].privateKey
    const fields = [
      numberToHex(CHAIN_ID),
      '0x',
      numberToHex(parseGwei('5')),
      numberToHex(parseGwei('2')),
      numberToHex(21000),
      node.accounts[9].address,
      '0x01',
      '0x',
      [],
    ] as const
    const payload = concatHex(['0x02', toRlp(fields as never)])
    const sig = await sign({ hash: keccak256(payload), privateKey: key })
    const raw = concatHex(['0x02', toRlp([...fields, sig.yParity ? '0x01' : '0x', sig.r, sig.s] as never)])
    const res = await send(node, raw)
    expect(res.error?.code).toBe(-32000)
    expect(res.error?.message).toMatch(/^max priority fee per gas higher than max fee per gas/)
  })

  it('wrong chain id', async () => {
    const raw = await privateKeyToAccount(node.accounts[4].privateKey).signTransaction({
      chainId: 1,
      type: 'eip1559',
      to: node.accounts[0].address,
      value: 1n,
      gas: 21000n,
      nonce: 0,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: parseGwei('1'),
    })
    expect((await send(node, raw)).error).toEqual({ code: -32000, message: 'invalid chain id for signer: have 1 want 31337' })
  })

  it('undecodable RLP and bad signatures', async () => {
    const garbage = await send(node, '0x02deadbeef')
    expect(garbage.error?.code).toBe(-32000)
    expect(garbage.error?.message).toMatch(/^rlp: /)
    const raw = await signed(node, 4, { nonce: 0 })
    // s = 0 can't be a signature.
    const unsigned = serializeTransaction(
      {
        chainId: CHAIN_ID,
        type: 'eip1559',
        to: node.accounts[0].address,
        value: 1n,
        gas: 21000n,
        nonce: 0,
        maxFeePerGas: parseGwei('10'),
        maxPriorityFeePerGas: parseGwei('1'),
      },
      { r: '0x01', s: '0x00', yParity: 0 },
    )
    // It decodes; recovering the sender fails (geth's ErrInvalidSender text).
    expect((await send(node, unsigned)).error).toEqual({ code: -32000, message: 'invalid sender' })
    expect((await send(node, '0xzz')).error?.code).toBe(-32602)
    // The node still serves after all of it.
    expect((await send(node, raw)).result).toBe(keccak256(raw))
  })

  it('queues a nonce gap and promotes it when the gap fills', async () => {
    const later = await signed(node, 5, { nonce: 1 })
    expect((await send(node, later)).result).toBe(keccak256(later))
    // At interval 0 a ready transaction is pre-confirmed at once; one behind a nonce gap must not be.
    await new Promise((r) => setTimeout(r, 50)) // negative wait
    expect(await node.publicClient.getTransactionReceipt({ hash: keccak256(later) }).catch(() => null)).toBeNull()
    const first = await signed(node, 5, { nonce: 0 })
    await send(node, first)
    const receipt = await waitForReceipt(node, keccak256(later))
    expect(receipt.status).toBe('success')
    expect(await node.publicClient.getTransactionCount({ address: node.accounts[5].address, blockTag: 'pending' })).toBe(2)
  })
})
