// What clients nobody on the project wrote found: revert codes viem decodes, eth_getProof
// and eth_createAccessList, geth's codes for every bad call input, time bounds, block numbers past
// the sealed head, and the hints that explain `latest` against `pending`. Each through the client
// that found it: viem, Foundry's cast, or raw JSON-RPC.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { verifyMerkleProof } from '@ethereumjs/mpt'
import { Contract, ContractFactory, JsonRpcProvider, Wallet } from 'ethers'
import {
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  fromRlp,
  getContractAddress,
  type Hex,
  hexToBigInt,
  keccak256,
  pad,
  toHex,
} from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from './cli.js'
import { counterAbi, counterBytecode } from './fixtures/counter.js'
import { startTestNode, type TestNode, testClient, until, useTestNode, waitForReceipt } from './helpers.js'

const CAST = join(ROOT, 'node_modules', '@foundry-rs', 'cast-linux-amd64', 'bin', 'cast')
const exec = promisify(execFile)

async function cast(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(CAST, args, { timeout: 30_000 })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }
  }
}

async function deployCounter(node: TestNode, start = 5n): Promise<Hex> {
  const wallet = node.wallet(0)
  const nonce = await node.publicClient.getTransactionCount({ address: wallet.account.address, blockTag: 'pending' })
  const hash = await wallet.deployContract({ abi: counterAbi, bytecode: counterBytecode, args: [start] })
  await waitForReceipt(node, hash)
  return getContractAddress({ from: wallet.account.address, nonce: BigInt(nonce) })
}

