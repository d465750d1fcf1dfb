// --rpc-url in every client subcommand (the built CLI), as a cast user types it: without a scheme it
// is http://; a URL that is not a node (a web page, an app's JSON 404, a closed port) is said to be
// one, with what to do, and exits 2.
import { createServer as createHttpServer, type Server } from 'node:http'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, ROOT, runNode } from './cli.js'
import { useTestNode, waitForReceipt } from './helpers.js'

/** Two minutes per run: several share two loaded cores, and the bound is for a hang, not a speed. */
const pcnode = (args: string[]) => runNode([BIN], args, 120_000)

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const { port } = server.address() as { port: number }
  await new Promise((done) => server.close(done))
  return port
}

describe('--rpc-url in the client subcommands', { timeout: 600_000 }, () => {
  const node = useTestNode({ blockTime: 400, preconfInterval: 50 })
  let web: Server
  let hostPort: string
  let webUrl: string
  let closed: string
  let txHash: string

  beforeAll(async () => {
    hostPort = new URL(node.rpcUrl).host
    // Not a node: a web page at /, an app's JSON 404 elsewhere.
    web = createHttpServer((req, res) => {
      if (req.url === '/') res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><p>Not Found</p>')
      else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}')
    })
    await new Promise<void>((done) => web.listen(0, '127.0.0.1', done))
    webUrl = `127.0.0.1:${(web.address() as { port: number }).port}`
    closed = `127.0.0.1:${await closedPort()}`
    txHash = await node.wallet(5).sendTransaction({ to: node.accounts[6].address, value: parseEther('1') })
    await waitForReceipt(node, txHash as `0x${string}`)
  })
  afterAll(() => new Promise<void>((done) => web?.close(() => done())))

  /** Each subcommand with what its success prints. */
  const commands = (): Array<{ args: string[]; ok: RegExp }> => [
    { args: ['simulate', join(ROOT, 'fixtures', 'simulate-transfers.json')], ok: /all \d+ call\(s\) succeeded/ },
    {
      args: ['estimate', '--from', node.accounts[0].address, '--to', node.accounts[1].address, '--value', '1eth'],
      ok: /21,000 gas/,
    },
    { args: ['trace', txHash], ok: /Transaction successfully executed/ },
    { args: ['send', '--to', node.accounts[2].address, '--value', '1gwei', '--from', '3'], ok: /Sealed in block \d+/ },
    { args: ['wallet', 'create', '--owner', node.accounts[4].address], ok: /Wallet\s+0x[0-9a-fA-F]{40}/ },
    {
      args: ['typed-data', 'sign', join(ROOT, 'fixtures', 'spend-permission.json'), '--account', '0', '--smart-wallet'],
      ok: /Signature\s+0x[0-9a-f]+/,
    },
  ]

  it('takes host:port without a scheme as http:// (as cast does), in every subcommand', async () => {
    const runs = await Promise.all(
      commands().map(async ({ args, ok }, i) => {
        // Half with the IP address, half with localhost.
        const url = i % 2 ? hostPort : hostPort.replace('127.0.0.1', 'localhost')
        return { args, ok, run: await pcnode([...args, '--rpc-url', url]) }
      }),
    )
    for (const { args, ok, run } of runs) {
      expect(run.code, `${args[0]}: ${run.stderr}`).toBe(0)
      expect(run.stdout, args[0]).toMatch(ok)
    }
  })

  it('says a URL is not a node (a web page, a JSON 404, a closed port) and what to do, exit 2', async () => {
    const cases = [
      {
        url: webUrl,
        says: /http:\/\/127\.0\.0\.1:\d+ is not a JSON-RPC node: it answered HTTP 404 \(text\/html\): "<!doctype html>/,
      },
      {
        url: `${webUrl}/rpc`,
        says: /http:\/\/127\.0\.0\.1:\d+\/rpc is not a JSON-RPC node: it answered HTTP 404 \(application\/json\)/,
      },
      { url: closed, says: /cannot reach the node at http:\/\/127\.0\.0\.1:\d+: nothing listens on that port \(ECONNREFUSED\)/ },
    ]
    const runs = await Promise.all(
      cases.flatMap(({ url, says }) =>
        commands().map(async ({ args, ok }) => ({ args, ok, says, run: await pcnode([...args, '--rpc-url', url]) })),
      ),
    )
    for (const { args, ok, says, run } of runs) {
      const what = `${args[0]}: ${run.stdout}${run.stderr}`
      expect(run.code, what).toBe(2)
      expect(run.stderr, what).toMatch(says)
      expect(run.stderr, what).toContain('`pcnode start` prints its RPC URL; pass it with --rpc-url')
      expect(run.stdout, what).not.toMatch(ok)
    }
  })

  it('refuses what is not a URL, or a scheme the command does not speak, as a usage error (exit 2)', async () => {
    const runs = await Promise.all([
      pcnode(['estimate', '--to', node.accounts[1].address, '--rpc-url', 'not a url']),
      pcnode(['trace', txHash, '--rpc-url', 'ws://127.0.0.1:8545']),
      pcnode(['send', '--to', node.accounts[1].address, '--rpc-url', 'ftp://127.0.0.1:8545']),
    ])
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(2)
      expect(run.stderr).toMatch(/--rpc-url <url>' argument '.*' is invalid\. (not a URL|.*the URL must be http)/)
    }
  })
})
