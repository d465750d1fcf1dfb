// The CLI round trip of the example typed-data app, with the built CLI (npm run build, then node bin/pcnode.js):
// `pcnode start` runs the app next to the node (--app-port, --no-app, --verify-mode, --data-dir), then
// `typed-data prepare` (from that running app) → `typed-data sign` (an EOA, and --smart-wallet: undeployed,
// ERC-6492) → `typed-data verify` directly against the node and through the app (--app-url). Exit codes:
// 0 valid, 1 invalid or refused, 2 usage or connection errors.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isErc6492Signature } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { BIN, importGraph, pcnode, ROOT } from './cli.js'

interface Ready {
  rpcUrl: string
  appUrl?: string
  chainId: number
  accounts: Array<{ address: string; privateKey: string }>
}

/** `pcnode start … --json` in the background; resolves with its ready line. */
async function startCli(
  args: string[],
): Promise<{ child: ChildProcess; ready: Ready; stderr: () => string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--json', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  })
  let out = ''
  let err = ''
  child.stderr?.on('data', (d) => (err += d))
  const exited = new Promise<void>((res) => child.once('exit', () => res()))
  const ready = await new Promise<Ready>((res, rej) => {
    child.stdout?.on('data', (d) => {
      out += d
      const line = out.split('\n').find((l) => l.startsWith('{'))
      if (line) res(JSON.parse(line))
    })
    child.once('exit', (code) => rej(new Error(`pcnode start exited (${code}) before it was ready: ${err}`)))
  })
  return {
    child,
    ready,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res))
  const { port } = server.address() as { port: number }
  await new Promise((res) => server.close(res))
  return port
}

