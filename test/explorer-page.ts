// The explorer page in Chromium, as the browser tests open it: launched before a describe's tests and
// closed after them, recording what the page logged as errors and every URL it requested (so a test can
// assert it stayed on the node), with the steps the tests share (waiting for a text, the search box).
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect } from 'vitest'
import { CHROMIUM, LAUNCH_ARGS, waitForText } from './chromium.js'

export interface ExplorerPage {
  browser: Browser
  /** The node's page at GET /, in a 1000 × 1000 viewport. */
  page: Page
  /** The page's console errors and uncaught exceptions. */
  problems: string[]
  /** Every URL the page requested, its WebSockets included. */
  requests: string[]
  /** The element's text once it matches `pattern` (chromium.ts waitForText, with what the page logged). */
  waitForText(selector: string, pattern: RegExp, timeout?: number): Promise<string>
  /** Submits `q` through the page's search box. */
  searchFor(q: string): Promise<void>
  /** The page logged no error and sent every request (data: URLs aside) to the node itself. */
  expectQuietAndLocal(): void
}

/**
 * Opens `node`'s explorer page before the describe's tests (after `node` has started: call it after
 * useTestNode) and closes the browser after them.
 */
export function useExplorerPage(node: { rpcUrl: string }): ExplorerPage {
  const explorer: ExplorerPage = {
    browser: undefined as never,
    page: undefined as never,
    problems: [],
    requests: [],
    waitForText: (selector, pattern, timeout) => waitForText(explorer.page, selector, pattern, explorer.problems, timeout),
    async searchFor(q) {
      await explorer.page.fill('#q', q)
      await explorer.page.click('#search button')
    },
    expectQuietAndLocal() {
      expect(explorer.problems).toEqual([])
      const origin = new URL(node.rpcUrl)
      expect(explorer.requests.length).toBeGreaterThan(2)
      const away = explorer.requests.filter((url) => {
        const u = new URL(url)
        return u.protocol !== 'data:' && u.host !== origin.host
      })
      expect(away).toEqual([])
    },
  }

  beforeAll(async () => {
    const { chromium } = await import('playwright-core')
    explorer.browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS, timeout: 90_000 })
    const context = await explorer.browser.newContext({ viewport: { width: 1000, height: 1000 } })
    context.on('request', (r) => explorer.requests.push(r.url()))
    const page = await context.newPage()
    explorer.page = page
    page.on('websocket', (ws) => explorer.requests.push(ws.url()))
    page.on('console', (m) => {
      if (m.type() === 'error') explorer.problems.push(`console: ${m.text()}`)
    })
    page.on('pageerror', (e) => explorer.problems.push(`pageerror: ${e.message}`))
    await page.goto(`${node.rpcUrl}/`)
  }, 120_000)

  afterAll(async () => {
    await explorer.browser?.close()
  })

  return explorer
}
