// Who may call the node and the example app (docs/security.md): Host names (DNS rebinding), browser
// Origins (other sites' pages), the content type (CORS "simple" requests) and WebSocket handshakes,
// as geth's --http.vhosts, --http.corsdomain and --ws.origins. Raw node:http and ws requests set the
// headers a browser or an attacker would; viem, ethers and cast must keep working untouched.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { request } from 'node:http'
import { connect } from 'node:net'
import { join } from 'node:path'
import { Chalk } from 'chalk'
import { InvalidArgumentError } from 'commander'
import { JsonRpcProvider } from 'ethers'
import { createPublicClient, type PublicClient, webSocket } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { accessLines, collectHost, collectOrigin } from '../src/cli/start-access.js'
import { type StartedAppServer, startAppServer } from '../src/index.js'
import { resolveOptions } from '../src/node/options.js'
import { AccessPolicy, isJsonContentType } from '../src/shared/access.js'
import { ROOT } from './cli.js'
import { startTestNode, type TestNode } from './helpers.js'

const CAST = join(ROOT, 'node_modules/@foundry-rs/cast-linux-amd64/bin/cast')
const DEAD = '0x000000000000000000000000000000000000dEaD'

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** One HTTP request with exactly these headers (node:http sets Host from the URL unless given). */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const JSON_TYPE = { 'content-type': 'application/json' }
const rpcBody = (method: string, params: unknown[] = []) => JSON.stringify({ jsonrpc: '2.0', id: 7, method, params })

/** A WebSocket handshake with these headers: 'open' or the HTTP status it was refused with. */
function handshake(url: string, headers: Record<string, string>): Promise<{ opened: WebSocket } | { status: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    ws.once('open', () => resolve({ opened: ws }))
    ws.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 })
      ws.terminate()
    })
    ws.once('error', reject)
  })
}

/** One request over an open WebSocket. */
function wsCall(ws: WebSocket, method: string, params: unknown[] = []): Promise<any> {
  return new Promise((resolve) => {
    ws.once('message', (data) => resolve(JSON.parse(String(data))))
    ws.send(rpcBody(method, params))
  })
}

