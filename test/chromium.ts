// Chromium for the browser tests: Debian's build driven by playwright-core, headless, with no
// background networking (the machine's closed network refuses it), and why it is unavailable.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

/** Debian's Chromium; PCNODE_CHROMIUM names another build. */
export const CHROMIUM = process.env.PCNODE_CHROMIUM ?? '/usr/bin/chromium'

export const LAUNCH_ARGS: string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
]

/** Why the browser tests cannot run here, or undefined when they can. */
export function chromiumUnavailable(): string | undefined {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is missing (apt-get install chromium; .ci/run does it)`
  try {
    createRequire(import.meta.url).resolve('playwright-core')
  } catch {
    return 'playwright-core is not installed (npm ci)'
  }
  return undefined
}

/** Waits until the element's text matches; on timeout, fails with what it shows and what the page logged. */
export async function waitForText(
  page: Page,
  selector: string,
  pattern: RegExp,
  problems: string[],
  timeout = 60_000,
): Promise<string> {
  try {
    await page.waitForFunction(
      ([sel, source, flags]) =>
        new RegExp(source, flags).test((globalThis as any).document.querySelector(sel)?.textContent ?? ''),
      [selector, pattern.source, pattern.flags] as const,
      { timeout, polling: 50 },
    )
  } catch (error) {
    const shown = await page.textContent(selector).catch(() => '?')
    throw new Error(`${selector} never matched ${pattern}: it shows ${JSON.stringify(shown)}\n${problems.join('\n')}\n${error}`)
  }
  return (await page.textContent(selector)) ?? ''
}
