// EntryPoint v0.6 through the built-in bundler with viem's toCoinbaseSmartAccount, as a Base app drives a
// Coinbase Smart Wallet. The wallet here is NOT Coinbase's code: no npm package ships it, so the node cannot
// preinstall it and these tests cannot place it. It is the project's own stand-in for the interface viem
// calls (test/fixtures/CoinbaseStandIn.sol: createAccount(bytes[], uint256)/getAddress, execute/executeBatch,
// v0.6 validateUserOp over a SignatureWrapper, ERC-1271 over the replay-safe hash). viem takes no factory
// address for this account, so the stand-in factory is deployed normally and its runtime placed at v1.1's
// factory address, as a chain that holds the real factory would; its implementation stays where it was made.
// An EOA owner's account is deployed in a first op the development paymaster sponsors, then pays for itself
// and runs a batch, each op pre-confirmed and read back by hash.
import { type Address, http, parseEther, zeroAddress } from 'viem'
import {
  createBundlerClient,
  createPaymasterClient,
  entryPoint06Abi,
  entryPoint06Address,
  type SmartAccount,
  toCoinbaseSmartAccount,
} from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { DEV_PAYMASTERS } from '../src/contracts/paymaster.js'
import { coinbaseStandInFactoryAbi, coinbaseStandInFactoryBytecode } from './fixtures/coinbase-stand-in.js'
import { type TestNode, useTestNode, waitForReceipt, waitForSealed } from './helpers.js'

const FACTORY_V1_1: Address = '0xBA5ED110eFDBa3D005bfC882d75358ACBbB85842'
const RECIPIENT: Address = '0x000000000000000000000000000000000000bEEF'
const OTHER: Address = '0x000000000000000000000000000000000000cafE'

const balance = (node: TestNode, address: Address) => node.publicClient.getBalance({ address, blockTag: 'pending' })

const deposit = (node: TestNode, address: Address) =>
  node.publicClient.readContract({
    address: entryPoint06Address,
    abi: entryPoint06Abi,
    functionName: 'balanceOf',
    args: [address],
    blockTag: 'pending',
  })

