// What a run ran on (the report's first line and --json's "machine"), and whether dist/ is older
// than src/ (pcnode is started from dist/).
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { ROOT } from './procs.mjs'
import { round } from './stats.mjs'

export function machine(opts) {
  let anvilVersion = 'n/a'
  try {
    anvilVersion = execFileSync(opts.anvil, ['--version'], { timeout: 10_000 }).toString().split('\n')[0].trim()
  } catch {}
  let commit = null
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      timeout: 5000,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim()
  } catch {}
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  return {
    cores: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? null,
    memGiB: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    anvil: anvilVersion,
    pcnode: `${pkg.version}${commit ? ` (${commit})` : ''}`,
    loadavg: os.loadavg().map((x) => round(x)),
    platform: `${os.platform()} ${os.release()}`,
  }
}

/** Newest mtime under a directory (bounded walk), to warn when dist/ is older than src/. */
export function newestMtime(dir, depth = 0) {
  let t = 0
  if (depth > 6 || !existsSync(dir)) return t
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) t = Math.max(t, newestMtime(p, depth + 1))
    else t = Math.max(t, statSync(p).mtimeMs)
  }
  return t
}
