// The example app's page in a real browser: Playwright (playwright-core) driving Debian's Chromium against a
// real node and app. (a) The EOA flow without an injected wallet (the node's dev accounts sign through
// eth_requestAccounts / eth_signTypedData_v4): the prepared message's fields come before the raw JSON, and
// each verify answer is named as the app's nonce state table names it, with what to do next; (b) the page
// on 127.0.0.1, where the passkey button explains that WebAuthn needs a domain and links to localhost; (c) a
// 375 px phone screen without horizontal scrolling; (d) the answers a page cannot cause (an expired payload,
// a missing field: requests rewritten in flight) and verify mode simple; (e) the passkey path with a CDP virtual
// WebAuthn authenticator, for an undeployed smart wallet (ERC-6492). Every test checks that the page logged no error
// and sent no request beyond this machine. Screenshots go to test-artifacts/.
// Without /usr/bin/chromium (.ci/run installs it with apt) or playwright-core the suite is skipped, saying why.
// (page callbacks run in the browser; this file is type-checked without the DOM lib, hence `(globalThis as any).document`.)
import { mkdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StartedAppServer, startAppServer } from '../src/index.js'
import { CHROMIUM, chromiumUnavailable, LAUNCH_ARGS, waitForText } from './chromium.js'
import { useTestNode } from './helpers.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const ARTIFACTS = join(ROOT, 'test-artifacts')
const PHONE = { width: 375, height: 812 }

const skipReason = chromiumUnavailable()
if (skipReason) console.warn(`browser tests skipped: ${skipReason}`)

