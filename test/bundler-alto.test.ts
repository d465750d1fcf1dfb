// alto, the bundler Base apps run beside a devnet, against pcnode. The same Simple7702Account v0.8 op
// (a fresh EOA delegating by the authorization it carries) is estimated by alto in safe mode and by
// pcnode's own bundler, the two within 10 % of each other; an op sent through alto lands and pcnode
// serves its receipt. Sends go through alto in unsafe mode: alto 0.0.20's safe mode refuses them on
// any node. For v0.7+ it cannot decode the EntryPoint's DelegateAndRevert wrapper of the simulation
// result (pimlicolabs/alto#756). For v0.6 its SafeValidator traces simulateValidation with its v0.7
// collector tracer, which reads the validating frame at depth 3 (where v0.7+ runs it, two calls down
// in alto's simulation contracts) while v0.6's EntryPoint is the traced call itself, at depth 1: it
// records no call from the EntryPoint and takes the account's validateUserOp return word for the
// simulation's revert (anvil answers alike). The v0.6 test runs the tracer alto ships for v0.6 through
// pcnode's debug_traceCall instead, and alto's own v0.6 rule parser accepts what pcnode answers.
import {
  type Address,
  createWalletClient,
  decodeErrorResult,
  encodeFunctionData,
  type Hex,
  http,
  parseEther,
  zeroAddress,
} from 'viem'
import {
  type BundlerClient,
  createBundlerClient,
  entryPoint06Abi,
  entryPoint06Address,
  entryPoint08Address,
  getUserOperationHash,
  toSimple7702SmartAccount,
} from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { type Alto, altoCall, altoRpc, altoUnavailable, altoValidation06, startAlto } from './alto.js'
import { account06Abi, account06Bytecode } from './fixtures/account06.js'
import { type TestNode, useTestNode, waitForSealed } from './helpers.js'

const RECIPIENT: Address = '0x000000000000000000000000000000000000bEEF'
const SIMPLE_7702: Address = '0xe6Cae83BdE06E4c305530e199D7217f42808555B'
const unavailable = altoUnavailable()

type Gas = { preVerificationGas: bigint; verificationGasLimit: bigint; callGasLimit: bigint }

function bundler(node: TestNode, url: string): BundlerClient {
  return createBundlerClient({
    client: node.publicClient,
    transport: http(url, { retryCount: 0 }),
    pollingInterval: 50,
    userOperation: {
      // alto refuses fees under its own quote (pimlico_getUserOperationGasPrice); pcnode serves the same method.
      async estimateFeesPerGas({ bundlerClient }) {
        const quote = (await bundlerClient.request({ method: 'pimlico_getUserOperationGasPrice' } as never)) as {
          fast: { maxFeePerGas: Hex; maxPriorityFeePerGas: Hex }
        }
        return { maxFeePerGas: BigInt(quote.fast.maxFeePerGas), maxPriorityFeePerGas: BigInt(quote.fast.maxPriorityFeePerGas) }
      },
    },
  })
}

function within(a: bigint, b: bigint, percent: bigint): boolean {
  const diff = a > b ? a - b : b - a
  const larger = a > b ? a : b
  return diff * 100n <= larger * percent
}

async function freshOp(node: TestNode) {
  const owner = privateKeyToAccount(generatePrivateKey())
  // alto simulates at "latest": the funding must be sealed, not only pre-confirmed.
  await waitForSealed(node, await node.wallet(0).sendTransaction({ to: owner.address, value: parseEther('1') }))
  const account = await toSimple7702SmartAccount({ client: node.publicClient, owner })
  const wallet = createWalletClient({ account: owner, chain: node.chain, transport: http(node.rpcUrl, { retryCount: 0 }) })
  const authorization = await wallet.signAuthorization({ contractAddress: SIMPLE_7702 })
  return { owner, op: { account, authorization, calls: [{ to: RECIPIENT, value: 1234n }] } }
}

