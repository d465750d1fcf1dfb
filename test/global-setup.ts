// Builds dist/ once before the test files run, so the CLI tests run what a user runs and no two
// test files write dist/ at the same time. The global setup of the `slow` project (vitest.config.ts),
// where the tests that run dist/ are.
import { spawnSync } from 'node:child_process'
import { ROOT } from './cli.js'

export default function setup(): void {
  const run = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`the build failed:\n${run.stdout}${run.stderr}`)
}
