#!/usr/bin/env node
// `npm run bench`: pcnode and anvil side by side on this machine, in one run, as ratios.
//
//   node bench/bench.mjs [--quick] [--only boot,latency,throughput,burst,estimate,simulate,trace,memory,scale,fork]
//                        [--json out.json] [--anvil PATH] [--pcnode-node-args "--cpu-prof ..."]
//                        [--no-anvil] [--burst-bound-s S] [--report-from results.json] [--help]
//
// Plain Node ESM; depends on viem (signing, keccak) and node built-ins. Every node is started
// fresh for each scenario and configuration, on a free loopback port, and stopped (by PID) before
// the next one starts; every loop is bounded in count and in time. JSON-RPC goes over node:http
// with a keep-alive agent (Node 20's fetch costs ~1.7 ms of client CPU per request, which would
// make this script the bottleneck; idea from ../shared/bench/rpcbench.mjs).
//
// Figures (issue 2, "Done when"):
//   boot        spawn -> first answered eth_chainId (and -> first eth_getBalance), median of 5 each
//   latency     send -> first poll (1 ms, start to start) returning a receipt; 100 sequential
//               transfers at random times: p50/p99. The send times are stratified over the 200 ms
//               cycle (one random instant in each 2 ms slot of the wall clock's 200 ms phase, in
//               random order), so the sends cover every phase of a node's 200 ms cadence evenly
//               and the p50 is not at the mercy of 100 independent draws (their p50 alone
//               scatters by about +-10 ms).
//   throughput  2,000 pre-signed transfers from one dev account, consecutive nonces, 32 in flight:
//               acceptance rate, time until every receipt is served, losses, RSS; and the same
//               sends to a no-op node:http server, the ceiling of any Node.js server here
//   burst       10,000 pre-signed transfers from 32 funded senders, 32 in flight: drains or stalls
//   estimate    eth_estimateGas (transfer; ~200k-gas deployment) and eth_call of a view: medians of 200;
//               the transfer and the view again after 1,000 more ("warm": a JIT runtime's steady state);
//               eth_call of a keccak×1000 loop (state override), 16 in flight for 5 s: calls/s and
//               the node's CPU per call; the view call's floor, a no-op node:http server, fresh and warm
//               (the warm one first: it warms this client for both nodes)
//   simulate    eth_simulateV1, 1 block x 100 transfers: median of 50 ("n/a" on -32601), and again
//               after 300 more ("warm")
//   trace       debug_traceTransaction of one ~200k-gas, ~54k-step transaction (the looping
//               deployment below): callTracer and the struct logger (anvil with --steps-tracing),
//               medians of 20
//   scale       bench/scale.mjs: 100,000 accounts, 1,000,000 storage slots, 100,000 empty blocks
//               (10x fewer with --quick), each phase bounded: times, RSS, read and call p50s
//   memory      an idle node sealing an empty block every 20 ms for 60 s (after 10 s): RSS growth
//               per block, also with a 256-block --state-history so pruning shows within the run
//   fork        `pcnode start --fork-url` beside `anvil --fork-url`, both forking one local anvil
//               upstream (a token and a counter deployed on it) through a proxy that adds 50 ms to
//               every request, as a remote RPC would: start time, a workload's wall time (20 calls
//               and 10 impersonated token transfers against the upstream's contracts) and the
//               upstream requests, each with a cold and then a warm disk cache; and RSS per
//               thousand accounts touched (2,000 eth_getBalance of new addresses, no proxy)
//
// Rows with an aim say "met" or "MISSED" at the end, and the report's last line counts them. The
// estimate, simulate and scale aims are issue 18's, as pcnode/anvil ratios of the same run.

import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { burstSet, DEV, signedSet } from './lib/accounts.mjs'
import { log, short } from './lib/log.mjs'
import { CONFIGS, DEFAULT_ANVIL, killAllNow, ROOT } from './lib/procs.mjs'
import { now, round } from './lib/stats.mjs'
import { buildReport } from './report/report.mjs'
import * as boot from './scenarios/boot.mjs'
import * as burst from './scenarios/burst.mjs'
import * as calls from './scenarios/calls.mjs'
import * as fork from './scenarios/fork.mjs'
import * as latency from './scenarios/latency.mjs'
import * as memory from './scenarios/memory.mjs'
import * as noop from './scenarios/noop.mjs'
import * as scale from './scenarios/scale.mjs'
import * as throughput from './scenarios/throughput.mjs'
import * as trace from './scenarios/trace.mjs'

