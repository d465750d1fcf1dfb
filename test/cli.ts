// Running the pcnode command line in tests: the built CLI (test/global-setup.ts builds dist/ once
// before any test file runs) or the sources through tsx.
import { execFile } from 'node:child_process'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const BIN = join(ROOT, 'bin', 'pcnode.js')

export interface Run {
  code: number
  stdout: string
  stderr: string
}

/** Runs `node <lead...> <args...>` in the repo; never rejects: the exit code is in the result. */
export function runNode(lead: string[], args: string[], timeoutMs = 30_000): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [...lead, ...args],
      { cwd: ROOT, timeout: timeoutMs, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    )
  })
}

/** The built CLI, as a user runs it. */
export const pcnode = (args: string[], timeoutMs?: number) => runNode([BIN], args, timeoutMs)

/** What a built module loads (the CLI tests check that commands keep the engine out). */
export { importGraph } from './imports.js'