describe('reverts, proofs and access lists (viem, cast)', () => {
  const node = useTestNode({ blockTime: 200, preconfInterval: 50 })
  let counter: Hex
  beforeAll(async () => {
    counter = await deployCounter(node)
    await until(async () => (await node.rpc('eth_getCode', [counter, 'latest'])).result !== '0x', 10_000, 'sealed counter')
  })

  it('eth_call reverts with code 3 and data in the base profile: viem decodes a custom error', async () => {
    const err = await node.publicClient
      .readContract({ address: counter, abi: counterAbi, functionName: 'failCustomIfAbove', args: [1n] })
      .catch((e) => e)
    expect(err).toBeInstanceOf(BaseError)
    const reverted = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError
    expect(reverted).toBeInstanceOf(ContractFunctionRevertedError)
    expect(reverted.data?.errorName).toBe('CountAbove')
    expect(reverted.data?.args).toEqual([5n, 1n])
    const raw = await node.rpc('eth_call', [
      { to: counter, data: encodeFunctionData({ abi: counterAbi, functionName: 'failCustomIfAbove', args: [1n] }) },
    ])
    expect(raw.error.code).toBe(3)
    expect(raw.error.message).toBe('execution reverted')
  })

  it('eth_sendTransaction with an authorizationList sends an EIP-7702 transaction (a node-held key signs it)', async () => {
    const authority = node.wallet(6)
    const nonce = await node.publicClient.getTransactionCount({ address: authority.account.address, blockTag: 'pending' })
    const auth = await authority.signAuthorization({ contractAddress: counter, chainId: node.chainId, nonce })
    const authorizationList = [
      {
        address: auth.address,
        chainId: toHex(auth.chainId),
        nonce: toHex(auth.nonce),
        r: auth.r,
        s: auth.s,
        yParity: toHex(auth.yParity ?? 0),
      },
    ]
    const [from] = (await node.rpc('eth_accounts')).result
    // Calls the authority's new code: the counter's increase(), on the authority's own storage.
    const data = encodeFunctionData({ abi: counterAbi, functionName: 'increase', args: [3n] })
    const request = { from, to: authority.account.address, data, authorizationList }
    const filled = await node.rpc('eth_fillTransaction', [request])
    expect(filled.error).toBeUndefined()
    expect(filled.result.tx).toMatchObject({ type: '0x4', authorizationList: [{ address: counter.toLowerCase() }] })
    const sent = await node.rpc('eth_sendTransaction', [request])
    expect(sent.error).toBeUndefined()
    const receipt = await waitForReceipt(node, sent.result)
    expect(receipt.status).toBe('success')
    expect((await node.rpc('eth_getTransactionByHash', [sent.result])).result.type).toBe('0x4')
    const code = (await node.rpc('eth_getCode', [authority.account.address, 'pending'])).result
    expect(code).toBe(`0xef0100${counter.slice(2).toLowerCase()}`)
    const count = encodeFunctionData({ abi: counterAbi, functionName: 'count' })
    const counted = await node.rpc('eth_call', [{ to: authority.account.address, data: count }, 'pending'])
    expect(hexToBigInt(counted.result)).toBe(3n)
  })

  it('eth_getProof: the account and a slot, proven against the block state root (viem getProof)', async () => {
    const block = await node.publicClient.getBlock({ blockTag: 'latest' })
    const slot0 = pad('0x0')
    const proof = await node.publicClient.getProof({ address: counter, storageKeys: [slot0], blockNumber: block.number })
    expect(proof.nonce).toBe(1)
    expect(proof.storageProof[0].key).toBe(slot0)
    expect(proof.storageProof[0].value).toBe(5n)
    // The account's leaf, found by walking the proof down from the header's state root.
    expect(keccak256(proof.accountProof[0])).toBe(block.stateRoot)
    const leaf = await verifyMerkleProof(hexBytes(keccak256(counter)), proof.accountProof.map(hexBytes))
    const [nonce, balance, storageRoot, codeHash] = fromRlp(toHex(leaf as Uint8Array)) as Hex[]
    expect([quantity(nonce), quantity(balance), storageRoot, codeHash]).toEqual([1n, 0n, proof.storageHash, proof.codeHash])
    expect(keccak256(proof.storageProof[0].proof[0])).toBe(proof.storageHash)
    const slot = await verifyMerkleProof(hexBytes(keccak256(slot0)), proof.storageProof[0].proof.map(hexBytes))
    expect(quantity(fromRlp(toHex(slot as Uint8Array)) as Hex)).toBe(5n)
    // A missing account: a proof of absence with the empty roots, as geth gives it; a short key
    // comes back as a quantity.
    const absent = await node.rpc('eth_getProof', ['0x00000000000000000000000000000000000000aa', ['0x1'], 'latest'])
    expect(absent.result).toMatchObject({
      balance: '0x0',
      nonce: '0x0',
      codeHash: '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
      storageHash: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
      storageProof: [{ key: '0x1', value: '0x0', proof: [] }],
    })
    expect(absent.result.accountProof.length).toBeGreaterThan(0)
  })

  it('eth_getProof at "pending" sees a pre-confirmed write (cast proof)', async () => {
    const slow = await startTestNode({ blockTime: 60_000, preconfInterval: 50 })
    try {
      const hash = await slow.wallet(2).sendTransaction({ to: slow.accounts[7].address, value: 12345n })
      await waitForReceipt(slow, hash)
      const run = await cast(['proof', slow.accounts[7].address, '--rpc-url', slow.rpcUrl, '--block', 'pending'])
      expect(run.stderr).toBe('')
      const pending = JSON.parse(run.stdout)
      const latest = (await slow.rpc('eth_getProof', [slow.accounts[7].address, [], 'latest'])).result
      expect(BigInt(pending.balance) - BigInt(latest.balance)).toBe(12345n)
    } finally {
      await slow.stop()
    }
  })

  it("eth_createAccessList as geth computes it: every touched slot, the recipient's too; no sender, recipient or precompile accounts (viem, cast)", async () => {
    const data = encodeFunctionData({ abi: counterAbi, functionName: 'increase', args: [2n] })
    const from = node.accounts[1].address
    const result = await node.publicClient.createAccessList({ account: from, to: counter, data })
    // increase() reads and writes slot 0 of the counter itself: listed, though it is `to` (geth
    // leaves out only address-only entries of the sender, recipient and precompiles).
    const slot0 = `0x${'0'.repeat(64)}` as Hex
    expect(result.accessList).toEqual([{ address: counter.toLowerCase(), storageKeys: [slot0] }])
    expect(result.gasUsed).toBeGreaterThan(21_000n)
    // A call whose code reads another account's storage lists that account and slot.
    const reader = '0x00000000000000000000000000000000000000bb'
    // PUSH20 counter EXTCODESIZE POP PUSH1 0 SLOAD POP STOP — touches the counter's code, and its own slot 0.
    const code = `0x73${counter.slice(2)}3b5060005450` as Hex
    const viaOverride = await node.rpc('eth_createAccessList', [{ from, to: reader }, 'latest', { [reader]: { code } }])
    expect(viaOverride.result.accessList).toEqual([
      { address: reader, storageKeys: [slot0] },
      { address: counter.toLowerCase(), storageKeys: [] },
    ])
    // A revert still answers, with geth's error text.
    const failing = encodeFunctionData({ abi: counterAbi, functionName: 'fail' })
    const reverted = await node.rpc('eth_createAccessList', [{ from, to: counter, data: failing }])
    expect(reverted.result.error).toBe('execution reverted')
    const run = await cast(['access-list', counter, 'increase(uint256)', '2', '--from', from, '--rpc-url', node.rpcUrl, '--json'])
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout).accessList).toEqual([{ address: counter.toLowerCase(), storageKeys: [slot0] }])
  })
})