describe('pcnode typed-data prepare → sign → verify (built CLI, app run by pcnode start)', () => {
  let node: Awaited<ReturnType<typeof startCli>>
  let dir: string
  let rpc: string[]
  let appUrl: string

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pcnode-cli-typed-data-'))
    node = await startCli(['--app-port', '0', '--preconf-interval', '0', '--block-time', '500ms'])
    expect(node.ready.appUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    appUrl = node.ready.appUrl!
    rpc = ['--rpc-url', node.ready.rpcUrl]
  }, 240_000)
  afterAll(() => node?.stop())

  const prepareFile = async (address: string, name: string, action = 'read', resource = '/reports/2026') => {
    const run = await pcnode([
      'typed-data',
      'prepare',
      '--address',
      address,
      '--action',
      action,
      '--resource',
      resource,
      '--app-url',
      appUrl,
      '--json',
    ])
    expect(run.code, run.stderr).toBe(0)
    const file = join(dir, name)
    writeFileSync(file, run.stdout)
    return { file, payload: JSON.parse(run.stdout) }
  }
  const sign = async (file: string, args: string[]) => {
    const run = await pcnode(['typed-data', 'sign', file, ...args, '--json'])
    expect(run.code, run.stderr).toBe(0)
    return JSON.parse(run.stdout) as { signature: `0x${string}`; address: string }
  }

  it('an EOA: prepare --json, sign --account 0, verify against the node and through the app (once)', async () => {
    const eoa = node.ready.accounts[0].address
    const { file, payload } = await prepareFile(eoa, 'eoa.json')
    expect(payload.domain).toMatchObject({ name: 'pcnode Example App', chainId: node.ready.chainId })
    expect(payload.message).toMatchObject({ user: eoa, action: 'read', resource: '/reports/2026' })

    const { signature, address } = await sign(file, ['--account', '0'])
    expect(address).toBe(eoa)

    const direct = await pcnode(['typed-data', 'verify', file, '--signature', signature, '--address', eoa, ...rpc])
    expect(direct.code, direct.stderr).toBe(0)
    expect(direct.stdout).toMatch(/^valid: signature by 0x/)
    const json = await pcnode(['typed-data', 'verify', file, '--signature', signature, '--address', eoa, ...rpc, '--json'])
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: true, address: eoa, chainId: node.ready.chainId })
    // Direct verification marks nothing used: the app still takes it, once.
    const viaApp = await pcnode(['typed-data', 'verify', file, '--signature', signature, '--address', eoa, '--app-url', appUrl])
    expect(viaApp.code, viaApp.stderr).toBe(0)
    expect(viaApp.stdout.trim()).toBe('200 valid: Typed data verified successfully (action read on /reports/2026)')
    const replay = await pcnode([
      'typed-data',
      'verify',
      file,
      '--signature',
      signature,
      '--address',
      eoa,
      '--app-url',
      appUrl,
      '--json',
    ])
    expect(replay.code).toBe(1)
    expect(JSON.parse(replay.stdout)).toEqual({ status: 400, body: { error: 'Nonce already used' } })

    // Someone else's address: invalid, exit 1, both ways.
    const other = node.ready.accounts[1].address
    const wrong = await pcnode(['typed-data', 'verify', file, '--signature', signature, '--address', other, ...rpc])
    expect(wrong.code).toBe(1)
    expect(wrong.stdout).toMatch(/^invalid: /)
    const wrongApp = await pcnode([
      'typed-data',
      'verify',
      file,
      '--signature',
      signature,
      '--address',
      other,
      '--app-url',
      appUrl,
    ])
    expect(wrongApp.code).toBe(1)
    expect(wrongApp.stdout.trim()).toBe('401: Invalid signature')
  })

  it('an undeployed smart wallet: sign --smart-wallet (ERC-6492), verify against the node and through the app', async () => {
    // The wallet owned by dev account 2 (owners [its address], nonce 0).
    const created = await pcnode(['wallet', 'create', '--owner', node.ready.accounts[2].address, ...rpc, '--json'])
    expect(created.code, created.stderr).toBe(0)
    const wallet = JSON.parse(created.stdout).address as string
    const { file } = await prepareFile(wallet, 'wallet.json', 'write', '/wallet')

    const { signature, address } = await sign(file, ['--account', '2', '--smart-wallet', ...rpc])
    expect(address).toBe(wallet)
    expect(isErc6492Signature(signature)).toBe(true)

    const direct = await pcnode(['typed-data', 'verify', file, '--signature', signature, '--address', wallet, ...rpc])
    expect(direct.code, direct.stderr).toBe(0)
    const viaApp = await pcnode([
      'typed-data',
      'verify',
      file,
      '--signature',
      signature,
      '--address',
      wallet,
      '--app-url',
      appUrl,
    ])
    expect(viaApp.code, viaApp.stderr).toBe(0)
    expect(viaApp.stdout.trim()).toBe('200 valid: Typed data verified successfully (action write on /wallet)')
    // Verification deployed nothing.
    const code = await fetch(node.ready.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getCode', params: [wallet, 'pending'] }),
    })
    expect(((await code.json()) as { result: string }).result).toBe('0x')

    // The EOA's signature is not the wallet's.
    const eoaSig = await sign(file, ['--account', '2'])
    const wrong = await pcnode(['typed-data', 'verify', file, '--signature', eoaSig.signature, '--address', wallet, ...rpc])
    expect(wrong.code).toBe(1)
  })

  it('a tampered or expired payload file is refused: 401 / 400 through the app, invalid against the node', async () => {
    const eoa = node.ready.accounts[3].address
    const { file, payload } = await prepareFile(eoa, 'tamper.json')
    const { signature } = await sign(file, ['--account', '3'])
    const tampered = join(dir, 'tampered.json')
    writeFileSync(tampered, JSON.stringify({ ...payload, message: { ...payload.message, resource: '/admin' } }))
    const direct = await pcnode(['typed-data', 'verify', tampered, '--signature', signature, '--address', eoa, ...rpc])
    expect(direct.code).toBe(1)
    const viaApp = await pcnode([
      'typed-data',
      'verify',
      tampered,
      '--signature',
      signature,
      '--address',
      eoa,
      '--app-url',
      appUrl,
    ])
    expect([viaApp.code, viaApp.stdout.trim()]).toEqual([1, '401: Invalid signature'])

    const expired = join(dir, 'expired.json')
    writeFileSync(expired, JSON.stringify({ ...payload, message: { ...payload.message, expiry: 1_000_000 } }))
    const expiredSig = (await sign(expired, ['--account', '3'])).signature
    const late = await pcnode(['typed-data', 'verify', expired, '--signature', expiredSig, '--address', eoa, '--app-url', appUrl])
    expect([late.code, late.stdout.trim()]).toEqual([1, '400: Signature expired'])
    // Against the node only the signature counts; the CLI notes the expiry.
    const lateDirect = await pcnode(['typed-data', 'verify', expired, '--signature', expiredSig, '--address', eoa, ...rpc])
    expect(lateDirect.code).toBe(0)
    expect(lateDirect.stderr).toMatch(/note: message\.expiry 1000000 has passed/)
  })

  it('prepare prints a readable summary without --json', async () => {
    const eoa = node.ready.accounts[0].address
    const run = await pcnode(['typed-data', 'prepare', '--address', eoa, '--action', 'a', '--resource', 'b', '--app-url', appUrl])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/^Domain\s+pcnode Example App v1, chain 31337, 0x0+A11cE$/m)
    expect(run.stdout).toMatch(/^\s+nonce\s+\d+$/m)
    expect(run.stdout).toContain('"primaryType": "Authorization"')
  })

  it('usage and connection errors exit 2; an app refusal exits 1', async () => {
    const eoa = node.ready.accounts[0].address
    const file = join(dir, 'eoa.json')
    const sig = `0x${'11'.repeat(65)}`
    const prepare = ['typed-data', 'prepare', '--address', eoa, '--action', 'a', '--resource', 'b']
    const unreachable = `http://127.0.0.1:${await closedPort()}`
    for (const args of [
      ['typed-data', 'prepare', '--address', eoa, '--resource', 'b', '--app-url', appUrl], // no --action
      ['typed-data', 'prepare', '--address', '0x1234', '--action', 'a', '--resource', 'b', '--app-url', appUrl],
      [...prepare, '--app-url', 'not a url'],
      [...prepare, '--app-url', unreachable],
      ['typed-data', 'verify', file, '--address', eoa, ...rpc], // no --signature
      ['typed-data', 'verify', file, '--signature', 'zz', '--address', eoa, ...rpc],
      ['typed-data', 'verify', file, '--signature', sig, '--address', 'nope', ...rpc],
      ['typed-data', 'verify', file, '--signature', sig, '--address', eoa, ...rpc, '--app-url', appUrl], // both
      ['typed-data', 'verify', join(dir, 'missing.json'), '--signature', sig, '--address', eoa, ...rpc],
      ['typed-data', 'verify', file, '--signature', sig, '--address', eoa, '--rpc-url', unreachable],
      ['typed-data', 'verify', file, '--signature', sig, '--address', eoa, '--app-url', unreachable],
    ]) {
      const run = await pcnode(args)
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2)
      expect(run.stderr, args.join(' ')).not.toBe('')
      expect(run.stdout, args.join(' ')).toBe('')
    }
    const refused = await pcnode([...prepare.slice(0, -1), 'x'.repeat(300), '--app-url', appUrl])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/the app answered 400: Query parameter too long: resource/)
    for (const sub of ['prepare', 'verify']) {
      const help = await pcnode(['typed-data', sub, '--help'])
      expect(help.code).toBe(0)
      expect(help.stdout).toMatch(/^Usage: pcnode typed-data/)
    }
  })
})

