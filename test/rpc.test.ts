// The JSON-RPC envelope: batches, malformed input, error codes, limits. The node keeps serving.
import { recoverMessageAddress, recoverTypedDataAddress, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { useTestNode, waitForSealed } from './helpers.js'

describe('JSON-RPC envelope', () => {
  const node = useTestNode({ preconfInterval: 0, blockTime: 300 })

  it('answers a batch in order, with per-item errors', async () => {
    const { status, text } = await node.raw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
        { jsonrpc: '2.0', id: 'two', method: 'nope_nothing' },
        { jsonrpc: '2.0', method: 'eth_chainId' },
        { jsonrpc: '2.0', id: 3, method: 'net_version', params: [] },
        { id: 4, method: 'eth_chainId' },
        5,
      ]),
    )
    expect(status).toBe(200)
    expect(JSON.parse(text)).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x7a69' },
      { jsonrpc: '2.0', id: 'two', error: { code: -32601, message: 'the method nope_nothing does not exist/is not available' } },
      { jsonrpc: '2.0', id: 3, result: '31337' },
      { jsonrpc: '2.0', id: 4, error: { code: -32600, message: 'invalid request' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
    ])
  })

  it('rejects malformed JSON, empty batches and non-array params', async () => {
    expect(JSON.parse((await node.raw('{"jsonrpc":"2.0","id":1,')).text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'parse error' },
    })
    expect(JSON.parse((await node.raw('[]')).text).error).toEqual({ code: -32600, message: 'empty batch' })
    const res = JSON.parse((await node.raw('{"jsonrpc":"2.0","id":9,"method":"eth_getBalance","params":{"a":1}}')).text)
    expect(res.error).toEqual({ code: -32602, message: 'non-array args' })
    // A notification gets no answer at all.
    expect((await node.raw('{"jsonrpc":"2.0","method":"eth_chainId"}')).text).toBe('')
  })

  it('names the bad parameter in -32602 errors', async () => {
    expect((await node.rpc('eth_getBalance', ['0x1234'])).error).toEqual({
      code: -32602,
      message: 'invalid argument address: hex string has length 4, want 40',
    })
    expect((await node.rpc('eth_getBalance', [])).error).toEqual({
      code: -32602,
      message: 'missing value for required argument 0',
    })
    expect((await node.rpc('eth_blockNumber', [1, 2, 3])).error).toBeUndefined()
    expect((await node.rpc('eth_getBlockByNumber', ['latest', 'yes'])).error).toEqual({
      code: -32602,
      message: 'invalid argument fullTransactions: expected a boolean',
    })
    expect((await node.rpc('eth_getBalance', [node.accounts[0].address, 'tomorrow'])).error?.code).toBe(-32602)
    expect((await node.rpc('eth_call', [{ to: node.accounts[0].address, bogus: 1 }])).error).toEqual({
      code: -32602,
      message: 'invalid argument transaction: unknown field "bogus"',
    })
    expect((await node.rpc('eth_getTransactionCount', [node.accounts[0].address, 'latest', 'extra'])).error).toEqual({
      code: -32602,
      message: 'too many arguments, want at most 2',
    })
  })

  it('refuses oversize bodies with 413 and keeps serving', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: ['x'.repeat(11 * 1024 * 1024)] })
    // The server may answer 413 and close before the whole body is sent; either way nothing is processed.
    const res: unknown = await fetch(node.rpcUrl, { method: 'POST', body: big }).catch((e) => e)
    if (res instanceof Response) {
      expect(res.status).toBe(413)
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32600)
    }
    expect((await node.rpc('eth_chainId')).result).toBe('0x7a69')
  })

  it('serves CORS preflight to a loopback page and a GET banner', async () => {
    // Other sites' pages are refused (origin.test.ts).
    const pre = await fetch(node.rpcUrl, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
    })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    const get = await fetch(node.rpcUrl)
    expect(get.status).toBe(200)
    expect(await get.text()).toMatch(/JSON-RPC/)
  })

  it('serves block tags, unknown blocks and unknown transactions', async () => {
    for (const tag of ['latest', 'pending', 'safe', 'finalized', 'earliest']) {
      const res = await node.rpc('eth_getBlockByNumber', [tag, false])
      expect(res.result?.number, tag).toMatch(/^0x[0-9a-f]+$/)
    }
    expect((await node.rpc('eth_getBlockByNumber', ['0xffffff', false])).result).toBeNull()
    expect((await node.rpc('eth_getBlockByHash', [`0x${'ab'.repeat(32)}`, false])).result).toBeNull()
    expect((await node.rpc('eth_getTransactionByHash', [`0x${'ab'.repeat(32)}`])).result).toBeNull()
    expect((await node.rpc('eth_getTransactionReceipt', [`0x${'ab'.repeat(32)}`])).result).toBeNull()
    expect((await node.rpc('eth_getBalance', [node.accounts[0].address, '0xffffff'])).error).toEqual({
      code: -32000,
      message: 'header not found',
    })
    const genesis = await node.publicClient.getBlock({ blockNumber: 0n })
    const byHash = await node.rpc('eth_getBalance', [node.accounts[0].address, { blockHash: genesis.hash }])
    expect(BigInt(byHash.result)).toBe(10_000n * 10n ** 18n)
  })

  it('BLOCKHASH returns the hashes of sealed blocks', async () => {
    // Code: PUSH1 0 BLOCKHASH PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN → blockhash(0). Run as an
    // account's code (a state override), not as init code: a create whose returned hash began with
    // 0xef would be refused by EIP-3541 (1 genesis in 256).
    const to = '0x00000000000000000000000000000000000b10c4'
    const res = await node.rpc('eth_call', [{ to }, 'pending', { [to]: { code: '0x60004060005260206000f3' } }])
    const genesis = await node.publicClient.getBlock({ blockNumber: 0n })
    expect(res, JSON.stringify(res)).toMatchObject({ result: genesis.hash })
  })

  it('reports a tip of 0 for a block holding only its L1-info deposit (its gas price is 0)', async () => {
    await node.rpc('evm_mine', [])
    const history = (await node.rpc('eth_feeHistory', ['0x1', 'latest', [25, 75]])).result
    const block = (await node.rpc('eth_getBlockByNumber', ['latest', true])).result
    expect(block.transactions.map((t: { type: string }) => t.type)).toEqual(['0x7e'])
    expect(history.reward).toEqual([['0x0', '0x0']])
  })

  it('serves fee methods viem uses', async () => {
    // Gas price = the pending block's base fee + the suggested 1 gwei tip; viem's EIP-1559
    // estimate = 1.2 × that base fee + the tip. A block sealed between the reads changes the
    // base fee: read again until the pending block is the same before and after.
    const tip = 1_000_000_000n
    const pendingBlock = async () => {
      const { number, baseFeePerGas } = (await node.rpc('eth_getBlockByNumber', ['pending', false])).result
      return { number: BigInt(number), baseFee: BigInt(baseFeePerGas) }
    }
    const read = async () => ({
      latest: await node.publicClient.getBlockNumber({ cacheTime: 0 }),
      before: await pendingBlock(),
      gasPrice: await node.publicClient.getGasPrice(),
      fees: await node.publicClient.estimateFeesPerGas(),
      after: await pendingBlock(),
    })
    // The pending block open on top of the head, unchanged across the reads.
    const settled = (r: Awaited<ReturnType<typeof read>>) =>
      r.before.number === r.latest + 1n && r.after.number === r.before.number
    let reads = await read()
    for (let attempt = 0; attempt < 20 && !settled(reads); attempt++) reads = await read()
    expect(reads.before.number).toBe(reads.latest + 1n)
    expect(reads.after).toEqual(reads.before)
    expect(reads.gasPrice).toBe(reads.before.baseFee + tip)
    expect(reads.fees.maxPriorityFeePerGas).toBe(tip)
    expect(reads.fees.maxFeePerGas).toBe((reads.before.baseFee * 12n) / 10n + tip)
    const history = await node.publicClient.getFeeHistory({ blockCount: 4, rewardPercentiles: [25, 75] })
    expect(history.baseFeePerGas.length).toBe(history.gasUsedRatio.length + 1)
    expect(history.reward?.[0]).toHaveLength(2)
  })

  it('signs with dev accounts: eth_sign, personal_sign, eth_signTypedData_v4', async () => {
    const address = node.accounts[2].address
    const sig = await node.rpc('personal_sign', [toHex('hello pcnode'), address])
    expect(await recoverMessageAddress({ message: 'hello pcnode', signature: sig.result })).toBe(address)
    const ethSign = await node.rpc('eth_sign', [address, toHex('hello pcnode')])
    expect(ethSign.result).toBe(sig.result)
    const typed = {
      domain: { name: 'pcnode', version: '1', chainId: 31337, verifyingContract: '0x0000000000000000000000000000000000000001' },
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
        Note: [{ name: 'text', type: 'string' }],
      },
      primaryType: 'Note',
      message: { text: 'gm' },
    } as const
    const typedSig = await node.rpc('eth_signTypedData_v4', [address, JSON.stringify(typed)])
    expect(await recoverTypedDataAddress({ ...typed, signature: typedSig.result } as never)).toBe(address)
    expect((await node.rpc('personal_sign', ['0x00', '0x0000000000000000000000000000000000000001'])).error).toEqual({
      code: -32000,
      message: 'unknown account',
    })
  })

  it('serves logs, block receipts and transaction counts', async () => {
    const hash = await node.wallet(4).sendTransaction({ to: node.accounts[5].address, value: 5n })
    // Blocks are reached by number once sealed (a pre-confirmed block only through "pending").
    const receipt = await waitForSealed(node, hash)
    // The only transaction of this node: its block holds the L1-info deposit, then it.
    const receipts = await node.rpc('eth_getBlockReceipts', [toHex(receipt.blockNumber)])
    const deposit = receipts.result[0]
    expect(deposit).toMatchObject({ type: '0x7e', transactionIndex: '0x0', depositReceiptVersion: '0x1' })
    expect(receipts.result.map((r: { transactionHash: string }) => r.transactionHash)).toEqual([deposit.transactionHash, hash])
    expect((await node.rpc('eth_getBlockTransactionCountByNumber', [toHex(receipt.blockNumber)])).result).toBe('0x2')
    // At "pending": the open block's count, 2 while it is the transaction's block, 1 (its deposit)
    // once that block is sealed. Read until the pending block is the same before and after the count.
    for (let attempt = 0; ; attempt++) {
      const before = (await node.rpc('eth_getBlockByNumber', ['pending', false])).result
      const count = (await node.rpc('eth_getBlockTransactionCountByNumber', ['pending'])).result
      const after = (await node.rpc('eth_getBlockByNumber', ['pending', false])).result
      if (before.number !== after.number && attempt < 20) continue
      expect(after.number).toBe(before.number)
      const expected = BigInt(before.number) === receipt.blockNumber ? [hash] : []
      expect(before.transactions.slice(1)).toEqual(expected)
      expect(count).toBe(toHex(expected.length + 1))
      break
    }
    expect(await node.publicClient.getTransactionCount({ address: node.accounts[4].address, blockTag: 'pending' })).toBe(1)
  })
})
