// simulate: eth_simulateV1 of one block of P.simulateCalls transfers: the median of P.simulateCount
// ("n/a" on -32601), and again after P.simulateWarm more ("warm"). calls.mjs runs it, on the node
// the estimate rows have used.
import { recipient } from '../lib/accounts.mjs'
import { log } from '../lib/log.mjs'
import { seqLatency } from '../lib/measure.mjs'

export const name = 'simulate'

/** The simulate rows on a started node, until `deadline` at most. */
export async function measure(node, P, deadline) {
  const payload = (rep) => {
    const sender = recipient('simsender', rep % 4)
    const calls = Array.from({ length: P.simulateCalls }, (_, c) => ({
      from: sender,
      to: recipient('sim', c),
      value: '0x1',
      gas: '0x5208',
    }))
    return [
      {
        blockStateCalls: [{ calls, stateOverrides: { [sender]: { balance: '0x3635c9adc5dea00000' } } }],
        validation: false,
        traceTransfers: false,
        returnFullTransactions: false,
      },
      'latest',
    ]
  }
  const check = (r) =>
    Array.isArray(r) && r.length === 1 && r[0]?.calls?.length === P.simulateCalls && r[0].calls.every((c) => c.status === '0x1')
  const simulate = (i) => node.rpc('eth_simulateV1', payload(i))
  const s = await seqLatency(P.simulateCount, P.warmup, deadline, simulate, check)
  delete s.firstResult
  if (!s.unsupported && !s.error) {
    s.warm = await seqLatency(P.simulateCount, P.simulateWarm, deadline, simulate, check)
    delete s.warm.firstResult
  }
  log(`simulate ${node.name}: ${s.unsupported ? `n/a (${s.error})` : `${s.latencyMs.p50} ms, warm ${s.warm?.latencyMs?.p50} ms`}`)
  return s
}
