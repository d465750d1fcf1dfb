// debug_trace* beside anvil 1.7.1 in the same run: the same transactions on both (same sender,
// nonces, hence addresses), traced with each tracer. Where anvil matches geth the outputs must be
// equal; where it departs from geth pcnode follows geth (docs/tracing.md), and the test states
// geth's value: the top frame's gas, log indexes after a reverted
// frame, logs of failed frames, which accounts prestateTracer keeps and codeHash, precompiles in
// 4byteTracer, the gasCost of CREATE/CREATE2 steps, fields geth leaves out when empty. Also `cast
// run` and `cast rpc debug_traceTransaction` against pcnode, and `pcnode trace`.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createPublicClient, createWalletClient, defineChain, encodeFunctionData, type Hex, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pcnode, ROOT } from './cli.js'
import { traceRootAbi, traceRootBytecode } from './fixtures/tracing.js'
import { startAnvil, startTestNode, type TestNode, waitForReceipt } from './helpers.js'

const CAST = join(ROOT, 'node_modules', '@foundry-rs', 'cast-linux-amd64', 'bin', 'cast')
const exec = promisify(execFile)

type Json = any

async function rpcAt(url: string, method: string, params: unknown[]): Promise<Json> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return res.json()
}

/**
 * anvil writes refund and returnData even when empty; geth leaves them out (omitempty). An empty
 * memory is `[]` on both (reth's, which anvil shares).
 */
function gethOmitsEmpty(log: Json): Json {
  const out = { ...log }
  if (out.refund === 0) delete out.refund
  if (out.returnData === '0x') delete out.returnData
  return out
}

/** Every frame of a callTracer tree, depth first. */
function frames(top: Json): Json[] {
  return [top, ...(top.calls ?? []).flatMap(frames)]
}

