// Chromium for the browser tests: Debian's build driven by playwright-core, headless, with no
// background networking (the machine's closed network refuses it), and why it is unavailable.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'

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
