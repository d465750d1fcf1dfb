// viem's default Simple7702Account (@account-abstraction/contracts 0.8.0 at 0xe6Cae83B…555B) as a Base app uses it:
// a dev account delegates to it by an EIP-7702 authorization, viem's toSimple7702SmartAccount builds and signs a
// user operation, and a second dev account submits it to EntryPoint v0.8's handleOps itself, as a bundler would.
import { type Address, keccak256, parseEther, parseEventLogs, parseGwei, zeroAddress } from 'viem'
import {
  entryPoint08Abi,
  entryPoint08Address,
  getUserOperationHash,
  getUserOperationTypedData,
  toPackedUserOperation,
  toSimple7702SmartAccount,
  type UserOperation,
} from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestNode, type TestNode, waitForReceipt } from './helpers.js'

const IMPLEMENTATION: Address = '0xe6Cae83BdE06E4c305530e199D7217f42808555B'
/** keccak256 of the runtime code @account-abstraction/contracts 0.8.0's Simple7702Account deploys (its deployedBytecode). */
const CODE_HASH = '0xcc7b633aef4b2543cb8f37522adf1a401f910f0f6b2430c1eecc11f401ccfcf3'

/** EntryPoint v0.8's next nonce for the sender on `nonce`'s key (viem's accounts key theirs by time), pre-confirmed state. */
function entryPointNonce(node: TestNode, sender: Address, nonce: bigint): Promise<bigint> {
  return node.publicClient.readContract({
    address: entryPoint08Address,
    abi: entryPoint08Abi,
    functionName: 'getNonce',
    args: [sender, nonce >> 64n],
    blockTag: 'pending',
  })
}

describe.each(['flashblocks', 'base'])('Simple7702Account v0.8 in the %s genesis', (profile) => {
  let node: TestNode
  beforeAll(async () => {
    node = await startTestNode({ profile })
  }, 30_000)
  afterAll(() => node?.stop())

  it("is at viem's default implementation address with the npm artifact code", async () => {
    const code = await node.publicClient.getCode({ address: IMPLEMENTATION })
    expect(code && keccak256(code)).toBe(CODE_HASH)
    // Its EntryPoint is v0.8 (a pure function in the artifact), the one pcnode preinstalls.
    const entryPoint = await node.publicClient.readContract({
      address: IMPLEMENTATION,
      abi: [{ type: 'function', name: 'entryPoint', inputs: [], outputs: [{ type: 'address' }], stateMutability: 'pure' }],
      functionName: 'entryPoint',
    })
    expect(entryPoint).toBe(entryPoint08Address)
  })
})

