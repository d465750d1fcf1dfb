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
import { hexN, now, round } from './lib/stats.mjs'
import { scaleReport } from './report/scale.mjs'
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

/** --no-anvil: the report leaves the anvil columns out. */
let SKIP_ANVIL = false

// ---------------------------------------------------------------------------------------------
// Report

function fmt(v, unit) {
  if (v == null || (typeof v === 'number' && !Number.isFinite(v))) return 'n/a'
  if (typeof v === 'string') return v
  const a = Math.abs(v)
  const s = a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2)
  return unit ? `${s} ${unit}` : s
}

function ratio(a, b) {
  return typeof a === 'number' && typeof b === 'number' && Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : null
}

/** One printed line: label, pcnode value, then each anvil value with the pcnode/anvil ratio, then the aim. */
function line(label, pc, anvils, unit, aim) {
  let s = label.padEnd(40)
  s += `${pc.name} ${fmt(pc.value, unit)}`.padEnd(32)
  for (const a of anvils) {
    if (SKIP_ANVIL) break
    const r = ratio(pc.value, a.value)
    const text = `${a.name} ${fmt(a.value, unit)}`
    s +=
      typeof a.value === 'string'
        ? `${text}  `.padEnd(45)
        : text.padEnd(32) + `ratio ${r == null ? 'n/a' : r.toFixed(2)}`.padEnd(13)
  }
  if (aim) s += `aim ${aim.text}: ${aim.pass == null ? 'n/a' : aim.pass ? 'met' : 'MISSED'}`
  return s.trimEnd()
}

