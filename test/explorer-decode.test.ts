// What the explorer page decodes, in Debian's Chromium through Playwright against a real node started with
// --artifacts (a Foundry-style out/ directory, test/fixtures/forge-out: scripts/compile-artifact-fixture.mjs):
// an ERC-4337 bundle's handleOps with each op's fields named, a Permit2 permit (a struct in a struct) and its
// Permit event, an unknown contract's transfer and Transfer through the 4-byte table, and a contract deployed
// from the artifact named as such with its own function, event and custom error decoded. The page logs no error and makes
// no request beyond the node. `pcnode start --artifacts` prints the directory in its banner.
// (page callbacks run in the browser; this file is type-checked without the DOM lib.)
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { encodeFunctionData, type Hex } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { permit2Abi } from '../src/node/decode/permit2.js'
import { chromiumUnavailable } from './chromium.js'
import { ROOT } from './cli.js'
import { sendFirst7702Op, startCli } from './explorer-helpers.js'
import { useExplorerPage } from './explorer-page.js'
import { counterAbi, counterBytecode } from './fixtures/counter.js'
import { erc20Abi, erc20Bytecode } from './fixtures/erc20.js'
import { startTestNode, useTestNode } from './helpers.js'

const ARTIFACTS = join(ROOT, 'test', 'fixtures', 'forge-out')
const PERMIT2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
const ADDRESS = '0x[0-9a-fA-F]{40}'
/** A bytes value as the page writes it: past 64 bytes, their start and how many there are. */
const BYTES = '0x[0-9a-f]*(?:… \\(\\d+ bytes\\))?'

const skipReason = chromiumUnavailable()
if (skipReason) console.warn(`explorer decoding tests skipped: ${skipReason}`)

describe('--artifacts at start', () => {
  it('is refused when it is not a directory', async () => {
    await expect(startTestNode({ artifacts: join(ARTIFACTS, 'missing') })).rejects.toThrow(
      /--artifacts .*missing: not a directory/,
    )
  })

  it('shows in the banner of pcnode start, with the contracts read', async () => {
    const { child, banner } = await startCli(['--artifacts', 'test/fixtures/forge-out'])
    try {
      expect(banner).toMatch(/^Artifacts {2}test\/fixtures\/forge-out \(1 contract with runtime code\)$/m)
    } finally {
      child.kill('SIGKILL')
    }
  }, 120_000)
})

