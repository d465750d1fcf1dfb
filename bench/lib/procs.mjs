// Spawned nodes: each started on a free loopback port, tracked, and always stopped (SIGTERM, then
// SIGKILL), also when the bench exits or is interrupted.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { CHAIN_ID, DEV } from './accounts.mjs'
import { log, short } from './log.mjs'
import { makeRpc, RpcError } from './rpc.mjs'
import { hexN, now } from './stats.mjs'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const PCNODE_BIN = join(ROOT, 'bin', 'pcnode.js')
export const DEFAULT_ANVIL = join(ROOT, 'node_modules', '@foundry-rs', 'anvil-linux-amd64', 'bin', 'anvil')
/** The state file of the denim scenario's pcnode(base, --state); one per bench process. */
export const DENIM_STATE_FILE = join(os.tmpdir(), `pcnode-bench-denim-${process.pid}.json`)

// Node configurations. pcnode runs as `node bin/pcnode.js start`, anvil from the devDependency.
export const CONFIGS = {
  'pcnode(interval 0)': { kind: 'pcnode', args: ['--block-time', '2', '--preconf-interval', '0'] },
  'pcnode(200ms)': { kind: 'pcnode', args: ['--block-time', '2', '--preconf-interval', '200ms'] },
  'anvil(automine)': { kind: 'anvil', args: [] },
  // Struct logs on anvil need --steps-tracing (it records every step of every transaction).
  'anvil(steps tracing)': { kind: 'anvil', args: ['--steps-tracing'] },
  'anvil(bt 0.2)': { kind: 'anvil', args: ['--block-time', '0.2'] },
  'pcnode(20ms blocks)': { kind: 'pcnode', args: ['--block-time', '20ms', '--preconf-interval', '20ms'] },
  'pcnode(20ms, history 256)': {
    kind: 'pcnode',
    args: ['--block-time', '20ms', '--preconf-interval', '20ms', '--state-history', '256'],
  },
  'anvil(bt 0.02)': { kind: 'anvil', args: ['--block-time', '0.02'] },
  // What the boot figure spawns: the bare command, no flags.
  'pcnode(boot)': { kind: 'pcnode', args: [] },
  // Base since Denim: a sealed block every 200 ms, no flashblocks (scenarios/denim.mjs).
  'pcnode(base)': { kind: 'pcnode', args: ['--profile', 'base'] },
  'pcnode(base, --state)': { kind: 'pcnode', args: ['--profile', 'base', '--state', DENIM_STATE_FILE] },
}

export function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = net.createServer()
    srv.unref()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolvePort(port))
    })
  })
}

const live = new Set()

/**
 * anvil's HOME for the nodes the bench starts: anvil writes the states it offloads from memory
 * under ~/.foundry/anvil/tmp, and the scale scenario's (100k accounts, 1M slots, 100k blocks) come
 * to tens of GB that a killed anvil leaves behind. Removed when the bench exits.
 */
let anvilHome
export function anvilEnv() {
  anvilHome ??= mkdtempSync(join(os.tmpdir(), 'pcnode-bench-anvil-'))
  return { ...process.env, HOME: anvilHome }
}

export function killAllNow() {
  for (const n of live) {
    try {
      n.child.kill('SIGKILL')
    } catch {}
  }
  if (anvilHome) rmSync(anvilHome, { recursive: true, force: true })
}
process.on('exit', killAllNow)
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    log(`${sig}: stopping spawned nodes`)
    killAllNow()
    process.exit(130)
  })
}

export async function startNode(name, opts, { waitReady = true } = {}) {
  const cfg = CONFIGS[name]
  const port = await freePort()
  // Refuse to talk to something that already answers there (the port was free a moment ago).
  const probe = makeRpc(port, 300)
  const answered = await probe('eth_chainId').then(
    () => true,
    () => false,
  )
  probe.close()
  if (answered) throw new Error(`something already answers on 127.0.0.1:${port}`)
  const common = ['--host', '127.0.0.1', '--port', String(port), '--silent']
  const [cmd, args] =
    cfg.kind === 'pcnode'
      ? [process.execPath, [...opts.pcnodeNodeArgs, PCNODE_BIN, 'start', ...common, ...cfg.args]]
      : [opts.anvil, [...common, ...cfg.args]]
  const t0 = now() // boot times count from before the spawn
  const env = cfg.kind === 'pcnode' ? process.env : anvilEnv()
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env })
  const node = track(name, cfg.kind, child, port, { rpcTimeoutMs: undefined, termWaitMs: 5000, t0 })
  if (waitReady) {
    try {
      await waitForChainId(node, 60_000)
      await waitForEngine(node, 60_000)
    } catch (e) {
      await node.stop()
      throw e
    }
  }
  return node
}