/** A v0.6 account deployed with 1 ETH and its unsigned op paying 9 wei to RECIPIENT, priced at alto's quote. */
async function freshOp06(node: TestNode, alto: Alto) {
  const owner = privateKeyToAccount(generatePrivateKey())
  const deploy = await node.wallet(0).deployContract({
    abi: account06Abi,
    bytecode: account06Bytecode,
    args: [owner.address],
    value: parseEther('1'),
  })
  const sender = (await waitForSealed(node, deploy)).contractAddress as Address
  const quote = await altoRpc<{ fast: { maxFeePerGas: Hex; maxPriorityFeePerGas: Hex } }>(
    alto,
    'pimlico_getUserOperationGasPrice',
  )
  const op = {
    sender,
    nonce: 0n,
    initCode: '0x' as Hex,
    callData: encodeFunctionData({ abi: account06Abi, functionName: 'execute', args: [RECIPIENT, 9n, '0x'] }),
    callGasLimit: 0n,
    verificationGasLimit: 0n,
    preVerificationGas: 0n,
    maxFeePerGas: BigInt(quote.fast.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(quote.fast.maxPriorityFeePerGas),
    paymasterAndData: '0x' as Hex,
    signature: `0x${'ff'.repeat(65)}` as Hex,
  }
  return { owner, op }
}

type Op06 = Awaited<ReturnType<typeof freshOp06>>['op']

const rpcOp = (op: Op06) =>
  Object.fromEntries(Object.entries(op).map(([k, v]) => [k, typeof v === 'bigint' ? `0x${v.toString(16)}` : v]))

function altoFor(node: TestNode, safeMode: boolean, executor: number): Promise<Alto> {
  return startAlto({
    rpcUrl: node.rpcUrl,
    entryPoints: [entryPoint08Address, entryPoint06Address],
    executorKey: node.accounts[executor].privateKey,
    utilityKey: node.accounts[9].privateKey,
    safeMode,
    blockTimeMs: 200,
  })
}

describe.skipIf(unavailable)(`alto against pcnode${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  const node = useTestNode({}, { timeoutMs: 30_000 })
  // One alto per mode, shared by the tests: each start deploys alto's simulation contracts.
  const started = new Map<boolean, Promise<Alto>>()
  const alto = (safeMode: boolean): Promise<Alto> => {
    let instance = started.get(safeMode)
    if (!instance) {
      instance = altoFor(node, safeMode, safeMode ? 8 : 7)
      started.set(safeMode, instance)
    }
    return instance
  }
  afterAll(() =>
    Promise.all(
      [...started.values()].map((a) =>
        a.then(
          (x) => x.stop(),
          () => undefined,
        ),
      ),
    ),
  )

  it('estimates a Simple7702Account v0.8 op in safe mode within 10 % of pcnode', async () => {
    const safe = await alto(true)
    const { op } = await freshOp(node)
    const fromAlto: Gas = await bundler(node, safe.url).estimateUserOperationGas(op)
    const fromPcnode: Gas = await bundler(node, node.rpcUrl).estimateUserOperationGas(op)
    const figures = (['preVerificationGas', 'verificationGasLimit', 'callGasLimit'] as const).map((k) => ({
      field: k,
      alto: fromAlto[k],
      pcnode: fromPcnode[k],
    }))
    console.log('estimates (alto / pcnode):', figures.map((f) => `${f.field} ${f.alto} / ${f.pcnode}`).join(', '))
    for (const f of figures) expect(within(f.alto, f.pcnode, 10n), `${f.field}: alto ${f.alto}, pcnode ${f.pcnode}`).toBe(true)
  }, 120_000)

  it('sends a Simple7702Account v0.8 op through alto; it lands and pcnode serves its receipt', async () => {
    const unsafe = await alto(false)
    const { owner, op } = await freshOp(node)
    const viaAlto = bundler(node, unsafe.url)
    const before = await node.publicClient.getBalance({ address: RECIPIENT, blockTag: 'pending' })
    const hash = await viaAlto.sendUserOperation(op)
    const receipt = await viaAlto.waitForUserOperationReceipt({ hash, timeout: 30_000 })
    expect(receipt.success).toBe(true)
    expect(receipt.sender.toLowerCase()).toBe(owner.address.toLowerCase())
    expect(await node.publicClient.getBalance({ address: RECIPIENT, blockTag: 'pending' })).toBe(before + 1234n)
    // pcnode reads the receipt of an op alto bundled from the chain's logs.
    const seen = await bundler(node, node.rpcUrl).getUserOperationReceipt({ hash })
    expect(seen.receipt.transactionHash).toBe(receipt.receipt.transactionHash)
  }, 120_000)

  it("a v0.6 op: estimated by alto in safe mode, its validation trace passes alto's v0.6 rules, sent through alto it lands", async () => {
    const safe = await alto(true)
    const { owner, op } = await freshOp06(node, safe)
    const gas = await altoRpc<Record<'preVerificationGas' | 'verificationGasLimit' | 'callGasLimit', Hex>>(
      safe,
      'eth_estimateUserOperationGas',
      [rpcOp(op), entryPoint06Address],
    )
    const { result: own } = await node.rpc('eth_estimateUserOperationGas', [rpcOp(op), entryPoint06Address])
    console.log('v0.6 estimates (alto / pcnode):', JSON.stringify(gas), JSON.stringify(own))
    const filled = {
      ...op,
      callGasLimit: BigInt(gas.callGasLimit),
      verificationGasLimit: BigInt(gas.verificationGasLimit),
      preVerificationGas: BigInt(gas.preVerificationGas),
    }
    const hash = getUserOperationHash({
      chainId: node.chainId,
      entryPointAddress: entryPoint06Address,
      entryPointVersion: '0.6',
      userOperation: filled,
    })
    const signed = { ...filled, signature: await owner.signMessage({ message: { raw: hash } }) }

    // What alto's safe mode does for a v0.6 op, with the tracer alto ships for v0.6: simulateValidation
    // traced through pcnode's debug_traceCall, its ValidationResult read from the EntryPoint's revert,
    // then alto's ERC-7562 checks of the trace.
    const { debug_traceCall, bundlerCollectorTracer, tracerResultParserV06 } = await altoValidation06()
    const data = encodeFunctionData({ abi: entryPoint06Abi, functionName: 'simulateValidation', args: [signed] })
    const traced = await debug_traceCall(
      node.publicClient,
      { from: zeroAddress, to: entryPoint06Address, data },
      { tracer: bundlerCollectorTracer },
    )
    const last = traced.calls.at(-1)
    expect(last.type).toBe('REVERT')
    const validation = decodeErrorResult({ abi: entryPoint06Abi, data: last.data })
    expect(validation.errorName).toBe('ValidationResult')
    const [returnInfo, senderInfo] = validation.args as unknown as [{ sigFailed: boolean }, object]
    expect(returnInfo.sigFailed).toBe(false)
    const [contracts] = tracerResultParserV06(
      signed,
      traced,
      { returnInfo, senderInfo: { ...senderInfo, addr: signed.sender } } as never,
      entryPoint06Address.toLowerCase() as Address,
    )
    console.log('alto v0.6 rules: contracts', contracts)
    expect(contracts.map((a) => a.toLowerCase())).toContain(signed.sender.toLowerCase())

    // alto 0.0.20's own safe send traces with its v0.7 tracer (see the header) and takes validateUserOp's
    // return word (0: valid) for the simulation's revert. When alto answers the hash here, assert it.
    const refused = await altoCall(safe, 'eth_sendUserOperation', [rpcOp(signed), entryPoint06Address])
    expect(refused.error?.message).toBe(`0x${'0'.repeat(64)}`)

    const unsafe = await alto(false)
    const before = await node.publicClient.getBalance({ address: RECIPIENT, blockTag: 'pending' })
    expect(await altoRpc(unsafe, 'eth_sendUserOperation', [rpcOp(signed), entryPoint06Address])).toBe(hash)
    const receipt = await bundler(node, unsafe.url).waitForUserOperationReceipt({ hash, timeout: 30_000 })
    expect(receipt.success).toBe(true)
    expect(receipt.entryPoint.toLowerCase()).toBe(entryPoint06Address.toLowerCase())
    expect(await node.publicClient.getBalance({ address: RECIPIENT, blockTag: 'pending' })).toBe(before + 9n)
    const seen = await bundler(node, node.rpcUrl).getUserOperationReceipt({ hash })
    expect(seen.success).toBe(true)
    expect(seen.receipt.transactionHash).toBe(receipt.receipt.transactionHash)
  }, 120_000)
})
