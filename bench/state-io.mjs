// Time to save and to load a state file of 10,000 accounts and 1,000 blocks (each block with one
// transaction and its log). Run after `npm run build`:
//
//   node bench/state-io.mjs            (ACCOUNTS=… BLOCKS=… ROUNDS=… to change the size)
//
// The accounts come from anvil_setBalance batches, the blocks from eth_sendTransaction + anvil_mine,
// all over JSON-RPC. "save" is what `--state` does on exit and every --state-interval blocks
// (capture in the engine queue, render the JSON, write a temporary file, fsync, rename); "load" is
// what `pcnode start --state FILE` does before the first block (read, parse, check, rebuild).
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startNode } from '../dist/index.js'
import { fetchRpc } from './lib/rpc.mjs'
import { middle } from './lib/stats.mjs'

const ACCOUNTS = Number(process.env.ACCOUNTS ?? 10_000)
const BLOCKS = Number(process.env.BLOCKS ?? 1_000)
const ROUNDS = Number(process.env.ROUNDS ?? 3)
const QUIET = { port: 0, blockTime: 3_600_000, preconfInterval: 10 }
// CALLER PUSH1 32 PUSH1 0 LOG1 STOP: every call logs one topic (the caller).
const LOGGER_CODE = '0x3360206000a100'
const LOGGER = '0x00000000000000000000000000000000000010c0'

const dir = await mkdtemp(join(tmpdir(), 'pcnode-state-io-'))
const file = join(dir, 'state.json')

const ms = (t0) => performance.now() - t0
const fmt = (x) => `${x.toFixed(0)} ms`

async function timed(rounds, fn) {
  const times = []
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now()
    await fn()
    times.push(ms(t0))
  }
  return { median: middle(times), min: Math.min(...times), times }
}

try {
  // --- build the state ---
  const node = await startNode({ ...QUIET, stateFile: file, stateInterval: 0 })
  const rpc = fetchRpc(node.rpcUrl)
  let t0 = performance.now()
  for (let i = 0; i < ACCOUNTS; i += 1000) {
    const requests = []
    for (let j = i; j < Math.min(ACCOUNTS, i + 1000); j++) {
      requests.push(['anvil_setBalance', [`0x${(0x100000 + j).toString(16).padStart(40, '0')}`, `0x${(j + 1).toString(16)}`]])
    }
    await rpc.batch(requests)
  }
  const setupAccounts = ms(t0)
  await rpc.call('anvil_setCode', [LOGGER, LOGGER_CODE])
  t0 = performance.now()
  const from = node.accounts.map((a) => a.address)
  for (let b = 0; b < BLOCKS; b++) {
    await rpc.call('eth_sendTransaction', [{ from: from[b % from.length], to: LOGGER, gas: '0x10000' }])
    await rpc.call('anvil_mine', ['0x1'])
  }
  const setupBlocks = ms(t0)
  const head = await rpc.call('eth_getBlockByNumber', ['latest', false])
  const logs = await rpc.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: LOGGER }])

  // --- save: the first renders every block; later ones (periodic saves) only new blocks ---
  const firstSave = await timed(1, () => node.node.dev.saveStateFile())
  const save = await timed(ROUNDS, () => node.node.dev.saveStateFile())
  const dump = await timed(ROUNDS, () => node.node.dev.dumpState())
  const bytes = (await stat(file)).size
  const rpcDump = await timed(1, () => rpc.call('anvil_dumpState'))
  await node.stop()

  // --- load ---
  t0 = performance.now()
  const plain = await startNode(QUIET)
  const bootPlain = ms(t0)
  await plain.stop()
  t0 = performance.now()
  const loaded = await startNode({ ...QUIET, stateFile: file })
  const bootLoaded = ms(t0)
  const load = await timed(ROUNDS, () => loaded.node.dev.loadStateFile(file))
  const check = fetchRpc(loaded.rpcUrl)
  const headAfter = await check.call('eth_getBlockByNumber', ['latest', false])
  const logsAfter = await check.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: LOGGER }])
  const probe = `0x${(0x100000 + ACCOUNTS - 1).toString(16).padStart(40, '0')}`
  const balance = BigInt(await check.call('eth_getBalance', [probe, 'latest']))
  await loaded.stop()
  if (headAfter.hash !== head.hash) throw new Error(`head hash changed: ${head.hash} → ${headAfter.hash}`)
  if (logsAfter.length !== logs.length) throw new Error(`logs: ${logs.length} → ${logsAfter.length}`)
  if (balance !== BigInt(ACCOUNTS)) throw new Error(`balance of the last account: ${balance}`)

  const rows = [
    ['state', `${ACCOUNTS} accounts + ${BLOCKS} blocks (${BLOCKS} txs, ${logs.length} logs), head #${BigInt(head.number)}`],
    ['file', `${(bytes / 1e6).toFixed(2)} MB`],
    ['first save (renders every block)', fmt(firstSave.median)],
    ['save (capture + render + write + fsync + rename)', `${fmt(save.median)} median, ${fmt(save.min)} best of ${ROUNDS}`],
    ['  capture + render alone (anvil_dumpState)', `${fmt(dump.median)} median, ${fmt(dump.min)} best`],
    ['  anvil_dumpState over HTTP (hex)', fmt(rpcDump.median)],
    [
      'load (read + parse + check + rebuild), in a running node',
      `${fmt(load.median)} median, ${fmt(load.min)} best of ${ROUNDS}`,
    ],
    ['start with --state vs without', `${fmt(bootLoaded)} vs ${fmt(bootPlain)}`],
    ['setup: anvil_setBalance batches / send + mine per block', `${fmt(setupAccounts)} / ${fmt(setupBlocks)}`],
  ]
  const width = Math.max(...rows.map(([k]) => k.length))
  console.log(`pcnode state file I/O (node ${process.version})`)
  for (const [k, v] of rows) console.log(`  ${k.padEnd(width)}  ${v}`)
  console.log(
    JSON.stringify({
      accounts: ACCOUNTS,
      blocks: BLOCKS,
      bytes,
      firstSaveMs: Math.round(firstSave.median),
      saveMs: Math.round(save.median),
      dumpMs: Math.round(dump.median),
      loadMs: Math.round(load.median),
      startWithStateMs: Math.round(bootLoaded),
      startPlainMs: Math.round(bootPlain),
    }),
  )
} finally {
  await rm(dir, { recursive: true, force: true })
}
