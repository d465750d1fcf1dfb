import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { getAddress, type Hex, keccak256, parseEther, recoverTransactionAddress, serializeTransaction } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importGraph, pcnode, ROOT } from './cli.js'
import { startTestNode, type TestNode, useTestNode, waitForReceipt } from './helpers.js'

const DIST = join(ROOT, 'dist')
const L2_CROSS_DOMAIN_MESSENGER = '0x4200000000000000000000000000000000000007'

describe('pcnode send', () => {
  let node: TestNode
  let proxy: Server
  let proxyUrl: string

  beforeAll(async () => {
    expect(existsSync(join(DIST, 'cli', 'send.js'))).toBe(true)
    node = await startTestNode({ blockTime: 400, preconfInterval: 50 })
    // An HTTP-only front for the node (no WebSocket upgrade): the CLI must fall back to polling.
    proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      const answer = await fetch(node.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      })
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text())
    })
    proxy.on('upgrade', (_req, socket) => socket.destroy())
    await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done))
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
  }, 120_000)
  afterAll(async () => {
    await new Promise((done) => proxy?.close(done))
    await node?.stop()
  })

  it('sends from a dev account and follows it over WebSocket (--json)', async () => {
    const to = node.accounts[9].address
    const before = await node.publicClient.getBalance({ address: to, blockTag: 'latest' })
    const run = await pcnode(['send', '--to', to, '--value', '1eth', '--rpc-url', node.rpcUrl, '--json'])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const out = JSON.parse(run.stdout)
    expect(out).toMatchObject({
      from: node.accounts[0].address,
      to,
      value: parseEther('1').toString(),
      status: 'success',
      transport: 'websocket',
      gasUsed: '21000',
    })
    expect(out.hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(out.flashblockIndex).toBeGreaterThanOrEqual(1)
    // Whole milliseconds since the submission, one per stage. Only the order of the last two is
    // asserted: the accepted reply can race the pre-confirmation notification, and absolute times
    // depend on the machine.
    const { acceptedMs, preconfirmedMs, sealedMs } = out.timings
    for (const ms of [acceptedMs, preconfirmedMs, sealedMs]) {
      expect(Number.isSafeInteger(ms), String(ms)).toBe(true)
      expect(ms).toBeGreaterThanOrEqual(0)
    }
    expect(preconfirmedMs).toBeLessThanOrEqual(sealedMs)
    // The hash is the transaction's own: keccak of the signed bytes the node holds, signed by the sender.
    const tx = await node.publicClient.getTransaction({ hash: out.hash })
    expect(tx.type).toBe('eip1559')
    const raw = serializeTransaction(
      {
        chainId: node.chainId,
        type: 'eip1559',
        nonce: tx.nonce,
        to: tx.to,
        value: tx.value,
        gas: tx.gas,
        maxFeePerGas: tx.maxFeePerGas,
        maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
        data: tx.input,
        accessList: tx.accessList,
      },
      { r: tx.r, s: tx.s, yParity: tx.yParity as number },
    )
    expect(keccak256(raw)).toBe(out.hash)
    expect(await recoverTransactionAddress({ serializedTransaction: raw })).toBe(node.accounts[0].address)
    const receipt = await node.publicClient.getTransactionReceipt({ hash: out.hash })
    expect(receipt.blockHash).toBe(out.blockHash)
    expect(Number(receipt.blockNumber)).toBe(out.blockNumber)
    expect(await node.publicClient.getBalance({ address: to, blockTag: 'latest' })).toBe(before + parseEther('1'))
  })

  it('prints the stages for people', async () => {
    const run = await pcnode([
      'send',
      '--to',
      node.accounts[8].address,
      '--value',
      '0.5eth',
      '--from',
      '1',
      '--rpc-url',
      node.rpcUrl,
    ])
    expect(run.code).toBe(0)
    const stages = [
      /Signed: from 0x70997970C51812dc3A010C7d01b50e0d17dc79C8/i,
      /Accepted 0x[0-9a-f]{64} \(\d+ ms\)/,
      /Pre-confirmed in flashblock \d+ of block \d+ \(\+\d+ ms\)/,
      /Sealed in block \d+ 0x[0-9a-f]{64} \(\+\d+ ms\)/,
    ]
    for (const stage of stages) expect(run.stdout).toMatch(stage)
    // In that order.
    const at = stages.map((stage) => run.stdout.search(stage))
    expect(at).toEqual([...at].sort((a, b) => a - b))
  })

  it('signs with --private-key and follows over plain HTTP when there is no WebSocket', async () => {
    const key = generatePrivateKey()
    const account = privateKeyToAccount(key)
    // The CLI reads nonce, fees and gas at "pending": the pre-confirmed funding is enough.
    const funding = await node.wallet(3).sendTransaction({ to: account.address, value: parseEther('2') })
    expect((await waitForReceipt(node, funding)).status).toBe('success')
    expect(await node.publicClient.getBalance({ address: account.address, blockTag: 'pending' })).toBe(parseEther('2'))
    const run = await pcnode([
      'send',
      '--private-key',
      key,
      '--to',
      node.accounts[7].address,
      '--value',
      '1gwei',
      '--rpc-url',
      proxyUrl,
      '--json',
    ])
    expect(run.code).toBe(0)
    const out = JSON.parse(run.stdout)
    expect(out).toMatchObject({ from: account.address, status: 'success', transport: 'http', nonce: 0 })
    expect(out.timings.preconfirmedMs).toBeLessThanOrEqual(out.timings.sealedMs)
  })

  it('submits --raw as it is, and exits 1 with the node’s reason when rejected', async () => {
    const account = privateKeyToAccount(node.accounts[4].privateKey)
    const raw = await account.signTransaction({
      chainId: node.chainId,
      type: 'eip1559',
      nonce: 0,
      to: node.accounts[6].address,
      value: 5n,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    })
    const run = await pcnode(['send', '--raw', raw, '--rpc-url', node.rpcUrl, '--json'])
    expect(run.code).toBe(0)
    const out = JSON.parse(run.stdout)
    expect(out.hash).toBe(keccak256(raw as Hex))
    expect(out).toMatchObject({ from: account.address, nonce: 0, value: '5', status: 'success' })

    const again = await pcnode(['send', '--raw', raw, '--rpc-url', node.rpcUrl, '--json'])
    expect(again.code).toBe(1)
    expect(JSON.parse(again.stdout)).toMatchObject({ stage: 'rejected', code: -32000, error: 'already known' })
    const human = await pcnode(['send', '--raw', raw, '--rpc-url', node.rpcUrl])
    expect(human.code).toBe(1)
    expect(human.stdout + human.stderr).toMatch(/rejected: already known/)
  })

  it("prints a created contract's address, as cast send does", async () => {
    // Init code returning a runtime that returns 42.
    const initCode = '0x600a600c600039600a6000f3602a60005260206000f3'
    const [human, json] = await Promise.all([
      pcnode(['send', '--data', initCode, '--from', '5', '--rpc-url', node.rpcUrl], 120_000),
      pcnode(['send', '--data', initCode, '--from', '6', '--rpc-url', node.rpcUrl, '--json'], 120_000),
    ])
    expect(human.code, human.stderr).toBe(0)
    const created = /Contract created at (0x[0-9a-fA-F]{40})/.exec(human.stdout)?.[1] as Hex
    expect(created).toBeDefined()
    expect(human.stdout).toMatch(/deploying a contract/)
    expect(json.code, json.stderr).toBe(0)
    const out = JSON.parse(json.stdout)
    const receipt = await node.publicClient.getTransactionReceipt({ hash: out.hash })
    // Checksummed, and the receipt's.
    expect(out.contractAddress).toBe(getAddress(receipt.contractAddress as string))
    for (const address of [created, out.contractAddress]) {
      expect(await node.publicClient.getCode({ address, blockTag: 'latest' })).toBe(`0x${'602a60005260206000f3'}`)
    }
  })

  it('reports a revert with its reason: Error(string), and a custom error by its selector (exit 1)', async () => {
    // A contract that reverts with the custom error selector 0xdeadbeef (no arguments).
    const deploy = await node.wallet(7).sendTransaction({ data: '0x6010600c60003960106000f363deadbeef60e01b60005260046000fd' })
    const custom = (await waitForReceipt(node, deploy)).contractAddress as Hex
    // The base profile's stub predeploys revert naming themselves; --gas skips the estimate (which would refuse).
    const stubSend = (from: string, ...more: string[]) =>
      pcnode(
        [
          'send',
          '--to',
          L2_CROSS_DOMAIN_MESSENGER,
          '--data',
          '0x12345678',
          '--gas',
          '100000',
          '--from',
          from,
          '--rpc-url',
          node.rpcUrl,
          ...more,
        ],
        120_000,
      )
    const [stub, stubJson, selector] = await Promise.all([
      stubSend('2'),
      stubSend('3', '--json'),
      pcnode(['send', '--to', custom, '--gas', '100000', '--from', '4', '--rpc-url', node.rpcUrl], 120_000),
    ])
    const reason = 'Predeploy L2CrossDomainMessenger is not supported.'
    expect(stub.code, stub.stderr).toBe(1)
    expect(stub.stdout).toMatch(
      new RegExp(`✖ Pre-confirmed in flashblock \\d+ of block \\d+ \\(\\+\\d+ ms\\): reverted: ${reason}`),
    )
    expect(stub.stdout).toMatch(
      new RegExp(`✖ Sealed in block \\d+ 0x[0-9a-f]{64} \\(\\+\\d+ ms\\), gas used \\d+: reverted: ${reason}`),
    )
    expect(stubJson.code).toBe(1)
    expect(JSON.parse(stubJson.stdout)).toMatchObject({ stage: 'sealed', status: 'reverted', revertReason: reason })
    expect(selector.code, selector.stderr).toBe(1)
    expect(selector.stdout).toMatch(/✖ Sealed in block \d+ .*: reverted: custom error 0xdeadbeef$/m)
    // Without --gas the estimate reverts first: its reason, before anything is sent.
    const refused = await pcnode(['send', '--to', custom, '--from', '4', '--rpc-url', node.rpcUrl], 120_000)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/cannot prepare the transaction: execution reverted.*custom error 0xdeadbeef/)
  })

  it('takes a URL without a scheme as http://, and follows over its WebSocket', async () => {
    const { host } = new URL(node.rpcUrl)
    const run = await pcnode(
      ['send', '--to', node.accounts[5].address, '--value', '1', '--from', '8', '--rpc-url', host, '--json'],
      120_000,
    )
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'success', transport: 'websocket', stage: 'sealed' })
  })

  it('exits 2 when the endpoint cannot be reached or the flags are wrong', async () => {
    const down = await pcnode([
      'send',
      '--to',
      node.accounts[1].address,
      '--value',
      '1',
      '--rpc-url',
      'http://127.0.0.1:1',
      '--json',
    ])
    expect(down.code).toBe(2)
    expect(JSON.parse(down.stdout).error).toMatch(/cannot reach the node at http:\/\/127\.0\.0\.1:1/)
    expect(JSON.parse(down.stdout)).toMatchObject({ stage: 'connection failed' })
    const bad = await pcnode(['send', '--to', 'nope', '--rpc-url', node.rpcUrl])
    expect(bad.code).toBe(2)
    expect(bad.stdout + bad.stderr).toMatch(/--to is not an address/)
    const unknown = await pcnode(['send', '--too', node.accounts[1].address])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/unknown option '--too'/)
  })

  it('keeps @ethereumjs out of the CLI import graph', () => {
    // Everything `pcnode send` can load, dynamic imports included.
    const send = importGraph(join(DIST, 'cli', 'send.js'))
    expect(send.files.size).toBeGreaterThan(1)
    expect([...send.packages].filter((p) => p.startsWith('@ethereumjs'))).toEqual([])
    expect(send.packages).toContain('viem')
    // Statically only commander: the CLI entry loads send.js for every command, `pcnode start` too.
    expect([...importGraph(join(DIST, 'cli', 'send.js'), true).packages].filter((p) => !p.startsWith('node:'))).toEqual([
      'commander',
    ])
    // The CLI entry loads the node only lazily (inside `pcnode start`), never statically.
    const cli = importGraph(join(DIST, 'cli', 'index.js'), true)
    expect([...cli.packages].filter((p) => p.startsWith('@ethereumjs'))).toEqual([])
    expect([...cli.files].some((f) => f.endsWith(join('node', 'node.js')))).toBe(false)
  })
})