describe('geth codes for bad input, never -32603', () => {
  const node = useTestNode({ preconfInterval: 50 })

  it('oversized init code in eth_call and eth_estimateGas: -32000 with geth text', async () => {
    const data = `0x${'00'.repeat(49_153)}`
    for (const method of ['eth_call', 'eth_estimateGas']) {
      const res = await node.rpc(method, [{ data }, 'latest'])
      expect(res.error).toEqual({ code: -32000, message: 'max initcode size exceeded: code size 49153 limit 49152' })
    }
  })

  it('numbers past their type, malformed fields and impossible blocks: a named -32602 or geth -32000', async () => {
    const to = node.accounts[1].address
    const cases: Array<[string, unknown[]]> = [
      ['eth_call', [{ to, value: `0x1${'0'.repeat(64)}` }]],
      ['eth_call', [{ to, gas: '0x10000000000000000' }]],
      ['eth_estimateGas', [{ to, nonce: '0x10000000000000000' }]],
      ['eth_call', [{ to, maxFeePerGas: `0x${'f'.repeat(64)}`, maxPriorityFeePerGas: '0x1' }]],
      ['eth_call', [{ to }, 'latest', null, { number: '0x10000000000000000' }]],
      ['eth_call', [{ to }, 'latest', null, { time: '0x10000000000000000' }]],
      ['eth_call', [{ to, gasPrice: '0x1', gas: '0xffffffffffffffff' }]],
      ['eth_createAccessList', [{ to, value: `0x1${'0'.repeat(64)}` }]],
      ['eth_getProof', [to, ['0x' + '1'.repeat(66)], 'latest']],
      ['eth_getProof', [to, 'nope']],
      ['eth_getLogs', [{ fromBlock: '0x2', toBlock: '0x1' }]],
      ['eth_simulateV1', [{ blockStateCalls: [{ calls: [{ to, value: `0x1${'0'.repeat(64)}` }] }] }]],
    ]
    for (const [method, params] of cases) {
      const res = await node.rpc(method, params)
      expect(res.error, `${method} ${JSON.stringify(params).slice(0, 80)}`).toBeDefined()
      expect([-32602, -32000], `${method}: ${res.error.code} ${res.error.message}`).toContain(res.error.code)
      expect(res.error.message).not.toMatch(/internal error/)
    }
    // A fee cap whose product with the gas overflows 256 bits: what ethereumjs refuses, said as ours.
    const overflow = await node.rpc('eth_call', [
      { to, gas: '0xffffffff', maxFeePerGas: `0x${'f'.repeat(63)}`, maxPriorityFeePerGas: '0x0' },
    ])
    expect(overflow.error.code).toBe(-32000)
  })
})

