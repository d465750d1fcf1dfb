// alto, the bundler Base apps run beside a devnet, against pcnode. The same Simple7702Account v0.8 op
// (a fresh EOA delegating by the authorization it carries) is estimated by alto in safe mode and by
// pcnode's own bundler, the two within 10 % of each other; an op sent through alto lands and pcnode
// serves its receipt. The send goes through alto in unsafe mode: alto 0.0.20's safe mode runs its
// validation tracer through pcnode's debug_traceCall, then cannot decode the EntryPoint's
// DelegateAndRevert wrapper of the v0.7+ simulation result (pimlicolabs/alto#756, any node).
import { type Address, createWalletClient, type Hex, http, parseEther } from 'viem'
import { type BundlerClient, createBundlerClient, entryPoint08Address, toSimple7702SmartAccount } from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { type Alto, altoUnavailable, startAlto } from './alto.js'
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

function altoFor(node: TestNode, safeMode: boolean, executor: number): Promise<Alto> {
  return startAlto({
    rpcUrl: node.rpcUrl,
    entryPoints: [entryPoint08Address],
    executorKey: node.accounts[executor].privateKey,
    utilityKey: node.accounts[9].privateKey,
    safeMode,
    blockTimeMs: 200,
  })
}

describe.skipIf(unavailable)(`alto against pcnode${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  const node = useTestNode({}, { timeoutMs: 30_000 })
  const started: Alto[] = []
  afterAll(() => Promise.all(started.map((a) => a.stop())))

  it('estimates a Simple7702Account v0.8 op in safe mode within 10 % of pcnode', async () => {
    const alto = await altoFor(node, true, 8)
    started.push(alto)
    const { op } = await freshOp(node)
    const fromAlto: Gas = await bundler(node, alto.url).estimateUserOperationGas(op)
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
    const alto = await altoFor(node, false, 7)
    started.push(alto)
    const { owner, op } = await freshOp(node)
    const viaAlto = bundler(node, alto.url)
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
})
