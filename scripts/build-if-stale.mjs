#!/usr/bin/env node
// The prepare step's build, skipped when dist/ is newer than everything it is built from. npm runs
// prepare at every `npm install` in a project that links pcnode by path (and at every `npm ci`
// here); a build that changes nothing costs half a minute each time. Any newer source, patch,
// build script, TypeScript config or lock file (a dependency changed) builds again.
import { execFileSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const built = join(root, 'dist', 'bundle', 'cli.js')
const inputs = [
  'src',
  'patches',
  'scripts/bundle.mjs',
  'tsconfig.json',
  'tsconfig.build.json',
  'package-lock.json',
  'package.json',
]

/** The newest modification time under `path` (a file or a folder), 0 when it is absent. */
function newest(path) {
  let stat
  try {
    stat = statSync(path)
  } catch {
    return 0
  }
  if (!stat.isDirectory()) return stat.mtimeMs
  return readdirSync(path).reduce((max, name) => Math.max(max, newest(join(path, name))), stat.mtimeMs)
}

const builtAt = newest(built)
const sourcesAt = Math.max(...inputs.map((input) => newest(join(root, input))))
if (builtAt > 0 && builtAt > sourcesAt && process.env.PCNODE_FORCE_BUILD === undefined) {
  console.log('pcnode: dist/ is newer than its sources; not building again (PCNODE_FORCE_BUILD=1 npm run prepare builds)')
} else {
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
}