describe('the node answers loopback pages and names only, unless told otherwise', () => {
  let node: TestNode
  let from: string
  const nonce = async () => (await node.rpc('eth_getTransactionCount', [from, 'pending'])).result as string
  const sendTx = () => rpcBody('eth_sendTransaction', [{ from, to: DEAD, value: '0x1' }])

  beforeAll(async () => {
    node = await startTestNode()
    from = node.accounts[0].address
  })
  afterAll(async () => {
    await node?.stop()
  })

  it('refuses a foreign Host name with 403 before running the method', async () => {
    const before = await nonce()
    for (const host of ['evil.example', `rebind.example:${node.port}`, 'localhost.evil.example', 'LOCALHOST.evil']) {
      const res = await send(node.rpcUrl, 'POST', { ...JSON_TYPE, host }, sendTx())
      expect(res.status, host).toBe(403)
      expect(res.body).toMatch(/^invalid host specified: .* is not a name of this node/)
      expect(res.headers['access-control-allow-origin']).toBeUndefined()
    }
    expect(await nonce()).toBe(before)
  })

  it('refuses a DNS-rebinding page: its Host and its (then same-looking) Origin name the attacker', async () => {
    const host = `rebind.example:${node.port}`
    const res = await send(node.rpcUrl, 'POST', { ...JSON_TYPE, host, origin: `http://${host}` }, rpcBody('eth_accounts'))
    expect(res.status).toBe(403)
    expect(res.body).not.toContain('0x')
    const ws = await handshake(node.wsUrl, { host, origin: `http://${host}` })
    expect(ws).toEqual({ status: 403 })
  })

  it('serves loopback names, IP addresses and a missing Host (HTTP/1.0), as geth', async () => {
    for (const host of [`localhost:${node.port}`, `app.localhost:${node.port}`, 'localhost.', `[::1]:${node.port}`, '10.1.2.3']) {
      const res = await send(node.rpcUrl, 'POST', { ...JSON_TYPE, host }, rpcBody('eth_chainId'))
      expect(res.status, host).toBe(200)
      expect(JSON.parse(res.body).result).toBe('0x7a69')
    }
    // HTTP/1.0 may omit Host; geth serves it (a browser always sends one).
    const raw = await new Promise<string>((resolve, reject) => {
      const body = rpcBody('eth_chainId')
      const socket = connect(node.port, '127.0.0.1', () => {
        socket.end(`POST / HTTP/1.0\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`)
      })
      let text = ''
      socket.on('data', (d) => (text += d))
      socket.on('end', () => resolve(text))
      socket.on('error', reject)
    })
    expect(raw).toMatch(/^HTTP\/1\.1 200/)
    expect(raw).toContain('"result":"0x7a69"')
  })

  it('refuses a text/plain, form or typeless POST with 415 and does not run it (a page could send it unasked)', async () => {
    const before = await nonce()
    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await send(node.rpcUrl, 'POST', { 'content-type': type }, sendTx())
      expect(res.status, type).toBe(415)
      expect(res.body.trim()).toBe('invalid content type, only application/json is supported')
    }
    // No content type at all (a page's fetch of a Blob or ArrayBuffer body sends none): geth's 415 too.
    const none = await send(node.rpcUrl, 'POST', {}, sendTx())
    expect(none.status).toBe(415)
    // The same from a page on another site: refused for its origin before the type matters.
    const page = await send(node.rpcUrl, 'POST', { 'content-type': 'text/plain', origin: 'https://evil.example' }, sendTx())
    expect(page.status).toBe(403)
    expect(await nonce()).toBe(before)
  })

  it("accepts geth's JSON media types, with parameters and in any case", async () => {
    for (const type of [
      'application/json',
      'Application/JSON; charset=utf-8',
      'application/json-rpc',
      'application/jsonrequest',
    ]) {
      const res = await send(node.rpcUrl, 'POST', { 'content-type': type }, rpcBody('eth_chainId'))
      expect(res.status, type).toBe(200)
    }
    expect(isJsonContentType(undefined)).toBe(false)
    expect(isJsonContentType('application/jsonx')).toBe(false)
  })

  it('refuses a foreign Origin with 403 and no CORS grant, even as application/json', async () => {
    const before = await nonce()
    for (const origin of [
      'https://evil.example',
      'http://localhost.evil.example',
      'null',
      'http://192.168.1.20:3000',
      'file://',
    ]) {
      const res = await send(node.rpcUrl, 'POST', { ...JSON_TYPE, origin }, sendTx())
      expect(res.status, origin).toBe(403)
      expect(res.body).toMatch(/^origin not allowed: /)
      expect(res.headers['access-control-allow-origin']).toBeUndefined()
    }
    const trace = await send(
      node.rpcUrl,
      'POST',
      { ...JSON_TYPE, origin: 'https://evil.example' },
      rpcBody('debug_traceCall', [{ to: DEAD }, 'latest', { tracer: 'callTracer' }]),
    )
    expect(trace.status).toBe(403)
    // The preflight a page sends first gets no grant either.
    const pre = await send(node.rpcUrl, 'OPTIONS', { origin: 'https://evil.example', 'access-control-request-method': 'POST' })
    expect(pre.status).toBe(403)
    expect(pre.headers['access-control-allow-origin']).toBeUndefined()
    expect(await nonce()).toBe(before)
  })

  it('grants CORS to loopback pages (any port, http or https), browser extensions and the node itself', async () => {
    const origins = [
      'http://localhost:5173',
      'http://127.0.0.1:3000',
      'http://[::1]:8080',
      'https://localhost',
      'http://dapp.localhost:3000',
      'chrome-extension://nkbihfbeogaeaoehlefnkodbefgpgknn',
      'moz-extension://e3f3eef1-98b4-fe43-ab50-db1234567890',
      `http://127.0.0.1:${node.port}`,
    ]
    for (const origin of origins) {
      const res = await send(node.rpcUrl, 'POST', { ...JSON_TYPE, origin }, rpcBody('eth_chainId'))
      expect(res.status, origin).toBe(200)
      expect(res.headers['access-control-allow-origin']).toBe(origin)
      expect(res.headers.vary).toBe('Origin')
      expect(JSON.parse(res.body).result).toBe('0x7a69')
    }
    const pre = await send(node.rpcUrl, 'OPTIONS', {
      origin: 'http://localhost:5173',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    })
    expect(pre.status).toBe(204)
    expect(pre.headers['access-control-allow-origin']).toBe('http://localhost:5173')
    expect(pre.headers['access-control-allow-headers']).toBe('content-type')
    expect(pre.headers['access-control-allow-methods']).toContain('POST')
  })

  it('serves requests without an Origin (curl, scripts, wallets in Node) with no CORS headers', async () => {
    const res = await send(node.rpcUrl, 'POST', JSON_TYPE, rpcBody('eth_blockNumber'))
    expect(res.status).toBe(200)
    expect(res.headers['access-control-allow-origin']).toBeUndefined()
    const get = await send(node.rpcUrl, 'GET', {})
    expect(get.status).toBe(200)
    expect(get.body).toMatch(/JSON-RPC/)
  })

  it('refuses WebSocket handshakes from foreign origins and hosts (403 before the upgrade)', async () => {
    const before = await nonce()
    expect(await handshake(node.wsUrl, { origin: 'https://evil.example' })).toEqual({ status: 403 })
    expect(await handshake(node.wsUrl, { origin: 'null' })).toEqual({ status: 403 })
    expect(await handshake(node.wsUrl, { host: 'rebind.example' })).toEqual({ status: 403 })
    expect(await nonce()).toBe(before)
  })

  it('accepts WebSocket handshakes from loopback pages and from clients that send no Origin', async () => {
    const cases: Array<Record<string, string>> = [{ origin: 'http://localhost:5173' }, { origin: 'http://127.0.0.1:4000' }, {}]
    for (const headers of cases) {
      const shake = await handshake(node.wsUrl, headers)
      if (!('opened' in shake)) throw new Error(`refused ${JSON.stringify(headers)}: ${shake.status}`)
      expect((await wsCall(shake.opened, 'eth_chainId')).result).toBe('0x7a69')
      shake.opened.terminate()
    }
  })

  it('viem (HTTP and WebSocket), ethers and cast work unchanged', async () => {
    expect(await node.publicClient.getChainId()).toBe(31337)
    const ws = createPublicClient({ chain: node.chain, transport: webSocket(node.wsUrl, { retryCount: 0 }) }) as PublicClient
    expect(typeof (await ws.getBlockNumber())).toBe('bigint')
    await ws.transport.getRpcClient?.().then((c: { close(): void }) => c.close())
    const provider = new JsonRpcProvider(node.rpcUrl, undefined, { staticNetwork: true })
    expect(Number((await provider.getNetwork()).chainId)).toBe(31337)
    expect(await provider.getBlockNumber()).toBeGreaterThanOrEqual(0)
    provider.destroy()
    if (existsSync(CAST)) {
      for (const url of [node.rpcUrl, node.rpcUrl.replace('127.0.0.1', 'localhost')]) {
        const out = await new Promise<string>((resolve, reject) =>
          execFile(CAST, ['block-number', '--rpc-url', url], (error, stdout, stderr) =>
            error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
          ),
        )
        expect(out.trim()).toMatch(/^\d+$/)
      }
    } else console.warn(`cast is missing at ${CAST}: the cast check is skipped`)
  })
})

