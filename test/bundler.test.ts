// The built-in ERC-4337 bundler through viem's bundler client, as a Base app uses one: a v0.8
// Simple7702Account (a fresh EOA delegating by the authorization its first user operation carries) and a
// v0.7 solady account its factory deploys in the first op; estimate, send self-paid, wait for the
// pre-confirmed receipt, read the op back by hash; a bad signature refused with ERC-7769's code and the
// EntryPoint's AA reason, the node serving on.
import { type Address, createWalletClient, encodeFunctionData, type Hex, http, parseEther } from 'viem'
import {
  type BundlerClient,
  createBundlerClient,
  createPaymasterClient,
  entryPoint06Address,
  entryPoint07Abi,
  entryPoint07Address,
  entryPoint08Address,
  getUserOperationHash,
  toPackedUserOperation,
  toSimple7702SmartAccount,
  toSoladySmartAccount,
  type UserOperation,
} from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { DEV_PAYMASTERS, PAYMASTER_DEPOSIT } from '../src/contracts/paymaster.js'
import { account06Abi, account06Bytecode } from './fixtures/account06.js'
import { ruleBreakerAccountAbi, ruleBreakerAccountBytecode } from './fixtures/rule-breaker.js'
import { soladyAccountFactoryAbi, soladyAccountFactoryBytecode } from './fixtures/solady-account.js'
import { type TestNode, useTestNode, waitForReceipt, waitForSealed } from './helpers.js'

const RECIPIENT: Address = '0x000000000000000000000000000000000000bEEF'
const SIMPLE_7702: Address = '0xe6Cae83BdE06E4c305530e199D7217f42808555B'

function bundlerFor(node: TestNode): BundlerClient {
  return createBundlerClient({ client: node.publicClient, transport: http(node.rpcUrl, { retryCount: 0 }), pollingInterval: 50 })
}

/** A fresh owner key with `eth` ETH from dev account 0. */
async function fundedOwner(node: TestNode, eth: string) {
  const owner = privateKeyToAccount(generatePrivateKey())
  await fund(node, owner.address, eth)
  return owner
}

async function fund(node: TestNode, to: Address, eth: string) {
  const hash = await node.wallet(0).sendTransaction({ to, value: parseEther(eth) })
  await waitForReceipt(node, hash)
}

/** The v0.8 account of a fresh funded EOA, and the signed authorization its first op carries. */
async function simple7702(node: TestNode) {
  const owner = await fundedOwner(node, '1')
  const account = await toSimple7702SmartAccount({ client: node.publicClient, owner })
  const wallet = createWalletClient({ account: owner, chain: node.chain, transport: http(node.rpcUrl, { retryCount: 0 }) })
  const authorization = await wallet.signAuthorization({ contractAddress: SIMPLE_7702 })
  return { owner, account, authorization }
}

async function balance(node: TestNode, address: Address): Promise<bigint> {
  return node.publicClient.getBalance({ address, blockTag: 'pending' })
}

