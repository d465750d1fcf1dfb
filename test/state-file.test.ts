// The state file: a restarted node answers as before; --data-dir and --state-interval; malformed
// files stop the start; SIGKILL at any moment leaves a file that loads.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { type Address, encodeFunctionData, type Hex, parseEther, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startNode } from '../src/index.js'
import { counterAbi, counterBytecode } from './fixtures/counter.js'
import { seededRandom, sleep, startTestNode, type TestNode, testClient, testSeed, until, waitForReceipt } from './helpers.js'

const ROOT = resolve(import.meta.dirname, '..')
const QUIET = { blockTime: 3_600_000, preconfInterval: 10 }

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pcnode-state-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

/** Everything a client could ask about the history and state, as the node answers it. */
async function observe(node: TestNode, addresses: Address[]) {
  const head = BigInt((await node.rpc('eth_blockNumber')).result)
  const blocks: unknown[] = []
  const receipts: unknown[] = []
  for (let n = 0n; n <= head; n++) {
    const block = (await node.rpc('eth_getBlockByNumber', [`0x${n.toString(16)}`, true])).result
    blocks.push(block)
    for (const tx of block.transactions) receipts.push((await node.rpc('eth_getTransactionReceipt', [tx.hash])).result)
  }
  const accounts: Record<string, unknown> = {}
  for (const address of addresses) {
    accounts[address] = {
      balance: (await node.rpc('eth_getBalance', [address, 'latest'])).result,
      nonce: (await node.rpc('eth_getTransactionCount', [address, 'latest'])).result,
      pendingNonce: (await node.rpc('eth_getTransactionCount', [address, 'pending'])).result,
      code: (await node.rpc('eth_getCode', [address, 'latest'])).result,
      slot0: (await node.rpc('eth_getStorageAt', [address, '0x0', 'latest'])).result,
    }
  }
  const logs = (await node.rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])).result
  return { head, blocks, receipts, accounts, logs }
}