describe('pcnode start and the example app', () => {
  it('typed-data prepare/verify never load the engine or the app; start loads the app only when it runs it', () => {
    const cli = (file: string) => join(ROOT, 'dist', 'cli', file)
    const all = importGraph(cli('typed-data-app.js'), false)
    expect([...all.packages].filter((p) => p.startsWith('@ethereumjs/'))).toEqual([])
    expect([...all.files].filter((f) => f.includes(join('dist', 'app')) || f.endsWith(join('dist', 'index.js')))).toEqual([])
    // Statically only commander: every pcnode command imports these files.
    for (const file of ['typed-data-app.js', 'start-app.js']) {
      expect([...importGraph(cli(file), true).packages].filter((p) => !p.startsWith('node:'))).toEqual(['commander'])
    }
  })

  it('--no-app starts no app; --verify-mode simple reaches the app', async () => {
    const none = await startCli(['--no-app'])
    try {
      expect(none.ready.appUrl).toBeUndefined()
    } finally {
      await none.stop()
    }
    const simple = await startCli(['--app-port', '0', '--verify-mode', 'simple'])
    try {
      const config = await (await fetch(`${simple.ready.appUrl}/config`)).json()
      expect(config).toEqual({ chainId: 31337, rpcUrl: simple.ready.rpcUrl, verifyMode: 'simple' })
    } finally {
      await simple.stop()
    }
    const bad = await pcnode(['start', '--port', '0', '--verify-mode', 'strict'])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toMatch(/verify mode must be full or simple/)
  })

  it('--data-dir keeps used nonces: a replay after a restart is refused', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pcnode-app-data-'))
    const payloadFile = join(dataDir, 'payload.json')
    let first = await startCli(['--app-port', '0', '--data-dir', dataDir])
    let signature: string
    const eoa = first.ready.accounts[0].address
    try {
      const prep = await pcnode([
        'typed-data',
        'prepare',
        '--address',
        eoa,
        '--action',
        'a',
        '--resource',
        'b',
        '--app-url',
        first.ready.appUrl!,
        '--json',
      ])
      expect(prep.code, prep.stderr).toBe(0)
      writeFileSync(payloadFile, prep.stdout)
      signature = JSON.parse((await pcnode(['typed-data', 'sign', payloadFile, '--account', '0', '--json'])).stdout).signature
      const ok = await pcnode([
        'typed-data',
        'verify',
        payloadFile,
        '--signature',
        signature,
        '--address',
        eoa,
        '--app-url',
        first.ready.appUrl!,
      ])
      expect(ok.code, ok.stdout + ok.stderr).toBe(0)
    } finally {
      await first.stop()
    }
    expect(readFileSync(join(dataDir, 'used-nonces.log'), 'utf8')).toContain(`${eoa.toLowerCase()}-`)
    first = await startCli(['--app-port', '0', '--data-dir', dataDir])
    try {
      const replay = await pcnode([
        'typed-data',
        'verify',
        payloadFile,
        '--signature',
        signature,
        '--address',
        eoa,
        '--app-url',
        first.ready.appUrl!,
      ])
      expect([replay.code, replay.stdout.trim()]).toEqual([1, '400: Nonce already used'])
    } finally {
      await first.stop()
    }
  })

  it('the banner shows the app URL; an --app-port that is taken is an error (exit 98)', async () => {
    const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--app-port', '0'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    })
    try {
      const line = await new Promise<string>((res, rej) => {
        let out = ''
        child.stdout?.on('data', (d) => {
          out += d
          const m = /^App\s+(http:\/\/127\.0\.0\.1:\d+) \(typed-data example, verify mode full, used nonces in memory\)$/m.exec(
            out,
          )
          if (m) res(m[1])
        })
        child.once('exit', (code) => rej(new Error(`exited ${code}: ${out}`)))
      })
      const page = await fetch(`${line}/`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('<title>pcnode · typed-data example</title>')

      const taken = new URL(line).port
      const clash = await pcnode(['start', '--port', '0', '--app-port', taken, '--silent'])
      expect(clash.code).toBe(98)
      expect(clash.stderr).toMatch(new RegExp(`example app cannot listen on 127\\.0\\.0\\.1:${taken} \\(EADDRINUSE\\)`))
    } finally {
      child.kill('SIGTERM')
      await new Promise((res) => child.once('exit', res))
    }
  })
})
