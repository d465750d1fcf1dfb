#!/usr/bin/env node
// `npm run bench`: pcnode and anvil side by side on this machine, in one run, as ratios.
//
//   node bench/bench.mjs [--quick] [--only boot,latency,throughput,burst,estimate,simulate,trace,memory,scale,fork,denim,userop]
//                        [--json out.json] [--anvil PATH] [--pcnode-node-args "--cpu-prof ..."]
//                        [--no-anvil] [--burst-bound-s S] [--report-from results.json] [--help]
//
// Plain Node ESM; depends on viem (signing, keccak) and node built-ins. Every node is started
// fresh for each scenario and configuration, on a free loopback port, and stopped (by PID) before
// the next one starts; every loop is bounded in count and in time.
//
// Each scenario is a module under scenarios/ that says what it measures: boot, latency,
// throughput (and noop.mjs, the ceiling any Node.js server has here), burst, estimate and simulate
// (calls.mjs runs both on one node per configuration), trace, memory, scale and fork (with
// fork-harness.mjs), and denim (pcnode --profile base beside anvil --block-time 0.2). lib/ holds what they share; report/ prints one table per scenario. Rows with
// an aim say "met" or "MISSED" at the end, and the report's last line counts them.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { FULL, parseArgs, QUICK, usage } from './cli.mjs'
import { burstSet, DEV, signedSet } from './lib/accounts.mjs'
import { log, short } from './lib/log.mjs'
import { machine, newestMtime } from './lib/machine.mjs'
import { CONFIGS, killAllNow, ROOT } from './lib/procs.mjs'
import { now, round } from './lib/stats.mjs'
import { buildReport } from './report/report.mjs'
import * as boot from './scenarios/boot.mjs'
import * as burst from './scenarios/burst.mjs'
import * as calls from './scenarios/calls.mjs'
import * as denim from './scenarios/denim.mjs'
import * as fork from './scenarios/fork.mjs'
import * as latency from './scenarios/latency.mjs'
import * as memory from './scenarios/memory.mjs'
import * as noop from './scenarios/noop.mjs'
import * as scale from './scenarios/scale.mjs'
import * as throughput from './scenarios/throughput.mjs'
import * as trace from './scenarios/trace.mjs'
import * as userop from './scenarios/userop.mjs'

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
const STEPS = [boot, latency, throughput, noop, calls, trace, burst, memory, scale, fork, denim, userop]

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
  const burstTxs = want('burst') ? await burstSet(P.burstCount, P.burstSenders) : null
  results.signMs = round(now() - ts)
  if (needTransfers || burstTxs) log(`pre-signed transactions in ${results.signMs} ms`)
  // A failed step is reported under its name; the others still run.
  const ctx = { opts, P, transfers, burst: burstTxs }
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
