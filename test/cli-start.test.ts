// `pcnode start` as a user runs it (the built CLI): a start that fails says why and exits at once;
// flags that make no sense are refused; the fault flags show in the banner and each injected fault
// is logged; a fork's progress, banner and exit line; a state file's load and exit write, with
// their progress, and a second Ctrl-C during the write; the activity log (transactions with their
// recipient, value and outcome, refused and dropped ones, anvil_reorg, console.log and hints, idle
// blocks left out), its colours and its --quiet levels.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { concat, encodeAbiParameters, encodeFunctionData, parseEther, toFunctionSelector, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startNode } from '../src/index.js'
import { BIN, pcnode, ROOT } from './cli.js'
import { poll, until } from './helpers.js'

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
      await until(() => /WebSocket/.test(out), 60_000, 'the banner')
      // Progress while it connects, then the fork block; the key stays out of both.
      expect(out).toContain(`Connecting to the fork's upstream ${upstream.rpcUrl}/v2/***…`)
      expect(out).toMatch(
        new RegExp(`Forked ${upstream.rpcUrl.replace(/[.]/g, '\\.')}/v2/\\*\\*\\* at block \\d+ \\(0x[0-9a-f]{64}\\)`),
      )
      // Why the profile is what it is: the upstream's blocks say.
      expect(out).toContain("Profile:           base (the upstream's blocks are OP-stack; --profile overrides)")
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
    const { child, out, exited } = startCli(['--block-time', '3600'])
    try {
      await until(() => /^RPC\s+http:\/\/127\.0\.0\.1:\d+$/m.test(out()) || child.exitCode !== null, 60_000, 'the banner')
      const rpc = rpcOf(out())
      // console.log("hello from a call"): a call to Hardhat's console address.
      await rpc('eth_call', [{ to: CONSOLE, data: consoleLog('hello from a call') }, 'latest'])
      await until(() => out().includes('console.log: hello from a call'), 30_000, 'the console.log line')
      // A pre-confirmed send, then its sender's nonce read at "latest" (the hour-long block is not sealed).
      const [from, to] = (await rpc('eth_accounts')).result
      const hash = (await rpc('eth_sendTransaction', [{ from, to, value: '0x1' }])).result
      await until(async () => (await rpc('eth_getTransactionReceipt', [hash])).result !== null, 30_000, 'the pre-confirmation')
      expect((await rpc('eth_getTransactionCount', [from, 'latest'])).result).toBe('0x0')
      await until(() => /hint: eth_getTransactionCount\(.*"latest"\) = 0, but "pending" = 1/.test(out()), 30_000, 'the hint')
    } finally {
      child.kill('SIGTERM')
      await exited
    }
  })
})

describe('pcnode start refuses flags that make no sense (exit 2)', () => {
  it('a hardfork pcnode does not run, and a pre-confirmation interval longer than the block time', async () => {
    const [cancun, slow, fine] = await Promise.all([
      pcnode(['start', '--port', '0', '--no-app', '--hardfork', 'cancun'], 120_000),
      pcnode(['start', '--port', '0', '--no-app', '--preconf-interval', '5s'], 120_000),
      pcnode(['start', '--port', '0', '--no-app', '--blocktime', '1'], 120_000),
    ])
    expect(cancun.code).toBe(2)
    expect(cancun.stderr).toMatch(/--hardfork <name>' argument 'cancun' is invalid\. pcnode runs prague or osaka/)
    expect(slow.code).toBe(2)
    expect(slow.stderr).toContain('--preconf-interval 5000 ms is longer than --block-time 2000 ms')
    // Any other usage error exits 2 too, as anvil's do.
    expect(fine.code).toBe(2)
    expect(fine.stderr).toMatch(/unknown option '--blocktime'/)
    for (const run of [cancun, slow, fine]) expect(run.stdout).not.toMatch(/listening/)
  })
})

/** A running `pcnode start` whose output (stdout and stderr) is collected. */
function startCli(
  args: string[],
  colour?: { FORCE_COLOR: string },
): { child: ChildProcess; out: () => string; exited: Promise<number | null> } {
  const { NO_COLOR: _, ...env } = process.env
  const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--no-app', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: colour ? { ...env, ...colour } : { ...env, NO_COLOR: '1' },
  })
  let out = ''
  child.stdout?.on('data', (d) => (out += d))
  child.stderr?.on('data', (d) => (out += d))
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
  return { child, out: () => out, exited }
}

/**
 * A state file in the layout pcnode writes (a header line, one account / block / pool entry per
 * line) with `extra` more accounts, each with a storage slot, and dev account 0 at `balance`. Its
 * stateRoot is left out, as for a hand-edited file: the node computes the root on load.
 */
