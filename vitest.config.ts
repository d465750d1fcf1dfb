import { configDefaults, defineConfig } from 'vitest/config'

// Two projects. `quick`: the everyday loop (`npx vitest run --project quick`). `slow`: the tests
// that spawn many processes (the built CLI), SIGKILL the node or drive a browser. A plain
// `vitest run` (npm test) runs both, each file once.
const SLOW = [
  'test/state-file.test.ts',
  'test/browser.test.ts',
  'test/browser-origin.test.ts',
  'test/explorer.test.ts',
  'test/explorer-decode.test.ts',
  'test/ws-backlog.test.ts',
  'test/cli-send.test.ts',
  'test/cli-rpc-url.test.ts',
  'test/cli-trace.test.ts',
  'test/cli-start.test.ts',
  'test/cli-simulate.test.ts',
  'test/cli-typed-data.test.ts',
  'test/cli-wallet.test.ts',
  'test/tracing.test.ts',
  'test/tracer-worker.test.ts',
  'test/fixture-app.test.ts',
  'test/denim-clients.test.ts',
  'test/denim-fork.test.ts',
  'test/bundler-alto.test.ts',
  'test/bundler-reputation.test.ts',
]

const common = { testTimeout: 30_000, hookTimeout: 30_000, pool: 'forks' } as const

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...common,
          name: 'quick',
          include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SLOW],
        },
      },
      {
        test: {
          ...common,
          name: 'slow',
          include: SLOW,
          // Builds dist/ for the CLI tests, the only ones that run it: once per run that includes
          // this project, before any test file of either project starts. (Not inherited through
          // `extends: true`, which would run it once per project.)
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
})