describe('--allow-origin and --allow-host open it up', () => {
  let open: TestNode
  let wide: TestNode

  beforeAll(async () => {
    ;[open, wide] = await Promise.all([
      startTestNode({ allowOrigins: ['https://app.example', 'null'], allowHosts: ['devbox.lan'] }),
      startTestNode({ allowOrigins: ['*'], allowHosts: ['*'] }),
    ])
  })
  afterAll(async () => {
    await Promise.all([open?.stop(), wide?.stop()])
  })

  it('an allowed origin gets the grant over HTTP and WebSocket; others stay refused', async () => {
    const body = rpcBody('eth_chainId')
    for (const origin of ['https://app.example', 'null']) {
      const res = await send(open.rpcUrl, 'POST', { ...JSON_TYPE, origin }, body)
      expect(res.status, origin).toBe(200)
      expect(res.headers['access-control-allow-origin']).toBe(origin)
    }
    expect((await send(open.rpcUrl, 'POST', { ...JSON_TYPE, origin: 'http://app.example' }, body)).status).toBe(403)
    expect((await send(open.rpcUrl, 'POST', { ...JSON_TYPE, origin: 'https://evil.example' }, body)).status).toBe(403)
    const shake = await handshake(open.wsUrl, { origin: 'https://app.example' })
    expect('opened' in shake).toBe(true)
    if ('opened' in shake) shake.opened.terminate()
    expect(await handshake(open.wsUrl, { origin: 'https://evil.example' })).toEqual({ status: 403 })
  })

  it('an allowed Host name is served; others stay refused', async () => {
    const body = rpcBody('eth_chainId')
    expect((await send(open.rpcUrl, 'POST', { ...JSON_TYPE, host: `devbox.lan:${open.port}` }, body)).status).toBe(200)
    expect((await send(open.rpcUrl, 'POST', { ...JSON_TYPE, host: 'DevBox.Lan' }, body)).status).toBe(200)
    expect((await send(open.rpcUrl, 'POST', { ...JSON_TYPE, host: 'other.lan' }, body)).status).toBe(403)
  })

  it('* allows every page and every name (the content type is still checked)', async () => {
    const res = await send(
      wide.rpcUrl,
      'POST',
      { ...JSON_TYPE, origin: 'https://evil.example', host: 'rebind.example' },
      rpcBody('eth_chainId'),
    )
    expect(res.status).toBe(200)
    expect(res.headers['access-control-allow-origin']).toBe('https://evil.example')
    const shake = await handshake(wide.wsUrl, { origin: 'https://evil.example', host: 'rebind.example' })
    expect('opened' in shake).toBe(true)
    if ('opened' in shake) shake.opened.terminate()
    expect((await send(wide.rpcUrl, 'POST', { 'content-type': 'text/plain' }, rpcBody('eth_chainId'))).status).toBe(415)
  })

  it('refuses malformed rules at start, naming the flag', () => {
    expect(() => resolveOptions({ allowOrigins: ['https://app.example/path'] })).toThrow(/--allow-origin: expected an origin/)
    expect(() => resolveOptions({ allowOrigins: ['http://'] })).toThrow(/--allow-origin/)
    expect(() => resolveOptions({ allowHosts: ['http://devbox.lan'] })).toThrow(/--allow-host: expected a host name/)
    expect(() => resolveOptions({ allowHosts: ['devbox.lan:8545'] })).toThrow(/--allow-host/)
    expect(resolveOptions({ allowOrigins: ['HTTPS://App.Example'], allowHosts: ['DevBox.Lan.'] })).toMatchObject({
      allowOrigins: ['https://app.example'],
      allowHosts: ['devbox.lan'],
    })
    expect(() => collectOrigin('ftp://x/y', [])).toThrow(InvalidArgumentError)
    expect(collectHost('a.lan', ['b.lan'])).toEqual(['b.lan', 'a.lan'])
  })

  it("matches origin rules as geth's --ws.origins: each part given must match", () => {
    const policy = new AccessPolicy({
      boundHost: 'devbox.lan',
      allowOrigins: ['https://app.example', 'http://site.example:3000', 'bare.example'],
    })
    const allowed = (origin: string) => policy.originAllowed(origin, '127.0.0.1:8545')
    expect(allowed('https://app.example')).toBe(true)
    expect(allowed('https://app.example:8443')).toBe(true) // no port in the rule: any port
    expect(allowed('http://app.example')).toBe(false)
    expect(allowed('http://site.example:3000')).toBe(true)
    expect(allowed('http://site.example:3001')).toBe(false)
    expect(allowed('http://bare.example:1234')).toBe(true) // a bare name: any scheme and port
    expect(allowed('https://bare.example')).toBe(true)
    expect(allowed('https://sub.bare.example')).toBe(false)
    expect(allowed('not an origin')).toBe(false)
    // The --host name is a Host the node answers to, and a page it serves is its own origin.
    expect(policy.hostAllowed('devbox.lan:8545')).toBe(true)
    expect(policy.originAllowed('http://devbox.lan:8545', 'devbox.lan:8545')).toBe(true)
    expect(policy.originAllowed('http://devbox.lan:9999', 'devbox.lan:8545')).toBe(false)
  })
})