function growStateFile(file: string, extra: number, devAccount: string, balance: bigint): number {
  const { accounts, blocks, pool, stateRoot: _, ...top } = JSON.parse(readFileSync(file, 'utf8'))
  accounts[devAccount.toLowerCase()].balance = toHex(balance)
  const slot = toHex(1n, { size: 32 })
  for (let i = 1; i <= extra; i++) {
    accounts[toHex(0xabcd0000n * 2n ** 120n + BigInt(i), { size: 20 })] = {
      nonce: '0x0',
      balance: '0x1',
      storage: { [slot]: toHex(BigInt(i), { size: 32 }) },
    }
  }
  const lines = (items: string[]) => items.map((item, i) => `${i ? ',' : ''}\n${item}`).join('')
  const accountLines = Object.entries(accounts).map(([a, v]) => `${JSON.stringify(a)}:${JSON.stringify(v)}`)
  const text = `${JSON.stringify(top).slice(0, -1)},\n"accounts":{${lines(accountLines)}\n},\n"blocks":[${lines(
    blocks.map((b: unknown) => JSON.stringify(b)),
  )}\n],\n"pool":[${lines(pool.map((p: unknown) => JSON.stringify(p)))}\n]}\n`
  writeFileSync(file, text)
  return Object.keys(accounts).length
}

describe('pcnode start --state: progress while loading and writing it', { timeout: 600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'pcnode-cli-state-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('says what it loads (size, head block, blocks, accounts) and, on exit, that it writes it; a second Ctrl-C waits for the write', async () => {
    const file = join(dir, 'state.json')
    // A chain with a few sealed blocks, written by a node, then grown to tens of thousands of accounts.
    const first = await startNode({ port: 0, stateFile: file, blockTime: 0, preconfInterval: 0 })
    const sender = first.accounts[1].address
    for (let i = 0; i < 3; i++) {
      await fetch(first.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_sendTransaction', params: [{ from: sender, to: sender }] }),
      })
    }
    await poll(
      () => first.node.blockNumber(),
      (n) => n >= 3n,
      { what: 'three blocks' },
    )
    const head = first.node.blockNumber()
    await first.stop()
    const accounts = growStateFile(file, 40_000, first.accounts[0].address, parseEther('123'))

    const run = startCli(['--state', file, '--block-time', '3600'])
    try {
      await poll(run.out, (o) => /^RPC\s+http/m.test(o) || run.child.exitCode !== null, {
        timeoutMs: 300_000,
        what: 'the banner',
      })
      const out = run.out()
      const held = `MiB: head block ${head}, ${head + 1n} blocks, ${accounts.toLocaleString('en-US')} accounts`
      expect(out).toMatch(new RegExp(`^Loading state from ${file} \\([\\d.]+ ${held}\\)…$`, 'm'))
      expect(out).toMatch(new RegExp(`^Loaded state from ${file} \\([\\d.]+ ${held}\\) in [\\d.]+ s$`, 'm'))
      expect(out).toMatch(
        new RegExp(`^State file:\\s+${file}\\n\\s+loaded \\([\\d.]+ ${held}\\); written on exit and every 10 blocks$`, 'm'),
      )
      // The balances the node holds, not --balance's.
      expect(out).toContain(`(0) ${first.accounts[0].address} (123 ETH)`)

      run.child.kill('SIGINT')
      await poll(run.out, (o) => o.includes(`writing state to ${file}…`) || run.child.exitCode !== null, {
        timeoutMs: 120_000,
        what: 'the write',
      })
      run.child.kill('SIGINT')
      expect(await run.exited).toBe(0)
      expect(run.out()).toContain(`SIGINT again: still writing the state to ${file}; pcnode finishes the write first`)
      expect(run.out()).toMatch(new RegExp(`state written to ${file} \\([\\d.]+ MiB, [\\d.]+ s\\)`))
      // The write finished: the whole state is there.
      const written = JSON.parse(readFileSync(file, 'utf8'))
      expect(Object.keys(written.accounts).length).toBeGreaterThanOrEqual(accounts)
      expect(BigInt(written.blockNumber)).toBeGreaterThanOrEqual(head)
    } finally {
      run.child.kill('SIGKILL')
    }
  })
})