describe.skipIf(skipReason !== undefined)(
  `the example app's page in Chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    const node = useTestNode({ preconfInterval: 50 })
    let app: StartedAppServer
    let browser: Browser
    let localhostUrl: string
    let ipUrl: string

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true })
      app = await startAppServer({ rpcUrl: node.rpcUrl, port: 0, host: '127.0.0.1' })
      // WebAuthn wants a secure context and a domain as RP ID: http://localhost is both (127.0.0.1 is no RP ID).
      localhostUrl = `http://localhost:${app.port}/`
      ipUrl = `http://127.0.0.1:${app.port}/`
      const { chromium } = await import('playwright-core')
      browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS, timeout: 90_000 })
    }, 120_000)

    afterAll(async () => {
      await browser?.close()
      await app?.stop()
    })

    interface Opened {
      context: BrowserContext
      page: Page
      /** Console errors and page errors. */
      problems: string[]
      /** Every URL the page's context requested. */
      requests: string[]
    }

    /** A fresh context and page that records console errors, page errors and every request. */
    async function openPage(url = localhostUrl, viewport = { width: 900, height: 1100 }, mode = 'full'): Promise<Opened> {
      const context = await browser.newContext({ viewport })
      const requests: string[] = []
      context.on('request', (r) => requests.push(r.url()))
      const page = await context.newPage()
      const problems: string[] = []
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console: ${m.text()} (${m.location().url})`)
      })
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
      await page.goto(url)
      await waitForText(
        page,
        '#network',
        new RegExp(`^chain 31337 · node http://127\\.0\\.0\\.1:\\d+ · verify mode ${mode}$`),
        problems,
      )
      return { context, page, problems, requests }
    }

    /** Nothing left this machine: every request went to the app or the node, on 127.0.0.1 or localhost. */
    function expectOnlyLocalRequests(requests: string[]) {
      expect(requests.length).toBeGreaterThan(0)
      const away = requests.filter((url) => {
        const { protocol, hostname } = new URL(url)
        return protocol === 'data:' ? false : !['127.0.0.1', 'localhost'].includes(hostname)
      })
      expect(away).toEqual([])
    }

    /** The page is no wider than the viewport: no horizontal scrolling. */
    async function expectNoHorizontalScroll(page: Page, width: number) {
      const scrollWidth = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)
      expect(scrollWidth).toBeLessThanOrEqual(width)
    }

    /** The outcome box's parts, once it shows an answer with this status. */
    async function outcome(page: Page, status: number | '—', problems: string[]) {
      await waitForText(page, '#outcome-status', new RegExp(`^${status}$`), problems)
      const text = async (id: string) => (await page.textContent(`#outcome-${id}`)) ?? ''
      return {
        title: await text('title'),
        answer: await text('answer'),
        explain: await text('explain'),
        nonce: await text('nonce'),
        next: await text('next'),
        className: await page.getAttribute('#outcome', 'class'),
      }
    }

    /** Connect the dev accounts and prepare a payload for the selected one; returns the payload shown. */
    async function connectAndPrepare(page: Page, problems: string[], action: string, resource: string) {
      await page.click('#connect')
      await waitForText(page, '#account-status', /^Connected 10 account\(s\)\. The selected one signs\.$/, problems)
      await page.fill('#action', action)
      await page.fill('#resource', resource)
      await page.click('#prepare')
      await waitForText(page, '#prepare-status', /^Prepared for 0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}: nonce \d+$/, problems)
      return JSON.parse((await page.textContent('#payload')) ?? '{}')
    }

    /** Sets the outcome status aside so the next wait sees the new answer, then presses Verify. */
    async function verify(page: Page) {
      await page.evaluate(() => {
        ;(globalThis as any).document.getElementById('outcome-status').textContent = ''
      })
      await page.click('#verify')
    }

    it('EOA: the message fields come first; verify names the outcome, then "nonce already used", then another signer', async () => {
      const { context, page, problems, requests } = await openPage()
      try {
        expect(await page.textContent('#wallet-kind')).toMatch(/^No injected wallet: the page uses the node’s dev accounts/)
        const payload = await connectAndPrepare(page, problems, 'write', '/browser/eoa')
        const signer = node.accounts[0].address
        expect(await page.inputValue('#account')).toBe(signer)
        expect(payload.message).toMatchObject({ user: signer, action: 'write', resource: '/browser/eoa' })

        // The fields, readable, before the raw JSON, which starts collapsed.
        const field = async (name: string) => (await page.textContent(`#field-${name} .value`)) ?? ''
        expect(await field('user')).toBe(signer)
        expect(await field('action')).toBe('write')
        expect(await field('resource')).toBe('/browser/eoa')
        expect(await field('nonce')).toBe(payload.message.nonce)
        expect(await field('expiry')).toMatch(new RegExp(`\\(in (59|60) min; Unix ${payload.message.expiry}\\)$`))
        expect(await field('domain')).toBe(
          'pcnode Example App v1 · chain 31337 · contract 0x00000000000000000000000000000000000A11cE',
        )
        expect(await page.isVisible('#payload')).toBe(false)
        const expiryBox = await page.locator('#field-expiry').boundingBox()
        const rawBox = await page.locator('#prepared details').boundingBox()
        expect(expiryBox!.y).toBeLessThan(rawBox!.y)
        // On screen without scrolling (900×1100): the part a user cares about is above the fold.
        expect(expiryBox!.y + expiryBox!.height).toBeLessThan(1100)
        await page.click('#prepared summary')
        expect(await page.isVisible('#payload')).toBe(true)

        await page.click('#sign')
        await waitForText(page, '#sign-status', new RegExp(`^Signed by ${signer}$`), problems)
        expect(await page.textContent('#signature')).toMatch(/^0x[0-9a-f]{130}$/)

        await verify(page)
        const valid = await outcome(page, 200, problems)
        await page.screenshot({ path: join(ARTIFACTS, 'browser-eoa.png'), fullPage: true })
        expect(valid).toEqual({
          title: 'Valid',
          answer: '200 Typed data verified successfully · action write on /browser/eoa',
          explain: `The signature is ${signer}’s over exactly this payload, and the payload has not expired. The app marked its nonce used: a signed payload is accepted once.`,
          nonce: 'Nonce: unused → used',
          next: 'Next: Press Verify again: the same signed payload is now refused as a replay. Or prepare a new one.',
          className: 'outcome ok',
        })

        // The same signed payload again: the nonce is used.
        await verify(page)
        const replay = await outcome(page, 400, problems)
        await page.screenshot({ path: join(ARTIFACTS, 'browser-eoa-replay.png'), fullPage: true })
        expect(replay).toEqual({
          title: 'Nonce already used',
          answer: '400 Nonce already used',
          explain: `This payload’s nonce was already accepted for ${signer}: each signed payload is accepted once, so a copy of it (a replay) is refused and nothing changes.`,
          nonce: 'Nonce: used (unchanged)',
          next: 'Next: Prepare a new payload (it gets a fresh nonce), sign it, and verify that.',
          className: 'outcome warn',
        })

        // Account 1 signs account 0's payload: a valid signature, by the wrong user.
        const other = node.accounts[1].address
        await page.selectOption('#account', other)
        await page.click('#sign')
        await waitForText(page, '#sign-status', /: not the payload’s user \(0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}\)\. Verify/, problems)
        await verify(page)
        const wrongSigner = await outcome(page, 401, problems)
        expect(wrongSigner.title).toBe('Invalid signature: another signer')
        expect(wrongSigner.answer).toBe(`401 Invalid signature: signed by ${other}, but the payload is for ${signer}`)
        expect(wrongSigner.explain).toBe(
          `The signature really is ${other}’s, but the payload was prepared for ${signer}: an authorization counts only from the user it names.`,
        )
        expect(wrongSigner.next).toBe(
          `Next: Choose ${signer} as the signer and sign again, or prepare a new payload for ${other}.`,
        )
        expect(wrongSigner.className).toBe('outcome bad')
        expect(await page.locator('#history li').allTextContents()).toEqual([
          expect.stringMatching(/ · 401 Invalid signature: another signer · nonce …\d{6} · signer 0x7099…79C8$/),
          expect.stringMatching(/ · 400 Nonce already used · nonce …\d{6} · signer 0xf39F…2266$/),
          expect.stringMatching(/ · 200 Valid · nonce …\d{6} · signer 0xf39F…2266$/),
        ])

        // Chromium logs each non-2xx response as a failed resource load; those are the 400 and the 401 above.
        // Nothing else was logged: no script error, no favicon miss.
        const verifyUrl = `${localhostUrl}typed-data/verify`
        expect(problems).toEqual([
          `console: Failed to load resource: the server responded with a status of 400 (Bad Request) (${verifyUrl})`,
          `console: Failed to load resource: the server responded with a status of 401 (Unauthorized) (${verifyUrl})`,
        ])
        expectOnlyLocalRequests(requests)
        expect(requests).toContain(verifyUrl)
      } finally {
        await context.close()
      }
    }, 120_000)

    it('on 127.0.0.1 the passkey button says WebAuthn needs a domain and links to the page on localhost', async () => {
      const { context, page, problems, requests } = await openPage(ipUrl, PHONE)
      try {
        expect(await page.isDisabled('#passkey')).toBe(true)
        expect(await page.isVisible('#passkey-note')).toBe(true)
        expect(await page.textContent('#passkey-note')).toBe(
          'Passkeys need a domain name: WebAuthn does not accept an IP address such as 127.0.0.1 as the site a passkey ' +
            'belongs to (the browser says "This is an invalid domain."). Open this page on localhost instead: ' +
            localhostUrl,
        )
        expect(await page.getAttribute('#localhost-link', 'href')).toBe(localhostUrl)
        await page.locator('#passkey-note').scrollIntoViewIfNeeded()
        await page.screenshot({ path: join(ARTIFACTS, 'browser-passkey-on-127.png'), fullPage: true })
        await expectNoHorizontalScroll(page, PHONE.width)

        // The link leads to the same page on localhost, where the passkey path is open.
        await page.click('#localhost-link')
        await page.waitForURL(localhostUrl)
        await waitForText(page, '#network', /^chain 31337 /, problems)
        expect(await page.isDisabled('#passkey')).toBe(false)
        expect(await page.isVisible('#passkey-note')).toBe(false)
        expect(problems).toEqual([])
        expectOnlyLocalRequests(requests)
      } finally {
        await context.close()
      }
    }, 120_000)

    it('at 375 px (a phone) the whole flow fits the width: no horizontal scrolling', async () => {
      const { context, page, problems, requests } = await openPage(localhostUrl, PHONE)
      try {
        await expectNoHorizontalScroll(page, PHONE.width)
        await connectAndPrepare(page, problems, 'read', '/reports/2026/a-rather-long-resource-name-that-must-wrap')
        await page.click('#prepared summary')
        await expectNoHorizontalScroll(page, PHONE.width)
        await page.click('#sign')
        await waitForText(page, '#sign-status', /^Signed by 0x/, problems)
        await verify(page)
        expect((await outcome(page, 200, problems)).title).toBe('Valid')
        await page.screenshot({ path: join(ARTIFACTS, 'browser-phone.png'), fullPage: true })
        await expectNoHorizontalScroll(page, PHONE.width)
        expect(problems).toEqual([])
        expectOnlyLocalRequests(requests)
      } finally {
        await context.close()
      }
    }, 120_000)

    it('answers the page cannot cause (rewritten in flight): expired → 400 Expired, no address → 400 Missing or invalid field, no answer', async () => {
      const { context, page, problems, requests } = await openPage()
      try {
        const payload = await connectAndPrepare(page, problems, 'read', '/browser/rewritten')
        await page.click('#sign')
        await waitForText(page, '#sign-status', /^Signed by 0x/, problems)
        // Each verify request is changed on its way to the app, as a stale or broken client would send it.
        let rewrite: (body: any) => void = () => {}
        await page.route('**/typed-data/verify', (route) => {
          const body = JSON.parse(route.request().postData() ?? '{}')
          rewrite(body)
          return route.continue({ postData: JSON.stringify(body) })
        })

        const past = Math.floor(Date.now() / 1000) - 120
        rewrite = (body) => {
          body.typedData.message.expiry = past
        }
        await verify(page)
        const expired = await outcome(page, 400, problems)
        expect(expired.title).toBe('Expired')
        expect(expired.answer).toBe('400 Signature expired')
        // The page explains with the expiry it prepared (the request's was rewritten).
        expect(expired.explain).toMatch(
          new RegExp(
            `^The payload’s expiry, .* \\(in (59|60) min; Unix ${payload.message.expiry}\\), has passed: a prepared payload is valid for one hour\\.`,
          ),
        )
        expect(expired.nonce).toBe('Nonce: unused (unchanged)')
        expect(expired.next).toBe('Next: Prepare a new payload and sign it.')

        rewrite = (body) => {
          delete body.address
        }
        await verify(page)
        const missing = await outcome(page, 400, problems)
        expect(missing).toMatchObject({
          title: 'Missing or invalid field',
          answer: '400 Missing or invalid field: address',
          explain: 'The request was refused before any check: address.',
          nonce: 'Nonce: unchanged (nothing was verified)',
          className: 'outcome warn',
        })

        // The request never reaches the app.
        await page.unroute('**/typed-data/verify')
        await page.route('**/typed-data/verify', (route) => route.abort())
        await verify(page)
        expect(await outcome(page, '—', problems)).toMatchObject({
          title: 'No answer',
          answer: expect.stringMatching(/^The app did not answer: /),
          explain: 'The request did not reach the app: is pcnode (and its app) still running?',
          className: 'outcome bad',
        })

        // The nonce was never used: the request as signed still verifies.
        await page.unroute('**/typed-data/verify')
        await verify(page)
        expect((await outcome(page, 200, problems)).title).toBe('Valid')
        expect(problems).toHaveLength(3)
        for (const problem of problems.slice(0, 2))
          expect(problem).toMatch(/status of 400 \(Bad Request\) \(.*\/typed-data\/verify\)$/)
        expect(problems[2]).toMatch(/^console: Failed to load resource: net::ERR_FAILED \(.*\/typed-data\/verify\)$/)
        expectOnlyLocalRequests(requests)
      } finally {
        await context.close()
      }
    }, 120_000)

    it('verify mode simple: the page says nonces are not tracked, and a second verify is valid again', async () => {
      const simple = await startAppServer({ rpcUrl: node.rpcUrl, port: 0, host: '127.0.0.1', verifyMode: 'simple' })
      const { context, page, problems, requests } = await openPage(`http://localhost:${simple.port}/`, undefined, 'simple')
      try {
        expect(await page.textContent('#verify-checks')).toBe(
          'Verify mode simple: the app checks the signature, then the expiry; it keeps no nonces.',
        )
        await connectAndPrepare(page, problems, 'read', '/browser/simple')
        await page.click('#sign')
        await waitForText(page, '#sign-status', /^Signed by 0x/, problems)
        for (let i = 0; i < 2; i++) {
          await verify(page)
          expect(await outcome(page, 200, problems)).toMatchObject({
            title: 'Valid',
            answer: '200 Signature verified successfully · action read on /browser/simple',
            nonce: 'Nonce: not tracked (verify mode simple)',
            next: 'Next: Start pcnode with --verify-mode full to see replay protection.',
          })
        }
        expect(await page.locator('#history li').count()).toBe(2)
        expect(problems).toEqual([])
        expectOnlyLocalRequests(requests)
      } finally {
        await context.close()
        await simple.stop()
      }
    }, 120_000)

    it('passkey smart wallet (virtual WebAuthn authenticator): the undeployed wallet verifies with 200', async () => {
      const { context, page, problems, requests } = await openPage()
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

        // No "Connect wallet" first: the passkey path does not use the connected account.
        expect(await page.isVisible('#passkey-note')).toBe(false)
        await page.fill('#action', 'sign-in')
        await page.fill('#resource', '/browser/passkey')
        await page.click('#passkey')
        const done = await waitForText(page, '#passkey-status', /^(Signed by the passkey|Passkey flow failed)/, problems)
        expect(done).toMatch(/^Signed by the passkey for wallet 0x[0-9a-fA-F]{40} \(an ERC-6492-wrapped signature/)
        const valid = await outcome(page, 200, problems)
        await page.screenshot({ path: join(ARTIFACTS, 'browser-passkey.png'), fullPage: true })
        expect(valid.title).toBe('Valid')
        expect(valid.answer).toBe('200 Typed data verified successfully · action sign-in on /browser/passkey')

        // The authenticator made one credential and used it once (create, then get).
        const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
        expect(credentials).toHaveLength(1)
        expect(credentials[0].rpId).toBe('localhost')
        expect(credentials[0].signCount).toBeGreaterThanOrEqual(1)

        // The signer was the wallet's counterfactual address, still undeployed: the signature was ERC-6492-wrapped.
        const payload = JSON.parse((await page.textContent('#payload')) ?? '{}')
        const wallet = payload.message.user as `0x${string}`
        expect(wallet).not.toBe(node.accounts[0].address)
        expect(await page.textContent('#field-user .value')).toBe(wallet)
        expect(valid.explain).toContain(`The signature is ${wallet}’s over exactly this payload`)
        expect(await node.publicClient.getCode({ address: wallet })).toBeUndefined()
        expect(await page.textContent('#signature')).toMatch(/6492649264926492649264926492649264926492649264926492649264926492$/)
        expect(problems).toEqual([])
        expectOnlyLocalRequests(requests)
      } finally {
        await context.close()
      }
    }, 120_000)
  },
)
