// anvil_reset with `forking.jsonRpcUrl` makes the node fetch a URL its caller chose. Against a real
// upstream (anvil, started here) and a tiny local HTTP server that answers HTML: only http(s) URLs are
// taken (-32602 otherwise, before any request), credentials in the URL never reach an error, a log
// line or pcnode_forkStats, a non-JSON answer comes back as a fixed text naming its HTTP status (not
// its body, and asked once), and allowRemoteReset false (--no-remote-reset) refuses other upstreams
// while a local reset, and a reset onto the node's own upstream, still work.
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from './cli.js'
import { startAnvil, startTestNode, type TestNode } from './helpers.js'

const SECRET_BODY = 'INTERNAL-SECRET-TOKEN=abc123'
/** What no error, log line or stats answer may contain: the URL's password, query key and path key. */
const SECRETS = ['hunter2', 'TOPSECRETQUERY', 'k3yInThePath0123456789']

interface Stand {
  url: string
  /** Requests received, as `METHOD path authorization`. */
  seen: string[]
  close(): Promise<void>
}

/** An HTTP server that is no JSON-RPC endpoint: HTML, broken JSON, or an error page, by path. */
async function startStandIn(): Promise<Stand> {
  const seen: string[] = []
  const server: Server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? '-'}`)
      if (req.url?.startsWith('/broken-json')) {
        res.writeHead(200, { 'content-type': 'application/json' })
        return void res.end(`{"jsonrpc":"2.0","result": ${SECRET_BODY}`)
      }
      if (req.url?.startsWith('/missing')) {
        res.writeHead(404, { 'content-type': 'text/html' })
        return void res.end(`<html>not here ${SECRET_BODY}</html>`)
      }
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(`<html>${SECRET_BODY}</html>`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

const reset = (node: TestNode, jsonRpcUrl?: string, blockNumber?: string) =>
  node.rpc('anvil_reset', jsonRpcUrl === undefined && blockNumber === undefined ? [] : [{ forking: { jsonRpcUrl, blockNumber } }])

const headOf = async (node: TestNode) => BigInt((await node.rpc('eth_blockNumber')).result)

describe('anvil_reset onto a URL', () => {
  let anvil: { url: string; stop: () => void }
  let stand: Stand
  let node: TestNode
  const logs: string[] = []

  beforeAll(async () => {
    anvil = await startAnvil(['--chain-id', '4243'])
    stand = await startStandIn()
    node = await startTestNode({ blockTime: 3_600_000, silent: false, logger: (line) => logs.push(line) })
  }, 60_000)
  afterAll(async () => {
    await node?.stop()
    await stand?.close()
    anvil?.stop()
  })

  it('refuses every scheme but http and https with -32602, before any request and changing nothing', async () => {
    await node.rpc('anvil_mine', ['0x2'])
    const head = await headOf(node)
    const cases: Array<[string, string]> = [
      ['file:///etc/passwd', 'file:'],
      ['ftp://user:hunter2@127.0.0.1/?key=TOPSECRETQUERY', 'ftp:'],
      [`ws://127.0.0.1:${new URL(stand.url).port}/`, 'ws:'],
      ['gopher://127.0.0.1:70/_x', 'gopher:'],
      ['data:application/json,{"result":"0x1"}', 'data:'],
      ['javascript:alert(1)', 'javascript:'],
    ]
    for (const [url, scheme] of cases) {
      const { error } = await reset(node, url)
      expect(error, url).toEqual({
        code: -32602,
        message: `invalid argument 0: forking.jsonRpcUrl must be an http:// or https:// URL, not ${scheme}`,
      })
    }
    for (const url of ['not a url', '127.0.0.1:8545', '//127.0.0.1:8545/']) {
      expect((await reset(node, url)).error, url).toEqual({
        code: -32602,
        message: 'invalid argument 0: forking.jsonRpcUrl is not a URL (expected http:// or https://)',
      })
    }
    expect(stand.seen).toEqual([])
    expect(await headOf(node)).toBe(head)
  })

  it('answers a non-JSON page with its HTTP status only, asks it once, and keeps the chain', async () => {
    const head = await headOf(node)
    stand.seen.length = 0
    for (const [path, status] of [
      ['/page.html', 200],
      ['/broken-json', 200],
    ] as const) {
      const { error } = await reset(node, `${stand.url}${path}`)
      expect(error, path).toEqual({
        code: -32000,
        message: `fork: eth_chainId failed on upstream ${stand.url}${path}: the answer is not JSON (HTTP ${status}) (reading the chain id)`,
      })
    }
    const missing = await reset(node, `${stand.url}/missing`)
    expect(missing.error.message).toBe(
      `fork: eth_chainId failed on upstream ${stand.url}/missing: HTTP 404 (reading the chain id)`,
    )
    // Each asked once: a page that is not JSON is not retried.
    expect(stand.seen.map((s) => s.split(' ')[1])).toEqual(['/page.html', '/broken-json', '/missing'])
    expect(await headOf(node)).toBe(head)
    expect(JSON.stringify(logs)).not.toContain('INTERNAL-SECRET')
  })

  it('never shows the credentials of a URL in an error, a log line or pcnode_forkStats', async () => {
    stand.seen.length = 0
    const port = new URL(stand.url).port
    const withSecrets = (host: string) => `http://alice:hunter2@${host}/v2/k3yInThePath0123456789?apikey=TOPSECRETQUERY`
    const html = await reset(node, withSecrets(`127.0.0.1:${port}`))
    expect(html.error.message).toBe(
      `fork: eth_chainId failed on upstream http://***@127.0.0.1:${port}/v2/***?apikey=***: the answer is not JSON (HTTP 200) (reading the chain id)`,
    )
    // The user info went as HTTP Basic authentication, not in the request line.
    expect(stand.seen).toEqual([
      `POST /v2/k3yInThePath0123456789?apikey=TOPSECRETQUERY Basic ${Buffer.from('alice:hunter2').toString('base64')}`,
    ])
    const refused = await reset(node, withSecrets(`127.0.0.1:${await closedPort()}`))
    expect(refused.error.code).toBe(-32000)
    expect(refused.error.message).toMatch(
      /^fork: eth_chainId failed on upstream http:\/\/\*\*\*@127\.0\.0\.1:\d+\/v2\/\*\*\*\?apikey=\*\*\*: /,
    )
    // A reachable upstream behind credentials (anvil serves only /): the node forks it; its stats
    // name it redacted.
    const anvilPort = new URL(anvil.url).port
    const ok = await reset(node, `http://alice:hunter2@127.0.0.1:${anvilPort}/?apikey=TOPSECRETQUERY`)
    expect(ok.error).toBeUndefined()
    const stats = (await node.rpc('pcnode_forkStats')).result
    expect(stats.upstream).toEqual([`http://***@127.0.0.1:${anvilPort}/?apikey=***`])
    for (const text of [html.error.message, refused.error.message, JSON.stringify(stats), JSON.stringify(logs)]) {
      for (const secret of SECRETS) expect(text).not.toContain(secret)
    }
    // A plain reset goes back to that fork's block.
    expect((await reset(node)).error).toBeUndefined()
  })

  it('forks a real upstream by default (allowRemoteReset is true, as in anvil and Hardhat)', async () => {
    expect((await reset(node, anvil.url)).error).toBeUndefined()
    const upstreamHead = (await (
      await fetch(anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] }),
      })
    ).json()) as { result: { number: string; hash: string } }
    const local = (await node.rpc('eth_getBlockByNumber', [upstreamHead.result.number, false])).result
    expect(local.hash).toBe(upstreamHead.result.hash)
    expect((await node.rpc('pcnode_forkStats')).result.upstream).toEqual([`${anvil.url}/`])
    expect((await reset(node)).error).toBeUndefined()
  })
})