describe('toSimple7702SmartAccount through EntryPoint v0.8', () => {
  let node: TestNode
  beforeAll(async () => {
    node = await startTestNode()
  }, 30_000)
  afterAll(() => node?.stop())

  it('a delegated dev account runs a batch of calls from a user operation another account submits', async () => {
    const owner = node.wallet(7)
    const submitter = node.wallet(8)
    const account = await toSimple7702SmartAccount({
      client: node.publicClient,
      owner: privateKeyToAccount(node.accounts[7].privateKey),
    })
    expect(account.address).toBe(owner.account.address)

    // The owner authorizes the delegation; its nonce is not bumped first, since another account sends the transaction.
    const authorization = await owner.signAuthorization({ address: IMPLEMENTATION })
    expect(authorization.address).toBe(IMPLEMENTATION)

    const recipients = [privateKeyToAccount(generatePrivateKey()).address, privateKeyToAccount(generatePrivateKey()).address]
    const beneficiary = privateKeyToAccount(generatePrivateKey()).address
    const callData = await account.encodeCalls([
      { to: recipients[0], value: parseEther('1') },
      { to: recipients[1], value: parseEther('2') },
    ])
    const fees = await node.publicClient.estimateFeesPerGas()
    // No bundler estimates gas here: generous fixed limits; the account prefunds them from its balance.
    const unsigned = {
      sender: account.address,
      nonce: await account.getNonce(),
      factory: '0x7702',
      factoryData: '0x',
      authorization,
      callData,
      callGasLimit: 300_000n,
      verificationGasLimit: 300_000n,
      preVerificationGas: 60_000n,
      maxFeePerGas: fees.maxFeePerGas + parseGwei('1'),
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    } satisfies Omit<UserOperation<'0.8'>, 'signature'>
    const signature = await account.signUserOperation({ ...unsigned, signature: '0x' }) // the signature field is not signed over
    const userOperation: UserOperation<'0.8'> = { ...unsigned, signature }
    const userOpHash = getUserOperationHash({
      userOperation,
      entryPointAddress: entryPoint08Address,
      entryPointVersion: '0.8',
      chainId: node.chainId,
    })

    const hash = await submitter.writeContract({
      address: entryPoint08Address,
      abi: entryPoint08Abi,
      functionName: 'handleOps',
      args: [[toPackedUserOperation(userOperation)], beneficiary],
      authorizationList: [authorization],
    })
    const receipt = await waitForReceipt(node, hash, 30_000)
    expect(receipt.status).toBe('success')

    const code = await node.publicClient.getCode({ address: account.address, blockTag: 'pending' })
    expect(code).toBe(`0xef0100${IMPLEMENTATION.slice(2).toLowerCase()}`)
    const [event] = parseEventLogs({ abi: entryPoint08Abi, eventName: 'UserOperationEvent', logs: receipt.logs })
    expect(event?.args).toMatchObject({ userOpHash, sender: account.address, paymaster: zeroAddress, success: true })
    expect(await node.publicClient.getBalance({ address: recipients[0], blockTag: 'pending' })).toBe(parseEther('1'))
    expect(await node.publicClient.getBalance({ address: recipients[1], blockTag: 'pending' })).toBe(parseEther('2'))
    // The beneficiary is paid the operation's actual gas cost, which the event reports.
    expect(await node.publicClient.getBalance({ address: beneficiary, blockTag: 'pending' })).toBe(event?.args.actualGasCost)
    expect(await entryPointNonce(node, account.address, unsigned.nonce)).toBe(unsigned.nonce + 1n)
  }, 60_000)

  it("rejects a user operation signed by another key with EntryPoint v0.8's own error, moving nothing", async () => {
    const owner = node.wallet(6)
    const account = await toSimple7702SmartAccount({
      client: node.publicClient,
      owner: privateKeyToAccount(node.accounts[6].privateKey),
    })
    const authorization = await owner.signAuthorization({ address: IMPLEMENTATION })
    const recipient = privateKeyToAccount(generatePrivateKey()).address
    const fees = await node.publicClient.estimateFeesPerGas()
    const unsigned = {
      sender: account.address,
      nonce: await account.getNonce(),
      factory: '0x7702',
      factoryData: '0x',
      authorization,
      callData: await account.encodeCalls([{ to: recipient, value: 1n }]),
      callGasLimit: 300_000n,
      verificationGasLimit: 300_000n,
      preVerificationGas: 60_000n,
      maxFeePerGas: fees.maxFeePerGas + parseGwei('1'),
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    } satisfies Omit<UserOperation<'0.8'>, 'signature'>
    // Another key signs the account's own operation: the account's ECDSA check fails (AA24).
    const typedData = getUserOperationTypedData({
      chainId: node.chainId,
      entryPointAddress: entryPoint08Address,
      userOperation: { ...unsigned, signature: '0x' },
    })
    const signature = await privateKeyToAccount(generatePrivateKey()).signTypedData(typedData)
    const request = node.wallet(8).writeContract({
      address: entryPoint08Address,
      abi: entryPoint08Abi,
      functionName: 'handleOps',
      args: [[toPackedUserOperation({ ...unsigned, signature })], recipient],
      authorizationList: [authorization],
    })
    await expect(request).rejects.toThrow(/AA24 signature error/)
    expect(await node.publicClient.getBalance({ address: recipient, blockTag: 'pending' })).toBe(0n)
    expect(await entryPointNonce(node, account.address, unsigned.nonce)).toBe(unsigned.nonce)
  }, 60_000)
})
