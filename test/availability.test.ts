// Availability: requests built to stop the node (a gzip bomb, deep JSON, megabytes of hex, a batch
// of heavy calls, repeated traces) each get an error of their own, blocks keep coming while they
// run, and the node answers other clients afterwards. The crash policy of `pcnode start` too.
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startNode } from '../src/index.js'
import { ROOT } from './cli.js'
import { poll, startTestNode, type TestNode, waitForSealed } from './helpers.js'

const LOOP_CODE = '0x5b600056' // JUMPDEST PUSH1 0 JUMP: runs until the call's (capped) gas is gone
const IDENTITY = '0x0000000000000000000000000000000000000004'
const MIB = 2 ** 20

/** A gzip of `text`, as anvil_loadState takes it: hex. */
const gzipHex = (text: string | Buffer) => `0x${gzipSync(text, { level: 1 }).toString('hex')}`

/** The head, asked over HTTP. */
async function head(node: TestNode): Promise<number> {
  return Number((await node.rpc('eth_blockNumber')).result)
}

/** Sends one message over a fresh WebSocket and resolves with the first reply. */
async function overWebSocket(url: string, message: string): Promise<any> {
  const ws = new WebSocket(url)
  await new Promise((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  const reply = new Promise((resolve) => ws.once('message', (data) => resolve(JSON.parse(String(data)))))
  ws.send(message)
  try {
    return await reply
  } finally {
    ws.close()
  }
}

describe('availability under hostile requests', () => {
  let node: TestNode
  beforeAll(async () => {
    node = await startTestNode({ blockTime: 500 })
  })
  afterAll(() => node.stop())

  it('anvil_loadState refuses a gzip that inflates past its limit, or to a huge array, and the node stays up', async () => {
    // 140 MiB of "0,": a few hundred KiB of request, more than anvil_loadState inflates.
    const bomb = await node.rpc('anvil_loadState', [gzipHex(Buffer.alloc(140 * MIB, '0,'))])
    expect(bomb.error).toEqual({
      code: -32602,
      message: 'invalid argument state: more than 128 MiB of JSON, the most a state load takes',
    })
    // Under the size limit, but one array of 2^24 + 1 elements (V8 aborts past 2^27).
    const array = `{"format":"pcnode-state","version":1,"x":[${'0,'.repeat(2 ** 24)}0]}`
    const wide = await node.rpc('anvil_loadState', [gzipHex(array)])
    expect(wide.error.code).toBe(-32602)
    expect(wide.error.message).toBe(
      'invalid argument state: refused before parsing: the JSON has an array of more than 16777216 elements',
    )
    const truncated = gzipHex('{"format":"pcnode-state"}').slice(0, -20)
    expect((await node.rpc('anvil_loadState', [truncated])).error.message).toMatch(/^invalid argument state: not valid gzip/)
    // The node's own dump still loads.
    const dump = (await node.rpc('anvil_dumpState')).result
    expect((await node.rpc('anvil_loadState', [dump])).result).toBe(true)
    expect(await head(node)).toBeGreaterThanOrEqual(0)
  })

  it('refuses JSON nested deeper than 128 levels before parsing it, over HTTP and WebSocket', async () => {
    const depth = 4_000_000 // 8 MB of brackets
    const body = `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":${'['.repeat(depth)}${']'.repeat(depth)}}`
    const refusal = {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'parse error: the JSON nests deeper than 128 levels' },
    }
    const { status, text } = await node.raw(body)
    expect(status).toBe(200)
    expect(JSON.parse(text)).toEqual(refusal)
    expect(await overWebSocket(node.wsUrl, body)).toEqual(refusal)
    // 128 levels are fine: the request is parsed and its params judged.
    const deepest = `{"jsonrpc":"2.0","id":2,"method":"eth_chainId","params":${'['.repeat(127)}${']'.repeat(127)}}`
    expect(JSON.parse((await node.raw(deepest)).text)).toEqual({ jsonrpc: '2.0', id: 2, result: '0x7a69' })
    // Brackets inside strings are not nesting.
    const inString = `{"jsonrpc":"2.0","id":3,"method":"eth_chainId","params":["${'['.repeat(1000)}\\"${'{'.repeat(1000)}"]}`
    expect(JSON.parse((await node.raw(inString)).text).result).toBe('0x7a69')
    expect(await head(node)).toBeGreaterThanOrEqual(0)
  })

  it('judges megabytes of hex data as data (4 MiB, and 9 MiB of text), never an internal error', async () => {
    for (const bytes of [4 * MIB, 4.5 * MIB]) {
      const data = `0x${'ab'.repeat(bytes)}`
      const request = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: IDENTITY, data }, 'latest'] })
      for (const reply of [JSON.parse((await node.raw(request)).text), await overWebSocket(node.wsUrl, request)]) {
        // The call itself fails (its intrinsic gas is over the call gas cap): a call error, not -32603.
        expect(reply.error.code).toBe(-32000)
        expect(reply.error.message).not.toMatch(/stack size/)
      }
    }
    const odd = await node.rpc('eth_call', [{ to: IDENTITY, data: `0x${'a'.repeat(2 * MIB + 1)}` }, 'latest'])
    expect(odd.error?.code).not.toBe(-32603)
    const notHex = await node.rpc('eth_call', [{ to: IDENTITY, data: `0x${'ab'.repeat(2 * MIB)}zz` }, 'latest'])
    expect(notHex.error).toEqual({ code: -32602, message: 'invalid argument transaction.input: expected 0x-prefixed hex data' })
  })

  it('keeps sealing blocks while one batch of heavy calls runs', { timeout: 180_000 }, async () => {
    const start = await head(node)
    const batch = Array.from({ length: 150 }, (_, id) => ({
      jsonrpc: '2.0',
      id,
      method: 'eth_call',
      params: [{ data: LOOP_CODE }, 'latest'],
    }))
    let answered = false
    let highest = start
    const answer = node.raw(JSON.stringify(batch)).finally(() => {
      answered = true
    })
    // A second client watches the head until the batch is answered.
    while (!answered) {
      highest = Math.max(highest, await head(node))
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const replies = JSON.parse((await answer).text)
    expect(replies).toHaveLength(150)
    expect(replies.map((r: { id: number }) => r.id)).toEqual(batch.map((r) => r.id))
    expect(highest).toBeGreaterThanOrEqual(start + 2)
  })

  it('keeps sealing blocks while many clients send heavy calls', { timeout: 180_000 }, async () => {
    const start = await head(node)
    let stop = false
    let calls = 0
    const clients = Array.from({ length: 20 }, async () => {
      while (!stop) {
        await node.rpc('eth_call', [{ data: LOOP_CODE }, 'latest'])
        calls++
      }
    })
    try {
      await poll(
        () => head(node),
        (n) => n >= start + 3,
        { timeoutMs: 60_000, what: '3 blocks sealed under load' },
      )
    } finally {
      stop = true
      await Promise.all(clients)
    }
    expect(calls).toBeGreaterThan(0)
  })
})

