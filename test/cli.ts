// Running the pcnode command line in tests: the built CLI (test/global-setup.ts builds dist/ once
// before any test file runs) or the sources through tsx.
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
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

/** Relative imports of a built module followed transitively; `staticOnly` skips import() expressions. */
export function importGraph(entry: string, staticOnly = false): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string) => {
    if (files.has(file)) return
    files.add(file)
    const source = readFileSync(file, 'utf8')
    for (const m of source.matchAll(/(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
      const spec = m[1] ?? m[2]
      if (staticOnly && m[2]) continue
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec))
      else packages.add(spec)
    }
  }
  visit(entry)
  return { files, packages }
}