describe('debug_trace* beside anvil (same transactions, same run)', () => {
  let node: TestNode
  let anvil: { url: string; stop: () => void }
  const txs: Record<string, { pc: Hex; anvil: Hex }> = {}
  const receipts: Record<string, Json> = {}
  let root: Hex
  const both = async (name: string, tx: (to?: Hex) => { data: Hex; to?: Hex; value?: bigint }) => {
    const { data, to, value } = tx(root)
    const fee = { maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, gas: 3_000_000n }
    const pcHash = await node.wallet(0).sendTransaction({ data, to, value, ...fee })
    const chain = defineChain({
      id: 31337,
      name: 'anvil',
      nativeCurrency: { name: 'E', symbol: 'E', decimals: 18 },
      rpcUrls: { default: { http: [anvil.url] } },
    })
    const wallet = createWalletClient({
      chain,
      transport: http(anvil.url),
      account: privateKeyToAccount(node.accounts[0].privateKey),
    })
    const anvilHash = await wallet.sendTransaction({ data, to, value, ...fee })
    receipts[name] = await waitForReceipt(node, pcHash)
    await createPublicClient({ chain, transport: http(anvil.url) }).waitForTransactionReceipt({ hash: anvilHash })
    txs[name] = { pc: pcHash, anvil: anvilHash }
  }
  const trace = async (name: string, config: unknown) => {
    const [p, a] = await Promise.all([
      node.rpc('debug_traceTransaction', [txs[name].pc, config]),
      rpcAt(anvil.url, 'debug_traceTransaction', [txs[name].anvil, config]),
    ])
    expect(p.error).toBeUndefined()
    expect(a.error).toBeUndefined()
    return { pc: p.result, anvil: a.result }
  }

  beforeAll(async () => {
    ;[node, anvil] = await Promise.all([
      startTestNode({ profile: 'ethereum', blockTime: 300, preconfInterval: 50 }),
      // Struct logs on, and pcnode's hardfork.
      startAnvil(['--steps-tracing', '--hardfork', 'osaka']),
    ])
    await both('root', () => ({ data: traceRootBytecode, value: 10n }))
    root = receipts.root.contractAddress
    await both('everything', (to) => ({
      to,
      data: encodeFunctionData({ abi: traceRootAbi, functionName: 'everything', args: [5n] }),
    }))
    await both('nestedRevert', (to) => ({
      to,
      data: encodeFunctionData({ abi: traceRootAbi, functionName: 'nestedRevert', args: [7n] }),
    }))
    await both('divide', (to) => ({ to, data: encodeFunctionData({ abi: traceRootAbi, functionName: 'divide', args: [0n] }) }))
  }, 120_000)
  afterAll(async () => {
    anvil?.stop()
    await node?.stop()
  })

  it("callTracer: every frame type as anvil reports it, with geth's top gas, log indexes and failed-frame logs", async () => {
    const { pc, anvil: a } = await trace('everything', { tracer: 'callTracer', tracerConfig: { withLog: true } })
    expect(frames(pc).map((f) => f.type)).toEqual([
      'CALL',
      'STATICCALL', // sha256 precompile
      'CALL', // store{value: 1}
      'CALL', // fail: reverts inside a try
      'DELEGATECALL',
      'STATICCALL',
      'CALLCODE',
      'CREATE2',
      'CALL', // destroy
      'SELFDESTRUCT',
      'CREATE',
    ])
    // geth: the top frame's gas is the transaction's limit and gasUsed the receipt's; anvil gives
    // the gas left after intrinsic gas.
    expect(pc.gas).toBe('0x2dc6c0')
    expect(BigInt(pc.gasUsed)).toBe(BigInt(receipts.everything.gasUsed))
    expect(a.gas).not.toBe(pc.gas)
    // geth: a log's index is its receipt logIndex: the reverted frame's log index is reused by the
    // next one; anvil counts the dropped log.
    const receiptIndexes = receipts.everything.logs
      .filter((l: Json) => l.address.toLowerCase() === root.toLowerCase())
      .map((l: Json) => `0x${l.logIndex.toString(16)}`)
    expect(pc.logs.map((l: Json) => l.index)).toEqual(receiptIndexes)
    expect(pc.logs.map((l: Json) => l.index)).toEqual(['0x0', '0x2'])
    expect(a.logs[1].index).toBe('0x3')
    // Everything else is anvil's: frames, gas, inputs, outputs, revert reasons, values, positions.
    const strip = (f: Json): Json => ({ ...f, gas: undefined, logs: f.logs?.map((l: Json) => ({ ...l, index: undefined })) })
    expect(strip(pc)).toEqual(strip(a))
    const failed = frames(pc)[3]
    expect(failed).toMatchObject({ error: 'execution reverted', revertReason: 'child says no' })
    expect(failed.logs).toBeUndefined()
  })

  it('callTracer: a revert inside nested calls; geth drops the logs of failed frames, anvil keeps them', async () => {
    const { pc, anvil: a } = await trace('nestedRevert', { tracer: 'callTracer', tracerConfig: { withLog: true } })
    expect(frames(pc).map((f) => [f.type, f.error, f.revertReason])).toEqual([
      ['CALL', 'execution reverted', 'child says no'],
      ['CALL', 'execution reverted', 'child says no'],
      ['CALL', 'execution reverted', 'child says no'],
    ])
    expect(frames(pc).every((f) => f.logs === undefined)).toBe(true)
    expect(a.logs.length).toBe(1)
    const noLogs = (f: Json): Json => ({ ...f, gas: undefined, logs: undefined, calls: f.calls?.map(noLogs) })
    expect(noLogs(pc)).toEqual(noLogs(a))
    // Panic(0x12) decoded as geth's abi.UnpackRevert words it.
    const divide = await trace('divide', { tracer: 'callTracer' })
    expect(divide.pc.revertReason).toBe('division or modulo by zero')
    expect({ ...divide.pc, gas: undefined }).toEqual({ ...divide.anvil, gas: undefined })
  })

  it('onlyTopCall: the top frame alone', async () => {
    const { pc } = await trace('everything', { tracer: 'callTracer', tracerConfig: { onlyTopCall: true, withLog: true } })
    expect(pc.calls).toBeUndefined()
    expect(pc.logs.map((l: Json) => [l.index, l.position])).toEqual([
      ['0x0', '0x0'],
      ['0x2', '0x0'],
    ])
  })

  it('struct logger: step for step as anvil, but CREATE/CREATE2 cost without the gas they forward (geth)', async () => {
    for (const name of ['root', 'everything', 'nestedRevert', 'divide']) {
      const { pc, anvil: a } = await trace(name, { enableMemory: true, enableReturnData: true })
      expect(pc.structLogs.length).toBe(a.structLogs.length)
      expect({ ...pc, structLogs: undefined }).toEqual({ ...a, structLogs: undefined })
      const calls = frames((await trace(name, { tracer: 'callTracer' })).pc).slice(1)
      const creates = calls.filter((f) => f.type === 'CREATE' || f.type === 'CREATE2')
      let created = 0
      pc.structLogs.forEach((log: Json, i: number) => {
        const theirs = gethOmitsEmpty(a.structLogs[i])
        if (log.op === 'CREATE' || log.op === 'CREATE2') {
          // anvil adds the gas handed to the new frame; geth's gasCost is the opcode's own.
          expect(log.gasCost + Number(BigInt(creates[created++].gas))).toBe(theirs.gasCost)
          expect({ ...log, gasCost: 0 }).toEqual({ ...theirs, gasCost: 0 })
        } else {
          expect(log).toEqual(theirs)
        }
      })
      expect(created).toBe(creates.length)
    }
  })

  it("prestateTracer: anvil's accounts and values, less the accounts empty before, plus geth's codeHash", async () => {
    for (const name of ['everything', 'nestedRevert']) {
      const { pc, anvil: a } = await trace(name, { tracer: 'prestateTracer' })
      const expected: Json = {}
      for (const [address, account] of Object.entries<Json>(a)) {
        const empty = !account.nonce && !account.code && BigInt(account.balance ?? 0) === 0n
        if (empty) continue // geth drops accounts that were empty before the transaction
        // geth's field order: balance, code, codeHash (of contracts), nonce, storage.
        const codeHash = account.code ? (await node.rpc('web3_sha3', [account.code])).result : undefined
        const { balance, code, nonce, storage } = account
        expected[address] = JSON.parse(JSON.stringify({ balance, code, codeHash, nonce, storage }))
        if (address === node.accounts[0].address.toLowerCase()) expected[address].balance = pc[address].balance // fees differ by chain
      }
      // Key order too: geth marshals a map, sorted.
      expect(JSON.stringify(pc)).toBe(JSON.stringify(Object.fromEntries(Object.entries(expected).sort())))
    }
  })

  it('prestateTracer diffMode: what changed, as geth reports it', async () => {
    const { pc } = await trace('everything', { tracer: 'prestateTracer', tracerConfig: { diffMode: true } })
    const rootKey = root.toLowerCase()
    // count 0 -> 5 (slot 0); the child stored 5; the CREATE2 child created and destroyed in the
    // transaction is in neither; the CREATE child only in post (it did not exist before).
    expect(pc.pre[rootKey].storage).toBeUndefined() // slot 0 was zero: geth drops empty pre slots
    expect(pc.post[rootKey].storage).toEqual({ [`0x${'0'.repeat(64)}`]: `0x${'5'.padStart(64, '0')}` })
    expect(pc.post[rootKey].nonce).toBe(4)
    const created = frames((await trace('everything', { tracer: 'callTracer' })).pc).filter((f) => f.type.startsWith('CREATE'))
    expect(pc.pre[created[0].to]).toBeUndefined()
    expect(pc.post[created[0].to]).toBeUndefined()
    expect(pc.pre[created[1].to]).toBeUndefined()
    expect(Object.keys(pc.post[created[1].to])).toEqual(['code', 'codeHash', 'nonce'])
    expect(Object.keys(pc.post)).toEqual(Object.keys(pc.post).sort())
  })

  it("4byteTracer: anvil's selectors without the precompile call geth leaves out", async () => {
    const { pc, anvil: a } = await trace('everything', { tracer: '4byteTracer' })
    const { '0x00000000-28': sha256Call, ...rest } = a
    expect(sha256Call).toBe(1)
    expect(pc).toEqual(rest)
    expect(pc['0x0351ad12-32']).toBe(1)
  })

  it("cast run replays a pcnode transaction; cast rpc debug_traceTransaction gets geth's callTracer", async () => {
    const run = await exec(CAST, ['run', txs.everything.pc, '--rpc-url', node.rpcUrl], { timeout: 60_000 })
    expect(run.stdout).toContain('Transaction successfully executed.')
    expect(run.stdout).toContain(`Gas used: ${BigInt(receipts.everything.gasUsed)}`)
    expect(run.stdout).toContain('[callcode]')
    expect(run.stdout).toContain('← [Revert] child says no')
    const rpc = await exec(CAST, [
      'rpc',
      'debug_traceTransaction',
      txs.everything.pc,
      '{"tracer":"callTracer"}',
      '--rpc-url',
      node.rpcUrl,
    ])
    expect(JSON.parse(rpc.stdout)).toEqual(
      (await node.rpc('debug_traceTransaction', [txs.everything.pc, { tracer: 'callTracer' }])).result,
    )
  })

  it('pcnode trace draws the call tree (and --json prints the callTracer result)', async () => {
    const out = await pcnode(['trace', txs.everything.pc, '--rpc-url', node.rpcUrl])
    expect(out.code).toBe(0)
    expect(out.stdout).toContain('PRECOMPILES::sha256')
    expect(out.stdout).toContain('← [Revert] child says no')
    expect(out.stdout).toContain('[delegatecall]')
    expect(out.stdout).toContain('← [SelfDestruct]')
    expect(out.stdout).toContain(`Gas used: ${BigInt(receipts.everything.gasUsed)}`)
    const failed = await pcnode(['trace', txs.nestedRevert.pc, '--rpc-url', node.rpcUrl, '--json'])
    expect(failed.code).toBe(1)
    expect(JSON.parse(failed.stdout).revertReason).toBe('child says no')
    // The same drawing from anvil: any node serving geth's callTracer.
    const fromAnvil = await pcnode(['trace', txs.everything.anvil, '--rpc-url', anvil.url])
    expect(fromAnvil.stdout).toContain('← [Revert] child says no')
    const call = await pcnode([
      'trace',
      '--to',
      root,
      '--data',
      encodeFunctionData({ abi: traceRootAbi, functionName: 'divide', args: [0n] }),
      '--rpc-url',
      node.rpcUrl,
    ])
    expect(call.code).toBe(1)
    expect(call.stdout).toContain('← [Revert] division or modulo by zero')
  })
})
