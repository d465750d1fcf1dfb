// The example app's page in a real browser: Playwright (playwright-core) driving Debian's Chromium against a
// real node and app on 127.0.0.1. (a) The EOA flow without an injected wallet (the node's dev accounts sign
// through eth_requestAccounts / eth_signTypedData_v4); (b) the passkey path with a CDP virtual WebAuthn
// authenticator, for an undeployed smart wallet (ERC-6492). Screenshots go to test-artifacts/.
// Without /usr/bin/chromium (.ci/run installs it with apt) or playwright-core the suite is skipped, saying why.
// (page callbacks run in the browser; this file is type-checked without the DOM lib, hence `(globalThis as any).document`.)
import { existsSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StartedAppServer, startAppServer } from '../src/index.js'
import { useTestNode } from './helpers.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const ARTIFACTS = join(ROOT, 'test-artifacts')
/** Debian's Chromium; PCNODE_CHROMIUM names another build. */
const CHROMIUM = process.env.PCNODE_CHROMIUM ?? '/usr/bin/chromium'
const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
]

function unavailable(): string | undefined {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is missing (apt-get install chromium; .ci/run does it)`
  try {
    createRequire(import.meta.url).resolve('playwright-core')
  } catch {
    return 'playwright-core is not installed (npm ci)'
  }
  return undefined
}

const skipReason = unavailable()
if (skipReason) console.warn(`browser tests skipped: ${skipReason}`)

describe.skipIf(skipReason !== undefined)(
  `the example app's page in Chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    const node = useTestNode({ preconfInterval: 50 })
    let app: StartedAppServer
    let browser: Browser
    let pageUrl: string

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true })
      app = await startAppServer({ rpcUrl: node.rpcUrl, port: 0, host: '127.0.0.1' })
      // WebAuthn wants a secure context and a domain as RP ID: http://localhost is both (127.0.0.1 is no RP ID).
      pageUrl = `http://localhost:${app.port}/`
      const { chromium } = await import('playwright-core')
      browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS, timeout: 90_000 })
    }, 120_000)

    afterAll(async () => {
      await browser?.close()
      await app?.stop()
    })

    /** A fresh context and page that records console errors and page errors, for failure messages. */
    async function openPage(): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
      const context = await browser.newContext({ viewport: { width: 900, height: 1100 } })
      const page = await context.newPage()
      const problems: string[] = []
      page.on('console', (m) => {
        // The browser asks for /favicon.ico, which the app does not serve.
        if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) problems.push(`console: ${m.text()}`)
      })
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
      await page.goto(pageUrl)
      await waitForText(page, '#network', /^chain 31337 · node http:\/\/127\.0\.0\.1:\d+ · verify mode full$/, problems)
      return { context, page, problems }
    }

    /** Waits until the element's text matches; on timeout, fails with what it shows and what the page logged. */
    async function waitForText(page: Page, selector: string, pattern: RegExp, problems: string[], timeout = 60_000) {
      try {
        await page.waitForFunction(
          ([sel, source, flags]) =>
            new RegExp(source, flags).test((globalThis as any).document.querySelector(sel)?.textContent ?? ''),
          [selector, pattern.source, pattern.flags] as const,
          { timeout, polling: 50 },
        )
      } catch (error) {
        const shown = await page.textContent(selector).catch(() => '?')
        throw new Error(
          `${selector} never matched ${pattern}: it shows ${JSON.stringify(shown)}\n${problems.join('\n')}\n${error}`,
        )
      }
      return (await page.textContent(selector)) ?? ''
    }

    it('EOA without an injected wallet: connect → prepare → sign → verify shows 200, a replay 400', async () => {
      const { context, page, problems } = await openPage()
      try {
        expect(await page.textContent('#wallet-kind')).toBe("No injected wallet: using the node's dev accounts")
        await page.click('#connect')
        await waitForText(page, '#result', /^Connected 10 account\(s\)$/, problems)
        const signer = await page.inputValue('#account')
        expect(signer).toBe(node.accounts[0].address)

        await page.fill('#action', 'write')
        await page.fill('#resource', '/browser/eoa')
        await page.click('#prepare')
        await waitForText(page, '#result', /^Prepared: nonce \d+$/, problems)
        const payload = JSON.parse((await page.textContent('#payload')) ?? '{}')
        expect(payload.message).toMatchObject({ user: signer, action: 'write', resource: '/browser/eoa' })

        await page.click('#sign')
        await waitForText(page, '#result', /^Signed by 0x/, problems)
        expect(await page.textContent('#signature')).toMatch(/^0x[0-9a-f]{130}$/)

        await page.click('#verify')
        const text = await waitForText(page, '#result', /^\d{3} /, problems)
        await page.screenshot({ path: join(ARTIFACTS, 'browser-eoa.png'), fullPage: true })
        expect(text).toBe('200 Typed data verified successfully · action write on /browser/eoa')
        expect(await page.getAttribute('#result', 'class')).toBe('ok')

        // The same signed payload again: the nonce is used.
        await page.evaluate(() => {
          ;(globalThis as any).document.getElementById('result').textContent = ''
        })
        await page.click('#verify')
        expect(await waitForText(page, '#result', /^\d{3} /, problems)).toBe('400 Nonce already used')
        expect(await page.getAttribute('#result', 'class')).toBe('bad')
        await page.screenshot({ path: join(ARTIFACTS, 'browser-eoa-replay.png'), fullPage: true })
        // The replay's 400 is logged by the browser as a failed resource load; nothing else went wrong.
        expect(problems.filter((p) => !p.includes('status of 400 (Bad Request)'))).toEqual([])
      } finally {
        await context.close()
      }
    }, 120_000)

    it('passkey smart wallet (virtual WebAuthn authenticator): the undeployed wallet verifies with 200', async () => {
      const { context, page, problems } = await openPage()
      try {
        const cdp = await context.newCDPSession(page)
        await cdp.send('WebAuthn.enable')
        const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
          options: {
            protocol: 'ctap2',
            transport: 'internal',
            hasResidentKey: true,
            hasUserVerification: true,
            isUserVerified: true,
          },
        })

        await page.click('#connect')
        await waitForText(page, '#result', /^Connected /, problems)
        await page.fill('#action', 'sign-in')
        await page.fill('#resource', '/browser/passkey')
        await page.click('#passkey')
        const text = await waitForText(page, '#result', /^(\d{3} |Passkey flow failed)/, problems)
        await page.screenshot({ path: join(ARTIFACTS, 'browser-passkey.png'), fullPage: true })
        expect(text).toBe('200 Typed data verified successfully · action sign-in on /browser/passkey')
        expect(await page.getAttribute('#result', 'class')).toBe('ok')

        // The authenticator made one credential and used it once (create, then get).
        const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
        expect(credentials).toHaveLength(1)
        expect(credentials[0].rpId).toBe('localhost')
        expect(credentials[0].signCount).toBeGreaterThanOrEqual(1)

        // The signer was the wallet's counterfactual address, still undeployed: the signature was ERC-6492-wrapped.
        const payload = JSON.parse((await page.textContent('#payload')) ?? '{}')
        const wallet = payload.message.user as `0x${string}`
        expect(wallet).not.toBe(node.accounts[0].address)
        expect(await node.publicClient.getCode({ address: wallet })).toBeUndefined()
        expect(await page.textContent('#signature')).toMatch(/6492649264926492649264926492649264926492649264926492649264926492$/)
        expect(problems).toEqual([])
      } finally {
        await context.close()
      }
    }, 120_000)
  },
)
