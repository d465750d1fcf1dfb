// Base blocks as Base makes them (profile base): the L1-info deposit first in every block, the L1
// data fee and the operator fee charged and reported, OP receipts, user deposits, the Jovian header
// and the predeploys, all through viem's OP-stack actions and formatters (pcnodeChain) against a
// real node.
import { LibZip } from 'solady'
import {
  type Address,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  parseAbi,
  parseEther,
  parseGwei,
  serializeTransaction,
  toHex,
  zeroHash,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type OpStackTransactionReceipt, publicActionsL2, serializeTransaction as serializeOpTransaction } from 'viem/op-stack'
import { beforeAll, describe, expect, it } from 'vitest'
import { pcnodeChain } from '../src/index.js'
import { startTestNode, type TestNode, useTestNode, waitForReceipt } from './helpers.js'

const DEPOSITOR = '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001'
const L1_BLOCK = '0x4200000000000000000000000000000000000015'
const GAS_PRICE_ORACLE = '0x420000000000000000000000000000000000000F'
const gpoAbi = parseAbi([
  'function getL1Fee(bytes) view returns (uint256)',
  'function l1BaseFee() view returns (uint256)',
  'function isJovian() view returns (bool)',
])

/** The Fjord L1 fee over `bytes` (OP specs fjord/exec-engine.md), computed here from the spec. */
function fjordL1Fee(bytes: Hex, p: { baseFee: bigint; blobBaseFee: bigint; baseFeeScalar: bigint; blobBaseFeeScalar: bigint }) {
  const flz = BigInt((LibZip.flzCompress(bytes).length - 2) / 2)
  let size = -42_585_600n + 836_500n * flz
  if (size < 100_000_000n) size = 100_000_000n
  return (size * (p.baseFeeScalar * p.baseFee * 16n + p.blobBaseFeeScalar * p.blobBaseFee)) / 1_000_000_000_000n
}
const BASE_L1 = { baseFee: 0x6bdbf6fn, blobBaseFee: 0x582765n, baseFeeScalar: 0x8ddn, blobBaseFeeScalar: 0x101c12n }

