// WebSocket clients that never read: each connection's unsent backlog is capped (16 MB) and so is
// the sum over all of them (64 MB), so many stalled subscribers cannot grow the node without bound,
// while clients that read keep getting answers. Real `ws` clients with their sockets paused.
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { Dispatcher } from '../src/rpc/dispatch.js'
import { type RpcServer, startRpcServer } from '../src/rpc/server.js'
import { BacklogBudget, MAX_WS_BACKLOG, MAX_WS_TOTAL_BACKLOG } from '../src/rpc/ws-backlog.js'
import { ROOT } from './cli.js'
import { until } from './helpers.js'

const open = (url: string) =>
  new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })

/** Requests on a socket that reads: replies by id, notifications counted. */
function reader(ws: WebSocket) {
  let id = 0
  let notifications = 0
  const waiting = new Map<number, (reply: any) => void>()
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data))
    if (msg.method) notifications++
    else waiting.get(msg.id)?.(msg)
  })
  return {
    call: (method: string, params: unknown[] = []) =>
      new Promise<any>((resolve) => {
        const n = ++id
        waiting.set(n, resolve)
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: n, method, params }))
      }),
    notifications: () => notifications,
  }
}

describe('the budget', () => {
  it('drops the largest backlog once the sum passes the overall cap, and any one past its own cap', () => {
    const budget = new BacklogBudget(100, 250)
    const dropped: string[] = []
    const a = budget.connect(() => dropped.push('a'))
    const b = budget.connect(() => dropped.push('b'))
    const c = budget.connect(() => dropped.push('c'))
    expect(a.admit(90)).toBe(true)
    expect(b.admit(60)).toBe(true)
    expect(c.admit(80)).toBe(true)
    expect(c.admit(30)).toBe(true) // 260 now: over the sum, let through (the check is before a write)
    expect(b.admit(10)).toBe(true) // ...and the next write drops the largest (c, 110)
    expect(dropped).toEqual(['c'])
    expect(budget.buffered).toBe(160)
    a.written(90)() // flushed
    expect(a.pending).toBe(0)
    expect(a.admit(500)).toBe(true) // one big message always goes to a connection that reads
    expect(a.admit(1)).toBe(false) // past its own cap: dropped, nothing written
    expect(dropped).toEqual(['c', 'a'])
    expect(budget.buffered).toBe(70)
    c.written(80)() // a dropped connection's late callbacks change nothing
    b.close()
    expect(budget.buffered).toBe(0)
    expect(budget.dropped).toBe(2)
  })
})

describe('stalled WebSocket clients under a flood of messages', () => {
  let server: RpcServer
  // A method that, once its reply is out, pushes `count` messages of `size` bytes to the caller,
  // a few per turn of the event loop, as notifications arrive.
  const flood = (params: unknown[], ctx: { connection?: { send(m: string): void }; afterReply?: (fn: () => void) => void }) => {
    const [count, size] = params as [number, number]
    const text = JSON.stringify({ jsonrpc: '2.0', method: 'test_note', params: { result: 'x'.repeat(size) } })
    ctx.afterReply?.(() => {
      let left = count
      const step = () => {
        for (let i = 0; i < 8 && left > 0; i++, left--) ctx.connection?.send(text)
        if (left > 0) setImmediate(step)
      }
      step()
    })
    return true
  }

  beforeAll(async () => {
    const dispatcher = new Dispatcher({}, { test_flood: flood, test_ping: () => 'pong' })
    server = await startRpcServer(dispatcher, '127.0.0.1', 0)
  })
  afterAll(async () => {
    await server?.close()
  })

  it('keeps the sum of backlogs under the cap, drops stalled clients, and serves one that reads', async () => {
    const SIZE = 64 * 1024
    const COUNT = 400 // 25 MiB each: past the per-connection cap, and 40 of them far past the overall one
    const stalled: WebSocket[] = []
    for (let i = 0; i < 40; i++) {
      const ws = await open(server.wsUrl)
      ws.on('error', () => {})
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_flood', params: [COUNT, SIZE] }))
      ;(ws as unknown as { _socket: { pause(): void } })._socket.pause() // never reads again
      stalled.push(ws)
    }
    const live = await open(server.wsUrl)
    const client = reader(live)
    expect(await client.call('test_flood', [COUNT, SIZE])).toEqual({ jsonrpc: '2.0', id: 1, result: true })
    await until(() => client.notifications() === COUNT, 60_000, 'the reading client to get its whole flood')
    await until(() => server.wsBacklog.dropped >= 1, 60_000, 'a stalled client to be dropped')
    expect((await client.call('test_ping')).result).toBe('pong')
    // Without the overall cap the stalled clients would hold up to 40 x 16 MB between them.
    expect(server.wsBacklog.peak).toBeLessThanOrEqual(MAX_WS_TOTAL_BACKLOG + SIZE + 200)
    expect(server.wsBacklog.peak).toBeGreaterThan(MAX_WS_BACKLOG) // the flood did reach the cap
    console.log(
      `40 stalled clients x ${(COUNT * SIZE) / 2 ** 20} MiB: peak backlog ${(server.wsBacklog.peak / 2 ** 20).toFixed(1)} MiB, ${server.wsBacklog.dropped} dropped`,
    )
    for (const ws of stalled) ws.terminate()
    live.terminate()
    await until(() => server.wsBacklog.buffered === 0, 30_000, 'the backlogs to be released')
  }, 120_000)
})

