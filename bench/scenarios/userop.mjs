// userop (opt-in, `--only userop`): a user operation's send → receipt through pcnode's built-in
// bundler (`pcnode start --profile base`: the receipt is pre-confirmed) beside the same operation
// through alto (@pimlico/alto, unsafe mode: anvil's debug_traceCall cannot run its tracer) in front
// of `anvil --block-time 0.2`. The account is a Simple7702Account v0.8 (an EOA delegating to it);
// anvil gets the EntryPoint v0.8, its SenderCreator and the account's code with anvil_setCode,
// copied from pcnode's genesis, which is what a preinstall is. The ops are signed before the clock
// starts (fixed gas limits, nonces counted locally); each is sent once the previous one's receipt
// is served, and eth_getUserOperationReceipt is polled every P.useropPollMs, over fetch on both sides.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { createPublicClient, createWalletClient, defineChain, http } from 'viem'
import { entryPoint08Address, toSimple7702SmartAccount } from 'viem/account-abstraction'
import { mnemonicToAccount } from 'viem/accounts'
import { CHAIN_ID } from '../lib/accounts.mjs'
import { log } from '../lib/log.mjs'
import { freePort, ROOT, spawnTracked, waitAnswer, withNode } from '../lib/procs.mjs'
import { fetchRpc } from '../lib/rpc.mjs'
import { now, round, stats } from '../lib/stats.mjs'

export const name = 'userop'
export const selectedBy = ['userop']

const MNEMONIC = 'test test test test test test test test test test test junk'
const SIMPLE_7702 = '0xe6Cae83BdE06E4c305530e199D7217f42808555B'
const ALTO_CLI = join(ROOT, 'node_modules', '@pimlico', 'alto', 'esm', 'cli', 'alto.js')
// Dev accounts by index: the account's owner (an EOA that delegates), alto's executor and utility.
const OWNER = 5
const EXECUTOR = 6
const UTILITY = 7
const key = (i) => `0x${Buffer.from(mnemonicToAccount(MNEMONIC, { addressIndex: i }).getHdKey().privateKey).toString('hex')}`

const chain = (url) =>
  defineChain({
    id: CHAIN_ID,
    name: 'bench',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  })

/** The EntryPoint v0.8, its SenderCreator and the Simple7702Account as pcnode's genesis holds them. */
async function preinstalledCode(opts) {
  return withNode('pcnode(base)', opts, async (node) => {
    const creator = `0x${(await node.rpc('eth_call', [{ to: entryPoint08Address, data: '0x09ccb880' }, 'latest'])).slice(26)}`
    const code = {}
    for (const a of [entryPoint08Address, creator, SIMPLE_7702]) code[a] = await node.rpc('eth_getCode', [a, 'latest'])
    return code
  })
}

/** The owner's EOA delegated to the Simple7702Account (a type-4 transaction it sends itself), and N signed ops. */
async function prepare(url, count, fees) {
  const transport = http(url, { retryCount: 0 })
  const client = createPublicClient({ chain: chain(url), transport })
  const owner = mnemonicToAccount(MNEMONIC, { addressIndex: OWNER })
  const wallet = createWalletClient({ account: owner, chain: chain(url), transport })
  const authorization = await wallet.signAuthorization({ contractAddress: SIMPLE_7702, executor: 'self' })
  const hash = await wallet.sendTransaction({ to: owner.address, authorizationList: [authorization], data: '0x' })
  await client.waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: 30_000 })
  const account = await toSimple7702SmartAccount({ client, owner })
  const start = await client.readContract({
    address: entryPoint08Address,
    abi: [
      {
        type: 'function',
        name: 'getNonce',
        stateMutability: 'view',
        inputs: [{ type: 'address' }, { type: 'uint192' }],
        outputs: [{ type: 'uint256' }],
      },
    ],
    functionName: 'getNonce',
    args: [owner.address, 0n],
  })
  const ops = []
  for (let i = 0; i < count; i++) {
    const op = {
      sender: owner.address,
      nonce: start + BigInt(i),
      callData: await account.encodeCalls([{ to: `0x${(0xbe000000 + i).toString(16).padStart(40, '0')}`, value: 1n }]),
      callGasLimit: 100_000n,
      verificationGasLimit: 150_000n,
      preVerificationGas: 80_000n,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      signature: '0x',
    }
    op.signature = await account.signUserOperation(op)
    ops.push(op)
  }
  return ops
}

const hex = (v) => (typeof v === 'bigint' ? `0x${v.toString(16)}` : v)
const rpcOp = (op) => Object.fromEntries(Object.entries(op).map(([k, v]) => [k, hex(v)]))