describe('time bounds (viem test client)', () => {
  const node = useTestNode({ preconfInterval: 50 })

  it('refuses a timestamp a header cannot hold: -32602 "The timestamp is too big", as anvil', async () => {
    const test = testClient(node)
    const err = await test.setNextBlockTimestamp({ timestamp: 2n ** 64n - 1n }).catch((e) => e)
    expect(err).toBeInstanceOf(BaseError)
    expect((err as BaseError).details).toBe('The timestamp is too big')
    const tooBig = { code: -32602, message: 'The timestamp is too big' }
    expect((await node.rpc('evm_mine', [{ timestamp: toHex(2n ** 64n - 1n) }])).error).toEqual(tooBig)
    expect((await node.rpc('evm_increaseTime', [toHex(2n ** 64n)])).error).toEqual(tooBig)
    expect((await node.rpc('anvil_mine', ['0x3', toHex(2n ** 63n)])).error).toEqual(tooBig)
    // The node still seals blocks with ordinary timestamps.
    const before = await node.publicClient.getBlockNumber({ cacheTime: 0 })
    await test.mine({ blocks: 1 })
    expect(await node.publicClient.getBlockNumber({ cacheTime: 0 })).toBe(before + 1n)
  })
})

describe('block numbers past the sealed head', () => {
  it('the pre-confirmed block is "pending" only: its number answers null until it is sealed', async () => {
    const node = await startTestNode({ blockTime: 60_000, preconfInterval: 50 })
    try {
      const hash = await node.wallet(0).sendTransaction({ to: node.accounts[1].address, value: 1n })
      const receipt = await waitForReceipt(node, hash)
      const number = toHex(receipt.blockNumber)
      const pending = await node.rpc('eth_getBlockByNumber', ['pending', false])
      expect(pending.result.number).toBe(number)
      expect(pending.result.transactions).toEqual([expect.stringMatching(/^0x[0-9a-f]{64}$/), hash]) // the L1-info deposit first
      expect((await node.rpc('eth_getBlockByNumber', [number, false])).result).toBeNull()
      expect((await node.rpc('eth_getBlockTransactionCountByNumber', [number])).result).toBeNull()
      expect((await node.rpc('eth_getBlockReceipts', [number])).result).toBeNull()
      expect((await node.rpc('eth_getTransactionByBlockNumberAndIndex', [number, '0x0'])).result).toBeNull()
      expect((await node.rpc('eth_getBalance', [node.accounts[1].address, number])).error).toEqual({
        code: -32000,
        message: 'header not found',
      })
      expect((await node.rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: number }])).error).toEqual({
        code: -32602,
        message: 'block range extends beyond current head block',
      })
      // By hash, the transaction and its receipt are there (Base serves them pre-confirmed).
      expect((await node.rpc('eth_getTransactionByHash', [hash])).result.blockNumber).toBe(number)
      await node.rpc('evm_mine')
      expect((await node.rpc('eth_getBlockByNumber', [number, false])).result.transactions).toEqual(pending.result.transactions)
    } finally {
      await node.stop()
    }
  })
})