const SCENARIOS = ['boot', 'latency', 'throughput', 'burst', 'estimate', 'simulate', 'trace', 'memory', 'scale', 'fork']

const FULL = {
  bootRuns: 5,
  latencyCount: 100,
  latencyJitterMs: 200,
  pollMs: 1,
  throughputCount: 2000,
  inFlight: 32,
  burstCount: 10_000,
  burstSenders: 32,
  burstBoundS: 180,
  estimateCount: 200,
  keccakSeconds: 5,
  simulateCount: 50,
  simulateCalls: 100,
  // simulate's warm row: after this many more (each runs 100 calls through the EVM).
  simulateWarm: 300,
  traceCount: 20,
  warmup: 5,
  // The "warm" rows: the same calls after this many more, as a JIT runtime answers once its hot
  // paths are compiled (pcnode's first few hundred calls run slower; anvil's do not).
  warmLong: 1000,
  memoryWarmupS: 10,
  memoryS: 60,
}
const QUICK = {
  ...FULL,
  bootRuns: 3,
  latencyCount: 20,
  throughputCount: 500,
  burstCount: 2000,
  burstBoundS: 60,
  estimateCount: 50,
  keccakSeconds: 2,
  simulateCount: 10,
  simulateWarm: 50,
  traceCount: 5,
  memoryS: 20,
}
function usage() {
  return `pcnode bench: pcnode vs anvil on this machine, printed as pcnode/anvil ratios.

  npm run bench -- [options]        (or: node bench/bench.mjs [options])

  --quick                 smaller counts (boot 3, latency 20, throughput 500, burst 2000, estimate 50, simulate 10 (+50 warm), trace 5)
  --only LIST             scenarios to run, comma-separated: ${SCENARIOS.join(',')} (default: all)
                          (fork: pcnode --fork-url beside anvil --fork-url, 50 ms per upstream request)
  --json FILE             write every raw figure (samples, errors, memory, CPU) as JSON
  --anvil PATH            anvil binary (default: the @foundry-rs/anvil-linux-amd64 devDependency; or $ANVIL)
  --no-anvil              run pcnode only (ratios n/a); for quick checks while working on pcnode
  --pcnode-node-args STR  extra node flags for the pcnode process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
  --burst-bound-s S       how long the burst may take to drain before it counts as stalled (default 180)
  --report-from FILE      run nothing: print the report of a --json file again (with --no-anvil if it was run so)
  --help

Run \`npm run build\` first: pcnode is started from dist/ through bin/pcnode.js.`
}

