// Pre-confirmation latency, measured as a client sees it: the time from sending a transaction to
// (a) its newFlashblockTransactions notification over WebSocket after eth_sendRawTransaction, and
// (b) the answer of eth_sendRawTransactionSync, at a 200 ms and a 0 ms pre-confirmation interval.
// Sequential transfers with a random 0–200 ms pause between them, so sends land anywhere in the
// flashblock cycle. Loopback only; the node runs in this process (the built dist/index.js).
//
//   npm run build && node bench/preconf-latency.mjs            (N=100 transfers per case)
//   N=20 INTERVALS=200 node bench/preconf-latency.mjs
import { setTimeout as sleep } from 'node:timers/promises'
import { keccak256 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import WebSocket from 'ws'
import { startNode } from '../dist/index.js'
import { fetchRpc } from './lib/rpc.mjs'

const N = Math.min(Number(process.env.N ?? 100), 10_000)
const INTERVALS = (process.env.INTERVALS ?? '200,0').split(',').map(Number)
const WARMUP = 5
const MAX_PAUSE_MS = 200
const WAIT_LIMIT_MS = 10_000

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b)
  // Nearest-rank percentiles.
  const at = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]
  return { n: s.length, median: at(50), p99: at(99), min: s[0], max: s[s.length - 1] }
}

const fmt = (ms) => `${ms.toFixed(1)} ms`

async function measure(interval) {
  const node = await startNode({ port: 0, host: '127.0.0.1', blockTime: 2000, preconfInterval: interval, silent: true })
  const rpc = fetchRpc(node.rpcUrl)
  const ws = new WebSocket(node.wsUrl)
  await new Promise((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  // Hash → resolver; registered before each send, so an early notification is not missed.
  const waiting = new Map()
  ws.on('message', (raw) => {
    const msg = JSON.parse(String(raw))
    if (msg.method !== 'eth_subscription') return
    const at = performance.now()
    waiting.get(msg.params.result)?.(at)
  })
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newFlashblockTransactions'] }))
  await sleep(50)

  const account = privateKeyToAccount(node.accounts[0].privateKey)
  const to = node.accounts[1].address
  let nonce = 0
  const sign = () =>
    account.signTransaction({
      chainId: node.chainId,
      type: 'eip1559',
      nonce: nonce++,
      to,
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    })

  const toNotification = []
  const accepted = []
  const toSyncAnswer = []
  for (let i = 0; i < WARMUP + N; i++) {
    await sleep(Math.random() * MAX_PAUSE_MS)
    const raw = await sign()
    const hash = keccak256(raw)
    let timer
    const notified = new Promise((resolve, reject) => {
      waiting.set(hash, resolve)
      timer = setTimeout(() => reject(new Error(`no notification for ${hash}`)), WAIT_LIMIT_MS)
    })
    const t0 = performance.now()
    await rpc.call('eth_sendRawTransaction', [raw])
    const t1 = performance.now()
    const t2 = await notified
    clearTimeout(timer)
    waiting.delete(hash)
    if (i >= WARMUP) {
      accepted.push(t1 - t0)
      toNotification.push(t2 - t0)
    }
  }
  for (let i = 0; i < WARMUP + N; i++) {
    await sleep(Math.random() * MAX_PAUSE_MS)
    const raw = await sign()
    const t0 = performance.now()
    const receipt = await rpc.call('eth_sendRawTransactionSync', [raw])
    const t1 = performance.now()
    if (receipt.status !== '0x1') throw new Error(`transfer failed: ${JSON.stringify(receipt)}`)
    if (i >= WARMUP) toSyncAnswer.push(t1 - t0)
  }
  ws.close()
  await node.stop()
  return { interval, accepted: stats(accepted), notification: stats(toNotification), sync: stats(toSyncAnswer) }
}

console.log(`pcnode pre-confirmation latency: ${N} sequential transfers per case, random 0–${MAX_PAUSE_MS} ms pauses`)
console.log(`node ${process.version}, ${process.platform}/${process.arch}; block time 2000 ms; loopback HTTP + WebSocket\n`)
const results = []
for (const interval of INTERVALS) {
  const r = await measure(interval)
  results.push(r)
  console.log(`preconfInterval ${interval} ms`)
  for (const [label, s] of [
    ['eth_sendRawTransaction answer', r.accepted],
    ['send → newFlashblockTransactions', r.notification],
    ['eth_sendRawTransactionSync answer', r.sync],
  ]) {
    console.log(
      `  ${label.padEnd(36)} median ${fmt(s.median).padStart(9)}   p99 ${fmt(s.p99).padStart(9)}   (min ${fmt(s.min)}, max ${fmt(s.max)})`,
    )
  }
  console.log('')
}
console.log(JSON.stringify({ n: N, results }))
