import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM, LAUNCH_ARGS as CHROMIUM_ARGS, chromiumUnavailable } from './chromium.js'
import { startTestNode, type TestNode, until } from './helpers.js'

const LAUNCH_ARGS = [
  ...CHROMIUM_ARGS,
  // Only these two names resolve, both to this machine: the attacker's site and a rebinding name.
  '--host-resolver-rules=MAP evil.example 127.0.0.1, MAP rebind.example 127.0.0.1',
]
const DEAD = '0x000000000000000000000000000000000000dEaD'

const skipReason = chromiumUnavailable()
if (skipReason) console.warn(`browser origin tests skipped: ${skipReason}`)

describe.skipIf(skipReason !== undefined)(
  `web pages against the node in Chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let node: TestNode
    let site: Server
    let sitePort: number
    let browser: Browser
    let traces = 0

    beforeAll(async () => {
      node = await startTestNode({ preconfInterval: 50, blockTime: 500 })
      // Counts the traces the node runs: a refused page must not have started one.
      const debug = node.node.debug
      const traceCall = debug.traceCall.bind(debug)
      debug.traceCall = (...args: Parameters<typeof traceCall>) => {
        traces++
        return traceCall(...args)
      }
      // A blank page for any Host: the test drives it with page.evaluate, which runs as the page's origin.
      site = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>a page</title><p>hello</p>')
      })
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
      sitePort = (site.address() as AddressInfo).port
      const { chromium } = await import('playwright-core')
      // launch() starts from an empty, temporary profile (its --user-data-dir).
      browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS, timeout: 90_000 })
    }, 120_000)

    afterAll(async () => {
      await browser?.close()
      await new Promise((resolve) => site?.close(resolve))
      await node?.stop()
    })

    async function openPage(url: string): Promise<{ context: BrowserContext; page: Page }> {
      const context = await browser.newContext()
      const page = await context.newPage()
      await page.goto(url)
      return { context, page }
    }

    const state = async () => ({
      nonce0: (await node.rpc('eth_getTransactionCount', [node.accounts[0].address, 'pending'])).result,
      balance5: (await node.rpc('eth_getBalance', [node.accounts[5].address, 'pending'])).result,
      dead: (await node.rpc('eth_getBalance', [DEAD, 'pending'])).result,
    })

    it('a page on another site can neither change state nor run a trace, over HTTP or WebSocket', async () => {
      const before = await state()
      const tracesBefore = traces
      const { context, page } = await openPage(`http://evil.example:${sitePort}/`)
      try {
        expect(await page.evaluate(() => (globalThis as any).location.origin)).toBe(`http://evil.example:${sitePort}`)
        const outcome = await page.evaluate(
          async ({ rpcUrl, wsUrl, from, victim, dead }) => {
            const body = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })
            const send = body('eth_sendTransaction', [{ from, to: dead, value: '0xde0b6b3a7640000' }])
            const tryFetch = async (init: Record<string, unknown>) => {
              try {
                const res = await fetch(rpcUrl, { method: 'POST', ...init })
                return `answered ${res.status}: ${await res.text()}`
              } catch (error) {
                return `blocked: ${error}`
              }
            }
            const results: Record<string, string> = {}
            // A CORS "simple" request (no preflight) and the JSON one (preflight first), and a no-cors send.
            results.sendTextPlain = await tryFetch({ headers: { 'content-type': 'text/plain' }, body: send })
            results.sendJson = await tryFetch({ headers: { 'content-type': 'application/json' }, body: send })
            results.sendNoCors = await tryFetch({ mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: send })
            results.sendBlob = await tryFetch({ body: new Blob([send]) })
            results.setBalance = await tryFetch({
              headers: { 'content-type': 'application/json' },
              body: body('anvil_setBalance', [victim, '0x1']),
            })
            results.setBalanceText = await tryFetch({
              headers: { 'content-type': 'text/plain' },
              body: body('anvil_setBalance', [victim, '0x1']),
            })
            const trace = body('debug_traceCall', [{ to: dead }, 'latest', { tracer: 'callTracer' }])
            results.traceText = await tryFetch({ headers: { 'content-type': 'text/plain' }, body: trace })
            results.traceJson = await tryFetch({ headers: { 'content-type': 'application/json' }, body: trace })
            results.ws = await new Promise<string>((resolve) => {
              const ws = new WebSocket(wsUrl)
              ws.onopen = () => ws.send(send)
              ws.onmessage = (m) => resolve(`answered: ${m.data}`)
              ws.onerror = () => resolve('blocked: ws error')
              ws.onclose = (e) => resolve(`blocked: closed ${e.code}`)
            })
            return results
          },
          {
            rpcUrl: node.rpcUrl,
            wsUrl: node.wsUrl,
            from: node.accounts[0].address,
            victim: node.accounts[5].address,
            dead: DEAD,
          },
        )
        for (const [what, result] of Object.entries(outcome)) {
          // no-cors hides everything from the page: its fetch "succeeds" with an opaque answer (status 0).
          if (what === 'sendNoCors') expect(result, what).toBe('answered 0: ')
          else expect(result, what).toMatch(/^blocked: /)
        }
        // Nothing happened on the node: no transaction (pending nonce), no balance set, no trace run.
        expect(await state()).toEqual(before)
        expect(traces).toBe(tracesBefore)
      } finally {
        await context.close()
      }
    }, 120_000)

    it('a DNS-rebinding page (a foreign name for the node itself) is refused, same-origin or not', async () => {
      const before = await state()
      const { context, page } = await (async () => {
        const context = await browser.newContext()
        const page = await context.newPage()
        return { context, page }
      })()
      try {
        const res = await page.goto(`http://rebind.example:${node.port}/`)
        expect(res?.status()).toBe(403)
        expect(await res?.text()).toMatch(/^invalid host specified: rebind\.example/)
        const answer = await page.evaluate(async (from) => {
          const res = await fetch('/', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'eth_sendTransaction',
              params: [{ from, to: from, value: '0x1' }],
            }),
          })
          return { status: res.status, text: await res.text() }
        }, node.accounts[0].address)
        expect(answer.status).toBe(403)
        expect(answer.text).not.toContain('result')
        expect(await state()).toEqual(before)
      } finally {
        await context.close()
      }
    }, 120_000)

    it('a page on http://localhost uses the node as a dapp does: chain id, a send from a dev account, a subscription', async () => {
      const { context, page } = await openPage(`http://localhost:${sitePort}/`)
      const from = node.accounts[1].address
      const nonceBefore = BigInt((await node.rpc('eth_getTransactionCount', [from, 'pending'])).result)
      try {
        const outcome = await page.evaluate(
          async ({ rpcUrl, wsUrl, from, dead }) => {
            const call = async (method: string, params: unknown[] = []) => {
              const res = await fetch(rpcUrl, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
              })
              return ((await res.json()) as { result: string }).result
            }
            const chainId = await call('eth_chainId')
            const hash = await call('eth_sendTransaction', [{ from, to: dead, value: '0x2' }])
            const head = await new Promise<string>((resolve, reject) => {
              const ws = new WebSocket(wsUrl)
              ws.onopen = () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }))
              ws.onmessage = (m) => {
                const msg = JSON.parse(m.data)
                if (msg.method === 'eth_subscription') {
                  resolve(msg.params.result.number)
                  ws.close()
                }
              }
              ws.onerror = () => reject(new Error('ws error'))
            })
            return { chainId, hash, head }
          },
          { rpcUrl: node.rpcUrl, wsUrl: node.wsUrl, from, dead: DEAD },
        )
        expect(outcome.chainId).toBe('0x7a69')
        expect(outcome.hash).toMatch(/^0x[0-9a-f]{64}$/)
        expect(outcome.head).toMatch(/^0x[0-9a-f]+$/)
        // The node has the page's transaction.
        await until(
          async () => (await node.rpc('eth_getTransactionReceipt', [outcome.hash])).result !== null,
          30_000,
          'the receipt',
        )
        expect(BigInt((await node.rpc('eth_getTransactionCount', [from, 'pending'])).result)).toBe(nonceBefore + 1n)
      } finally {
        await context.close()
      }
    }, 120_000)
  },
)