describe('pre-confirmation hints', () => {
  const lines: string[] = []
  const node = useTestNode({ blockTime: 60_000, preconfInterval: 50, silent: false, logger: (line) => lines.push(line) })

  it('a nonce read at "latest" behind pre-confirmed sends: one line, once per account per block', async () => {
    const from = node.accounts[3].address
    await waitForReceipt(node, await node.wallet(3).sendTransaction({ to: node.accounts[4].address, value: 1n }))
    lines.length = 0
    expect(await node.publicClient.getTransactionCount({ address: from, blockTag: 'latest' })).toBe(0)
    await node.publicClient.getTransactionCount({ address: from, blockTag: 'latest' })
    const hints = lines.filter((l) => l.startsWith('hint:'))
    expect(hints).toHaveLength(1)
    expect(hints[0]).toContain(`eth_getTransactionCount(${from.toLowerCase()}, "latest") = 0, but "pending" = 1`)
    expect(hints[0]).toContain('blockTag "pending"')
    expect(hints[0]).toContain('--block-time 0')
  })

  it("cast's second send reads its nonce at latest: nonce too low, with the pending nonce and a hint", async () => {
    const key = node.accounts[5].privateKey
    const to = node.accounts[6].address
    const send = (value: string) =>
      cast(['send', to, '--value', value, '--private-key', key, '--rpc-url', node.rpcUrl, '--async'])
    const first = await send('1')
    expect(first.code).toBe(0)
    await waitForReceipt(node, first.stdout.trim() as Hex)
    lines.length = 0
    const second = await send('2')
    expect(second.code).not.toBe(0)
    expect(second.stderr).toContain('nonce too low: next nonce 1, tx nonce 0; pending nonce 1')
    const hint = lines.find((l) => l.startsWith('hint: a transaction from'))
    expect(hint).toContain('was refused (nonce too low')
    expect(hint).toContain('blockTag "pending"')
  })

  it("ethers' estimate at latest reverts where pending succeeds (approve-then-transferFrom's shape): a hint", async () => {
    // No request cache: ethers reuses an identical answer for 250 ms (a nonce read twice in a row, here).
    const provider = new JsonRpcProvider(node.rpcUrl, undefined, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1 })
    const signer = new Wallet(node.accounts[8].privateKey, provider)
    const factory = new ContractFactory(counterAbi as never, counterBytecode, signer)
    const deployed = await factory.deploy(5n)
    await node.rpc('evm_mine') // the counter sealed, count 5 at "latest"
    const counter = new Contract(await deployed.getAddress(), counterAbi as never, signer)
    const increase = await counter.getFunction('increase')(10n)
    await waitForReceipt(node, increase.hash as Hex) // count 15, pre-confirmed only
    lines.length = 0
    // ethers estimates at "latest": the requirement fails there, though the transaction would pass.
    const err = await counter
      .getFunction('requireAtLeast')
      .estimateGas(10n)
      .catch((e: Error) => e)
    expect(String(err)).toContain('count below min')
    const hint = lines.find((l) => l.startsWith('hint: eth_estimateGas'))
    expect(hint).toContain('at "latest" fails (execution reverted: count below min); at "pending" it needs')
    provider.destroy()
  })

  it('an estimate at "latest" that would succeed at "pending" (a contract deployed in the open block)', async () => {
    const wallet = node.wallet(7)
    const hash = await wallet.deployContract({ abi: counterAbi, bytecode: counterBytecode, args: [0n] })
    const counter = (await waitForReceipt(node, hash)).contractAddress as Hex
    lines.length = 0
    const data = encodeFunctionData({ abi: counterAbi, functionName: 'count' })
    // At latest the contract does not exist yet: the call returns nothing; at pending it runs.
    const latest = await node.rpc('eth_call', [{ from: wallet.account.address, to: counter, data }, 'latest'])
    expect(latest.result).toBe('0x')
    const hint = lines.find((l) => l.startsWith('hint: eth_call'))
    expect(hint).toContain('at "latest" returns 0x; at "pending" it')
    expect(hint).toContain('pre-confirmed transactions of the open one')
  })
})

/** An RLP integer: empty bytes are zero. */
function quantity(hex: Hex): bigint {
  return hex === '0x' ? 0n : hexToBigInt(hex)
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.slice(2), 'hex'))
}