describe('allowRemoteReset: false', () => {
  let anvil: { url: string; stop: () => void }
  let stand: Stand
  beforeAll(async () => {
    anvil = await startAnvil(['--chain-id', '4244'])
    stand = await startStandIn()
  }, 60_000)
  afterAll(async () => {
    await stand?.close()
    anvil?.stop()
  })

  const disabled = {
    code: -32602,
    message:
      'anvil_reset with forking.jsonRpcUrl is turned off on this node (--no-remote-reset, allowRemoteReset: false); anvil_reset without a URL still resets it',
  }

  it('refuses a URL naming the flag, asks it nothing, and a local reset still works', async () => {
    const node = await startTestNode({ blockTime: 3_600_000, allowRemoteReset: false })
    try {
      await node.rpc('anvil_mine', ['0x3'])
      expect(await headOf(node)).toBe(3n)
      expect((await reset(node, `${stand.url}/rpc`)).error).toEqual(disabled)
      expect((await reset(node, anvil.url)).error).toEqual(disabled)
      // Another scheme is refused as on any node.
      expect((await reset(node, 'file:///etc/passwd')).error.code).toBe(-32602)
      expect(stand.seen).toEqual([])
      expect(await headOf(node)).toBe(3n)
      expect((await reset(node)).error).toBeUndefined()
      expect(await headOf(node)).toBe(0n)
    } finally {
      await node.stop()
    }
  })

  it('a fork may still reset onto its own upstream (another block), but not onto another one', async () => {
    const node = await startTestNode({ fork: { url: anvil.url, cache: false }, blockTime: 3_600_000, allowRemoteReset: false })
    try {
      expect((await reset(node, undefined, '0x0')).error).toBeUndefined()
      expect((await node.rpc('pcnode_forkStats')).result.forkBlockNumber).toBe('0x0')
      expect((await reset(node, anvil.url)).error).toBeUndefined()
      expect((await reset(node, `${stand.url}/rpc`)).error).toEqual(disabled)
      expect(stand.seen).toEqual([])
      expect((await reset(node)).error).toBeUndefined()
    } finally {
      await node.stop()
    }
  })

  it('pcnode start --no-remote-reset turns it off', async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/index.ts', 'start', '--port', '0', '--no-app', '--json', '--no-remote-reset'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    )
    try {
      const rpcUrl = await new Promise<string>((resolve, reject) => {
        let out = ''
        child.stdout?.on('data', (d) => {
          out += d
          const line = out.split('\n').find((l) => l.startsWith('{'))
          if (line) resolve(JSON.parse(line).rpcUrl)
        })
        child.once('exit', (code) => reject(new Error(`pcnode start exited (${code}): ${out}`)))
      })
      const call = async (params: unknown[]) =>
        (await (
          await fetch(rpcUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_reset', params }),
          })
        ).json()) as { result?: unknown; error?: unknown }
      expect((await call([{ forking: { jsonRpcUrl: anvil.url } }])).error).toEqual(disabled)
      expect(await call([])).toEqual({ jsonrpc: '2.0', id: 1, result: null })
    } finally {
      child.kill('SIGKILL')
    }
  }, 90_000)
})
