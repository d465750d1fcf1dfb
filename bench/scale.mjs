// The scale scenario of `npm run bench` (issue 18): what state that grows costs, pcnode beside anvil
// on the same machine. Per node, each phase bounded in time (a phase that runs out reports how
// far it got):
//   accounts  anvil_setBalance on N fresh accounts, 1,000 per batch request: time, RSS after
//   reads     eth_getBalance of random ones of them at "latest": p50
//   transfer  a signed transfer's send -> receipt (polled every ms), sequential: p50
//   mine      anvil_mine 1,000 blocks on that state: time
//   dump      anvil_dumpState: time and size
//   storage   one contract, M storage slots (anvil_setStorageAt, 1,000 per batch request: the batch limit geth and pcnode share): time,
//             then eth_call of a random slot: p50
//   blocks    anvil_mine B empty blocks in requests of 10,000: time and RSS growth per block
import http from 'node:http'
import { performance } from 'node:perf_hooks'

const now = () => performance.now()
const round = (x, d = 2) => (x == null || !Number.isFinite(x) ? null : Math.round(x * 10 ** d) / 10 ** d)
const p50 = (xs) => (xs.length ? round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)], 3) : null)
const hex = (n) => `0x${BigInt(n).toString(16)}`
const word = (n) => `0x${BigInt(n).toString(16).padStart(64, '0')}`
const address = (tag, i) => `0x${(tag * 0x10000000 + i).toString(16).padStart(40, '0')}`

// SLOAD_RUNTIME: returns the slot named by calldata[0:32]: PUSH1 0 CALLDATALOAD SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
const SLOAD_RUNTIME = '0x6000355460005260206000f3'
const STORE = '0x00000000000000000000000000000000005ca1e0'

export const SCALE_FULL = { accounts: 100_000, storageSlots: 1_000_000, emptyBlocks: 100_000, phaseBoundS: 300 }
export const SCALE_QUICK = { accounts: 10_000, storageSlots: 100_000, emptyBlocks: 10_000, phaseBoundS: 120 }

/** One JSON-RPC batch request; throws on a transport error or any error answer. */
function batch(port, calls, timeoutMs) {
  const body = JSON.stringify(calls.map(([method, params], i) => ({ jsonrpc: '2.0', id: i, method, params })))
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname: '127.0.0.1', port, path: '/', method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks = []
        res.on('data', (c) => chunks.push(c))
        res.on('end', () => {
          try {
            const answers = JSON.parse(Buffer.concat(chunks).toString('utf8'))
            const failed = Array.isArray(answers) ? answers.find((a) => a.error) : answers
            if (failed?.error || !Array.isArray(answers))
              reject(new Error(JSON.stringify(failed?.error ?? answers).slice(0, 300)))
            else resolve(answers.sort((a, b) => a.id - b.id).map((a) => a.result))
          } catch (e) {
            reject(e)
          }
        })
      },
    )
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)))
    req.on('error', reject)
    req.end(body)
  })
}

/**
 * Runs the phases on a started node. `ctx`: { node (bench.mjs's: port, rpc, pid), memOf(pid),
 * signTransfer(nonce, to) -> raw, waitReceipt(node, hash, boundMs, pollMs), log }.
 */
export async function scaleRun(ctx, P) {
  const { node, memOf, log } = ctx
  const bound = P.phaseBoundS * 1000
  const out = { rssStartMiB: memOf(node.pid).rssMiB }

  // accounts
  let t = now()
  let done = 0
  while (done < P.accounts && now() - t < bound) {
    const calls = []
    for (let i = done; i < Math.min(done + 1000, P.accounts); i++) calls.push(['anvil_setBalance', [address(1, i), hex(i + 1)]])
    await batch(node.port, calls, bound)
    done += calls.length
  }
  out.accounts = { count: done, seconds: round((now() - t) / 1000), rssMiB: memOf(node.pid).rssMiB }
  log(`scale ${node.name}: ${done} accounts in ${out.accounts.seconds} s, RSS ${out.accounts.rssMiB} MiB`)

  // reads
  const reads = []
  for (let i = 0; i < 200; i++) {
    const k = Math.floor(Math.random() * done)
    const s = now()
    const b = await node.rpc('eth_getBalance', [address(1, k), 'latest'])
    reads.push(now() - s)
    if (BigInt(b) !== BigInt(k + 1)) throw new Error(`balance of account ${k}: ${b}`)
  }
  out.balanceReadP50Ms = p50(reads)

  // transfer
  const sends = []
  const nonce0 = Number(BigInt(await node.rpc('eth_getTransactionCount', [ctx.sender, 'pending'])))
  for (let i = 0; i < 20; i++) {
    const raw = await ctx.signTransfer(nonce0 + i, address(2, i))
    const s = now()
    const hash = await node.rpc('eth_sendRawTransaction', [raw])
    await ctx.waitReceipt(node, hash, 30_000, 1)
    sends.push(now() - s)
  }
  out.transferP50Ms = p50(sends)

  // mine
  t = now()
  await node.rpc('anvil_mine', [hex(1000)], bound)
  out.mine1000S = round((now() - t) / 1000)

  // dump
  t = now()
  const dump = await node.rpc('anvil_dumpState', [], bound)
  out.dump = { seconds: round((now() - t) / 1000), MiB: round(dump.length / 2 / 2 ** 20) }
  log(`scale ${node.name}: mine 1000 in ${out.mine1000S} s, dump ${out.dump.MiB} MiB in ${out.dump.seconds} s`)

  // storage
  await node.rpc('anvil_setCode', [STORE, SLOAD_RUNTIME])
  t = now()
  let slots = 0
  while (slots < P.storageSlots && now() - t < bound) {
    const calls = []
    for (let i = slots; i < Math.min(slots + 1000, P.storageSlots); i++)
      calls.push(['anvil_setStorageAt', [STORE, word(i), word(i + 1)]])
    await batch(node.port, calls, bound)
    slots += calls.length
  }
  out.storage = { slots, seconds: round((now() - t) / 1000), rssMiB: memOf(node.pid).rssMiB }
  const calls = []
  for (let i = 0; i < 200; i++) {
    const k = Math.floor(Math.random() * slots)
    const s = now()
    const r = await node.rpc('eth_call', [{ to: STORE, data: word(k) }, 'latest'])
    calls.push(now() - s)
    if (BigInt(r) !== BigInt(k + 1)) throw new Error(`slot ${k}: ${r}`)
  }
  out.storage.callP50Ms = p50(calls)
  log(`scale ${node.name}: ${slots} slots in ${out.storage.seconds} s, call p50 ${out.storage.callP50Ms} ms`)

  // blocks
  const before = memOf(node.pid).rssMiB
  const head0 = Number(BigInt(await node.rpc('eth_blockNumber', [])))
  t = now()
  let mined = 0
  try {
    while (mined < P.emptyBlocks && now() - t < bound) {
      const n = Math.min(10_000, P.emptyBlocks - mined)
      await node.rpc('anvil_mine', [hex(n)], Math.max(1000, bound - (now() - t)))
      mined += n
    }
  } catch (e) {
    out.blocksError = String(e.message ?? e).slice(0, 200)
  }
  const head1 = Number(BigInt(await node.rpc('eth_blockNumber', [], 60_000).catch(() => hex(head0))))
  const after = memOf(node.pid).rssMiB
  const blocks = head1 - head0
  out.emptyBlocks = {
    blocks,
    seconds: round((now() - t) / 1000),
    rssGrowthMiB: round(after - before),
    kibPerBlock: blocks > 0 ? round(((after - before) * 1024) / blocks) : null,
  }
  log(`scale ${node.name}: ${blocks} empty blocks in ${out.emptyBlocks.seconds} s, ${out.emptyBlocks.kibPerBlock} KiB/block`)
  return out
}