/** VmRSS of a process, in MiB. */
function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])
  return Math.round(kb / 1024)
}

describe.skipIf(process.platform !== 'linux')('a real node with 40 subscribers that never read', () => {
  let child: ChildProcess
  let port: number

  beforeAll(async () => {
    // Its own process, so its RSS is the node's alone: the library through tsx, on a free port.
    const script =
      "const { startNode } = await import('./src/index.ts'); const n = await startNode({ port: 0, host: '127.0.0.1' }); console.log(JSON.stringify({ port: n.port }))"
    child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    port = await new Promise<number>((resolve, reject) => {
      let out = ''
      child.stdout?.on('data', (d) => {
        out += d
        const m = /"port":(\d+)/.exec(out)
        if (m) resolve(Number(m[1]))
      })
      child.once('exit', (code) => reject(new Error(`the node exited (${code}): ${out}`)))
    })
  }, 90_000)
  afterAll(() => {
    child?.kill('SIGKILL')
  })

  it('stays within the caps while flashblocks flood them, and other clients get answers', async () => {
    const url = `http://127.0.0.1:${port}`
    const rpc = async (method: string, params: unknown[] = []) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      })
      return ((await res.json()) as { result: any }).result
    }
    const pid = child.pid as number
    const before = rssMiB(pid)
    const stalled: WebSocket[] = []
    for (let i = 0; i < 40; i++) {
      const ws = await open(`ws://127.0.0.1:${port}`)
      ws.on('error', () => {})
      const subs = Array.from({ length: 100 }, (_, id) => ({
        jsonrpc: '2.0',
        id,
        method: 'eth_subscribe',
        params: ['newFlashblocks'],
      }))
      ws.send(JSON.stringify(subs))
      ;(ws as unknown as { _socket: { pause(): void } })._socket.pause()
      stalled.push(ws)
    }
    const live = await open(`ws://127.0.0.1:${port}`)
    const client = reader(live)
    expect(typeof (await client.call('eth_subscribe', ['newHeads'])).result).toBe('string')
    // Transactions from dev account 2, so that each flashblock (the full pre-confirmed block) grows.
    let stop = false
    let sent = 0
    const from = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
    const sender = (async () => {
      while (!stop) {
        const hash = await rpc('eth_sendTransaction', [{ from, to: '0x000000000000000000000000000000000000dEaD', value: '0x1' }])
        sent++
        // One transaction per pre-confirmation: the next is sent once this one's receipt is served.
        await until(async () => (await rpc('eth_getTransactionReceipt', [hash])) !== null, 30_000, 'a pre-confirmed receipt')
      }
    })()
    let peak = before
    const startHead = Number(await rpc('eth_blockNumber'))
    try {
      // Long enough for every stalled client to pass its cap: until 8 blocks have been sealed.
      await until(
        async () => {
          peak = Math.max(peak, rssMiB(pid))
          return Number(await rpc('eth_blockNumber')) >= startHead + 8
        },
        120_000,
        '8 sealed blocks',
      )
    } finally {
      stop = true
      await sender
    }
    // The reading client got the heads and still gets answers; the node still serves HTTP.
    await until(() => client.notifications() >= 8, 30_000, 'newHeads for the reading client')
    expect(typeof (await client.call('eth_blockNumber')).result).toBe('string')
    expect(sent).toBeGreaterThan(10)
    // The per-connection caps alone would let these 40 hold 640 MB between them.
    console.log(`node RSS ${before} MiB before, ${peak} MiB at the peak (${sent} transactions, 40 stalled x 100 newFlashblocks)`)
    expect(peak - before).toBeLessThan((40 * MAX_WS_BACKLOG) / 2 ** 20)
    for (const ws of stalled) ws.terminate()
    live.terminate()
  }, 240_000)
})