describe('pcnode start logs blocks that hold transactions', () => {
  for (const profile of ['base', 'flashblocks'] as const) {
    it(`prints one line for the block with the transaction, none for idle blocks (--profile ${profile})`, async () => {
      const blockTime = profile === 'base' ? '200ms' : '400ms'
      const { child, out, exited } = startCli(['--profile', profile, '--block-time', blockTime])
      try {
        await until(() => /^RPC\s+http/m.test(out()), 20_000, 'the banner')
        const call = rpcOf(out())
        const rpc = async (method: string, params: unknown[] = []) => (await call(method, params)).result
        const from = ((await rpc('eth_accounts')) as string[])[0].toLowerCase()
        // Idle blocks first: several go by without a line. Counted from the banner: on a loaded
        // machine blocks are sealed while the node starts, before the log listens.
        const first = BigInt(await rpc('eth_blockNumber'))
        await poll(
          () => rpc('eth_blockNumber'),
          (n) => BigInt(n) >= first + 4n,
          { timeoutMs: 20_000, what: 'four blocks' },
        )
        const hash = await rpc('eth_sendTransaction', [{ from, to: from, value: '0xde0b6b3a7640000' }])
        const receipt = await poll(
          () => rpc('eth_getTransactionReceipt', [hash]),
          (r) => r?.blockHash !== undefined && !/^0x0+$/.test(r.blockHash),
          { timeoutMs: 20_000, what: 'the sealed receipt' },
        )
        const line = new RegExp(
          `^\\S+ block #${BigInt(receipt.blockNumber)} \\S+ 1 tx, gas \\d+, (.+) \\((\\d+) idle blocks? before it\\)$`,
          'm',
        )
        await until(() => line.test(out()), 10_000, 'the block line')
        const [, how, idle] = line.exec(out()) as RegExpExecArray
        // The idle blocks went by without a line, counted on this one.
        expect(Number(idle)).toBeGreaterThanOrEqual(3)
        expect(how).toMatch(profile === 'base' ? /^at \d+\.(000|200|400|600|800)$/ : /^\d+ flashblocks$/)
        expect(out().match(/^\S+ block #/gm)).toHaveLength(1)
        // The accepted transaction names its recipient and value; the mined one its outcome.
        expect(out()).toContain(`tx    ${hash} from ${from} to ${from}, 1 ETH, nonce 0`)
        expect(out()).toMatch(new RegExp(`^\\S+ +${hash} ok, gas 21000$`, 'm'))
        if (profile !== 'base') return
        // A creation that reverts with Error("no"), and a send refused for its nonce.
        const payload = concat([toFunctionSelector('Error(string)'), encodeAbiParameters([{ type: 'string' }], ['no'])])
        const initCode = concat(['0x6064600c6000396064', '0x6000fd', payload])
        const failed = await rpc('eth_sendTransaction', [{ from, data: initCode, gas: '0x30000' }])
        await until(() => new RegExp(`^\\S+ +${failed} failed: no, gas \\d+$`, 'm').test(out()), 10_000, 'the failed line')
        await rpc('eth_sendTransaction', [{ from, to: from, nonce: '0x0' }])
        await until(() => /^\S+ refused from 0x[0-9a-f]{40}: nonce too low/m.test(out()), 10_000, 'the refused line')
      } finally {
        child.kill('SIGTERM')
        await exited
      }
    })
  }
})

/** JSON-RPC to the node a `pcnode start` printed in its banner. */
function rpcOf(out: string): (method: string, params?: unknown[]) => Promise<{ result?: any; error?: any }> {
  const url = (/^RPC\s+(http:\/\/127\.0\.0\.1:\d+)$/m.exec(out) ?? /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out))?.[1]
  if (!url) throw new Error(`no RPC URL in: ${out}`)
  return async (method, params = []) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    return (await res.json()) as { result?: any; error?: any }
  }
}

/** Hardhat's console address, and console.log(string)'s call data. */
const CONSOLE = '0x000000000000000000636F6e736F6c652e6c6f67'
const consoleLog = (text: string) =>
  encodeFunctionData({
    abi: [{ type: 'function', name: 'log', inputs: [{ type: 'string' }], outputs: [], stateMutability: 'view' }],
    args: [text],
  })

// ESC [ … m: chalk's colour codes.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g')

describe('pcnode start logs what happens to transactions', () => {
  it('a transaction taken out of the pool, and the transactions anvil_reorg leaves out', async () => {
    const { child, out, exited } = startCli(['--no-mining'])
    try {
      await until(() => /^Web pages:/m.test(out()) || child.exitCode !== null, 60_000, 'the banner')
      const rpc = rpcOf(out())
      const [from, to] = (await rpc('eth_accounts')).result
      const pooled = (await rpc('eth_sendTransaction', [{ from, to, value: '0x1' }])).result
      expect((await rpc('anvil_dropTransaction', [pooled])).result).toBe(pooled)
      await until(() => out().includes(`drop  ${pooled}: dropped by anvil_dropTransaction`), 30_000, 'the drop line')
      const mined = (await rpc('eth_sendTransaction', [{ from, to, value: '0x2' }])).result
      await rpc('evm_mine')
      const receipt = (await rpc('eth_getTransactionReceipt', [mined])).result
      const n = BigInt(receipt.blockNumber)
      await until(() => new RegExp(`^\\S+ +${mined} ok, gas 21000$`, 'm').test(out()), 30_000, 'the outcome line')
      expect((await rpc('anvil_reorg', [1, []])).error).toBeUndefined()
      await until(() => / fault reorg: /.test(out()), 30_000, 'the reorg line')
      expect(out()).toMatch(
        new RegExp(
          `^\\S+ fault reorg: block ${n} replaced by anvil_reorg \\(${receipt.blockHash} -> 0x[0-9a-f]{64}\\); left out: ${mined}$`,
          'm',
        ),
      )
    } finally {
      child.kill('SIGTERM')
      await exited
    }
  }, 120_000)
})