/**
 * The report's lines for the scale scenario: pcnode beside anvil, as ratios. `aims` (the report's
 * aim makers) marks the rows issue 18 aims at: ratios to anvil, and the memory of an empty block.
 */
export function scaleReport(results, line, aims) {
  const pc = results['pcnode(200ms)']
  const anvil = results['anvil(automine)']
  if (!pc) return []
  const a = (f) => (anvil ? [{ name: 'anvil', value: f(anvil) }] : [])
  // Rates, not totals: a phase stops at its time bound, so the nodes may reach different counts.
  const per = (n, total, each) => (n > 0 && total !== undefined ? round((total * each) / n) : undefined)
  // [label, value, unit, aim(pcnode's value, anvil's)]
  const rows = [
    ['RSS at start (MiB)', (r) => r.rssStartMiB, 'MiB', (p, a) => aims.ratio('RSS at start', p, a, 2)],
    [
      'set accounts: ms per 1,000',
      (r) => per(r.accounts?.count, r.accounts?.seconds, 1e6),
      'ms',
      (p, a) => aims.ratio('setting accounts', p, a, 3),
    ],
    ['RSS after the accounts (MiB)', (r) => r.accounts?.rssMiB, 'MiB', (p, a) => aims.ratio('RSS after the accounts', p, a, 2)],
    ['eth_getBalance p50 (ms)', (r) => r.balanceReadP50Ms, 'ms'],
    ['transfer send -> receipt p50 (ms)', (r) => r.transferP50Ms, 'ms'],
    ['anvil_mine 1,000 blocks (s)', (r) => r.mine1000S, 's'],
    ['anvil_dumpState (s)', (r) => r.dump?.seconds, 's'],
    ['anvil_dumpState size (MiB)', (r) => r.dump?.MiB, 'MiB'],
    ['set storage slots: ms per 1,000', (r) => per(r.storage?.slots, r.storage?.seconds, 1e6), 'ms'],
    ['eth_call of a random slot p50 (ms)', (r) => r.storage?.callP50Ms, 'ms'],
    ['anvil_mine empty blocks: ms per block', (r) => per(r.emptyBlocks?.blocks, r.emptyBlocks?.seconds, 1e3), 'ms'],
    // No more than on anvil, ~4.5 KiB (anvil rarely finishes the phase, so not as a ratio).
    [
      'RSS per empty block (KiB)',
      (r) => r.emptyBlocks?.kibPerBlock,
      'KiB',
      (p) => aims.plain('RSS per empty block ≤ 4.5 KiB', p == null ? null : p <= 4.5),
    ],
  ]
  return [
    '== scale: accounts, storage and blocks that grow (each phase bounded)',
    ...Object.entries({ pcnode: pc, anvil }).flatMap(([name, r]) =>
      r
        ? [
            `  ${name}: reached ${r.accounts?.count ?? 0} accounts, ${r.storage?.slots ?? 0} slots, ${r.emptyBlocks?.blocks ?? 0} empty blocks`,
          ]
        : [],
    ),
    ...rows.map(([label, f, unit, aimed]) =>
      line(label, { name: 'pcnode', value: f(pc) }, a(f), unit, aimed?.(f(pc), anvil && f(anvil))),
    ),
    ...(anvil?.blocksError ? [`  anvil(automine)      empty blocks: ${anvil.blocksError}`] : []),
  ]
}