describe('repeated traces', () => {
  let node: TestNode
  beforeAll(async () => {
    node = await startTestNode({ blockTime: 200, preconfInterval: 50 })
  })
  afterAll(() => node.stop())

  it('tracing one transaction 1,500 times keeps nothing of each trace', { timeout: 300_000 }, async () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const heapAfterGc = () => {
      gc()
      gc()
      return process.memoryUsage().heapUsed
    }
    const hash = await node.wallet(0).sendTransaction({ to: IDENTITY, data: '0x1234', value: 1n })
    await waitForSealed(node, hash)
    const traces = async (count: number) => {
      for (let done = 0; done < count; done += 100) {
        const batch = Array.from({ length: 100 }, (_, i) => ({
          jsonrpc: '2.0',
          id: i,
          method: 'debug_traceTransaction',
          params: [hash, { tracer: i % 2 ? 'callTracer' : 'prestateTracer' }],
        }))
        const replies = JSON.parse((await node.raw(JSON.stringify(batch))).text)
        expect(replies.every((r: { result?: unknown }) => r.result !== undefined)).toBe(true)
      }
    }
    await traces(200) // warm-up: code compiled, caches filled
    const before = heapAfterGc()
    await traces(1500)
    const growth = heapAfterGc() - before
    // Each trace kept its whole VM (~80 KB, ~120 MB here) while views stayed reachable from the Common.
    expect(growth).toBeLessThan(20 * MIB)
  })
})

describe('state file at start', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pcnode-availability-'))
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('refuses a file shaped to exhaust V8 with an error naming it, before parsing it', { timeout: 60_000 }, async () => {
    const cases: Array<[string, string | Buffer, RegExp]> = [
      [
        'wide.json',
        `{"x":[${'0,'.repeat(2 ** 24)}0]}`,
        /refused before parsing: the JSON has an array of more than 16777216 elements/,
      ],
      ['deep.json', `${'['.repeat(1000)}${']'.repeat(1000)}`, /refused before parsing: the JSON nests deeper than 128 levels/],
      ['wide.json.gz', gzipSync(`{"x":[${'0,'.repeat(2 ** 24)}0]}`), /an array of more than 16777216 elements/],
    ]
    for (const [name, content, problem] of cases) {
      const file = join(dir, name)
      await writeFile(file, content)
      const error = await startNode({ port: 0, host: '127.0.0.1', stateFile: file, silent: true }).then(
        (n) => n.stop().then(() => undefined),
        (e: Error) => e,
      )
      expect(error?.message).toContain(`state file ${file}: `)
      expect(error?.message).toMatch(problem)
    }
  })
})

describe('crash policy of pcnode start', () => {
  it('logs an unhandled rejection and keeps serving; an uncaught exception writes the state file and exits 1', {
    timeout: 60_000,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pcnode-crash-'))
    const file = join(dir, 'state.json')
    // The policy as start.ts installs it, around a real node with a state file.
    const script = `
      const { startNode } = await import(${JSON.stringify(join(ROOT, 'src/index.ts'))})
      const { installCrashPolicy } = await import(${JSON.stringify(join(ROOT, 'src/cli/crash-policy.ts'))})
      const node = await startNode({ port: 0, host: '127.0.0.1', stateFile: ${JSON.stringify(file)}, stateInterval: 0, silent: true })
      installCrashPolicy(() => node.stop())
      const rpc = (method, params) => fetch(node.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }).then((r) => r.json())
      await rpc('anvil_setBalance', ['0x000000000000000000000000000000000000dEaD', '0x1234'])
      Promise.reject(new Error('nobody awaits this'))
      setTimeout(async () => {
        console.log('after the rejection:', JSON.stringify(await rpc('eth_chainId', [])))
        setTimeout(() => { throw new Error('boom') })
      }, 50)
    `
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const code = await new Promise((resolve) => child.on('exit', resolve))
    try {
      expect(stderr).toContain('pcnode: unhandled promise rejection (the node keeps serving): Error: nobody awaits this')
      expect(stdout).toContain('after the rejection: {"jsonrpc":"2.0","id":1,"result":"0x7a69"}')
      expect(stderr).toContain('pcnode: fatal error, stopping: Error: boom')
      expect(code).toBe(1)
      const state = JSON.parse(await readFile(file, 'utf8'))
      expect(state.accounts['0x000000000000000000000000000000000000dead'].balance).toBe('0x1234')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