describe('the built-in bundler (flashblocks profile)', () => {
  const node = useTestNode({}, { timeoutMs: 30_000 })
  let factory: Address

  beforeAll(async () => {
    const hash = await node.wallet(0).deployContract({ abi: soladyAccountFactoryAbi, bytecode: soladyAccountFactoryBytecode })
    const receipt = await waitForReceipt(node, hash)
    factory = receipt.contractAddress as Address
  }, 30_000)

  it('lists the EntryPoints the chain has', async () => {
    const { result } = await node.rpc('eth_supportedEntryPoints')
    expect(result.map((a: string) => a.toLowerCase())).toEqual(
      [entryPoint08Address, entryPoint07Address, entryPoint06Address].map((a) => a.toLowerCase()),
    )
  })

  it('sends a v0.8 Simple7702Account op (the delegation in its first op), pre-confirmed, read back by hash', async () => {
    const { owner, account, authorization } = await simple7702(node)
    const client = bundlerFor(node)
    const before = await balance(node, RECIPIENT)
    const hash = await client.sendUserOperation({ account, authorization, calls: [{ to: RECIPIENT, value: 1234n }] })
    const receipt = await client.waitForUserOperationReceipt({ hash, timeout: 20_000 })
    expect(receipt.success).toBe(true)
    expect(receipt.sender.toLowerCase()).toBe(owner.address.toLowerCase())
    expect(receipt.entryPoint.toLowerCase()).toBe(entryPoint08Address.toLowerCase())
    expect(await balance(node, RECIPIENT)).toBe(before + 1234n)
    // The EOA now delegates to the implementation.
    expect(await node.publicClient.getCode({ address: owner.address, blockTag: 'pending' })).toBe(
      `0xef0100${SIMPLE_7702.slice(2).toLowerCase()}`,
    )
    const found = await client.getUserOperation({ hash })
    expect(found.transactionHash).toBe(receipt.receipt.transactionHash)
    expect(found.userOperation.sender.toLowerCase()).toBe(owner.address.toLowerCase())

    // A second op, now that the account is delegated: no authorization.
    const second = await client.sendUserOperation({ account, calls: [{ to: RECIPIENT, value: 1n }] })
    expect((await client.waitForUserOperationReceipt({ hash: second, timeout: 20_000 })).success).toBe(true)
    expect(await balance(node, RECIPIENT)).toBe(before + 1235n)
  }, 60_000)

  it('deploys and runs a v0.7 solady account in its first op, self-paid', async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const account = await toSoladySmartAccount({ client: node.publicClient, owner, factoryAddress: factory, salt: '0x01' })
    await fund(node, account.address, '1')
    const client = bundlerFor(node)
    const gas = await client.estimateUserOperationGas({ account, calls: [{ to: RECIPIENT, value: 7n }] })
    expect(gas.verificationGasLimit).toBeGreaterThan(50_000n)
    expect(gas.callGasLimit).toBeGreaterThan(0n)
    expect(gas.preVerificationGas).toBeGreaterThan(21_000n)
    const before = await balance(node, RECIPIENT)
    const hash = await client.sendUserOperation({ account, calls: [{ to: RECIPIENT, value: 7n }] })
    const receipt = await client.waitForUserOperationReceipt({ hash, timeout: 20_000 })
    expect(receipt.success).toBe(true)
    expect(receipt.entryPoint.toLowerCase()).toBe(entryPoint07Address.toLowerCase())
    expect(await balance(node, RECIPIENT)).toBe(before + 7n)
    expect(await node.publicClient.getCode({ address: account.address, blockTag: 'pending' })).not.toBe(undefined)
  }, 60_000)

  it('refuses a bad signature with -32507 and the AA24 reason, and keeps serving', async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const account = await toSoladySmartAccount({ client: node.publicClient, owner, factoryAddress: factory, salt: '0x02' })
    await fund(node, account.address, '1')
    const client = bundlerFor(node)
    const op = await client.prepareUserOperation({ account, calls: [{ to: RECIPIENT, value: 1n }] })
    const wrong = await toSoladySmartAccount({
      client: node.publicClient,
      owner: privateKeyToAccount(generatePrivateKey()),
      factoryAddress: factory,
      salt: '0x02',
    })
    const signature = await wrong.signUserOperation(op)
    const { error } = await node.rpc('eth_sendUserOperation', [rpcOp({ ...op, signature }), entryPoint07Address])
    expect(error.code).toBe(-32507)
    expect(error.message).toMatch(/AA24 signature error/)
    expect((await node.rpc('eth_blockNumber')).result).toMatch(/^0x/)
  }, 60_000)

  it('holds ops in manual mode: ordered per sender and key, a replacement needs fees a tenth higher, sent on demand', async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const account = await toSoladySmartAccount({ client: node.publicClient, owner, factoryAddress: factory, salt: '0x03' })
    const created = await node.wallet(0).writeContract({
      address: factory,
      abi: soladyAccountFactoryAbi,
      functionName: 'createAccount',
      args: [owner.address, `0x${'03'.padStart(64, '0')}`],
      value: parseEther('1'),
    })
    // Sealed: viem's isDeployed reads the code at "latest".
    await waitForSealed(node, created)
    const client = bundlerFor(node)
    expect((await node.rpc('debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok')
    try {
      const key = 5n << 64n
      const fees = { maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n }
      const first = await client.sendUserOperation({ account, nonce: key, calls: [{ to: RECIPIENT, value: 1n }], ...fees })
      // The same sender and nonce at the same fees: refused; a tenth higher: it replaces the first.
      const same = client.sendUserOperation({ account, nonce: key, calls: [{ to: RECIPIENT, value: 2n }], ...fees })
      await expect(same).rejects.toThrow(/underpriced/)
      const higher = { maxFeePerGas: 3_300_000_000n, maxPriorityFeePerGas: 1_100_000_000n }
      const replacement = await client.sendUserOperation({
        account,
        nonce: key,
        calls: [{ to: RECIPIENT, value: 2n }],
        ...higher,
      })
      expect((await node.rpc('eth_getUserOperationByHash', [first])).result).toBe(null)
      // The next nonce of the key is checked after the op ahead of it, so it is accepted while that one waits.
      const next = await client.sendUserOperation({ account, nonce: key + 1n, calls: [{ to: RECIPIENT, value: 3n }], ...higher })
      const { result: mempool } = await node.rpc('debug_bundler_dumpMempool', [entryPoint07Address])
      expect(mempool.map((op: { nonce: string }) => BigInt(op.nonce))).toEqual([key, key + 1n])
      expect((await node.rpc('eth_getUserOperationReceipt', [replacement])).result).toBe(null)

      const before = await balance(node, RECIPIENT)
      const { result: bundle } = await node.rpc('debug_bundler_sendBundleNow')
      expect(bundle).toMatch(/^0x[0-9a-f]{64}$/)
      const receipts = await Promise.all(
        [replacement, next].map((hash) => client.waitForUserOperationReceipt({ hash, timeout: 20_000 })),
      )
      expect(receipts.map((r) => [r.success, r.receipt.transactionHash])).toEqual([
        [true, bundle],
        [true, bundle],
      ])
      expect(await balance(node, RECIPIENT)).toBe(before + 5n)
      expect((await node.rpc('debug_bundler_dumpMempool', [entryPoint07Address])).result).toEqual([])
    } finally {
      await node.rpc('debug_bundler_setBundlingMode', ['auto'])
    }
  }, 60_000)

  it('estimates, sends and bundles a v0.6 op (unpacked UserOperation, initCode and paymasterAndData)', async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const deployed = await node.wallet(0).deployContract({
      abi: account06Abi,
      bytecode: account06Bytecode,
      args: [owner.address],
      value: parseEther('1'),
    })
    const sender = (await waitForReceipt(node, deployed)).contractAddress as Address
    const baseFee = (await node.publicClient.getBlock({ blockTag: 'pending' })).baseFeePerGas ?? 0n
    const op = {
      sender,
      nonce: 0n,
      initCode: '0x' as const,
      callData: encodeFunctionData({ abi: account06Abi, functionName: 'execute', args: [RECIPIENT, 9n, '0x'] }),
      callGasLimit: 0n,
      verificationGasLimit: 0n,
      preVerificationGas: 0n,
      maxFeePerGas: baseFee * 2n + 1_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      paymasterAndData: '0x' as const,
      signature: `0x${'ff'.repeat(65)}` as const,
    }
    const { result: gas } = await node.rpc('eth_estimateUserOperationGas', [rpcOp(op), entryPoint06Address])
    const filled = {
      ...op,
      callGasLimit: BigInt(gas.callGasLimit),
      verificationGasLimit: BigInt(gas.verificationGasLimit),
      preVerificationGas: BigInt(gas.preVerificationGas),
    }
    const userOpHash = getUserOperationHash({
      chainId: node.chainId,
      entryPointAddress: entryPoint06Address,
      entryPointVersion: '0.6',
      userOperation: filled,
    })
    const signature = await owner.signMessage({ message: { raw: userOpHash } })
    const before = await balance(node, RECIPIENT)
    const { result: hash } = await node.rpc('eth_sendUserOperation', [rpcOp({ ...filled, signature }), entryPoint06Address])
    expect(hash).toBe(userOpHash)
    const receipt = await bundlerFor(node).waitForUserOperationReceipt({ hash, timeout: 20_000 })
    expect(receipt.success).toBe(true)
    expect(receipt.entryPoint.toLowerCase()).toBe(entryPoint06Address.toLowerCase())
    expect(await balance(node, RECIPIENT)).toBe(before + 9n)
  }, 60_000)

  it('takes the same op again after evm_revert removed its bundle', async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const account = await toSoladySmartAccount({ client: node.publicClient, owner, factoryAddress: factory, salt: '0x06' })
    await fund(node, account.address, '1')
    const client = bundlerFor(node)
    const op = await client.prepareUserOperation({ account, calls: [{ to: RECIPIENT, value: 1n }] })
    const body = rpcOp({ ...op, signature: await account.signUserOperation(op) })
    const { result: snapshot } = await node.rpc('evm_snapshot')
    const { result: hash } = await node.rpc('eth_sendUserOperation', [body, entryPoint07Address])
    await client.waitForUserOperationReceipt({ hash, timeout: 20_000 })
    expect((await node.rpc('evm_revert', [snapshot])).result).toBe(true)
    expect((await node.rpc('eth_getUserOperationReceipt', [hash])).result).toBe(null)
    const again = await node.rpc('eth_sendUserOperation', [body, entryPoint07Address])
    expect(again.result).toBe(hash)
    expect((await client.waitForUserOperationReceipt({ hash, timeout: 20_000 })).success).toBe(true)
  }, 60_000)

  it('serves the receipt of an op another bundler sent (handleOps called directly)', async () => {
    const op = (await ruleBreaker(node))(0)
    const userOperation = {
      ...op,
      nonce: BigInt(op.nonce),
      callGasLimit: BigInt(op.callGasLimit),
      verificationGasLimit: BigInt(op.verificationGasLimit),
      preVerificationGas: BigInt(op.preVerificationGas),
      maxFeePerGas: BigInt(op.maxFeePerGas),
      maxPriorityFeePerGas: BigInt(op.maxPriorityFeePerGas),
    } as UserOperation<'0.7'>
    const hash = getUserOperationHash({
      chainId: node.chainId,
      entryPointAddress: entryPoint07Address,
      entryPointVersion: '0.7',
      userOperation,
    })
    const sent = await node.wallet(1).writeContract({
      address: entryPoint07Address,
      abi: entryPoint07Abi,
      functionName: 'handleOps',
      args: [[toPackedUserOperation(userOperation)], node.accounts[1].address],
    })
    await waitForReceipt(node, sent)
    const receipt = await bundlerFor(node).waitForUserOperationReceipt({ hash, timeout: 20_000 })
    expect(receipt.success).toBe(true)
    expect(receipt.receipt.transactionHash).toBe(sent)
  }, 60_000)

  it('drops at bundling time an op the EntryPoint now refuses, and takes it again once it can pay', async () => {
    const op = (await ruleBreaker(node))(0)
    expect((await node.rpc('debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok')
    try {
      const { result: hash } = await node.rpc('eth_sendUserOperation', [op, entryPoint07Address])
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/)
      // The sender loses its ETH before the bundle: AA21, so the op is left out and nothing is sent.
      await node.rpc('anvil_setBalance', [op.sender, '0x0'])
      expect((await node.rpc('debug_bundler_sendBundleNow')).result).toBe(null)
      expect((await node.rpc('eth_getUserOperationByHash', [hash])).result).toBe(null)
      expect((await node.rpc('debug_bundler_dumpMempool', [entryPoint07Address])).result).toEqual([])
      await node.rpc('anvil_setBalance', [op.sender, '0xde0b6b3a7640000'])
      expect((await node.rpc('eth_sendUserOperation', [op, entryPoint07Address])).result).toBe(hash)
      const { result: bundle } = await node.rpc('debug_bundler_sendBundleNow')
      expect(bundle).toMatch(/^0x[0-9a-f]{64}$/)
      expect((await bundlerFor(node).waitForUserOperationReceipt({ hash, timeout: 20_000 })).success).toBe(true)
    } finally {
      await node.rpc('debug_bundler_setBundlingMode', ['auto'])
    }
  }, 60_000)

  it('pays the bundles from an account funded at genesis', async () => {
    const address = node.node.bundler.address
    expect(await node.publicClient.getBalance({ address })).toBeGreaterThan(parseEther('1'))
    const { error } = await node.rpc('debug_bundler_setBundlingMode', ['sometimes'])
    expect(error.code).toBe(-32602)
  })

  describe('with the development paymaster (ERC-7677)', () => {
    const sponsored = () =>
      createBundlerClient({
        client: node.publicClient,
        transport: http(node.rpcUrl, { retryCount: 0 }),
        paymaster: createPaymasterClient({ transport: http(node.rpcUrl, { retryCount: 0 }) }),
        pollingInterval: 50,
      })

    it('has a deposit in EntryPoint v0.6, v0.7 and v0.8 from genesis', async () => {
      for (const p of DEV_PAYMASTERS) {
        const deposit = await node.publicClient.readContract({
          address: p.entryPoint,
          abi: entryPoint07Abi,
          functionName: 'balanceOf',
          args: [p.address],
        })
        expect(deposit).toBe(PAYMASTER_DEPOSIT)
      }
    })

    it('sponsors a v0.7 account that holds no ETH (deployed in the same op)', async () => {
      const owner = privateKeyToAccount(generatePrivateKey())
      const account = await toSoladySmartAccount({ client: node.publicClient, owner, factoryAddress: factory, salt: '0x04' })
      const hash = await sponsored().sendUserOperation({ account, calls: [{ to: RECIPIENT, value: 0n, data: '0x1234' }] })
      const receipt = await sponsored().waitForUserOperationReceipt({ hash, timeout: 20_000 })
      expect(receipt.success).toBe(true)
      expect(receipt.paymaster?.toLowerCase()).toBe(DEV_PAYMASTERS[0].address.toLowerCase())
      expect(await balance(node, account.address)).toBe(0n)
    }, 60_000)

    it('sponsors a v0.8 Simple7702Account whose EOA holds no ETH', async () => {
      const owner = privateKeyToAccount(generatePrivateKey())
      const account = await toSimple7702SmartAccount({ client: node.publicClient, owner })
      const wallet = createWalletClient({ account: owner, chain: node.chain, transport: http(node.rpcUrl, { retryCount: 0 }) })
      const authorization = await wallet.signAuthorization({ contractAddress: SIMPLE_7702 })
      const hash = await sponsored().sendUserOperation({ account, authorization, calls: [{ to: RECIPIENT, data: '0x' }] })
      const receipt = await sponsored().waitForUserOperationReceipt({ hash, timeout: 20_000 })
      expect(receipt.success).toBe(true)
      expect(receipt.paymaster?.toLowerCase()).toBe(DEV_PAYMASTERS[1].address.toLowerCase())
      expect(await balance(node, owner.address)).toBe(0n)
    }, 60_000)

    it('sponsors a v0.6 op (paymasterAndData) from an account that holds no ETH', async () => {
      const owner = privateKeyToAccount(generatePrivateKey())
      const deployed = await node
        .wallet(0)
        .deployContract({ abi: account06Abi, bytecode: account06Bytecode, args: [owner.address] })
      const sender = (await waitForReceipt(node, deployed)).contractAddress as Address
      const baseFee = (await node.publicClient.getBlock({ blockTag: 'pending' })).baseFeePerGas ?? 0n
      const chainId = `0x${node.chainId.toString(16)}`
      const op = {
        sender,
        nonce: 0n,
        initCode: '0x' as Hex,
        callData: encodeFunctionData({ abi: account06Abi, functionName: 'execute', args: [RECIPIENT, 0n, '0x'] }),
        callGasLimit: 0n,
        verificationGasLimit: 0n,
        preVerificationGas: 0n,
        maxFeePerGas: baseFee * 2n + 1_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
        paymasterAndData: '0x' as Hex,
        signature: `0x${'ff'.repeat(65)}` as Hex,
      }
      const stub = await node.rpc('pm_getPaymasterStubData', [rpcOp(op), entryPoint06Address, chainId, {}])
      expect(stub.result.paymasterAndData.slice(0, 42).toLowerCase()).toBe(DEV_PAYMASTERS[2].address.toLowerCase())
      const { result: gas } = await node.rpc('eth_estimateUserOperationGas', [
        rpcOp({ ...op, paymasterAndData: stub.result.paymasterAndData }),
        entryPoint06Address,
      ])
      const estimated = {
        ...op,
        callGasLimit: BigInt(gas.callGasLimit),
        verificationGasLimit: BigInt(gas.verificationGasLimit),
        preVerificationGas: BigInt(gas.preVerificationGas),
      }
      const { result: data } = await node.rpc('pm_getPaymasterData', [rpcOp(estimated), entryPoint06Address, chainId, {}])
      const final = { ...estimated, paymasterAndData: data.paymasterAndData as Hex }
      const userOpHash = getUserOperationHash({
        chainId: node.chainId,
        entryPointAddress: entryPoint06Address,
        entryPointVersion: '0.6',
        userOperation: final,
      })
      const signature = await owner.signMessage({ message: { raw: userOpHash } })
      const { result: hash } = await node.rpc('eth_sendUserOperation', [rpcOp({ ...final, signature }), entryPoint06Address])
      const receipt = await bundlerFor(node).waitForUserOperationReceipt({ hash, timeout: 20_000 })
      expect(receipt.success).toBe(true)
      expect(receipt.paymaster?.toLowerCase()).toBe(DEV_PAYMASTERS[2].address.toLowerCase())
      expect(await balance(node, sender)).toBe(0n)
    }, 60_000)

    it('refuses while pcnode_setPaymasterSponsoring is false', async () => {
      const owner = privateKeyToAccount(generatePrivateKey())
      const account = await toSoladySmartAccount({ client: node.publicClient, owner, factoryAddress: factory, salt: '0x05' })
      expect((await node.rpc('pcnode_setPaymasterSponsoring', [false])).result).toBe(null)
      try {
        await expect(sponsored().sendUserOperation({ account, calls: [{ to: RECIPIENT, data: '0x' }] })).rejects.toThrow(
          /refuses to sponsor/,
        )
      } finally {
        await node.rpc('pcnode_setPaymasterSponsoring', [true])
      }
      const hash = await sponsored().sendUserOperation({ account, calls: [{ to: RECIPIENT, data: '0x' }] })
      expect((await sponsored().waitForUserOperationReceipt({ hash, timeout: 20_000 })).success).toBe(true)
    }, 60_000)
  })
})

