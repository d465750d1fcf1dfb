// What test/explorer.test.ts builds on: init codes of the contracts its pages show, a user operation
// through the node's bundler, the docs' screenshots (written only with PCNODE_SCREENSHOTS=1), and
// `pcnode start` from the sources.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import {
  type Address,
  concat,
  createWalletClient,
  encodeErrorResult,
  type Hex,
  http,
  keccak256,
  parseAbi,
  parseEther,
  toHex,
} from 'viem'
import { createBundlerClient, toSimple7702SmartAccount } from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { ROOT } from './cli.js'
import type { TestNode } from './helpers.js'

/** Init code deploying a contract that reverts every call with Error("explorer says no"). */
export function revertingContract(): `0x${string}` {
  const payload = encodeErrorResult({ abi: parseAbi(['error Error(string)']), errorName: 'Error', args: ['explorer says no'] })
  const bytes = Buffer.from(payload.slice(2), 'hex')
  let runtime = ''
  for (let at = 0; at < bytes.length; at += 32) {
    const word = Buffer.alloc(32)
    bytes.copy(word, 0, at, Math.min(at + 32, bytes.length))
    runtime += `7f${word.toString('hex')}60${at.toString(16).padStart(2, '0')}52` // PUSH32 word PUSH1 at MSTORE
  }
  runtime += `60${bytes.length.toString(16).padStart(2, '0')}6000fd` // PUSH1 len PUSH1 0 REVERT
  const len = (runtime.length / 2).toString(16).padStart(2, '0')
  // PUSH1 len PUSH1 12 PUSH1 0 CODECOPY PUSH1 len PUSH1 0 RETURN, then the runtime
  return `0x60${len}600c60003960${len}6000f3${runtime}`
}

/**
 * Init code whose constructor calls `target` with 1 wei (so the creation needs a value) and logs
 * Made(), leaving a contract that does nothing.
 */
export function creatorInitCode(target: Hex): Hex {
  const made = keccak256(toHex('Made()'))
  // PUSH0 x4 PUSH1 1 PUSH20 target GAS CALL POP PUSH32 made PUSH0 PUSH0 LOG1
  const ctor = concat(['0x5f5f5f5f600173', target, '0x5af150', '0x7f', made, '0x5f5fa1'])
  // PUSH1 1 DUP1 PUSH1 offset PUSH0 CODECOPY PUSH0 RETURN, then the runtime: STOP
  return concat([ctor, `0x60018060${((ctor.length - 2) / 2 + 9).toString(16).padStart(2, '0')}5f395ff3`, '0x00'])
}

/**
 * A user operation sending 5 wei to `to` from a fresh EOA (funded with 1 ETH by dev account `funder`)
 * that delegates to EntryPoint v0.8's Simple7702Account in this first op, through the node's bundler:
 * the op's hash, its owner and its receipt once included.
 */
export async function sendFirst7702Op(node: TestNode, funder: number, to: Address) {
  const owner = privateKeyToAccount(generatePrivateKey())
  await node.publicClient.waitForTransactionReceipt({
    hash: await node.wallet(funder).sendTransaction({ to: owner.address, value: parseEther('1') }),
  })
  const account = await toSimple7702SmartAccount({ client: node.publicClient, owner })
  const wallet = createWalletClient({ account: owner, chain: node.chain, transport: http(node.rpcUrl, { retryCount: 0 }) })
  const authorization = await wallet.signAuthorization({ contractAddress: '0xe6Cae83BdE06E4c305530e199D7217f42808555B' })
  const bundler = createBundlerClient({
    client: node.publicClient,
    transport: http(node.rpcUrl, { retryCount: 0 }),
    pollingInterval: 50,
  })
  const op = await bundler.sendUserOperation({ account, authorization, calls: [{ to, value: 5n }] })
  const receipt = await bundler.waitForUserOperationReceipt({ hash: op, timeout: 60_000 })
  return { op, owner, receipt }
}

/** Where the screenshots go when PCNODE_SCREENSHOTS=1 (not in CI: they would dirty the tree). */
const SHOTS = process.env.PCNODE_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'img') : undefined

/** A small PNG of the page's top (or of one element) at this viewport (device scale 1), for the docs; the viewport is put back. */
export async function screenshot(
  page: Page,
  name: string,
  width: number,
  height: number,
  only?: { from: string; to: string },
): Promise<void> {
  if (!SHOTS) return
  mkdirSync(SHOTS, { recursive: true })
  const before = page.viewportSize()
  await page.setViewportSize({ width, height })
  const path = join(SHOTS, `explorer-${name}.png`)
  // `only`: from the top of one element to the bottom of another (part of a long view), else the viewport.
  const [top, bottom] = only
    ? await Promise.all([page.locator(only.from).boundingBox(), page.locator(only.to).boundingBox()])
    : []
  const clip = top && bottom ? { x: top.x, y: top.y, width: top.width, height: bottom.y + bottom.height + 12 - top.y } : undefined
  await page.screenshot({ path, animations: 'disabled', clip, fullPage: clip !== undefined })
  if (before) await page.setViewportSize(before)
}

/** `pcnode start` from the sources on a free port: its banner once printed, and the child to kill. */
export async function startCli(flags: string[]): Promise<{ child: ChildProcess; banner: string; rpcUrl: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', 'start', '--port', '0', '--no-app', ...flags], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  })
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (d) => {
      out += d
      const rpc = /^RPC\s+(http:\/\/\S+)$/m.exec(out)
      // The access lines close the banner.
      if (rpc && /^Web pages:/m.test(out)) resolve({ child, banner: out, rpcUrl: rpc[1] })
    })
    child.once('exit', (code) => reject(new Error(`pcnode start exited (${code}): ${out}`)))
  })
}