describe('the banner says what is open', () => {
  const plain = new Chalk({ level: 0 })

  it('by default: loopback pages and names, no warning', () => {
    const lines = accessLines(plain, { host: '127.0.0.1', allowOrigins: [], allowHosts: [] })
    expect(lines).toEqual([
      'Web pages:         only http://localhost:* and http://127.0.0.1:* may call this node (--allow-origin to open)',
      'Host names:        localhost and IP addresses (--allow-host to add)',
    ])
  })

  it('warns for *, and for a bind address other machines can reach', () => {
    const lines = accessLines(plain, { host: '0.0.0.0', allowOrigins: ['*'], allowHosts: ['*'] })
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(/^WARNING: any web page may call this node/)
    expect(lines[1]).toMatch(/^WARNING: any Host name is answered/)
    expect(lines[2]).toMatch(/^WARNING: listening on 0\.0\.0\.0: the node is reachable from the network/)
    const some = accessLines(plain, { host: 'devbox.lan', allowOrigins: ['https://app.example'], allowHosts: ['x.lan'] })
    expect(some[0]).toBe('Web pages:         http://localhost:*, http://127.0.0.1:* and https://app.example may call this node')
    expect(some[1]).toBe('Host names:        localhost, devbox.lan, x.lan and IP addresses')
    expect(some[2]).toMatch(/^WARNING: listening on devbox\.lan/)
  })

  it('pcnode start takes --allow-origin and --allow-host and prints them', async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/index.ts',
        'start',
        '--port',
        '0',
        '--no-app',
        '--allow-origin',
        '*',
        '--allow-origin',
        'https://x.example',
        '--allow-host',
        'devbox.lan',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    )
    try {
      let out = ''
      child.stdout?.on('data', (d) => (out += d))
      await new Promise<void>((resolve, reject) => {
        const check = () => (/Host names:.*\n/.test(out) ? resolve() : undefined)
        child.stdout?.on('data', check)
        child.once('exit', (code) => reject(new Error(`pcnode start exited (${code}): ${out}`)))
      })
      expect(out).toMatch(/WARNING: any web page may call this node \(--allow-origin \*\)/)
      expect(out).toMatch(/Host names: +localhost, devbox\.lan and IP addresses/)
      const url = /RPC\s+(http:\S+)/.exec(out)?.[1] as string
      const res = await send(
        url,
        'POST',
        { ...JSON_TYPE, host: 'devbox.lan', origin: 'https://evil.example' },
        rpcBody('eth_chainId'),
      )
      expect(res.status).toBe(200)
      expect((await send(url, 'POST', { ...JSON_TYPE, host: 'other.lan' }, rpcBody('eth_chainId'))).status).toBe(403)
    } finally {
      child.kill('SIGKILL')
    }
  }, 60_000)
})