describe('the built-in bundler (base profile, 200 ms blocks)', () => {
  const node = useTestNode({ profile: 'base' }, { timeoutMs: 30_000 })

  it('sends a v0.8 Simple7702Account op and serves its receipt', async () => {
    const { account, authorization } = await simple7702(node)
    const client = bundlerFor(node)
    const hash = await client.sendUserOperation({ account, authorization, calls: [{ to: RECIPIENT, value: 5n }] })
    const receipt = await client.waitForUserOperationReceipt({ hash, timeout: 20_000 })
    expect(receipt.success).toBe(true)
    const { result } = await node.rpc('eth_getUserOperationByHash', [hash])
    expect(result.transactionHash).toBe(receipt.receipt.transactionHash)
    expect(BigInt(result.blockNumber)).toBe(receipt.receipt.blockNumber)
  }, 60_000)
})

/** A RuleBreakerAccount with 1 ETH, and a v0.7 op from it whose signature's first byte picks its validation's behaviour. */
async function ruleBreaker(node: TestNode) {
  const hash = await node
    .wallet(0)
    .deployContract({ abi: ruleBreakerAccountAbi, bytecode: ruleBreakerAccountBytecode, value: parseEther('1') })
  const sender = (await waitForReceipt(node, hash)).contractAddress as Address
  const baseFee = (await node.publicClient.getBlock({ blockTag: 'pending' })).baseFeePerGas ?? 0n
  return (mode: number, nonce = 0n) => ({
    sender,
    nonce: `0x${nonce.toString(16)}`,
    callData: encodeFunctionData({ abi: ruleBreakerAccountAbi, functionName: 'execute', args: [RECIPIENT, 0n, '0x'] }),
    callGasLimit: '0x30000',
    verificationGasLimit: '0x60000',
    preVerificationGas: '0x30000',
    maxFeePerGas: `0x${(baseFee * 2n + 1_000_000_000n).toString(16)}`,
    maxPriorityFeePerGas: '0x3b9aca00',
    signature: `0x0${mode}`,
  })
}

