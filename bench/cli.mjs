// The bench's command line: its flags, its usage text, and the counts and bounds of a full run and
// of --quick.
import { DEFAULT_ANVIL } from './lib/procs.mjs'

export const SCENARIOS = [
  'boot',
  'latency',
  'throughput',
  'burst',
  'estimate',
  'simulate',
  'trace',
  'memory',
  'scale',
  'fork',
  'denim',
  'userop',
]

/** Scenarios a plain run leaves out: the Denim day of blocks takes half an hour (`--only denim`). */
const OPT_IN = ['denim', 'userop']

export const FULL = {
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
  // denim: Poisson sends at denimRate/s for denimSeconds (at most denimMaxTx), receipts polled every
  // denimPollMs; idle CPU over denimIdleS; anvil_mine of a day of 200 ms blocks in chunks, bounded
  // in time and RSS; pcnode --state idle before and after denimStateBlocks.
  denimRate: 20,
  denimSeconds: 30,
  denimMaxTx: 1000,
  denimPollMs: 10,
  denimWarmupS: 3,
  denimIdleS: 20,
  denimIdleAfterS: 10,
  denimMineBlocks: 432_000,
  denimMineChunk: 4_320,
  denimIdleAtBlock: 43_200,
  denimMineBoundS: 1800,
  // anvil 1.7.1 mines ~40 blocks/s here and writes ~250 KiB of state to disk per block.
  denimAnvilMineBoundS: 300,
  denimRssBoundMiB: 6144,
  denimSettleS: 10,
  denimStateBlocks: 43_200,
  // userop: ops sent one after another, each once the previous receipt is served (a few warm-up first).
  useropCount: 200,
  useropWarmup: 5,
  useropPollMs: 10,
}
export const QUICK = {
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
  denimSeconds: 15,
  denimIdleS: 10,
  denimMineBlocks: 43_200,
  denimMineBoundS: 300,
  denimAnvilMineBoundS: 60,
  denimStateBlocks: 8_640,
  useropCount: 50,
}
export function usage() {
  return `pcnode bench: pcnode vs anvil on this machine, printed as pcnode/anvil ratios.

  npm run bench -- [options]        (or: node bench/bench.mjs [options])

  --quick                 smaller counts (boot 3, latency 20, throughput 500, burst 2000, estimate 50, simulate 10 (+50 warm), trace 5)
  --only LIST             scenarios to run, comma-separated: ${SCENARIOS.join(',')} (default: all but ${OPT_IN.join(',')})
                          (fork: pcnode --fork-url beside anvil --fork-url, 50 ms per upstream request;
                          denim: pcnode --profile base beside anvil --block-time 0.2, ~30 min with its
                          432,000-block anvil_mine (anvil's bounded to 5 min), 43,200 with --quick;
                          userop: user operation send → receipt, pcnode's bundler beside alto + anvil --block-time 0.2)
  --json FILE             write every raw figure (samples, errors, memory, CPU) as JSON
  --anvil PATH            anvil binary (default: the @foundry-rs/anvil-linux-amd64 devDependency; or $ANVIL)
  --no-anvil              run pcnode only (ratios n/a); for quick checks while working on pcnode
  --pcnode-node-args STR  extra node flags for the pcnode process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
  --burst-bound-s S       how long the burst may take to drain before it counts as stalled (default 180)
  --report-from FILE      run nothing: print the report of a --json file again (with --no-anvil if it was run so)
  --help

Run \`npm run build\` first: pcnode is started from dist/ through bin/pcnode.js.`
}

export function parseArgs(argv) {
  const o = {
    quick: false,
    only: SCENARIOS.filter((s) => !OPT_IN.includes(s)),
    json: null,
    anvil: process.env.ANVIL || DEFAULT_ANVIL,
    noAnvil: false,
  }
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