/** Sends each op once the previous one's receipt is served; the send → receipt times. */
async function measure(send, P, ops, label) {
  const ms = []
  const sendMs = []
  let failed = 0
  for (const op of ops) {
    const t0 = now()
    const hash = await send('eth_sendUserOperation', [rpcOp(op), entryPoint08Address])
    sendMs.push(now() - t0)
    let receipt = null
    while (now() - t0 < 10_000) {
      receipt = await send('eth_getUserOperationReceipt', [hash])
      if (receipt) break
      await sleep(P.useropPollMs)
    }
    if (!receipt?.success) failed++
    ms.push(receipt ? now() - t0 : Number.NaN)
    // A later op's nonce waits on this one: a bundler that serves no receipt for 10 s is stuck.
    if (!receipt) break
  }
  const r = {
    count: ops.length,
    sent: ms.length,
    failed: failed + ops.length - ms.length,
    receiptMs: stats(ms),
    sendMs: stats(sendMs),
  }
  log(
    `userop ${label}: receipt p50 ${r.receiptMs.p50} ms, p99 ${r.receiptMs.p99} ms (${ops.length - r.failed}/${ops.length} succeeded)`,
  )
  return r
}

export async function run({ opts, P }) {
  const out = { count: P.useropCount, pollMs: P.useropPollMs }
  const code = opts.noAnvil ? null : await preinstalledCode(opts)
  out['pcnode(base)'] = await withNode('pcnode(base)', opts, async (node) => {
    const url = `http://127.0.0.1:${node.port}`
    const quote = await node.rpc('pimlico_getUserOperationGasPrice', [])
    const ops = await prepare(url, P.useropCount + P.useropWarmup, {
      maxFeePerGas: BigInt(quote.fast.maxFeePerGas) * 2n,
      maxPriorityFeePerGas: BigInt(quote.fast.maxPriorityFeePerGas),
    })
    const { call } = fetchRpc(url)
    await measure(call, P, ops.slice(0, P.useropWarmup), 'pcnode warm-up')
    return measure(call, P, ops.slice(P.useropWarmup), 'pcnode(base)')
  })
  if (opts.noAnvil) return { userop: out }
  if (!existsSync(ALTO_CLI)) {
    out['alto+anvil(bt 0.2)'] = { error: `@pimlico/alto is not installed (${ALTO_CLI})` }
    return { userop: out }
  }
  out['alto+anvil(bt 0.2)'] = await withNode('anvil(bt 0.2)', opts, async (node) => {
    for (const [address, bytecode] of Object.entries(code)) await node.rpc('anvil_setCode', [address, bytecode])
    const port = await freePort()
    const args = [
      ALTO_CLI,
      '--entrypoints',
      entryPoint08Address,
      '--rpc-url',
      `http://127.0.0.1:${node.port}`,
      '--executor-private-keys',
      key(EXECUTOR),
      '--utility-private-key',
      key(UTILITY),
      '--safe-mode',
      'false',
      '--port',
      String(port),
      '--block-time',
      '200',
      '--utility-wallet-monitor',
      'false',
      '--refilling-wallets',
      'false',
      '--log-level',
      'warn',
    ]
    const alto = await spawnTracked('alto', process.execPath, args, {}, port)
    try {
      await waitAnswer(alto, 'eth_supportedEntryPoints', [], 120_000)
      const quote = await alto.rpc('pimlico_getUserOperationGasPrice', [])
      const ops = await prepare(`http://127.0.0.1:${node.port}`, P.useropCount + P.useropWarmup, {
        maxFeePerGas: BigInt(quote.fast.maxFeePerGas) * 2n,
        maxPriorityFeePerGas: BigInt(quote.fast.maxPriorityFeePerGas),
      })
      const { call } = fetchRpc(`http://127.0.0.1:${port}`)
      await measure(call, P, ops.slice(0, P.useropWarmup), 'alto warm-up')
      return await measure(call, P, ops.slice(P.useropWarmup), 'alto+anvil(bt 0.2)')
    } catch (e) {
      await sleep(500)
      throw new Error(`${e.message}; alto ${alto.exited ? `exited (${alto.exitCode})` : 'running'}: ${alto.stderr.slice(-600)}`)
    } finally {
      await alto.stop()
    }
  })
  out.p50Ratio = round(out['pcnode(base)'].receiptMs.p50 / out['alto+anvil(bt 0.2)'].receiptMs?.p50, 3)
  return { userop: out }
}