describe('ERC-7562 rules in validation', () => {
  const node = useTestNode({}, { timeoutMs: 30_000 })

  it('refuses a banned opcode and foreign storage with -32502 naming the rule; a clean op passes', async () => {
    const op = await ruleBreaker(node)
    const timestamp = await node.rpc('eth_sendUserOperation', [op(1), entryPoint07Address])
    expect(timestamp.error.code).toBe(-32502)
    expect(timestamp.error.message).toMatch(/account validation breaks ERC-7562 OP-011: TIMESTAMP/)
    const storage = await node.rpc('eth_sendUserOperation', [op(2), entryPoint07Address])
    expect(storage.error.code).toBe(-32502)
    expect(storage.error.message).toMatch(/STO-021: SLOAD/)
    const { result: hash } = await node.rpc('eth_sendUserOperation', [op(0), entryPoint07Address])
    const client = bundlerFor(node)
    expect((await client.waitForUserOperationReceipt({ hash, timeout: 20_000 })).success).toBe(true)
  }, 60_000)
})

describe('ERC-7562 rules skipped (bundlerUnsafe, --bundler-unsafe)', () => {
  const node = useTestNode({ bundlerUnsafe: true }, { timeoutMs: 30_000 })

  it('accepts the op that reads TIMESTAMP in validation', async () => {
    const op = await ruleBreaker(node)
    const { result: hash } = await node.rpc('eth_sendUserOperation', [op(1), entryPoint07Address])
    expect((await bundlerFor(node).waitForUserOperationReceipt({ hash, timeout: 20_000 })).success).toBe(true)
  }, 60_000)
})

/** The op as JSON-RPC sends it (viem's request formatter is what sendUserOperation uses). */
function rpcOp(op: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(op)) {
    if (v === undefined || k === 'account') continue
    out[k] = typeof v === 'bigint' ? `0x${v.toString(16)}` : v
  }
  return out
}