/** Polls eth_chainId every 2 ms until it answers; returns ms since spawn. */
export async function waitForChainId(node, boundMs) {
  for (let i = 0; i < 100_000; i++) {
    if (node.exited) throw new Error(`${node.name} exited (${node.exitCode}) before answering: ${short(node.stderr, 400)}`)
    const s = now()
    try {
      const id = await node.rpc('eth_chainId', [], 1000)
      const ms = now() - node.t0
      if (hexN(id) !== CHAIN_ID) throw new Error(`${node.name}: chain id ${id}, expected ${CHAIN_ID}`)
      return ms
    } catch (e) {
      if (!(e instanceof RpcError)) throw e
    }
    if (now() - node.t0 > boundMs) throw new Error(`${node.name} did not answer eth_chainId within ${boundMs} ms`)
    const w = 2 - (now() - s)
    if (w > 0) await sleep(w)
  }
  throw new Error('unreachable')
}

/** Polls eth_getBalance of dev account 0 (needs the execution engine) until it answers. */
export async function waitForEngine(node, boundMs) {
  for (let i = 0; i < 100_000; i++) {
    if (node.exited) throw new Error(`${node.name} exited (${node.exitCode}): ${short(node.stderr, 400)}`)
    const s = now()
    try {
      const bal = await node.rpc('eth_getBalance', [DEV[0].address, 'latest'], 5000)
      if (BigInt(bal) === 0n) throw new Error(`${node.name}: dev account 0 has no balance`)
      return now() - node.t0
    } catch (e) {
      if (!(e instanceof RpcError)) throw e
    }
    if (now() - node.t0 > boundMs) throw new Error(`${node.name}: engine not ready within ${boundMs} ms`)
    const w = 2 - (now() - s)
    if (w > 0) await sleep(w)
  }
  throw new Error('unreachable')
}

export async function withNode(name, opts, fn) {
  log(`starting ${name}`)
  const node = await startNode(name, opts)
  try {
    const result = await fn(node)
    if (node.kind === 'pcnode' && node.stderr.trim()) result.nodeStderr = short(node.stderr, 2000)
    return result
  } finally {
    await node.stop()
  }
}

/** A spawned process tracked like the nodes (stopped at exit), its JSON-RPC on `port`. */
export async function spawnTracked(name, cmd, args, env, port) {
  const t0 = now()
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } })
  return track(name, name.split('(')[0], child, port, { rpcTimeoutMs: 60_000, termWaitMs: 20_000, t0 })
}

/**
 * `child` as a bench node: its exit and last stderr recorded, stopped (SIGTERM, then SIGKILL) by
 * `stop()` and when the bench exits, its JSON-RPC on `port`.
 */
function track(name, kind, child, port, { rpcTimeoutMs, termWaitMs, t0 }) {
  const node = { name, kind, port, child, pid: child.pid, t0, stderr: '', exited: false, exitCode: null }
  node.exit = new Promise((r) =>
    child.once('exit', (code, signal) => {
      node.exited = true
      node.exitCode = code ?? signal
      live.delete(node)
      r()
    }),
  )
  child.once('error', (e) => {
    node.stderr += `spawn error: ${e.message}\n`
  })
  child.stderr.on('data', (d) => {
    node.stderr = (node.stderr + d.toString()).slice(-16_384)
  })
  live.add(node)
  node.rpc = makeRpc(port, rpcTimeoutMs)
  node.stop = async () => {
    node.rpc.close()
    if (!node.exited) {
      child.kill('SIGTERM')
      await Promise.race([node.exit, sleep(termWaitMs)])
    }
    if (!node.exited) {
      child.kill('SIGKILL')
      await Promise.race([node.exit, sleep(3000)])
    }
  }
  return node
}

/** Polls `method` every 5 ms until it answers; ms since spawn. */
export async function waitAnswer(node, method, params, boundMs) {
  for (;;) {
    if (node.exited) throw new Error(`${node.name} exited (${node.exitCode}): ${short(node.stderr, 400)}`)
    try {
      await node.rpc(method, params, 5000)
      return now() - node.t0
    } catch (e) {
      if (!(e instanceof RpcError)) throw e
    }
    if (now() - node.t0 > boundMs) throw new Error(`${node.name} did not answer ${method} within ${boundMs} ms`)
    await sleep(5)
  }
}
