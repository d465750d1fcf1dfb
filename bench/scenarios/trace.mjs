// trace: debug_traceTransaction of one ~200k-gas, ~54k-step transaction, with the callTracer and
// with the struct logger (anvil needs --steps-tracing for struct logs), medians of P.traceCount.
import { CHAIN_ID, DEV, MAX_FEE, TIP, waitReceipt } from '../lib/accounts.mjs'
import { HEAVY_INITCODE } from '../lib/contracts.mjs'
import { log } from '../lib/log.mjs'
import { seqLatency } from '../lib/measure.mjs'
import { withNode } from '../lib/procs.mjs'
import { hexN, now } from '../lib/stats.mjs'

export const name = 'trace'
export const selectedBy = ['trace']

/**
 * debug_traceTransaction of the ~200k-gas looping deployment (HEAVY_INITCODE: 7692 turns of a
 * 7-opcode loop, ~54k steps): callTracer and the struct logger, each a median of traceCount.
 */
export async function run({ opts, P }) {
  const names = ['pcnode(200ms)', 'anvil(steps tracing)'].filter((n) => !(opts.noAnvil && n.startsWith('anvil')))
  const out = {}
  const raw = await DEV[2].signTransaction({
    chainId: CHAIN_ID,
    type: 'eip1559',
    nonce: 0,
    data: HEAVY_INITCODE,
    gas: 300_000n,
    maxFeePerGas: MAX_FEE,
    maxPriorityFeePerGas: TIP,
  })
  for (const name of names) {
    out[name] = await withNode(name, opts, async (node) => {
      const deadline = now() + 600_000
      const hash = await node.rpc('eth_sendRawTransaction', [raw])
      const receipt = await waitReceipt(node, hash, 30_000, 5)
      if (receipt.status !== '0x1') throw new Error(`${name}: the traced transaction failed`)
      const call = await seqLatency(
        P.traceCount,
        2,
        deadline,
        () => node.rpc('debug_traceTransaction', [hash, { tracer: 'callTracer' }], 60_000),
        (r) => r?.type === 'CREATE' && hexN(r.gasUsed) === hexN(receipt.gasUsed),
      )
      let steps = null
      const structLogs = await seqLatency(
        P.traceCount,
        2,
        deadline,
        () => node.rpc('debug_traceTransaction', [hash, {}], 60_000),
        (r) => {
          steps = r?.structLogs?.length ?? null
          return steps > 50_000
        },
      )
      delete call.firstResult
      delete structLogs.firstResult
      log(`trace ${name}: callTracer ${call.latencyMs.p50} ms, struct logs (${steps} steps) ${structLogs.latencyMs.p50} ms`)
      return { gasUsed: hexN(receipt.gasUsed), steps, call, structLogs }
    })
  }
  return { trace: out }
}