describe.skipIf(skipReason !== undefined)(`decoding on the explorer page${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const node = useTestNode({ blockTime: 1000, preconfInterval: 200, artifacts: ARTIFACTS })
  const explorer = useExplorerPage(node)
  const { waitForText, searchFor } = explorer
  let page: Page
  beforeAll(() => {
    page = explorer.page
  })

  const sourceOf = (selector: string) => page.getAttribute(`${selector} [data-source]`, 'data-source')

  /** The transaction's page, once shown. */
  async function openTx(hash: Hex) {
    await searchFor(hash)
    await waitForText('[data-field="Hash"]', new RegExp(`^${hash}$`))
  }

  it("decodes a bundle's handleOps with each user operation's fields named, and the EntryPoint's events", async () => {
    const {
      op,
      owner,
      receipt: { receipt, nonce },
    } = await sendFirst7702Op(node, 1, node.accounts[2].address)
    await openTx(receipt.transactionHash)
    const input = await waitForText('[data-field="Input"]', /^handleOps\(/)
    expect(input).toMatch(
      new RegExp(
        `^handleOps\\(ops: \\[\\{sender: ${owner.address}, nonce: ${nonce}, initCode: 0x[0-9a-f]*, callData: ${BYTES}, ` +
          `accountGasLimits: 0x[0-9a-f]{64}, preVerificationGas: \\d+, gasFees: 0x[0-9a-f]{64}, paymasterAndData: 0x[0-9a-f]*, ` +
          `signature: ${BYTES}\\}\\], beneficiary: ${ADDRESS}\\)$`,
        'i',
      ),
    )
    expect(await sourceOf('[data-field="Input"]')).toBe('known')
    expect(await page.textContent('[data-field="Contract"]')).toBe('EntryPoint_v080')
    // The call tree names each frame's function: the bundle, the account's validation and its execution.
    const frames = await page.$$eval('#call-tree .fn', (nodes) => nodes.map((n) => n.textContent))
    expect(frames[0]).toBe(' · EntryPoint_v080.handleOps')
    // The account is an EIP-7702 delegation to Simple7702Account, which pcnode preinstalls.
    expect(frames).toContain(' · EIP-7702 account.validateUserOp')
    expect(frames).toContain(' · EIP-7702 account.execute')
    const logs = await page.$$eval('#view .log .decoded', (nodes) => nodes.map((n) => n.textContent))
    expect(logs).toContainEqual(
      expect.stringMatching(new RegExp(`^UserOperationEvent\\(userOpHash: ${op}, sender: ${owner.address}, `, 'i')),
    )
  }, 120_000)

  it("decodes a Permit2 permit (a struct in a struct) and its Permit event by Permit2's ABI", async () => {
    const wallet = node.wallet(3)
    const owner = node.accounts[3].address
    const spender = node.accounts[4].address
    const token = '0x00000000000000000000000000000000000000aa'
    const expiration = 2_000_000_000
    const permitSingle = {
      details: { token, amount: 1000n, expiration, nonce: 0 },
      spender,
      sigDeadline: 2_000_000_000n,
    } as const
    const signature = await wallet.signTypedData({
      domain: { name: 'Permit2', chainId: node.chain.id, verifyingContract: PERMIT2 },
      types: {
        PermitSingle: [
          { name: 'details', type: 'PermitDetails' },
          { name: 'spender', type: 'address' },
          { name: 'sigDeadline', type: 'uint256' },
        ],
        PermitDetails: [
          { name: 'token', type: 'address' },
          { name: 'amount', type: 'uint160' },
          { name: 'expiration', type: 'uint48' },
          { name: 'nonce', type: 'uint48' },
        ],
      },
      primaryType: 'PermitSingle',
      message: permitSingle,
    })
    const hash = await wallet.writeContract({
      address: PERMIT2,
      abi: permit2Abi,
      functionName: 'permit',
      args: [owner, permitSingle, signature],
    })
    expect((await node.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')
    await openTx(hash)
    const input = await waitForText('[data-field="Input"]', /^permit\(/)
    const details = `{token: ${token}, amount: 1000, expiration: ${expiration}, nonce: 0}`
    expect(input.toLowerCase()).toBe(
      `permit(owner: ${owner}, permitSingle: {details: ${details}, spender: ${spender}, sigDeadline: 2000000000}, signature: ${signature.slice(0, 130)}… (65 bytes))`.toLowerCase(),
    )
    expect(await page.textContent('[data-field="Contract"]')).toBe('Permit2')
    expect((await page.textContent('#view .log .decoded'))?.toLowerCase()).toBe(
      `permit(owner: ${owner}, token: ${token}, spender: ${spender}, amount: 1000, expiration: ${expiration}, nonce: 0)`.toLowerCase(),
    )
    expect(await page.getAttribute('#view .log .decoded', 'data-source')).toBe('known')
  }, 90_000)

  it("decodes an unknown contract's transfer and Transfer through the 4-byte table", async () => {
    const wallet = node.wallet(5)
    const holder = node.accounts[5].address
    const deploy = await wallet.deployContract({ abi: erc20Abi, bytecode: erc20Bytecode, args: [holder, 1000n] })
    const token = (await node.publicClient.waitForTransactionReceipt({ hash: deploy })).contractAddress as Hex
    const to = node.accounts[6].address
    const hash = await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [to, 7n] })
    await node.publicClient.waitForTransactionReceipt({ hash })
    await openTx(hash)
    await waitForText('[data-field="Input"]', new RegExp(`^transfer\\(recipient: ${to}, amount: 7\\)$`, 'i'))
    expect(await sourceOf('[data-field="Input"]')).toBe('signature')
    // Not one the node can name: no Contract line.
    expect(await page.$('[data-field="Contract"]')).toBeNull()
    expect(await page.getAttribute('#view .log .decoded', 'data-source')).toBe('signature')
    expect((await page.textContent('#view .log .decoded'))?.toLowerCase()).toBe(
      `transfer(from: ${holder}, to: ${to}, value: 7)`.toLowerCase(),
    )
  }, 90_000)

  it('names a contract deployed from an artifact and decodes its calls, events and errors with its ABI', async () => {
    const wallet = node.wallet(7)
    const deploy = await wallet.deployContract({ abi: counterAbi, bytecode: counterBytecode, args: [7n] })
    const counter = (await node.publicClient.waitForTransactionReceipt({ hash: deploy })).contractAddress as Hex
    const hash = await wallet.writeContract({ address: counter, abi: counterAbi, functionName: 'increase', args: [3n] })
    await node.publicClient.waitForTransactionReceipt({ hash })
    await openTx(hash)
    // increase(uint256) is in no table: only the artifact's ABI decodes it.
    await waitForText('[data-field="Input"]', /^increase\(by: 3\)$/)
    expect(await sourceOf('[data-field="Input"]')).toBe('artifact')
    expect(await page.textContent('[data-field="Contract"]')).toBe('Counter (Counter.sol/Counter.json)')
    expect((await page.textContent('#view .log .decoded'))?.toLowerCase()).toBe(
      `increased(by: ${node.accounts[7].address}, newcount: 10)`.toLowerCase(),
    )
    expect(await page.textContent('#view .log .muted')).toBe(' Counter')
    // A custom error of the artifact's ABI as the revert reason.
    const failing = await wallet.sendTransaction({
      to: counter,
      data: encodeFunctionData({ abi: counterAbi, functionName: 'failCustomIfAbove', args: [5n] }),
      gas: 100_000n,
    })
    expect((await node.publicClient.waitForTransactionReceipt({ hash: failing })).status).toBe('reverted')
    await openTx(failing)
    await waitForText('#revert-reason', /^Revert reason: CountAbove\(count: 10, limit: 5\)$/)
    // The creation names what it created, and the address page the contract.
    await openTx(deploy)
    await waitForText('[data-field="Contract"]', /^Counter \(Counter\.sol\/Counter\.json\)$/)
    await searchFor(counter)
    await waitForText('[data-field="Address"]', new RegExp(`^${counter}$`, 'i'))
    await waitForText('[data-field="Contract"]', /^Counter \(Counter\.sol\/Counter\.json\)$/)
  }, 90_000)

  it('logged no error and sent every request to the node itself', () => {
    explorer.expectQuietAndLocal()
  })
})