describe('state file', () => {
  it('a restarted node finds every block, receipt, log, balance and pending transaction again', async () => {
    const file = join(dir, 'restart.json')
    const first = await startTestNode({ stateFile: file, ...QUIET })
    const test = testClient(first)
    const [a0, a1, a2, a3] = first.accounts
    const deploy = await first.wallet(0).deployContract({ abi: counterAbi, bytecode: counterBytecode, args: [3n] })
    const counter = (await waitForReceipt(first, deploy)).contractAddress as Address
    await test.mine({ blocks: 1 })
    for (const i of [1, 2, 3]) {
      const hash = await first
        .wallet(i)
        .writeContract({ address: counter, abi: counterAbi, functionName: 'increase', args: [BigInt(i)] })
      await waitForReceipt(first, hash)
    }
    await waitForReceipt(first, await first.wallet(1).sendTransaction({ to: a3.address, value: parseEther('2') }))
    const failData = encodeFunctionData({ abi: counterAbi, functionName: 'fail' })
    const fail = await first.wallet(2).sendTransaction({ to: counter, data: failData, gas: 100_000n })
    expect((await waitForReceipt(first, fail)).status).toBe('reverted')
    // An impersonated sender in the history.
    const whale = '0x000000000000000000000000000000000000bEEF' as Address
    await test.setBalance({ address: whale, value: parseEther('5') })
    const unsigned = await test.sendUnsignedTransaction({ from: whale, to: a0.address, value: 1n })
    await waitForReceipt(first, unsigned)
    await test.mine({ blocks: 2 })
    // After the last seal: a dev setter (visible at "latest"), a pre-confirmed transfer in the open
    // block, a signed and an impersonated transaction waiting behind nonce gaps in the pool.
    const poor = '0x00000000000000000000000000000000000000a5' as Address
    await test.setBalance({ address: poor, value: 777n })
    const open = await first.wallet(0).sendTransaction({ to: a2.address, value: 5n })
    await waitForReceipt(first, open)
    const gapAccount = privateKeyToAccount(a1.privateKey)
    const gapNonce = await first.publicClient.getTransactionCount({ address: a1.address, blockTag: 'pending' })
    const gapRaw = await gapAccount.signTransaction({
      chainId: first.chainId,
      type: 'eip1559',
      to: a2.address,
      value: 9n,
      nonce: gapNonce + 1,
      gas: 21000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: 1n,
    })
    const gap = (await first.rpc('eth_sendRawTransaction', [gapRaw])).result as Hex
    const whaleNonce = await first.publicClient.getTransactionCount({ address: whale, blockTag: 'pending' })
    const whaleGap = await test.sendUnsignedTransaction({ from: whale, to: a2.address, value: 3n, nonce: whaleNonce + 1 })
    const addresses = [a0.address, a1.address, a2.address, a3.address, counter, whale, poor]
    const before = await observe(first, addresses)
    const openReceipt = (await first.rpc('eth_getTransactionReceipt', [open])).result
    const gapTx = (await first.rpc('eth_getTransactionByHash', [gap])).result
    await first.stop()

    const doc = JSON.parse(await readFile(file, 'utf8'))
    expect(doc.pool.map((p: { hash: string }) => p.hash)).toEqual([open, gap, whaleGap])
    const second = await startTestNode({ stateFile: file, ...QUIET })
    try {
      // The open block's transfer is pre-confirmed again, into the block after the loaded head.
      const again = await waitForReceipt(second, open)
      expect(again.status).toBe('success')
      expect(again.blockNumber).toBe(before.head + 1n)
      expect({ ...(await second.rpc('eth_getTransactionReceipt', [open])).result, blockHash: null }).toMatchObject({
        ...openReceipt,
        blockHash: null,
      })
      expect(await observe(second, addresses)).toEqual(before)
      expect((await second.rpc('eth_getTransactionByHash', [gap])).result).toEqual(gapTx)
      expect((await second.rpc('base_transactionStatus', [whaleGap])).result.status).toBe('Known')

      // Filling both gaps runs the pooled transactions, the impersonated one as its sender.
      const st = testClient(second)
      await second.wallet(1).sendTransaction({ to: a2.address, value: 1n, nonce: gapNonce })
      await st.sendUnsignedTransaction({ from: whale, to: a2.address, value: 1n, nonce: whaleNonce })
      expect((await waitForReceipt(second, gap)).status).toBe('success')
      const whaleReceipt = await waitForReceipt(second, whaleGap)
      expect(whaleReceipt.from).toBe(whale.toLowerCase())
      await st.mine({ blocks: 1 })
      const sealed = await second.publicClient.getBlock({ blockTag: 'latest' })
      expect(sealed.parentHash).toBe((before.blocks.at(-1) as { hash: string }).hash)
      expect(
        await second.publicClient.readContract({ address: counter, abi: counterAbi, functionName: 'count', blockTag: 'latest' }),
      ).toBe(9n)
    } finally {
      await second.stop()
    }
  })

  it('--data-dir puts it at DIR/state.json; --state-interval N writes every N blocks', async () => {
    const dataDir = join(dir, 'data')
    const node = await startTestNode({ dataDir, stateInterval: 2, ...QUIET })
    const file = join(dataDir, 'state.json')
    const savedNumber = async () => (existsSync(file) ? JSON.parse(await readFile(file, 'utf8')).blockNumber : undefined)
    try {
      expect(node.node.dev.stateFile).toBe(file)
      const test = testClient(node)
      await test.mine({ blocks: 1 })
      await sleep(100) // negative wait: no write after one block
      expect(await savedNumber()).toBeUndefined()
      await test.mine({ blocks: 1 })
      await until(async () => (await savedNumber()) === '0x2', 5000, 'the write after block 2')
      await test.mine({ blocks: 1 })
      await sleep(100) // negative wait: no write after block 3
      expect(await savedNumber()).toBe('0x2')
      await test.mine({ blocks: 1 })
      await until(async () => (await savedNumber()) === '0x4', 5000, 'the write after block 4')
      await test.mine({ blocks: 1 })
    } finally {
      await node.stop()
    }
    expect(await savedNumber()).toBe('0x5') // the final write on stop
    expect((await readdir(dataDir)).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  it('a malformed file stops the start with a message naming the file and the problem', async () => {
    const good = join(dir, 'good.json')
    const node = await startTestNode({ stateFile: good, ...QUIET })
    await testClient(node).mine({ blocks: 2 })
    await node.stop()
    const text = await readFile(good, 'utf8')

    const cases: Array<[string, string, RegExp]> = [
      ['garbage.json', '{"format": "pcnode-state", "version": 1, ', /not valid JSON/],
      ['empty.json', '', /empty/],
      ['other.json', JSON.stringify({ hello: 'world' }), /format: expected "pcnode-state"/],
      [
        'edited.json',
        text.replace(/"gasUsed":"0x0"/, '"gasUsed":"0x1"'),
        /blocks\[\d\]\.hash: the header hashes to 0x[0-9a-f]{64}/,
      ],
      ['future.json', text.replace('"version":1', '"version":2'), /version: this pcnode reads version 1, the file is 2/],
    ]
    for (const [name, content, problem] of cases) {
      const file = join(dir, name)
      await writeFile(file, content)
      const error = await startNode({ port: 0, stateFile: file }).then(
        (n) => n.stop().then(() => undefined),
        (e: Error) => e,
      )
      expect(error?.message).toContain(`state file ${file}: `)
      expect(error?.message).toMatch(problem)
      expect(await readFile(file, 'utf8')).toBe(content) // left as it was
    }
    const wrongChain = await startNode({ port: 0, stateFile: good, chainId: 8453 }).catch((e: Error) => e)
    expect((wrongChain as Error).message).toMatch(/chainId: the file is for chain id 31337, this node runs chain id 8453/)

    // The command line says so and exits non-zero.
    const file = join(dir, 'garbage.json')
    const child = spawnStart(['--state', file])
    let output = ''
    child.stdout?.on('data', (d) => (output += d))
    child.stderr?.on('data', (d) => (output += d))
    const code = await new Promise((res) => child.on('exit', res))
    expect(code).toBe(1)
    expect(output).toContain(`pcnode failed to start: state file ${file}: not valid JSON`)
  })

  it('pcnode start --state writes the file when stopped with SIGTERM', async () => {
    const file = join(dir, 'sigterm.json')
    const child = spawnStart(['--json', '--state', file, '--state-interval', '0'])
    const ready = await readyLine(child)
    const call = resultOf(ready.rpcUrl)
    const hash = await call('eth_sendTransaction', [
      { from: ready.accounts[0].address, to: ready.accounts[1].address, value: '0x5' },
    ])
    await call('anvil_mine', ['0x3'])
    expect(existsSync(file)).toBe(false) // --state-interval 0: only on exit
    const exited = new Promise((res) => child.on('exit', res))
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    const doc = JSON.parse(await readFile(file, 'utf8'))
    expect(doc.blockNumber).toBe('0x3')
    // Index 0: the block's L1-info deposit, kept with its receipt (depositNonce, L1 fee fields).
    expect(doc.blocks[1].transactions[0].raw).toMatch(/^0x7e/)
    expect(doc.blocks[1].transactions[0].receipt).toMatchObject({ depositNonce: '0x0', l1: { l1Fee: '0x0' } })
    expect(doc.blocks[1].transactions[1].hash).toBe(hash)
  })

  it('SIGKILL at any moment while it writes leaves a file that loads', { timeout: 180_000 }, async () => {
    const file = join(dir, 'killed.json')
    // A few thousand accounts make each write take a while, so kills land inside writes too.
    const seed = await startTestNode({ stateFile: file, ...QUIET })
    const batch = Array.from({ length: 2000 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'anvil_setBalance',
      params: [`0x${(0x1000 + i).toString(16).padStart(40, '0')}`, `0x${(i + 1).toString(16)}`],
    }))
    for (let i = 0; i < batch.length; i += 1000) await seed.raw(JSON.stringify(batch.slice(i, i + 1000))) // the batch limit
    await seed.stop()
    const size = (await readFile(file)).length
    expect(size).toBeGreaterThan(100_000)

    let lastHead = 0n
    let interrupted = 0
    const iterations = 15
    // Each kill lands at a random moment; the delays replay from the printed seed.
    const fuzzSeed = testSeed('SIGKILL fuzz')
    const random = seededRandom(fuzzSeed)
    for (let i = 0; i < iterations; i++) {
      const child = spawnStart([
        '--json',
        '--state',
        file,
        '--state-interval',
        '1',
        '--block-time',
        '100ms',
        '--preconf-interval',
        '20ms',
      ])
      try {
        const ready = await readyLine(child)
        const rpc = resultOf(ready.rpcUrl)
        // The previous run's last complete write loaded: the history only grows. Compared with
        // the head the file held, not the head seen while the last run kept sealing after its
        // last write (a kill between two writes takes those blocks with it).
        const head = BigInt(await rpc('eth_blockNumber'))
        expect(head).toBeGreaterThanOrEqual(lastHead)
        await rpc('eth_sendTransaction', [{ from: ready.accounts[0].address, to: ready.accounts[1].address, value: '0x1' }])
        await sleep(50 + Math.floor(random() * 400)) // the kill's random moment, not a wait for anything
        child.kill('SIGKILL')
        await new Promise((res) => child.on('exit', res))
        interrupted += (await readdir(dir)).filter((name) => name.startsWith('.killed.json.')).length
        const saved = JSON.parse(await readFile(file, 'utf8')) // complete JSON, never torn
        lastHead = BigInt(saved.blockNumber)
      } finally {
        // A failed assertion must not leave the child running (and holding CPU) after the test.
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      }
    }
    const last = await startTestNode({ stateFile: file, ...QUIET })
    try {
      expect(BigInt((await last.rpc('eth_blockNumber')).result)).toBeGreaterThanOrEqual(lastHead)
      expect((await last.rpc('eth_getBalance', ['0x0000000000000000000000000000000000001000', 'latest'])).result).toBe('0x1')
      expect(await last.publicClient.getBalance({ address: last.accounts[1].address })).toBeGreaterThan(parseEther('10000'))
    } finally {
      await last.stop()
    }
    // How many kills caught a write in progress (their temporary file left behind, cleaned at the next start).
    console.log(
      `state file: ${size} bytes, ${iterations} kills, ${interrupted} inside a write, head ${lastHead}, seed ${fuzzSeed}`,
    )
  })
})

/** `pcnode start` from the sources on a free port, without the app, its output piped. */
function spawnStart(args: string[]): ChildProcess {
  const cli = ['--import', 'tsx', 'src/cli/index.ts', 'start', '--port', '0', '--no-app']
  return spawn(process.execPath, [...cli, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
}

/** A JSON-RPC caller for `url` that returns each call's result. */
function resultOf(url: string) {
  return async (method: string, params: unknown[] = []) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    return ((await res.json()) as { result: any }).result
  }
}

async function readyLine(child: ChildProcess): Promise<{ rpcUrl: string; accounts: Array<{ address: string }> }> {
  let out = ''
  let err = ''
  child.stderr?.on('data', (d) => (err += d))
  return new Promise((res, rej) => {
    child.stdout?.on('data', (d) => {
      out += d
      const line = out.split('\n').find((l) => l.startsWith('{'))
      if (line) res(JSON.parse(line))
    })
    child.on('exit', (code) => rej(new Error(`pcnode exited (${code}) before it was ready: ${err}`)))
  })
}