describe('pcnode start --quiet levels, and its colours', () => {
  it("-q: the banner, what went wrong (the failed transaction with its block, a refused send) and console.log, in anvil's colours", async () => {
    const run = startCli(['-q', '--block-time', '0'], { FORCE_COLOR: '1' })
    const plain = () => run.out().replace(ANSI, '')
    try {
      await until(() => /^Web pages:/m.test(plain()) || run.child.exitCode !== null, 60_000, 'the banner')
      // anvil's palette: its title and the values it stresses green, its headings plain.
      expect(run.out()).toContain('\x1b[32m                 pcnode — a pre-confirming local devnet')
      expect(run.out()).toContain('Chain ID:          \x1b[32m31337\x1b[39m\n')
      expect(run.out()).toMatch(/^Available Accounts$/m)
      const rpc = rpcOf(plain())
      const [from, to] = (await rpc('eth_accounts')).result
      const ok = (await rpc('eth_sendTransaction', [{ from, to, value: '0x1' }])).result
      // A creation that reverts with Error("no").
      const payload = concat([toFunctionSelector('Error(string)'), encodeAbiParameters([{ type: 'string' }], ['no'])])
      const failed = (
        await rpc('eth_sendTransaction', [{ from, data: concat(['0x6064600c6000396064', '0x6000fd', payload]), gas: '0x30000' }])
      ).result
      const receipt = await poll(
        async () => (await rpc('eth_getTransactionReceipt', [failed])).result,
        (r) => r?.status === '0x0',
        { timeoutMs: 30_000, what: 'the failed receipt' },
      )
      await until(
        () => plain().includes(`${failed} in block #${BigInt(receipt.blockNumber)} failed: no, gas`),
        30_000,
        'the failed line',
      )
      expect(run.out()).toContain('\x1b[31mfailed\x1b[39m: no')
      await rpc('eth_sendTransaction', [{ from, to, nonce: '0x0' }])
      await until(() => /^\S+ refused from 0x[0-9a-f]{40}: nonce too low/m.test(plain()), 30_000, 'the refused line')
      expect(run.out()).toContain('\x1b[31mrefused\x1b[39m')
      // console.log output is the user's code speaking: kept.
      await rpc('eth_call', [{ to: CONSOLE, data: consoleLog('kept at -q') }, 'latest'])
      await until(() => plain().includes('console.log: kept at -q'), 30_000, 'the console.log line')
      // What went right is not printed: no tx, block or ok line.
      expect(plain()).not.toContain(ok)
      expect(plain()).not.toMatch(/^\S+ (tx|block) /m)
    } finally {
      run.child.kill('SIGTERM')
      await run.exited
    }
  }, 120_000)

  it('-qq: the URL line and nothing else, not even for a failed transaction or console.log', async () => {
    const run = startCli(['-qq', '--block-time', '0'])
    try {
      await until(() => /pcnode listening on http/.test(run.out()) || run.child.exitCode !== null, 60_000, 'the URL line')
      const rpc = rpcOf(run.out())
      const [from] = (await rpc('eth_accounts')).result
      const failed = (await rpc('eth_sendTransaction', [{ from, data: '0x60006000fd', gas: '0x30000' }])).result
      await poll(
        async () => (await rpc('eth_getTransactionReceipt', [failed])).result,
        (r) => r?.status === '0x0',
        { timeoutMs: 30_000, what: 'the failed receipt' },
      )
      await rpc('eth_sendTransaction', [{ from, to: from, nonce: '0x0' }])
      await rpc('eth_call', [{ to: CONSOLE, data: consoleLog('not at -qq') }, 'latest'])
      run.child.kill('SIGTERM')
      expect(await run.exited).toBe(0)
      expect(run.out()).toMatch(/^pcnode listening on http:\/\/127\.0\.0\.1:\d+\n$/)
    } finally {
      run.child.kill('SIGKILL')
    }
  }, 120_000)
})
