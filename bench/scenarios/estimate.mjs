// estimate: eth_estimateGas of a transfer and of a ~200k-gas deployment, and eth_call of a view:
// medians of P.estimateCount; the transfer and the view again after P.warmLong more ("warm": a JIT
// runtime's steady state, as pcnode's first few hundred calls run slower and anvil's do not); and
// eth_call of a keccak×1000 loop (state override), P.keccakSeconds with 16 in flight: calls/s and
// the node's CPU per call. calls.mjs runs it, on the node the simulate rows then use.
import { setTimeout as sleep } from 'node:timers/promises'
import { CHAIN_ID, DEV, MAX_FEE, recipient, TIP, waitReceipt } from '../lib/accounts.mjs'
import { HEAVY_INITCODE, KECCAK_AT, KECCAK_LOOP, VIEW_INITCODE, VIEW_RESULT } from '../lib/contracts.mjs'
import { log } from '../lib/log.mjs'
import { inFlightRate, seqLatency } from '../lib/measure.mjs'
import { hexN } from '../lib/stats.mjs'

export const name = 'estimate'

/** The view contract's deployment: the same bytes on every node (one genesis), so signed once. */
export function signViewDeploy() {
  return DEV[2].signTransaction({
    chainId: CHAIN_ID,
    type: 'eip1559',
    nonce: 0,
    data: VIEW_INITCODE,
    gas: 200_000n,
    maxFeePerGas: MAX_FEE,
    maxPriorityFeePerGas: TIP,
  })
}

/** The estimate rows on a started node, until `deadline` at most. */
export async function measure(node, P, deadline, deployRaw) {
  // Deploy the view contract and wait until it is visible at 'latest' (pcnode: sealed, ≤ 2 s).
  const hash = await node.rpc('eth_sendRawTransaction', [deployRaw])
  const receipt = await waitReceipt(node, hash, 30_000, 5)
  const address = receipt.contractAddress
  if (receipt.status !== '0x1' || !address) throw new Error(`${node.name}: view contract deployment failed`)
  for (let i = 0; i < 200; i++) {
    const code = await node.rpc('eth_getCode', [address, 'latest'])
    if (code && code !== '0x') break
    await sleep(50)
  }
  // The warm rows send the same requests as the first ones: one function each.
  const transfer = (to) => node.rpc('eth_estimateGas', [{ from: DEV[0].address, to, value: '0x1' }])
  const isTransfer = (r) => hexN(r) === 21000
  const viewCall = () => node.rpc('eth_call', [{ to: address, data: '0x' }, 'latest'])
  const isView = (r) => String(r).toLowerCase() === VIEW_RESULT
  const e = {}
  e.transfer = await seqLatency(P.estimateCount, P.warmup, deadline, (i) => transfer(recipient('est', i)), isTransfer)
  e.deploy = await seqLatency(
    P.estimateCount,
    P.warmup,
    deadline,
    () => node.rpc('eth_estimateGas', [{ from: DEV[0].address, data: HEAVY_INITCODE }]),
    (r) => hexN(r) > 200_000 && hexN(r) < 300_000,
  )
  e.call = await seqLatency(P.estimateCount, P.warmup, deadline, viewCall, isView)
  let fresh = 0 // a new recipient for every estimate, warm-ups included
  e.transferWarm = await seqLatency(
    P.estimateCount,
    P.warmLong,
    deadline,
    () => transfer(recipient('est-warm', fresh++)),
    isTransfer,
  )
  e.callWarm = await seqLatency(P.estimateCount, P.warmLong, deadline, viewCall, isView)
  e.keccak = await inFlightRate(node, P.keccakSeconds, 16, () =>
    node.rpc('eth_call', [{ to: KECCAK_AT, data: '0x' }, 'latest', { [KECCAK_AT]: { code: KECCAK_LOOP } }]),
  )
  log(
    `estimate ${node.name}: transfer ${e.transfer.latencyMs.p50} ms, deploy ${e.deploy.latencyMs.p50} ms, call ${e.call.latencyMs.p50} ms, ` +
      `keccak loop ${e.keccak.perSecond} calls/s (${e.keccak.cpuMsPerCall} ms CPU each)`,
  )
  return e
}