function parseArgs(argv) {
  const o = { quick: false, only: [...SCENARIOS], json: null, anvil: process.env.ANVIL || DEFAULT_ANVIL, noAnvil: false }
  o.pcnodeNodeArgs = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`)
      return argv[++i]
    }
    if (a === '--quick') o.quick = true
    else if (a === '--only') {
      o.only = value()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
      for (const s of o.only)
        if (!SCENARIOS.includes(s)) throw new Error(`unknown scenario "${s}" (have ${SCENARIOS.join(', ')})`)
    } else if (a === '--json') o.json = value()
    else if (a === '--anvil') o.anvil = value()
    else if (a === '--no-anvil') o.noAnvil = true
    else if (a === '--pcnode-node-args') o.pcnodeNodeArgs = value().split(/\s+/).filter(Boolean)
    else if (a === '--burst-bound-s') {
      o.burstBoundS = Number(value())
      if (!(o.burstBoundS > 0 && o.burstBoundS <= 3600)) throw new Error('--burst-bound-s must be in (0, 3600]')
    } else if (a === '--report-from') o.reportFrom = value()
    else if (a === '--help' || a === '-h') o.help = true
    else throw new Error(`unknown option ${a}\n\n${usage()}`)
  }
  return o
}

// ---------------------------------------------------------------------------------------------
// Main

function machine(opts) {
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
function newestMtime(dir, depth = 0) {
  let t = 0
  if (depth > 6 || !existsSync(dir)) return t
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) t = Math.max(t, newestMtime(p, depth + 1))
    else t = Math.max(t, statSync(p).mtimeMs)
  }
  return t
}

/** The report and the run's closing lines, as printed after a run and by --report-from; returns the report. */
function printReport(results, opts) {
  const report = buildReport(results, { skipAnvil: opts.noAnvil })
  console.log(report)
  if (results.errors?.length) for (const e of results.errors) console.log(`scenario ${e.scenario} failed: ${e.error}`)
  console.log(`(total ${results.totalS} s; loadavg at end ${results.loadavgEnd.join(' ')})`)
  return report
}

// The steps in the order they run, which is also their entries' order in --json. Each `run(ctx)`
// resolves to the entries it adds to `scenarios`; `selectedBy`: the --only names that run it.
const STEPS = [boot, latency, throughput, noop, calls, trace, burst, memory, scale, fork]

async function main() {
  const opts = parseArgs(process.argv.slice(2))
  if (opts.help) {
    console.log(usage())
    return
  }
  const P = opts.quick ? QUICK : FULL
  if (opts.reportFrom) {
    printReport(JSON.parse(readFileSync(opts.reportFrom, 'utf8')), opts)
    return
  }
  if (!existsSync(join(ROOT, 'dist', 'cli', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first')
  if (newestMtime(join(ROOT, 'src')) > newestMtime(join(ROOT, 'dist')))
    log('warning: src/ is newer than dist/ (run `npm run build`)')
  if (!opts.noAnvil && !existsSync(opts.anvil)) throw new Error(`anvil not found at ${opts.anvil} (npm ci, or --anvil PATH)`)
  const m = machine(opts)
  console.log(
    `pcnode bench${opts.quick ? ' (quick)' : ''} — ${m.cores} cores (${m.cpuModel}), ${m.memGiB} GiB, node ${m.node}, ` +
      `${opts.noAnvil ? 'anvil skipped' : m.anvil}, pcnode ${m.pcnode}, loadavg ${m.loadavg.join(' ')}`,
  )
  console.log(`ratio = pcnode / anvil (for times lower is better, for tx/s higher is better); scenarios: ${opts.only.join(', ')}`)
  const results = {
    machine: m,
    params: { ...P, burstBoundS: opts.burstBoundS ?? P.burstBoundS, quick: opts.quick },
    configs: CONFIGS,
    startedAt: new Date().toISOString(),
    scenarios: {},
  }
  const want = (s) => opts.only.includes(s)
  const t0 = now()
  const ts = now()
  const needTransfers = want('latency') || want('throughput')
  const transfers = needTransfers ? await signedSet(DEV[0], Math.max(P.throughputCount, P.latencyCount), 'xfer') : null
  const burst = want('burst') ? await burstSet(P.burstCount, P.burstSenders) : null
  results.signMs = round(now() - ts)
  if (needTransfers || burst) log(`pre-signed transactions in ${results.signMs} ms`)
  // A failed step is reported under its name; the others still run.
  const ctx = { opts, P, transfers, burst }
  for (const step of STEPS) {
    if (!step.selectedBy.some(want)) continue
    try {
      Object.assign(results.scenarios, await step.run(ctx))
    } catch (e) {
      log(`${step.name} failed: ${e.stack ?? e}`)
      results.errors = [...(results.errors ?? []), { scenario: step.name, error: short(e.message, 500) }]
    }
  }
  results.totalS = round((now() - t0) / 1000, 1)
  results.loadavgEnd = os.loadavg().map((x) => round(x))
  results.report = printReport(results, opts)
  if (opts.json) {
    writeFileSync(opts.json, `${JSON.stringify(results, null, 2)}\n`)
    console.log(`raw figures written to ${opts.json}`)
  }
  if (results.errors?.length) process.exitCode = 1
}

main()
  .catch((e) => {
    console.error(e?.stack ?? e)
    process.exitCode = 1
  })
  .finally(() => {
    killAllNow()
  })