function buildReport(results) {
  const L = []
  const aims = []
  const aim = (text, pass) => {
    aims.push({ text, pass })
    return { text, pass }
  }
  // An aim on the pcnode/anvil ratio of one run (issue 18's call and scale figures); none without anvil.
  const ratioAim = (what, pc, anvil, bound, higherIsBetter = false) => {
    if (SKIP_ANVIL) return undefined
    const r = ratio(pc, anvil)
    const text = `${what} ${higherIsBetter ? '≥' : '≤'} ${bound}× anvil`
    return aim(text, r == null ? null : higherIsBetter ? r >= bound : r <= bound)
  }
  // One row of the estimate and simulate sections: `value(name)` for pcnode and for anvil (automine).
  const beside = (label, value, unit, aimed) =>
    line(
      label,
      { name: 'pcnode', value: value('pcnode(200ms)') },
      [{ name: 'anvil(automine)', value: value('anvil(automine)') }],
      unit,
      aimed,
    )
  const { boot, latency, throughput, burst, estimate, simulate, trace, memory, fork } = results.scenarios
  if (boot) {
    L.push('', `== boot: spawn -> first answered request, median of ${results.params.bootRuns} (after 1 untimed warm-up)`)
    const p = boot.pcnode?.chainId.p50
    const a = boot.anvil?.chainId.p50
    L.push(
      line(
        'boot -> eth_chainId',
        { name: 'pcnode', value: p },
        [{ name: 'anvil', value: a }],
        'ms',
        aim('≤ 500 ms', p == null ? null : p <= 500),
      ),
    )
    L.push(
      line(
        'boot -> eth_getBalance (engine ready)',
        { name: 'pcnode', value: boot.pcnode?.engineReady.p50 },
        [{ name: 'anvil', value: boot.anvil?.engineReady.p50 }],
        'ms',
      ),
    )
  }
  if (latency) {
    L.push(
      '',
      `== send -> served receipt, ${results.params.latencyCount} sequential transfers at random times stratified over 200 ms, 1 ms polls`,
    )
    const get = (n, q) => latency[n]?.receiptMs?.[q]
    const anv = (q) => [
      { name: 'anvil(automine)', value: get('anvil(automine)', q) },
      { name: 'anvil(bt 0.2)', value: get('anvil(bt 0.2)', q) },
    ]
    const p0 = get('pcnode(interval 0)', 'p50')
    const p2 = get('pcnode(200ms)', 'p50')
    const p2q = get('pcnode(200ms)', 'p99')
    L.push(
      line(
        'send→receipt p50 (interval 0)',
        { name: 'pcnode', value: p0 },
        anv('p50'),
        'ms',
        aim('≤ 5 ms', p0 == null ? null : p0 <= 5),
      ),
    )
    L.push(line('send→receipt p99 (interval 0)', { name: 'pcnode', value: get('pcnode(interval 0)', 'p99') }, anv('p99'), 'ms'))
    L.push(
      line(
        'send→receipt p50 (interval 200ms)',
        { name: 'pcnode', value: p2 },
        anv('p50'),
        'ms',
        aim('≤ 105 ms', p2 == null ? null : p2 <= 105),
      ),
    )
    L.push(
      line(
        'send→receipt p99 (interval 200ms)',
        { name: 'pcnode', value: p2q },
        anv('p99'),
        'ms',
        aim('≤ 205 ms', p2q == null ? null : p2q <= 205),
      ),
    )
    L.push(
      line(
        'eth_sendRawTransaction p50 (interval 0)',
        { name: 'pcnode', value: latency['pcnode(interval 0)']?.sendRawMs.p50 },
        [{ name: 'anvil(automine)', value: latency['anvil(automine)']?.sendRawMs.p50 }],
        'ms',
      ),
    )
    for (const [n, r] of Object.entries(latency)) {
      L.push(
        `  ${n.padEnd(20)} ${r.completed}/${r.count} receipts, ${r.statusOk} status 0x1, ${r.preconfirmedReceipts} pre-confirmed (zero blockHash), ` +
          `${r.errors.count} errors${r.errors.count ? `: ${r.errors.top[0].example}` : ''}`,
      )
    }
  }
  if (throughput) {
    const N = results.params.throughputCount
    L.push('', `== throughput: ${N} pre-signed transfers, 1 sender, consecutive nonces, ${results.params.inFlight} in flight`)
    const t = (n) => throughput[n]
    const row = (label, f, unit, aimObj) =>
      line(
        label,
        { name: 'pcnode', value: f(t('pcnode(200ms)')) },
        [
          { name: 'anvil(bt 0.2)', value: f(t('anvil(bt 0.2)')) },
          { name: 'anvil(automine)', value: f(t('anvil(automine)')) },
        ],
        unit,
        aimObj,
      )
    const pcTps = t('pcnode(200ms)')?.acceptTps
    const anvTps = Math.max(t('anvil(bt 0.2)')?.acceptTps ?? 0, t('anvil(automine)')?.acceptTps ?? 0) || null
    L.push(
      row(
        'accepted tx/s (all sends answered)',
        (r) => r?.acceptTps,
        'tx/s',
        aim('≥ anvil', pcTps == null || anvTps == null ? null : pcTps >= anvTps),
      ),
    )
    const ceiling = results.scenarios.noopCeiling?.acceptTps
    if (ceiling != null) {
      const pct = (v) => (v == null ? 'n/a' : `${Math.round((100 * v) / ceiling)}%`)
      L.push(
        `  ceiling: a no-op node:http server answers the same sends at ${fmt(ceiling)} req/s;` +
          ` pcnode reaches ${pct(pcTps)} of it, anvil(bt 0.2) ${pct(t('anvil(bt 0.2)')?.acceptTps)}`,
      )
    }
    L.push(row('eth_sendRawTransaction p50', (r) => r?.sendRawMs.p50, 'ms'))
    L.push(row('eth_sendRawTransaction p99', (r) => r?.sendRawMs.p99, 'ms'))
    const pc = t('pcnode(200ms)')
    L.push(
      row(
        'all receipts served (s from 1st send)',
        (r) => (r?.allServedMs == null ? null : r.allServedMs / 1000),
        's',
        aim('all pre-confirmed, none lost', pc ? pc.noneLost && pc.allServedMs != null : null),
      ),
    )
    L.push(row('served tx/s', (r) => r?.servedTps, 'tx/s'))
    L.push(row('RSS at end (MiB)', (r) => r?.memory.rssMiB, 'MiB'))
    L.push(row('node CPU during scenario (s)', (r) => r?.cpu.nodeCpuS, 's'))
    L.push(
      row('bench / other procs CPU meanwhile (s)', (r) => (r ? `${fmt(r.cpu.benchCpuS)} / ${fmt(r.cpu.otherCpuS)}` : null), 's'),
    )
    for (const [n, r] of Object.entries(throughput)) {
      L.push(
        `  ${n.padEnd(20)} accepted ${r.accepted}/${r.count}, receipts ${r.receipts.present} present / ${r.receipts.success} status 0x1 ` +
          `in ${r.receipts.blocks} blocks, nonce pending ${r.pendingNonce} latest ${r.latestNonce}, ${r.noneLost ? 'none lost' : 'LOSSES'}` +
          `${r.allServedError ? `, ${r.allServedError}` : ''}${r.errors.count ? `, ${r.errors.count} send errors: ${r.errors.top[0].example}` : ''}`,
      )
    }
  }
  if (burst) {
    const N = results.params.burstCount
    L.push(
      '',
      `== burst: ${N} pre-signed transfers from ${results.params.burstSenders} senders, ${results.params.inFlight} in flight`,
    )
    const b = (n) => burst[n]
    const row = (label, f, unit, aimObj) =>
      line(
        label,
        { name: 'pcnode', value: f(b('pcnode(200ms)')) },
        [
          { name: 'anvil(bt 0.2)', value: f(b('anvil(bt 0.2)')) },
          { name: 'anvil(automine)', value: f(b('anvil(automine)')) },
        ],
        unit,
        aimObj,
      )
    const desc = (r) =>
      !r ? null : r.drained ? `drained ${fmt(r.drainMs / 1000, 's')}` : `stalled: ${r.minedLatest} of ${r.count} mined`
    const pc = b('pcnode(200ms)')
    L.push(row('accepted tx/s', (r) => r?.acceptTps, 'tx/s'))
    L.push(row('time to drain (s from 1st send)', (r) => (r?.drainMs == null ? null : r.drainMs / 1000), 's'))
    L.push(row('outcome', desc, '', aim('drains completely', pc ? pc.drained : null)))
    L.push(row('peak RSS (MiB)', (r) => r?.memory.peakRssMiB, 'MiB'))
    for (const [n, r] of Object.entries(burst)) {
      L.push(
        `  ${n.padEnd(20)} accepted ${r.accepted}/${r.count}, ${r.receipts ? `receipts ${r.receipts.present} present / ${r.receipts.success} status 0x1 in ${r.receipts.blocks} blocks` : `${r.sendersNotDrained} senders not drained at the bound`}` +
          `, in sealed blocks (latest nonces) ${r.minedLatest}${r.memGuard ? `, ${r.memGuard}` : ''}${r.errors.count ? `, ${r.errors.count} send errors: ${r.errors.top[0].example}` : ''}`,
      )
    }
  }
  if (estimate) {
    L.push('', `== sequential calls, median of ${results.params.estimateCount} (after ${results.params.warmup} warm-ups)`)
    const e = (n, k) => estimate[n]?.[k]?.latencyMs.p50
    // aimed: [the aim's name, the largest pcnode/anvil ratio] (issue 18)
    const row = (label, k, aimed) =>
      beside(label, (n) => e(n, k), 'ms', aimed && ratioAim(aimed[0], e('pcnode(200ms)', k), e('anvil(automine)', k), aimed[1]))
    L.push(row('eth_estimateGas transfer p50', 'transfer', ['transfer estimate', 2]))
    L.push(row('eth_estimateGas ~200k-gas deploy p50', 'deploy', ['deploy estimate', 3]))
    L.push(row('eth_call view p50', 'call', ['view call', 2]))
    L.push(row(`transfer estimate p50, warm (+${results.params.warmLong})`, 'transferWarm'))
    L.push(row(`eth_call view p50, warm (+${results.params.warmLong})`, 'callWarm'))
    const floor = results.scenarios.callFloor
    if (floor?.warm?.latencyMs != null && floor?.fresh?.latencyMs != null) {
      L.push(
        `  floor: a no-op node:http server answers the same call at p50 ${floor.fresh.latencyMs.p50} ms fresh (as the first rows), ` +
          `${floor.warm.latencyMs.p50} ms warm`,
      )
    }
    const keccak = (n, field) => estimate[n]?.keccak?.[field]
    const keccakRow = (label, field, unit, aimed) => beside(label, (n) => keccak(n, field), unit, aimed)
    const keccakAim = ratioAim(
      'keccak loop',
      keccak('pcnode(200ms)', 'perSecond'),
      keccak('anvil(automine)', 'perSecond'),
      0.25,
      true,
    )
    L.push(keccakRow('eth_call keccak×1000, 16 in flight', 'perSecond', 'calls/s', keccakAim))
    L.push(keccakRow('  node CPU per keccak×1000 call', 'cpuMsPerCall', 'ms'))
    for (const [n, r] of Object.entries(estimate)) {
      L.push(
        `  ${n.padEnd(20)} gas transfer ${hexNs(r.transfer.firstResult)}, deploy ${hexNs(r.deploy.firstResult)}; invalid results ` +
          `${r.transfer.invalidResults + r.deploy.invalidResults + r.call.invalidResults}, errors ${r.transfer.errors.count + r.deploy.errors.count + r.call.errors.count}`,
      )
    }
  }
  if (simulate) {
    L.push(
      '',
      `== eth_simulateV1, 1 block x ${results.params.simulateCalls} transfers, median of ${results.params.simulateCount}`,
    )
    const s = (n) => {
      const r = simulate[n]
      if (!r) return null
      if (r.unsupported) return 'n/a (-32601)'
      if (r.error) return `error: ${short(r.error, 40)}`
      return r.latencyMs.p50
    }
    L.push(beside('eth_simulateV1 1x100 p50', s, 'ms', ratioAim('simulate', s('pcnode(200ms)'), s('anvil(automine)'), 3)))
    const warm = (n) => simulate[n]?.warm?.latencyMs?.p50 ?? null
    L.push(beside(`eth_simulateV1 1x100 p50, warm (+${results.params.simulateWarm})`, warm, 'ms'))
    for (const [n, r] of Object.entries(simulate)) {
      if (!r.unsupported && !r.error) L.push(`  ${n.padEnd(20)} invalid results ${r.invalidResults}, errors ${r.errors.count}`)
    }
  }
  if (trace) {
    const pc = trace['pcnode(200ms)']
    L.push(
      '',
      `== debug_traceTransaction of a ${pc?.gasUsed ?? '~200k'}-gas, ${pc?.steps ?? '~54k'}-step transaction, median of ${results.params.traceCount}`,
    )
    const t = (n, k) => trace[n]?.[k]?.latencyMs.p50
    for (const [label, k] of [
      ['callTracer p50', 'call'],
      ['struct logger p50', 'structLogs'],
    ]) {
      L.push(
        line(
          label,
          { name: 'pcnode', value: t('pcnode(200ms)', k) },
          [{ name: 'anvil(steps)', value: t('anvil(steps tracing)', k) }],
          'ms',
        ),
      )
    }
    for (const [n, r] of Object.entries(trace)) {
      L.push(
        `  ${n.padEnd(20)} ${r.steps} steps; invalid results ${r.call.invalidResults + r.structLogs.invalidResults}, errors ${r.call.errors.count + r.structLogs.errors.count}`,
      )
    }
  }
  if (memory) {
    L.push(
      '',
      `== idle memory: an empty block every 20 ms for ${results.params.memoryS} s (after ${results.params.memoryWarmupS} s)`,
    )
    const k = (n) => memory[n]?.kibPerBlock
    L.push(
      line(
        'RSS growth per empty block',
        { name: 'pcnode', value: k('pcnode(20ms blocks)') },
        // anvil moves old states to disk: its RSS may fall, and a ratio to that means nothing.
        [
          {
            name: 'anvil(bt 0.02)',
            value: k('anvil(bt 0.02)') <= 0 ? `${fmt(k('anvil(bt 0.02)'), 'KiB')} (none)` : k('anvil(bt 0.02)'),
          },
        ],
        'KiB',
      ),
    )
    L.push(line('  with --state-history 256', { name: 'pcnode', value: k('pcnode(20ms, history 256)') }, [], 'KiB'))
    for (const [n, r] of Object.entries(memory)) {
      L.push(`  ${n.padEnd(26)} ${r.blocks} blocks, RSS ${r.from.rssMiB} -> ${r.to.rssMiB} MiB`)
    }
  }
  if (fork) {
    L.push(
      '',
      `== fork: --fork-url beside anvil --fork-url, one local anvil upstream (block ${fork.upstreamBlock}) behind a proxy adding ${fork.latencyMs} ms per request`,
      '   workload: 20 eth_call (10 new slots, 10 repeated) and 10 impersonated token transfers, each waited for',
    )
    const r = (kind, phase, key) => fork.runs[kind]?.[phase]?.[key]
    for (const phase of ['cold', 'warm']) {
      L.push(
        line(
          `fork start, ${phase} cache`,
          { name: 'pcnode', value: r('pcnode', phase, 'startMs') },
          [{ name: 'anvil', value: r('anvil', phase, 'startMs') }],
          'ms',
        ),
      )
      const pw = r('pcnode', phase, 'wallMs')
      const aw = r('anvil', phase, 'wallMs')
      L.push(
        line(
          `workload wall time, ${phase} cache`,
          { name: 'pcnode', value: pw },
          [{ name: 'anvil', value: aw }],
          'ms',
          aim(`no slower than anvil (${phase})`, pw == null || aw == null ? null : pw <= aw),
        ),
      )
      const pq = r('pcnode', phase, 'requests')
      const aq = r('anvil', phase, 'requests')
      L.push(
        line(
          `upstream requests, ${phase} (all)`,
          { name: 'pcnode', value: pq },
          [{ name: 'anvil', value: aq }],
          '',
          aim(`fewer requests than anvil (${phase})`, pq == null || aq == null ? null : pq < aq || (pq === 0 && aq === 0)),
        ),
      )
    }
    const kib = (kind) => fork.runs[kind]?.rss?.kibPer1000
    L.push(
      line(
        'RSS per 1000 accounts touched',
        { name: 'pcnode', value: kib('pcnode') },
        [{ name: 'anvil', value: kib('anvil') }],
        'KiB',
      ),
    )
    for (const [kind, runs] of Object.entries(fork.runs)) {
      for (const phase of ['cold', 'warm']) {
        const x = runs[phase]
        if (!x) continue
        const methods = Object.entries(x.byMethod)
          .sort((a, b) => b[1] - a[1])
          .map(([m, n]) => `${m} ${n}`)
          .join(', ')
        L.push(
          `  ${kind.padEnd(7)} ${phase}: ${x.requestsAtStart} at start + ${x.requestsInWorkload} in the workload (${methods})`,
        )
      }
    }
  }
  // Noise: CPU that other processes took from this 2-core-class machine while a node was measured.
  const cores = results.machine.cores || 1
  const shares = []
  for (const sc of ['latency', 'throughput', 'burst']) {
    for (const [n, r] of Object.entries(results.scenarios[sc] ?? {})) {
      const c = r?.cpu
      if (c?.otherCpuS != null && c.wallS > 0) shares.push(`${sc} ${n} ${Math.round((100 * c.otherCpuS) / (c.wallS * cores))}%`)
    }
  }
  if (shares.length) L.push('', `other processes' share of the machine's CPU while measuring: ${shares.join(', ')}`)
  if (results.scenarios.scale) {
    L.push('', ...scaleReport(results.scenarios.scale, line, { ratio: ratioAim, plain: aim }))
  }
  const missed = aims.filter((a) => a.pass === false)
  L.push(
    '',
    `aims: ${aims.filter((a) => a.pass).length} met, ${missed.length} missed${missed.length ? ` (${missed.map((a) => a.text).join('; ')})` : ''}`,
  )
  return L.join('\n')
}

const hexNs = (x) => (typeof x === 'string' && /^0x[0-9a-f]+$/i.test(x) ? String(hexN(x)) : 'n/a')

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
function printReport(results) {
  const report = buildReport(results)
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
  SKIP_ANVIL = opts.noAnvil
  if (opts.reportFrom) {
    printReport(JSON.parse(readFileSync(opts.reportFrom, 'utf8')))
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
  results.report = printReport(results)
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
