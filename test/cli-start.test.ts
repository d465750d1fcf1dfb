// `pcnode start` as a user runs it (the built CLI): a start that fails says why and exits at once;
// the fault flags show in the banner and each injected fault is logged; a fork's banner and exit line.
import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:net'
import { encodeFunctionData } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startNode } from '../src/index.js'
import { BIN, pcnode, ROOT } from './cli.js'
import { until } from './helpers.js'

describe('pcnode start', () => {
  let busy: Server
  let port: number
  beforeAll(async () => {
    busy = createServer()
    await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done))
    port = (busy.address() as { port: number }).port
  })
  afterAll(() => new Promise<void>((done) => busy.close(() => done())))

  for (const mode of [['--silent'], ['--json'], []]) {
    it(`exits 98 at once on a port in use (${mode.join(' ') || 'spinner'})`, async () => {
      // The runner kills it after 20 s (code -1): a start that hangs fails here.
      const run = await pcnode(['start', '--port', String(port), '--no-app', ...mode], 20_000)
      expect(run.code).toBe(98)
      expect(`${run.stdout}${run.stderr}`).toMatch(/pcnode failed to start: .*EADDRINUSE/)
    })
  }
})

describe('pcnode start with pre-confirmation faults', () => {
  it('prints the fault flags in the banner and logs each injected fault on its own line', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'start', '--port', '0', '--no-app', '--preconf-drop-rate', '1', '--preconf-seed', '3', '--block-time', '300ms'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    )
    let out = ''
    child.stdout?.on('data', (d) => (out += d))
    const exited = new Promise((res) => child.once('exit', res))
    const waitFor = (re: RegExp) =>
      new Promise<RegExpExecArray>((res, rej) => {
        const check = () => {
          const m = re.exec(out)
          if (m) res(m)
          else if (child.exitCode !== null) rej(new Error(`pcnode start exited: ${out}`))
          else setTimeout(check, 20)
        }
        check()
      })
    try {
      const [, rpcUrl] = await waitFor(/^RPC\s+(http:\/\/127\.0\.0\.1:\d+)$/m)
      expect(out).toMatch(/^Faults:\s+drop rate 1 \(seed 3, discarded\)$/m)
      const rpc = async (method: string, params: unknown[] = []) => {
        const res = await fetch(rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        })
        return (await res.json()) as { result?: any; error?: any }
      }
      const [from] = (await rpc('eth_accounts')).result
      const hash = (await rpc('eth_sendTransaction', [{ from, to: from, value: '0x1' }])).result
      const [drop] = await waitFor(new RegExp(`^\\S+ fault drop ${hash} \\(block \\d+, flashblock \\d+\\): .*; discarded$`, 'm'))
      expect(drop).toMatch(/left out as block \d+ sealed \(drop rate 1, seed 3\)/)
      expect((await rpc('pcnode_haltFlashblocks')).result).toBe(true)
      await waitFor(/^\S+ fault halt: flashblocks stop/m)
      await rpc('pcnode_setPreconfFaults', [{ dropRate: 0 }])
      await waitFor(/^\S+ fault settings: drop rate 0, seed 3, jitter 0 ms/m)
    } finally {
      child.kill('SIGTERM')
      await exited
    }
  })
})

describe('pcnode start --fork-url', () => {
  it('prints the fork (keys redacted) and, on exit, what it asked the upstream', async () => {
    const upstream = await startNode({ port: 0, chainId: 8453 })
    const key = 'k3yK3yK3yK3yK3yK3yK3yK3y'
    const child = spawn(
      process.execPath,
      [
        BIN,
        'start',
        '--port',
        '0',
        '--no-app',
        '--fork-url',
        `${upstream.rpcUrl}/v2/${key}`,
        '--fork-block-number',
        '-0',
        '--no-fork-cache',
      ],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
    })
    child.stderr.on('data', (d) => {
      out += d
    })
    try {
      await until(() => /WebSocket/.test(out), 20_000, 'the banner')
      expect(out).toContain(`Upstream:          ${upstream.rpcUrl}/v2/***`)
      expect(out).not.toContain(key)
      expect(out).toMatch(/Fork block:\s+\d+ \(0x[0-9a-f]{64}\)/)
      expect(out).toMatch(/Chain ID:\s+8453/)
      expect(out).toContain('Cache:             off (--no-fork-cache)')
      const exited = new Promise<number | null>((done) => child.once('exit', done))
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
      expect(out).toMatch(/fork: \d+ upstream requests \(.*eth_getAccountInfo \d+.*\), \d+ cache hits, [\d.]+ KiB read/)
    } finally {
      child.kill('SIGKILL')
      await upstream.stop()
    }
  })
})

describe('pcnode start shows what the node explains', () => {
  it('prints console.log output and the pre-confirmation hints (the library is silent by default, the CLI is not)', async () => {
    const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--no-app', '--block-time', '1h'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    })
    let out = ''
    child.stdout?.on('data', (d) => (out += d))
    child.stderr?.on('data', (d) => (out += d))
    const exited = new Promise((res) => child.once('exit', res))
    try {
      await until(() => /^RPC\s+http:\/\/127\.0\.0\.1:\d+$/m.test(out) || child.exitCode !== null, 60_000, 'the banner')
      const rpcUrl = /^RPC\s+(http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)?.[1] as string
      const rpc = async (method: string, params: unknown[] = []) => {
        const res = await fetch(rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        })
        return (await res.json()) as { result?: any; error?: any }
      }
      // console.log("hello from a call"): a call to Hardhat's console address.
      const data = encodeFunctionData({
        abi: [{ type: 'function', name: 'log', inputs: [{ type: 'string' }], outputs: [], stateMutability: 'view' }],
        args: ['hello from a call'],
      })
      await rpc('eth_call', [{ to: '0x000000000000000000636F6e736F6c652e6c6f67', data }, 'latest'])
      await until(() => out.includes('console.log: hello from a call'), 30_000, 'the console.log line')
      // A pre-confirmed send, then its sender's nonce read at "latest" (the hour-long block is not sealed).
      const [from, to] = (await rpc('eth_accounts')).result
      const hash = (await rpc('eth_sendTransaction', [{ from, to, value: '0x1' }])).result
      await until(async () => (await rpc('eth_getTransactionReceipt', [hash])).result !== null, 30_000, 'the pre-confirmation')
      expect((await rpc('eth_getTransactionCount', [from, 'latest'])).result).toBe('0x0')
      await until(() => /hint: eth_getTransactionCount\(.*"latest"\) = 0, but "pending" = 1/.test(out), 30_000, 'the hint')
    } finally {
      child.kill('SIGTERM')
      await exited
    }
  })
})
