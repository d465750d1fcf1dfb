// Base's Flashblocks RPC as it is served now (base/base, viem 2.57): newFlashblockTransactions with
// a log filter, the `unsafe` tag, eth_fillTransaction (viem calls it before filling fields itself),
// eth_sendTransactionSync, and eth_sendRawTransactionSync when the flashblock beats the wait.
import {
  type Address,
  createWalletClient,
  type Hex,
  http,
  keccak256,
  parseEther,
  parseGwei,
  parseTransaction,
  zeroHash,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emitterInitCode, openSocket, PING, poll, type RawSocket, useTestNode, waitForReceipt } from './helpers.js'

describe('Flashblocks RPC as Base serves it now', () => {
  const node = useTestNode({ blockTime: 3_600_000, preconfInterval: 20 })
  let emitter: Address
  let sock: RawSocket
  beforeAll(async () => {
    const deploy = await node.wallet(0).sendTransaction({ data: emitterInitCode() })
    emitter = (await waitForReceipt(node, deploy)).contractAddress as Address
    await node.rpc('evm_mine')
    sock = await openSocket(node.wsUrl)
  })
  afterAll(() => sock.close())

  it('newFlashblockTransactions takes a log filter: full transactions with a matching log, all their logs', async () => {
    const byAddress = await sock.subscribe(['newFlashblockTransactions', { address: emitter }])
    const byTopic = await sock.subscribe(['newFlashblockTransactions', { topics: [PING] }])
    const nobody = await sock.subscribe(['newFlashblockTransactions', { address: node.accounts[8].address }])
    const all = await sock.subscribe(['newFlashblockTransactions', true])
    const transfer = await node.wallet(1).sendTransaction({ to: node.accounts[9].address, value: 1n })
    const call = await node.wallet(1).sendTransaction({ to: emitter, data: '0x1234' })
    await sock.waitFor(all, (items) => items.some((t) => t.hash === call))
    expect(sock.received(all).map((t) => t.hash)).toEqual([transfer, call])
    for (const sub of [byAddress, byTopic]) expect(sock.received(sub).map((t) => t.hash)).toEqual([call])
    expect(sock.received(nobody)).toEqual([])
    const [t] = sock.received(byAddress)
    const receipt = (await node.rpc('eth_getTransactionReceipt', [call])).result
    // The receipt fields Base's TransactionWithLogs carries, hex as its docs show them (verified on v0.9.0).
    expect(t).toMatchObject({
      hash: call,
      blockHash: null,
      blockNumber: receipt.blockNumber,
      transactionIndex: receipt.transactionIndex,
      from: node.accounts[1].address.toLowerCase(),
      status: '0x1',
      gasUsed: receipt.gasUsed,
      cumulativeGasUsed: receipt.cumulativeGasUsed,
      contractAddress: null,
      logsBloom: receipt.logsBloom,
      logs: receipt.logs,
    })
    expect(t.logs).toHaveLength(1)
    // A bad filter is refused like eth_subscribe("logs", …)'s.
    const bad = await sock.request('eth_subscribe', ['newFlashblockTransactions', { address: '0x12' }])
    expect(bad.error.code).toBe(-32602)
    expect(bad.error.message).toMatch(/^invalid argument filter\.address\[0\]/)
    expect((await sock.request('eth_subscribe', ['newFlashblockTransactions', 'yes'])).error).toEqual({
      code: -32602,
      message: 'invalid argument 1: expected a boolean',
    })
  })

  it('"unsafe" reads as "latest", as OP nodes alias it', async () => {
    const [unsafe, latest] = await Promise.all([
      node.rpc('eth_getBlockByNumber', ['unsafe', false]),
      node.rpc('eth_getBlockByNumber', ['latest', false]),
    ])
    expect(unsafe.result.hash).toBe(latest.result.hash)
    const address = node.accounts[1].address
    expect((await node.rpc('eth_getBalance', [address, 'unsafe'])).result).toBe(
      (await node.rpc('eth_getBalance', [address, 'latest'])).result,
    )
    expect((await node.rpc('eth_getBlockByNumber', ['safest', false])).error.code).toBe(-32602)
  })

  it("eth_fillTransaction answers geth's {raw, tx}: the defaults filled at pending, unsigned", async () => {
    const from = node.accounts[2].address
    const nonce = (await node.rpc('eth_getTransactionCount', [from, 'pending'])).result
    const { result } = await node.rpc('eth_fillTransaction', [{ from, to: emitter, data: '0xabcd', value: '0x1' }])
    const { raw, tx } = result
    expect(tx).toMatchObject({
      type: '0x2',
      chainId: `0x${node.chainId.toString(16)}`,
      nonce,
      to: emitter.toLowerCase(),
      value: '0x1',
      input: '0xabcd',
      accessList: [],
      v: '0x0',
      r: '0x0',
      s: '0x0',
      yParity: '0x0',
      hash: keccak256(raw),
    })
    expect(tx.from).toBeUndefined() // geth's types.Transaction has no sender
    // The gas is the estimate at "pending", the fees eth_sendTransaction's.
    expect(tx.gas).toBe(
      (await node.rpc('eth_estimateGas', [{ from, to: emitter, data: '0xabcd', value: '0x1' }, 'pending'])).result,
    )
    expect(BigInt(tx.maxPriorityFeePerGas)).toBe(BigInt((await node.rpc('eth_maxPriorityFeePerGas')).result))
    const parsed = parseTransaction(raw)
    expect(parsed).toMatchObject({ type: 'eip1559', to: emitter.toLowerCase(), nonce: Number(nonce), data: '0xabcd' })
    // The signature fields are encoded as zeros (0x80 each), as geth's MarshalBinary writes them.
    expect(raw.endsWith('c0808080')).toBe(true) // empty access list, yParity, r, s
    expect([parsed.yParity, BigInt(parsed.r ?? 0), BigInt(parsed.s ?? 0)]).toEqual([0, 0n, 0n])
    // A gas price makes a legacy transaction. No sender: the zero address's nonce.
    const legacy = (await node.rpc('eth_fillTransaction', [{ from, to: emitter, gasPrice: '0x3b9aca00' }])).result
    expect(legacy.tx).toMatchObject({ type: '0x0', nonce, gasPrice: '0x3b9aca00' })
    expect(legacy.tx.yParity).toBeUndefined()
    expect(parseTransaction(legacy.raw).type).toBe('legacy')
    expect((await node.rpc('eth_fillTransaction', [{ to: emitter }])).result.tx).toMatchObject({ type: '0x2', nonce: '0x0' })
    // Errors: geth's chain id text; a call that reverts fails as eth_estimateGas does.
    expect((await node.rpc('eth_fillTransaction', [{ from, to: emitter, chainId: '0x1' }])).error).toEqual({
      code: -32000,
      message: `chainId does not match node's (have=1, want=${node.chainId})`,
    })
    const reverting = await node.rpc('eth_fillTransaction', [{ from, data: '0xfe' }])
    expect(reverting.error.code).toBe(-32000)
    expect((await node.rpc('eth_fillTransaction', [{ from, bogus: 1 }])).error).toEqual({
      code: -32602,
      message: 'invalid argument transaction: unknown field "bogus"',
    })
  })

  it("viem's prepareTransactionRequest takes its fields from eth_fillTransaction, and the send goes through", async () => {
    const methods: string[] = []
    const transport = http(node.rpcUrl, {
      retryCount: 0,
      onFetchRequest: async (request) => {
        const body = (await request.clone().json()) as { method: string } | Array<{ method: string }>
        for (const call of [body].flat()) methods.push(call.method)
      },
    })
    const wallet = createWalletClient({ chain: node.chain, transport, account: privateKeyToAccount(node.accounts[3].privateKey) })
    const request = await wallet.prepareTransactionRequest({ to: node.accounts[9].address, value: parseEther('0.01') })
    expect(methods).toContain('eth_fillTransaction')
    expect(methods).not.toContain('eth_estimateGas') // the fill answered it
    expect(request.gas).toBe(21_000n)
    const hash = await wallet.sendTransaction({ to: emitter, data: '0x01' })
    expect((await waitForReceipt(node, hash)).status).toBe('success')
  })

  it('eth_sendTransactionSync: dev and impersonated accounts get the pre-confirmed receipt', async () => {
    const dev = await node.rpc('eth_sendTransactionSync', [{ from: node.accounts[4].address, to: emitter, data: '0x02' }])
    expect(dev.result).toMatchObject({ status: '0x1', blockHash: zeroHash, from: node.accounts[4].address.toLowerCase() })
    expect(dev.result.logs).toHaveLength(1)
    const stranger = '0x00000000000000000000000000000000000c0ffe'
    await node.rpc('anvil_setBalance', [stranger, '0xde0b6b3a7640000'])
    await node.rpc('anvil_impersonateAccount', [stranger])
    const impersonated = await node.rpc('eth_sendTransactionSync', [{ from: stranger, to: emitter, data: '0x03' }, 2000])
    expect(impersonated.result).toMatchObject({ status: '0x1', blockHash: zeroHash, from: stranger })
    // The same errors as eth_sendRawTransactionSync, and eth_sendTransaction's.
    expect((await node.rpc('eth_sendTransactionSync', [{ from: node.accounts[4].address }, 7000])).error).toEqual({
      code: -32602,
      message: 'time out too long, timeout: 7000 ms, max: 6000 ms',
    })
    const unknown = await node.rpc('eth_sendTransactionSync', [
      { from: node.accounts[8].address.replace(/.$/, '0'), to: emitter },
    ])
    expect(unknown.error.code).toBe(-32000)
    expect(unknown.error.message).toMatch(/^unknown account 0x/)
  })

  it('eth_sendRawTransactionSync finds a receipt published before its wait starts (base/base #3826)', async () => {
    // The flashblock comes between admission and the wait: the send returns only after the
    // transaction is pre-confirmed, as when a flashblock beats a slow subscription.
    const inner = node.node.sendRawTransaction.bind(node.node)
    node.node.sendRawTransaction = async (raw: Uint8Array) => {
      const hash = await inner(raw)
      await poll(() => node.node.getReceipt(hash), undefined, { what: 'the transaction pre-confirmed', intervalMs: 5 })
      return hash
    }
    try {
      const raw = await privateKeyToAccount(node.accounts[5].privateKey).signTransaction({
        chainId: node.chainId,
        type: 'eip1559',
        nonce: 0,
        to: node.accounts[9].address,
        value: 1n,
        gas: 21_000n,
        maxFeePerGas: parseGwei('10'),
        maxPriorityFeePerGas: parseGwei('1'),
      })
      const sync = await node.rpc('eth_sendRawTransactionSync', [raw, 1000])
      expect(sync.error).toBeUndefined()
      expect(sync.result).toMatchObject({ transactionHash: keccak256(raw as Hex), blockHash: zeroHash })
    } finally {
      node.node.sendRawTransaction = inner
    }
  })
})
