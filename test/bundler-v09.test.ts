// EntryPoint v0.9 through the built-in bundler, on a chain that holds its code. No npm package has v0.9's
// final code, so the node preinstalls none; here the npm release candidate's runtime is placed at v0.9's
// address (as a fork of Base would hold v0.9), and a solady account answering to that address is
// estimated, sent, pre-confirmed and read back through viem's bundler client.
import { type Address, encodeFunctionData, http, pad, parseEther } from 'viem'
import { createBundlerClient, entryPoint09Abi, entryPoint09Address, toSoladySmartAccount } from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { account09FactoryAbi, account09FactoryBytecode } from './fixtures/account09.js'
import { entryPoint09RcBytecode } from './fixtures/entrypoint09-rc.js'
import { useTestNode, waitForReceipt, waitForSealed } from './helpers.js'

const RECIPIENT: Address = '0x000000000000000000000000000000000000bEEF'
const ENTRY_POINT_09 = { address: entryPoint09Address, version: '0.9', abi: entryPoint09Abi } as const

describe('the built-in bundler with EntryPoint v0.9 on the chain', () => {
  const node = useTestNode({}, { timeoutMs: 30_000 })
  let factory: Address

  beforeAll(async () => {
    const deployed = await waitForReceipt(
      node,
      await node.wallet(0).deployContract({ abi: [], bytecode: entryPoint09RcBytecode }),
    )
    const code = await node.publicClient.getCode({ address: deployed.contractAddress as Address, blockTag: 'pending' })
    expect((await node.rpc('anvil_setCode', [entryPoint09Address, code])).error).toBeUndefined()
    const hash = await node.wallet(0).deployContract({ abi: account09FactoryAbi, bytecode: account09FactoryBytecode })
    factory = (await waitForReceipt(node, hash)).contractAddress as Address
  }, 60_000)

  it('lists v0.9 first once the chain has its code', async () => {
    const { result } = await node.rpc('eth_supportedEntryPoints')
    expect(result[0].toLowerCase()).toBe(entryPoint09Address.toLowerCase())
  })

  it('estimates, sends and pre-confirms a v0.9 op, read back by hash', async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const salt = '0x09'
    // Deployed beforehand: the release candidate's SenderCreator answers only to the address it was created from.
    const created = await node.wallet(0).sendTransaction({
      to: factory,
      data: encodeFunctionData({
        abi: account09FactoryAbi,
        functionName: 'createAccount',
        args: [owner.address, pad(salt)],
      }),
    })
    await waitForSealed(node, (await waitForReceipt(node, created)).transactionHash)
    const account = await toSoladySmartAccount({
      client: node.publicClient,
      owner,
      factoryAddress: factory,
      salt,
      entryPoint: ENTRY_POINT_09,
    })
    expect(await node.publicClient.getCode({ address: account.address })).toBeDefined()
    await waitForReceipt(node, await node.wallet(0).sendTransaction({ to: account.address, value: parseEther('1') }))

    const client = createBundlerClient({
      client: node.publicClient,
      transport: http(node.rpcUrl, { retryCount: 0 }),
      pollingInterval: 50,
    })
    const gas = await client.estimateUserOperationGas({ account, calls: [{ to: RECIPIENT, value: 9n }] })
    expect(gas.verificationGasLimit).toBeGreaterThan(20_000n)
    const before = await node.publicClient.getBalance({ address: RECIPIENT, blockTag: 'pending' })
    const hash = await client.sendUserOperation({ account, calls: [{ to: RECIPIENT, value: 9n }] })
    const receipt = await client.waitForUserOperationReceipt({ hash, timeout: 20_000 })
    expect(receipt.success).toBe(true)
    expect(receipt.entryPoint.toLowerCase()).toBe(entryPoint09Address.toLowerCase())
    expect(await node.publicClient.getBalance({ address: RECIPIENT, blockTag: 'pending' })).toBe(before + 9n)
    const found = await client.getUserOperation({ hash })
    expect(found.entryPoint.toLowerCase()).toBe(entryPoint09Address.toLowerCase())
    expect(found.transactionHash).toBe(receipt.receipt.transactionHash)
  }, 90_000)
})
