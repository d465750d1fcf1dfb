// Contract deployment, calls, reverts, gas estimation and deployless calls through viem.
import {
  BaseError,
  ContractFunctionRevertedError,
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  parseGwei,
} from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { counterAbi, counterBytecode } from './fixtures/counter.js'
import { useTestNode, waitForReceipt } from './helpers.js'

describe('contracts', () => {
  const node = useTestNode({ preconfInterval: 0, blockTime: 500 })
  let counter: `0x${string}`
  beforeAll(async () => {
    const wallet = node.wallet(0)
    const hash = await wallet.deployContract({ abi: counterAbi, bytecode: counterBytecode, args: [5n] })
    const receipt = await waitForReceipt(node, hash)
    expect(receipt.status).toBe('success')
    counter = receipt.contractAddress!
    // As on Base, "latest" is the last sealed block and eth_estimateGas defaults to it: seal now so
    // viem's write actions (which estimate at the node's default) see the contract.
    await node.node.mine()
    expect(counter).toBe(getContractAddress({ from: node.accounts[0].address, nonce: 0n }).toLowerCase())
  })

  it('reads and writes through viem, at pending and latest', async () => {
    const wallet = node.wallet(0)
    const read = (blockTag: 'pending' | 'latest') =>
      node.publicClient.readContract({ address: counter, abi: counterAbi, functionName: 'count', blockTag })
    expect(await read('pending')).toBe(5n)
    const hash = await wallet.writeContract({ address: counter, abi: counterAbi, functionName: 'increase', args: [3n] })
    const receipt = await waitForReceipt(node, hash)
    expect(receipt.status).toBe('success')
    expect(receipt.logs).toHaveLength(1)
    expect(receipt.logs[0].address).toBe(counter)
    expect(await read('pending')).toBe(8n)
    const logs = await node.publicClient.getContractEvents({
      address: counter,
      abi: counterAbi,
      eventName: 'Increased',
      fromBlock: 0n,
      toBlock: 'pending',
    })
    expect(logs.map((l) => l.args.newCount)).toEqual([8n])
    expect(logs[0].args.by).toBe(node.accounts[0].address)
  })

  it('reverts come back "execution reverted: <reason>" with the revert data: code 3 from eth_call, -32000 from eth_estimateGas', async () => {
    const data = encodeFunctionData({ abi: counterAbi, functionName: 'fail' })
    const res = await node.rpc('eth_call', [{ to: counter, data }, 'latest'])
    expect(res.error.code).toBe(3)
    expect(res.error.message).toBe('execution reverted: counter says no')
    expect(res.error.data).toMatch(/^0x08c379a0/)
    const est = await node.rpc('eth_estimateGas', [{ to: counter, data, from: node.accounts[0].address }, 'pending'])
    expect(est.error.code).toBe(-32000)
    expect(est.error.message).toBe('execution reverted: counter says no')
    expect(est.error.data).toBe(res.error.data)
    const err = await node.publicClient
      .simulateContract({ address: counter, abi: counterAbi, functionName: 'fail', account: node.accounts[0].address } as never)
      .catch((e) => e)
    expect(err).toBeInstanceOf(BaseError)
    // Code 3 with data, as geth and Base's reth answer: viem decodes the reason from the data.
    const reverted = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError
    expect(reverted).toBeInstanceOf(ContractFunctionRevertedError)
    expect(reverted.reason).toBe('counter says no')
  })

  it('estimates gas within geth tolerance of the gas used', async () => {
    const wallet = node.wallet(1)
    const data = encodeFunctionData({ abi: counterAbi, functionName: 'burn', args: [40n] })
    const estimate = await node.publicClient.estimateGas({ account: wallet.account.address, to: counter, data })
    const hash = await wallet.sendTransaction({ to: counter, data, gas: estimate })
    const receipt = await waitForReceipt(node, hash)
    expect(receipt.status).toBe('success')
    expect(estimate).toBeGreaterThanOrEqual(receipt.gasUsed)
    // geth stops its search within 1.5%, plus the 63/64 headroom the optimistic guess may keep.
    expect(Number(estimate - receipt.gasUsed) / Number(receipt.gasUsed)).toBeLessThan(0.04)
    // A transaction at 98% of the estimate runs out of gas or is refused: the estimate is tight.
    const transfer = await node.publicClient.estimateGas({
      account: wallet.account.address,
      to: node.accounts[2].address,
      value: 1n,
    })
    expect(transfer).toBe(21000n)
  })

  it('estimates a plain transfer at 21000, and one to a precompile, with an access list or underpriced as a run does', async () => {
    const from = node.accounts[1].address
    const estimate = async (req: Record<string, unknown>) =>
      node.rpc('eth_estimateGas', [{ from, value: '0x1', ...req }, 'pending'])
    expect((await estimate({ to: '0x00000000000000000000000000000000000000ee' })).result).toBe('0x5208')
    // ecrecover charges 3000 gas even for empty input, so 21000 is not enough (geth: 24000).
    const precompile = await estimate({ to: '0x0000000000000000000000000000000000000001' })
    expect(BigInt(precompile.result)).toBeGreaterThanOrEqual(24000n)
    // An access list adds 2400 per address to the intrinsic gas.
    const listed = await estimate({
      to: '0x00000000000000000000000000000000000000ee',
      accessList: [{ address: '0x00000000000000000000000000000000000000ef', storageKeys: [] }],
    })
    expect(BigInt(listed.result)).toBeGreaterThanOrEqual(23400n)
    // A fee cap under the block's base fee is refused, as a run of the transaction would be.
    const underpriced = await estimate({ to: '0x00000000000000000000000000000000000000ee', maxFeePerGas: '0x1' })
    expect(underpriced.error).toMatchObject({ code: -32000 })
    expect(underpriced.error.message).toMatch(/fee/)
  })

  it('refuses to estimate a transfer the sender cannot fund', async () => {
    const res = await node.rpc('eth_estimateGas', [
      { from: '0x00000000000000000000000000000000000000cc', to: counter, value: '0x1' },
    ])
    expect(res.error).toEqual({ code: -32000, message: 'insufficient funds for transfer' })
  })

  it('reports gas required exceeds allowance when the cap is too low', async () => {
    const data = encodeFunctionData({ abi: counterAbi, functionName: 'burn', args: [40n] })
    const res = await node.rpc('eth_estimateGas', [{ to: counter, data, gas: '0x7530' }])
    expect(res.error).toEqual({ code: -32000, message: 'gas required exceeds allowance (30000)' })
  })

  it('runs calls without "to" as init code and returns its output (deployless call)', async () => {
    const deploy = encodeDeployData({ abi: counterAbi, bytecode: counterBytecode, args: [1n] })
    const res = await node.rpc('eth_call', [{ data: deploy }, 'latest'])
    // The constructor's output is the runtime code.
    const runtime = await node.publicClient.getCode({ address: counter })
    expect(res.result).toBe(runtime)
    // viem's deployless read: deploy the bytecode inside the call and call it.
    const code = encodeDeployData({ abi: counterAbi, bytecode: counterBytecode, args: [7n] })
    const count = await node.publicClient.readContract({ abi: counterAbi, code, functionName: 'count' })
    expect(count).toBe(7n)
    // Nothing persists.
    expect(await node.publicClient.getTransactionCount({ address: '0x0000000000000000000000000000000000000000' })).toBe(0)
  })

  it('applies state overrides (3rd parameter) and block overrides (4th) in eth_call', async () => {
    const data = encodeFunctionData({ abi: counterAbi, functionName: 'count' })
    const slot0 = `0x${'0'.repeat(64)}`
    const res = await node.rpc('eth_call', [
      { to: counter, data },
      'latest',
      { [counter]: { stateDiff: { [slot0]: `0x${'0'.repeat(62)}2a` } } },
    ])
    expect(BigInt(res.result)).toBe(42n)
    const info = encodeFunctionData({ abi: counterAbi, functionName: 'blockInfo' })
    const over = await node.rpc('eth_call', [
      { to: counter, data: info },
      'latest',
      null,
      { number: '0x3e8', time: '0x77359400', baseFeePerGas: '0x7' },
    ])
    expect(over.error).toBeUndefined()
    const [number, time, basefee] = decodeFunctionResult({
      abi: counterAbi,
      functionName: 'blockInfo',
      data: over.result,
    }) as readonly bigint[]
    expect([number, time, basefee]).toEqual([1000n, 2_000_000_000n, 7n])
    // At a fixed block: 'latest' moves when a block seals between the two reads.
    const head = (await node.rpc('eth_blockNumber')).result
    const balance = await node.rpc('eth_getBalance', [node.accounts[0].address, head])
    const rich = await node.rpc('eth_call', [
      { from: '0x00000000000000000000000000000000000000aa', to: node.accounts[0].address, value: '0x1000' },
      head,
      { '0x00000000000000000000000000000000000000aa': { balance: '0x10000' } },
    ])
    expect(rich.result).toBe('0x')
    expect((await node.rpc('eth_getBalance', [node.accounts[0].address, head])).result).toBe(balance.result)
  })

  it('eth_sendTransaction signs with dev accounts; eth_call with a gas price checks funds', async () => {
    const hash = await node.rpc('eth_sendTransaction', [
      {
        from: node.accounts[3].address,
        to: counter,
        data: encodeFunctionData({ abi: counterAbi, functionName: 'increase', args: [1n] }),
      },
    ])
    const receipt = await waitForReceipt(node, hash.result)
    expect(receipt.from).toBe(node.accounts[3].address.toLowerCase())
    const poor = await node.rpc('eth_call', [
      {
        from: '0x00000000000000000000000000000000000000bb',
        to: counter,
        value: '0x1',
        gasPrice: `0x${parseGwei('1').toString(16)}`,
      },
    ])
    expect(poor.error.code).toBe(-32000)
    expect(poor.error.message).toMatch(/^insufficient funds for gas \* price \+ value/)
  })
})