describe('pcnode send when a fault takes the pre-confirmation back', () => {
  const node = useTestNode({ blockTime: 300, preconfInterval: 50, preconfDropRate: 1, preconfSeed: 7 })

  it('ends "dropped" when the node discards it, exit 1', async () => {
    const run = await pcnode(
      ['send', '--to', node.accounts[1].address, '--value', '1', '--rpc-url', node.rpcUrl, '--json'],
      120_000,
    )
    expect(run.code, run.stderr).toBe(1)
    const out = JSON.parse(run.stdout)
    expect(out).toMatchObject({ stage: 'dropped', transport: 'websocket' })
    expect(out.dropReason).toMatch(/left out as block \d+ sealed/)
    // It was pre-confirmed first, and never sealed.
    expect(out.timings.preconfirmedMs).toBeGreaterThanOrEqual(0)
    expect(out.timings.sealedMs).toBeUndefined()
    expect((await node.rpc('pcnode_transactionStatus', [out.hash])).result.status).toBe('dropped')
  })

  it('says so when a requeued transaction loses its pre-confirmation, then times out waiting (exit 1)', async () => {
    await node.rpc('pcnode_setPreconfFaults', [{ requeue: true }])
    const run = await pcnode(
      ['send', '--to', node.accounts[2].address, '--value', '1', '--from', '1', '--rpc-url', node.rpcUrl, '--timeout', '4s'],
      120_000,
    )
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/✔ Pre-confirmed in flashblock \d+ of block \d+/)
    expect(run.stdout).toMatch(/✖ Pre-confirmation taken back \(.*\); the transaction is in the pool again/)
    expect(run.stdout).toMatch(/✖ not (sealed|pre-confirmed): still waiting after 4000 ms/)
  })
})
