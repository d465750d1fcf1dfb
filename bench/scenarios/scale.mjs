// scale: what state that grows costs, pcnode beside anvil. Per node, each phase bounded in time
// (a phase that runs out reports how far it got):
//   accounts  anvil_setBalance on N fresh accounts, 1,000 per batch request: time, RSS after
//   reads     eth_getBalance of random ones of them at "latest": p50
//   transfer  a signed transfer's send -> receipt (polled every ms), sequential: p50
//   mine      anvil_mine 1,000 blocks on that state: time
//   dump      anvil_dumpState: time and size
//   storage   one contract, M storage slots (anvil_setStorageAt, 1,000 per batch request: the
//             batch limit geth and pcnode share): time, then eth_call of a random slot: p50
//   blocks    anvil_mine B empty blocks in requests of 10,000: time and RSS growth per block
import { DEV, signTransfer, waitReceipt } from '../lib/accounts.mjs'
import { log } from '../lib/log.mjs'
import { memOf } from '../lib/procfs.mjs'
import { withNode } from '../lib/procs.mjs'
import { rpcBatch } from '../lib/rpc.mjs'
import { middle, now, round } from '../lib/stats.mjs'

export const name = 'scale'
export const selectedBy = ['scale']

const p50 = (xs) => round(middle(xs), 3)
const hex = (n) => `0x${BigInt(n).toString(16)}`
const word = (n) => `0x${BigInt(n).toString(16).padStart(64, '0')}`
const address = (tag, i) => `0x${(tag * 0x10000000 + i).toString(16).padStart(40, '0')}`

// SLOAD_RUNTIME: returns the slot named by calldata[0:32]: PUSH1 0 CALLDATALOAD SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
const SLOAD_RUNTIME = '0x6000355460005260206000f3'
const STORE = '0x00000000000000000000000000000000005ca1e0'

const SCALE_FULL = { accounts: 100_000, storageSlots: 1_000_000, emptyBlocks: 100_000, phaseBoundS: 300 }
const SCALE_QUICK = { accounts: 10_000, storageSlots: 100_000, emptyBlocks: 10_000, phaseBoundS: 120 }

/** Accounts, storage and blocks that grow, on pcnode beside anvil. */
export async function run({ opts }) {
  const P = opts.quick ? SCALE_QUICK : SCALE_FULL
  const out = {}
  for (const name of ['pcnode(200ms)', 'anvil(automine)'].filter((n) => !(opts.noAnvil && n.startsWith('anvil')))) {
    out[name] = await withNode(name, opts, (node) => scaleRun(node, P))
  }
  return { scale: out }
}

/** Runs the phases on a started node, in order; each adds its figures to the result. */
async function scaleRun(node, P) {
  const bound = P.phaseBoundS * 1000
  const out = { rssStartMiB: memOf(node.pid).rssMiB }
  await accountsPhases(node, P, bound, out)
  await mineAndDumpPhases(node, bound, out)
  await storagePhase(node, P, bound, out)
  await blocksPhase(node, P, bound, out)
  return out
}

/** N fresh accounts, random balance reads among them, then sequential transfers. */
async function accountsPhases(node, P, bound, out) {
  // accounts
  const t = now()
  let done = 0
  while (done < P.accounts && now() - t < bound) {
    const calls = []
    for (let i = done; i < Math.min(done + 1000, P.accounts); i++) calls.push(['anvil_setBalance', [address(1, i), hex(i + 1)]])
    await rpcBatch(node.port, calls, bound)
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
  const nonce0 = Number(BigInt(await node.rpc('eth_getTransactionCount', [DEV[1].address, 'pending'])))
  for (let i = 0; i < 20; i++) {
    const raw = await signTransfer(DEV[1], nonce0 + i, address(2, i))
    const s = now()
    const hash = await node.rpc('eth_sendRawTransaction', [raw])
    await waitReceipt(node, hash, 30_000, 1)
    sends.push(now() - s)
  }
  out.transferP50Ms = p50(sends)
}

/** 1,000 blocks mined on that state, then the state dumped. */
async function mineAndDumpPhases(node, bound, out) {
  let t
  // mine
  t = now()
  await node.rpc('anvil_mine', [hex(1000)], bound)
  out.mine1000S = round((now() - t) / 1000)

  // dump
  t = now()
  const dump = await node.rpc('anvil_dumpState', [], bound)
  out.dump = { seconds: round((now() - t) / 1000), MiB: round(dump.length / 2 / 2 ** 20) }
  log(`scale ${node.name}: mine 1000 in ${out.mine1000S} s, dump ${out.dump.MiB} MiB in ${out.dump.seconds} s`)
}

/** M storage slots in one contract, then eth_call of random ones. */
async function storagePhase(node, P, bound, out) {
  await node.rpc('anvil_setCode', [STORE, SLOAD_RUNTIME])
  const t = now()
  let slots = 0
  while (slots < P.storageSlots && now() - t < bound) {
    const calls = []
    for (let i = slots; i < Math.min(slots + 1000, P.storageSlots); i++)
      calls.push(['anvil_setStorageAt', [STORE, word(i), word(i + 1)]])
    await rpcBatch(node.port, calls, bound)
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
}

/** B empty blocks mined in requests of 10,000: time and RSS growth per block. */
async function blocksPhase(node, P, bound, out) {
  const before = memOf(node.pid).rssMiB
  const head0 = Number(BigInt(await node.rpc('eth_blockNumber', [])))
  const t = now()
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
}
