// Bundles the compiled CLI and library, dependencies included, into dist/bundle/ (the package's
// entry points; `npm run build` runs tsc, then this). Unbundled, starting pcnode has Node resolve,
// read and compile over a thousand ES module files (ethereumjs and viem are hundreds of small
// ones), which more than doubles the time until the engine is ready and costs memory at start
// (docs/performance.md has the figures). Code shared by the two entries goes in chunks; dynamic
// imports stay lazy.
import { build } from 'esbuild'

await build({
  // The JS tracers' worker thread is an entry of its own: tracing/remote-sandbox.ts loads it from
  // beside itself by that name.
  entryPoints: { index: 'dist/index.js', cli: 'dist/cli/index.js', 'sandbox-worker': 'dist/node/tracing/sandbox-worker.js' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Native code: loaded from node_modules at run time (engine/crypto.ts falls back without it).
  external: ['secp256k1'],
  // CommonJS dependencies inside an ES module bundle call require() for Node's built-ins.
  banner: {
    js: "import { createRequire as __pcnodeRequire } from 'node:module'; const require = __pcnodeRequire(import.meta.url);",
  },
  sourcemap: 'linked',
  logLevel: 'warning',
})