describe('Base blocks (profile base)', () => {
  const node = useTestNode({ blockTime: 60_000, preconfInterval: 50, accounts: 16 })
  let client: ReturnType<typeof opClient>
  const opClient = (n: TestNode) =>
    createPublicClient({
      chain: pcnodeChain({ id: n.chainId, rpcUrl: n.rpcUrl, preconfInterval: 50 }),
      transport: http(n.rpcUrl),
    }).extend(publicActionsL2())
  const walletOf = (index: number) =>
    createWalletClient({
      chain: pcnodeChain({ id: node.chainId, rpcUrl: node.rpcUrl, preconfInterval: 50 }),
      transport: http(node.rpcUrl),
      account: privateKeyToAccount(node.accounts[index].privateKey),
    })
  const mine = () => node.rpc('evm_mine')
  /** The receipt once pre-confirmed, through viem's OP-stack formatter. */
  const receiptOf = async (hash: Hex) => {
    await waitForReceipt(node, hash)
    return (await client.getTransactionReceipt({ hash })) as unknown as OpStackTransactionReceipt
  }

  beforeAll(() => {
    client = opClient(node)
  })

  it("viem's OP-stack actions answer from GasPriceOracle and L1Block", async () => {
    const account = node.accounts[0].address as Address
    const request = { account, to: node.accounts[1].address as Address, value: parseEther('0.1'), chain: client.chain }
    expect(await client.getL1BaseFee()).toBe(BASE_L1.baseFee)
    const l1Fee = await client.estimateL1Fee(request)
    expect(l1Fee).toBeGreaterThan(0n)
    const gasPrice = await client.getGasPrice()
    expect(await client.estimateTotalFee(request)).toBe(l1Fee + 21_000n * gasPrice)
    expect(await client.estimateOperatorFee(request)).toBe(0n)
    expect(await client.readContract({ address: GAS_PRICE_ORACLE, abi: gpoAbi, functionName: 'isJovian' })).toBe(true)
  })

  it('a transfer pays value + gas + the Fjord L1 fee over its signed bytes; GasPriceOracle agrees', async () => {
    const wallet = walletOf(2)
    const from = wallet.account.address
    // Calldata big enough to pass the 100-byte minimum: the formula proper.
    const data = toHex(new Uint8Array(400).map((_, i) => (i * 7919) % 251))
    const to = node.accounts[3].address as Address
    const request = await wallet.prepareTransactionRequest({ to, value: parseEther('1'), data, gas: 100_000n })
    const signed = await wallet.signTransaction(request)
    const before = await client.getBalance({ address: from, blockTag: 'pending' })
    const hash = await client.sendRawTransaction({ serializedTransaction: signed })
    const receipt = await receiptOf(hash)
    const after = await client.getBalance({ address: from, blockTag: 'pending' })

    const expected = fjordL1Fee(signed, BASE_L1)
    expect(receipt.l1Fee).toBe(expected)
    expect(before - after).toBe(parseEther('1') + receipt.gasUsed * receipt.effectiveGasPrice + expected)
    expect(receipt).toMatchObject({ l1GasPrice: BASE_L1.baseFee, transactionIndex: 1 })
    expect(receipt.blobGasUsed).toBeGreaterThan(0n) // its DA footprint

    // GasPriceOracle.getL1Fee of the unsigned bytes: the same formula with 68 bytes for the signature.
    const unsigned = serializeTransaction({ ...request, type: 'eip1559' } as never)
    const oracle = await client.readContract({
      address: GAS_PRICE_ORACLE,
      abi: gpoAbi,
      functionName: 'getL1Fee',
      args: [unsigned],
    })
    const flz = BigInt((LibZip.flzCompress(unsigned).length - 2) / 2) + 68n
    const bySpec =
      ((-42_585_600n + 836_500n * flz) *
        (BASE_L1.baseFeeScalar * BASE_L1.baseFee * 16n + BASE_L1.blobBaseFeeScalar * BASE_L1.blobBaseFee)) /
      10n ** 12n
    expect(oracle).toBe(bySpec)
    // The allowance is the spec's estimate of a signature: within 2% of what the signed bytes cost.
    expect(Number(oracle > expected ? oracle - expected : expected - oracle) / Number(expected)).toBeLessThan(0.02)
    await mine()
  })

  it('transaction 0 is the L1-info deposit at every tag, pending included; user transactions start at 1', async () => {
    const hash = await walletOf(4).sendTransaction({ to: node.accounts[5].address as Address, value: 1n })
    const receipt = await receiptOf(hash)
    expect(receipt.transactionIndex).toBe(1)
    const pending = await client.getBlock({ blockTag: 'pending', includeTransactions: true })
    await mine()
    const sealed = await client.getBlock({ blockNumber: receipt.blockNumber, includeTransactions: true })
    const byHash = await client.getBlock({ blockHash: sealed.hash, includeTransactions: true })
    const latest = await client.getBlock({ blockTag: 'latest', includeTransactions: true })
    for (const block of [pending, sealed, byHash, latest]) {
      const deposit = block.transactions[0] as any
      expect(deposit).toMatchObject({
        type: 'deposit',
        from: DEPOSITOR,
        to: L1_BLOCK,
        gas: 1_000_000n,
        mint: 0n,
        isSystemTx: undefined, // left out when false, as reth (op-alloy) serves it
      })
      expect(deposit.input.slice(0, 10)).toBe('0x3db6be2b') // setL1BlockValuesJovian
      expect((deposit.input.length - 2) / 2).toBe(178)
      expect(deposit.sourceHash).toMatch(/^0x[0-9a-f]{64}$/)
      expect(block.transactions.slice(1).every((t: any) => t.type !== 'deposit')).toBe(true)
    }
    expect(pending.transactions.map((t) => t.hash)).toEqual(sealed.transactions.map((t) => t.hash))
    expect(sealed.transactions[1].hash).toBe(hash)
    const depositReceipt = await receiptOf(sealed.transactions[0].hash)
    expect(depositReceipt).toMatchObject({ transactionIndex: 0, effectiveGasPrice: 0n, l1Fee: 0n, depositReceiptVersion: 1 })
    expect(depositReceipt.depositNonce).toBe(BigInt((sealed.transactions[0] as any).nonce))
  })

  it('the header as Base makes it: fee vault as miner, Jovian extraData and base fee, DA footprint, MessagePasser root', async () => {
    await receiptOf(await walletOf(11).sendTransaction({ to: node.accounts[12].address as Address, value: 1n }))
    await mine()
    const head = await client.getBlock({ blockTag: 'latest' })
    const parent = await client.getBlock({ blockNumber: head.number - 1n })
    expect(head.miner).toBe('0x4200000000000000000000000000000000000011')
    expect(head.extraData).toBe('0x01000000640000000500000000004c4b40')
    // Jovian: EIP-1559 with denominator 100, elasticity 5, on max(gasUsed, blobGasUsed), at least 5e6 wei.
    const used = parent.gasUsed > (parent.blobGasUsed ?? 0n) ? parent.gasUsed : (parent.blobGasUsed ?? 0n)
    const target = parent.gasLimit / 5n
    const base = parent.baseFeePerGas as bigint
    let next =
      used > target ? base + ((base * (used - target)) / target / 100n || 1n) : base - (base * (target - used)) / target / 100n
    if (next < 5_000_000n) next = 5_000_000n
    expect(head.baseFeePerGas).toBe(next)
    // blobGasUsed: the DA footprints of the block's user transactions.
    const receipts = await Promise.all(head.transactions.map((h) => client.getTransactionReceipt({ hash: h as Hex })))
    const footprints = receipts.map((r) => r.blobGasUsed ?? 0n).reduce((a, b) => a + b, 0n)
    expect(head.blobGasUsed).toBe(footprints)
    expect(footprints).toBeGreaterThan(0n)
    const proof = await client.getProof({
      address: '0x4200000000000000000000000000000000000016',
      storageKeys: [],
      blockNumber: head.number,
    })
    expect(head.withdrawalsRoot).toBe(proof.storageHash)
  })

  it('pcnode_setL1Fees makes L1 expensive from the next block: receipts and GasPriceOracle follow', async () => {
    const before = await walletOf(6).sendTransaction({ to: node.accounts[7].address as Address, value: 1n })
    const cheap = await receiptOf(before)
    const set = await node.rpc('pcnode_setL1Fees', [{ baseFee: toHex(BASE_L1.baseFee * 100n), blobBaseFee: '0x1' }])
    expect(BigInt(set.result)).toBe(cheap.blockNumber + 1n) // the block after the open one
    await mine()
    const hash = await walletOf(6).sendTransaction({ to: node.accounts[7].address as Address, value: 1n })
    const pricey = await receiptOf(hash)
    expect(pricey.blockNumber).toBe(BigInt(set.result))
    expect(pricey.l1GasPrice).toBe(BASE_L1.baseFee * 100n)
    // Base's blob part dominates its L1 fee: 100x the base fee and no blob fee still make it ~40x.
    expect(pricey.l1Fee).toBeGreaterThan((cheap.l1Fee ?? 0n) * 30n)
    expect(await client.getL1BaseFee({ blockTag: 'pending' } as never)).toBe(BASE_L1.baseFee * 100n)
    // Bad values are named.
    expect((await node.rpc('pcnode_setL1Fees', [{ baseFeeScalar: toHex(2n ** 32n) }])).error).toEqual({
      code: -32602,
      message: 'invalid argument baseFeeScalar: hex number > 32 bits',
    })
    expect((await node.rpc('pcnode_setL1Fees', [{ basefee: '0x1' }])).error.message).toContain('unknown field basefee')
    await node.rpc('pcnode_setL1Fees', [{ baseFee: toHex(BASE_L1.baseFee), blobBaseFee: toHex(BASE_L1.blobBaseFee) }])
    await mine()
  })

  it('the operator fee: charged on the gas limit, the unused part refunded, reported, paid to its vault', async () => {
    await node.rpc('pcnode_setL1Fees', [{ operatorFeeScalar: '0x3e8', operatorFeeConstant: toHex(parseGwei('1')) }])
    await mine()
    const vault = '0x420000000000000000000000000000000000001b'
    const vaultBefore = await client.getBalance({ address: vault, blockTag: 'pending' })
    const wallet = walletOf(8)
    const from = wallet.account.address
    const before = await client.getBalance({ address: from, blockTag: 'pending' })
    const estimated = await client.estimateOperatorFee({
      account: from,
      to: node.accounts[9].address as Address,
      value: 1n,
      chain: client.chain,
    })
    const hash = await wallet.sendTransaction({ to: node.accounts[9].address as Address, value: 1n, gas: 50_000n })
    const receipt = (await receiptOf(hash)) as any
    const operatorFee = receipt.gasUsed * 1000n * 100n + parseGwei('1')
    expect(estimated).toBe(21_000n * 1000n * 100n + parseGwei('1'))
    expect(receipt.operatorFeeScalar).toBe('0x3e8')
    const after = await client.getBalance({ address: from, blockTag: 'pending' })
    expect(before - after).toBe(
      1n + BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice) + BigInt(receipt.l1Fee) + operatorFee,
    )
    expect((await client.getBalance({ address: vault, blockTag: 'pending' })) - vaultBefore).toBe(operatorFee)
    await node.rpc('pcnode_setL1Fees', [{ operatorFeeScalar: '0x0', operatorFeeConstant: '0x0' }])
    await mine()
  })

  it('the pool refuses a transaction that can pay gas and value but not the L1 fee (op-geth text)', async () => {
    const key = keccak256(toHex('pcnode L1 fee test key'))
    const poor = privateKeyToAccount(key)
    const gas = 21_000n
    const maxFeePerGas = parseGwei('2')
    await node.rpc('anvil_setBalance', [poor.address, toHex(gas * maxFeePerGas + 1n)])
    const signed = await poor.signTransaction({
      chainId: node.chainId,
      type: 'eip1559',
      to: node.accounts[0].address as Address,
      value: 1n,
      gas,
      maxFeePerGas,
      maxPriorityFeePerGas: 1n,
      nonce: 0,
    })
    const l1Fee = fjordL1Fee(signed, BASE_L1)
    const cost = gas * maxFeePerGas + 1n + l1Fee
    const answer = await node.rpc('eth_sendRawTransaction', [signed])
    expect(answer.error.code).toBe(-32000)
    expect(answer.error.message).toMatch(
      new RegExp(
        `^insufficient funds for gas \\* price \\+ value: balance ${gas * maxFeePerGas + 1n}, tx cost ${cost}, overshot ${l1Fee}; the cost includes the L1 data fee ${l1Fee} wei`,
      ),
    )
  })

  it('eth_estimateGas stays L2 gas, but its funds check counts the L1 fee when the call pays fees', async () => {
    const poor = '0x00000000000000000000000000000000000e5717'
    const maxFeePerGas = parseGwei('2')
    const call = { from: poor, to: node.accounts[0].address, value: '0x1', maxFeePerGas: toHex(maxFeePerGas) }
    // Enough for gas and value alone: short of the L1 fee.
    await node.rpc('anvil_setBalance', [poor, toHex(21_000n * maxFeePerGas + 1n)])
    const short = await node.rpc('eth_estimateGas', [call, 'pending'])
    expect(short.error).toMatchObject({ code: -32000, message: expect.stringMatching(/^gas required exceeds allowance/) })
    await node.rpc('anvil_setBalance', [poor, toHex(parseEther('1'))])
    expect((await node.rpc('eth_estimateGas', [call, 'pending'])).result).toBe('0x5208')
    // Without fees (what wallets send first) no L1 fee is counted, as on Base.
    await node.rpc('anvil_setBalance', [poor, toHex(1n)])
    expect(
      (await node.rpc('eth_estimateGas', [{ from: poor, to: node.accounts[0].address, value: '0x1' }, 'pending'])).result,
    ).toBe('0x5208')
  })

  it('eth_sendRawTransaction takes a deposit: it mints, runs first in a block, and fails keeping the mint', async () => {
    await mine() // a fresh block: deposits join it while it holds only deposits
    const from = '0x00000000000000000000000000000000000d3a05' as Address
    const to = '0x00000000000000000000000000000000000000aa' as Address
    const deposit = serializeOpTransaction({
      type: 'deposit',
      sourceHash: keccak256(toHex('pcnode user deposit 1')),
      from,
      to,
      mint: parseEther('2'),
      value: parseEther('0.5'),
      gas: 100_000n,
    })
    const hash = await client.sendRawTransaction({ serializedTransaction: deposit })
    expect(hash).toBe(keccak256(deposit))
    const receipt = await receiptOf(hash)
    expect(receipt).toMatchObject({ status: 'success', transactionIndex: 1, depositNonce: 0n, effectiveGasPrice: 0n, l1Fee: 0n })
    const tx = (await client.getTransaction({ hash })) as any
    expect(tx).toMatchObject({ type: 'deposit', mint: parseEther('2'), from, nonce: 0 })
    expect(await client.getBalance({ address: from, blockTag: 'pending' })).toBe(parseEther('1.5'))
    expect(await client.getBalance({ address: to, blockTag: 'pending' })).toBe(parseEther('0.5'))
    // A deposit whose value exceeds what it holds: refused before running, still included, the
    // mint kept, the nonce bumped and its whole gas used (Regolith).
    await mine()
    const failing = serializeOpTransaction({
      type: 'deposit',
      sourceHash: keccak256(toHex('pcnode user deposit 2')),
      from,
      to,
      mint: parseEther('1'),
      value: parseEther('10'),
      gas: 50_000n,
    })
    const failed = await receiptOf(await client.sendRawTransaction({ serializedTransaction: failing }))
    expect(failed).toMatchObject({ status: 'reverted', gasUsed: 50_000n, depositNonce: 1n })
    expect(await client.getBalance({ address: from, blockTag: 'pending' })).toBe(parseEther('2.5'))
    expect(await client.getTransactionCount({ address: from, blockTag: 'pending' })).toBe(2)
    // Malformed: named.
    const bad = await node.rpc('eth_sendRawTransaction', ['0x7e01'])
    expect(bad.error.code).toBe(-32000)
    expect(bad.error.message).toMatch(/^rlp: invalid deposit transaction/)
  })

  it("a deposit that moves a sender's nonce drops what the sender had pooled at the old one", async () => {
    const account = privateKeyToAccount(node.accounts[9].privateKey)
    const from = account.address
    await node.rpc('anvil_setIntervalMining', [0]) // halted: the pool waits for evm_mine
    try {
      await mine() // seals the open block; the next opens at the next evm_mine, deposits first
      const nonce = await client.getTransactionCount({ address: from, blockTag: 'pending' })
      const raw = await account.signTransaction({
        chainId: node.chainId,
        type: 'eip1559',
        to: from,
        nonce,
        gas: 21_000n,
        maxFeePerGas: parseGwei('10'),
        maxPriorityFeePerGas: 1n,
      })
      const pooled = (await node.rpc('eth_sendRawTransaction', [raw])).result
      expect((await node.rpc('base_transactionStatus', [pooled])).result.status).toBe('Known')
      const deposit = serializeOpTransaction({
        type: 'deposit',
        sourceHash: keccak256(toHex('pcnode user deposit 3')),
        from,
        to: from,
        mint: 0n,
        value: 0n,
        gas: 50_000n,
      })
      const depositHash = await client.sendRawTransaction({ serializedTransaction: deposit })
      await mine()
      expect((await receiptOf(depositHash)).status).toBe('success')
      expect(await client.getTransactionCount({ address: from, blockTag: 'latest' })).toBe(nonce + 1)
      // Its nonce is taken: it can never run, and it is gone from the pool.
      expect((await node.rpc('base_transactionStatus', [pooled])).result.status).toBe('Unknown')
    } finally {
      await node.rpc('anvil_setIntervalMining', [60])
    }
  })

  it('the preinstalls at their addresses: Multicall3 batches, Permit2 for this chain, WETH9 wraps, stubs name themselves', async () => {
    const codeOf = (address: Address) => client.getCode({ address })
    for (const address of [
      '0xcA11bde05977b3631167028862bE2a173976CA11', // Multicall3
      '0x13b0D85CcB8bf860b6b79AF3029fCA081AE9beF2', // Create2Deployer
      '0xba5Ed099633D3B313e4D5F7bdc1305d3c28ba5Ed', // CreateX
      '0x4e59b44847b379578588920cA78FbF26c0B4956C', // Arachnid's deterministic deployer
      '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789', // EntryPoint v0.6
      '0x0000000071727De22E5E9d8BAf0edAc6f37da032', // EntryPoint v0.7
      '0xEFC2c1444eBCC4Db75e7613d20C6a62fF67A167C', // its SenderCreator
      '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108', // EntryPoint v0.8
    ] as Address[]) {
      expect((await codeOf(address))?.length, address).toBeGreaterThan(2)
    }
    // viem's multicall goes through the chain's multicall3 (pcnodeChain names it).
    const [a, b] = await client.multicall({
      contracts: [
        { address: GAS_PRICE_ORACLE, abi: gpoAbi, functionName: 'l1BaseFee' },
        { address: GAS_PRICE_ORACLE, abi: gpoAbi, functionName: 'isJovian' },
      ],
    })
    expect(a).toEqual({ status: 'success', result: BASE_L1.baseFee })
    expect(b).toEqual({ status: 'success', result: true })
    // Permit2's EIP-712 domain separator is this chain's.
    const separator = await client.readContract({
      address: '0x000000000022D473030F116dDEE9F6B43aC78BA3',
      abi: parseAbi(['function DOMAIN_SEPARATOR() view returns (bytes32)']),
      functionName: 'DOMAIN_SEPARATOR',
    })
    const { hashDomain } = await import('viem')
    expect(separator).toBe(
      hashDomain({
        domain: {
          name: 'Permit2',
          chainId: BigInt(node.chainId),
          verifyingContract: '0x000000000022D473030F116dDEE9F6B43aC78BA3',
        },
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
        },
      }),
    )
    // WETH9 (0x4200…0006): deposit, then the balance.
    const weth = '0x4200000000000000000000000000000000000006'
    const wethAbi = parseAbi(['function deposit() payable', 'function balanceOf(address) view returns (uint256)'])
    const wallet = walletOf(10)
    const wrap = await wallet.sendTransaction({
      to: weth,
      value: parseEther('1'),
      data: encodeFunctionData({ abi: wethAbi, functionName: 'deposit' }),
    })
    expect((await receiptOf(wrap)).status).toBe('success')
    expect(
      await client.readContract({ address: weth, abi: wethAbi, functionName: 'balanceOf', args: [wallet.account.address] }),
    ).toBe(parseEther('1'))
    // A predeploy pcnode does not implement reverts with its name, as Hardhat's do.
    const stub = await node.rpc('eth_call', [{ to: '0x4200000000000000000000000000000000000010', data: '0x' }, 'latest'])
    expect(stub.error).toMatchObject({ code: 3, message: 'execution reverted: Predeploy L2StandardBridge is not supported.' })
  })

  it('blob transactions are refused, as Base refuses them', async () => {
    const blobTx = await node.rpc('eth_sendRawTransaction', [`0x03${'c0'}`])
    expect(blobTx.error).toEqual({ code: -32000, message: expect.stringMatching(/transaction type not supported|rlp/) })
  })
})