describe('the example app follows the same Host and Origin rules', () => {
  let node: TestNode
  let app: StartedAppServer
  let wide: StartedAppServer

  beforeAll(async () => {
    node = await startTestNode()
    ;[app, wide] = await Promise.all([
      startAppServer({ rpcUrl: node.rpcUrl, port: 0, host: '127.0.0.1', chainId: node.chainId }),
      startAppServer({ rpcUrl: node.rpcUrl, port: 0, host: '127.0.0.1', chainId: node.chainId, allowOrigins: ['*'] }),
    ])
  })
  afterAll(async () => {
    await app?.stop()
    await wide?.stop()
    await node?.stop()
  })

  it('serves its own page and config, and grants loopback pages', async () => {
    const page = await send(`${app.url}/`, 'GET', {})
    expect(page.status).toBe(200)
    expect(page.body).toContain('<title>')
    const own = `http://localhost:${app.port}`
    const config = await send(`${app.url}/config`, 'GET', { origin: own, host: `localhost:${app.port}` })
    expect(config.status).toBe(200)
    expect(JSON.parse(config.body).chainId).toBe(31337)
    expect(config.headers['access-control-allow-origin']).toBe(own)
  })

  it('refuses foreign Host names and other sites, before any route runs', async () => {
    const rebound = await send(`${app.url}/config`, 'GET', { host: `rebind.example:${app.port}` })
    expect(rebound.status).toBe(403)
    expect(JSON.parse(rebound.body).error).toMatch(/^invalid host specified: rebind\.example is not a name of this app/)
    const foreign = await send(`${app.url}/config`, 'GET', { origin: 'https://evil.example' })
    expect(foreign.status).toBe(403)
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined()
    expect(foreign.body).not.toContain('chainId')
    const verify = await send(`${app.url}/typed-data/verify`, 'POST', { ...JSON_TYPE, origin: 'https://evil.example' }, '{}')
    expect(verify.status).toBe(403)
    const pre = await send(`${app.url}/typed-data/verify`, 'OPTIONS', { origin: 'https://evil.example' })
    expect(pre.status).toBe(403)
    expect(pre.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('allowOrigins opens it', async () => {
    const res = await send(`${wide.url}/config`, 'GET', { origin: 'https://evil.example' })
    expect(res.status).toBe(200)
    expect(res.headers['access-control-allow-origin']).toBe('https://evil.example')
  })
})