describe('the built-in bundler with viem toCoinbaseSmartAccount (EntryPoint v0.6, stand-in wallet)', () => {
  const node = useTestNode({}, { timeoutMs: 30_000 })
  const owner = privateKeyToAccount(generatePrivateKey())
  let account: SmartAccount

  const bundler = (sponsored: boolean) =>
    createBundlerClient({
      client: node.publicClient,
      transport: http(node.rpcUrl, { retryCount: 0 }),
      paymaster: sponsored ? createPaymasterClient({ transport: http(node.rpcUrl, { retryCount: 0 }) }) : undefined,
      pollingInterval: 50,
    })

  beforeAll(async () => {
    const hash = await node.wallet(0).deployContract({ abi: coinbaseStandInFactoryAbi, bytecode: coinbaseStandInFactoryBytecode })
    const deployed = (await waitForReceipt(node, hash)).contractAddress as Address
    const code = await node.publicClient.getCode({ address: deployed, blockTag: 'pending' })
    expect((await node.rpc('anvil_setCode', [FACTORY_V1_1, code])).error).toBeUndefined()
    account = await toCoinbaseSmartAccount({ client: node.publicClient, owners: [owner], version: '1.1' })
  }, 60_000)

  it('places the factory at v1.1 address, its implementation deployed', async () => {
    const read = { address: FACTORY_V1_1, abi: coinbaseStandInFactoryAbi } as const
    const implementation = await node.publicClient.readContract({ ...read, functionName: 'implementation' })
    expect(await node.publicClient.getCode({ address: implementation, blockTag: 'pending' })).toMatch(/^0x[0-9a-f]{2,}/)
    const predicted = await node.publicClient.readContract({
      ...read,
      functionName: 'getAddress',
      args: [[`0x${owner.address.slice(2).toLowerCase().padStart(64, '0')}`], 0n],
    })
    expect(account.address).toBe(predicted)
    expect(await account.isDeployed()).toBe(false)
  })

  it('estimates and sends a sponsored first op that deploys the account, read back by hash', async () => {
    const client = bundler(true)
    const calls = [{ to: RECIPIENT, value: 0n, data: '0x1234' as const }]
    const gas = await client.estimateUserOperationGas({ account, calls })
    // The first op runs the factory: creation, proxy and owners cost more than a deployed account's check.
    expect(gas.verificationGasLimit).toBeGreaterThan(100_000n)
    expect(gas.callGasLimit).toBeGreaterThan(0n)
    expect(gas.preVerificationGas).toBeGreaterThan(21_000n)

    const hash = await client.sendUserOperation({ account, calls })
    const receipt = await client.waitForUserOperationReceipt({ hash, timeout: 20_000 })
    expect(receipt.success).toBe(true)
    expect(receipt.entryPoint.toLowerCase()).toBe(entryPoint06Address.toLowerCase())
    expect(receipt.sender.toLowerCase()).toBe(account.address.toLowerCase())
    expect(receipt.paymaster?.toLowerCase()).toBe(DEV_PAYMASTERS[2].address.toLowerCase())
    expect(await node.publicClient.getCode({ address: account.address, blockTag: 'pending' })).toMatch(/^0x[0-9a-f]{2,}/)
    // Sponsored: the account never held ETH and holds none.
    expect(await balance(node, account.address)).toBe(0n)

    const found = await client.getUserOperation({ hash })
    expect(found.entryPoint.toLowerCase()).toBe(entryPoint06Address.toLowerCase())
    expect(found.transactionHash).toBe(receipt.receipt.transactionHash)
    expect(found.userOperation.sender.toLowerCase()).toBe(account.address.toLowerCase())
    const again = await client.getUserOperationReceipt({ hash })
    expect(again.userOpHash).toBe(hash)
    expect(again.success).toBe(true)
    // viem asks for the account's code at `latest`: the next op leaves out initCode once the block is sealed.
    await waitForSealed(node, receipt.receipt.transactionHash)
    expect(await account.isDeployed()).toBe(true)
  }, 90_000)

  it('sends a self-paid op from the funded account; ETH and deposit pay value plus gas', async () => {
    await waitForReceipt(node, await node.wallet(0).sendTransaction({ to: account.address, value: parseEther('1') }))
    const client = bundler(false)
    const before = {
      account: await balance(node, account.address),
      deposit: await deposit(node, account.address),
      recipient: await balance(node, RECIPIENT),
    }
    const hash = await client.sendUserOperation({ account, calls: [{ to: RECIPIENT, value: 9n }] })
    const receipt = await client.waitForUserOperationReceipt({ hash, timeout: 20_000 })
    expect(receipt.success).toBe(true)
    expect(receipt.entryPoint.toLowerCase()).toBe(entryPoint06Address.toLowerCase())
    expect(receipt.paymaster).toBe(zeroAddress)
    expect(receipt.actualGasCost).toBeGreaterThan(0n)
    expect(await balance(node, RECIPIENT)).toBe(before.recipient + 9n)
    // v0.6 keeps the unused prefund as the account's deposit in the EntryPoint.
    const after = (await balance(node, account.address)) + (await deposit(node, account.address))
    expect(before.account + before.deposit - after).toBe(9n + receipt.actualGasCost)
    expect((await client.getUserOperation({ hash })).transactionHash).toBe(receipt.receipt.transactionHash)
  }, 90_000)

  it('runs a batch of two calls (executeBatch) in one op', async () => {
    const client = bundler(false)
    const before = [await balance(node, RECIPIENT), await balance(node, OTHER)]
    const calls = [
      { to: RECIPIENT, value: 5n },
      { to: OTHER, value: 7n },
    ]
    const gas = await client.estimateUserOperationGas({ account, calls })
    expect(gas.callGasLimit).toBeGreaterThan(0n)
    const hash = await client.sendUserOperation({ account, calls })
    const receipt = await client.waitForUserOperationReceipt({ hash, timeout: 20_000 })
    expect(receipt.success).toBe(true)
    expect(receipt.entryPoint.toLowerCase()).toBe(entryPoint06Address.toLowerCase())
    expect(await balance(node, RECIPIENT)).toBe(before[0] + 5n)
    expect(await balance(node, OTHER)).toBe(before[1] + 7n)
    const found = await client.getUserOperation({ hash })
    expect(await account.decodeCalls?.(found.userOperation.callData)).toEqual(calls.map((c) => ({ ...c, data: '0x' })))
  }, 90_000)

  it('answers ERC-1271 for a message the owner signs through the account', async () => {
    const signature = await account.signMessage({ message: 'pcnode' })
    expect(await node.publicClient.verifyMessage({ address: account.address, message: 'pcnode', signature })).toBe(true)
    expect(await node.publicClient.verifyMessage({ address: account.address, message: 'other', signature })).toBe(false)
  })
})