describe('profile ethereum', () => {
  it('has no deposits, no L1 fee and refuses type 0x7e', async () => {
    const node = await startTestNode({ profile: 'ethereum', blockTime: 60_000, preconfInterval: 50 })
    try {
      const hash = await node.wallet(0).sendTransaction({ to: node.accounts[1].address, value: 1n })
      const receipt = (await waitForReceipt(node, hash)) as any
      expect(receipt.transactionIndex).toBe(0)
      expect(receipt.l1Fee).toBeUndefined()
      const block = await node.rpc('eth_getBlockByNumber', ['pending', false])
      expect(block.result.transactions).toEqual([hash])
      expect(block.result.miner).toBe(`0x${'0'.repeat(40)}`)
      expect(await node.publicClient.getCode({ address: GAS_PRICE_ORACLE })).toBeUndefined()
      const deposit = serializeOpTransaction({
        type: 'deposit',
        sourceHash: zeroHash,
        from: node.accounts[0].address as Address,
        to: node.accounts[1].address as Address,
        gas: 21_000n,
      })
      expect((await node.rpc('eth_sendRawTransaction', [deposit])).error).toEqual({
        code: -32000,
        message: 'transaction type not supported',
      })
      expect((await node.rpc('pcnode_setL1Fees', [{ baseFee: '0x1' }])).error.message).toContain('only on OP-stack chains')
    } finally {
      await node.stop()
    }
  })
})
