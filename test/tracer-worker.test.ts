// JS tracers run in a worker thread: a tracer whose call never returns (step, result, setup, the
// getter of what it throws) gets geth's "execution timeout" for its own request while a second
// client is answered (eth_blockNumber, and eth_call, which goes through the node's serial queue
// as the trace does) and blocks keep coming (flashblocks profile); a tracer that fills its heap or
// whose worker dies fails only its own request, and the next tracer runs as usual.
import { type Hex, pad, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { sandboxWorkersStarted, stopSandboxWorkers } from '../src/node/tracing/remote-sandbox.js'
import { poll, useTestNode } from './helpers.js'

type Json = any

const address = (n: number): Hex => pad(toHex(n), { size: 20 })
/** A loop of 7 opcodes per round, 10,000 rounds: step() runs 70,002 times. */
const LOOP = '0x6127105b600190038060035700'
const COUNT = '{n: 0, step: function() { this.n++ }, fault: function() {}, result: function() { return this.n }}'

describe('JS tracers in a worker thread', () => {
  const node = useTestNode({ blockTime: 300 })

  const traceCall = (tracer: string, timeout: string): Promise<Json> =>
    node.rpc('debug_traceCall', [
      { to: address(0xc0de), data: '0x1234' },
      'latest',
      { tracer, timeout, stateOverrides: { [address(0xc0de)]: { code: LOOP } } },
    ])

  /**
   * Sends the trace, and asks eth_blockNumber and eth_call from a second client until it has
   * answered; the block numbers answered (both) while the trace was still pending. `whilePending`
   * runs once the second client has had `after` answers during the trace.
   */
  const duringTrace = async (trace: () => Promise<Json>, whilePending?: { after: number; run: () => void }) => {
    let pending = true
    const response = trace().finally(() => {
      pending = false
    })
    const heads: number[] = []
    while (pending) {
      const head = Number((await node.rpc('eth_blockNumber')).result)
      const call = await node.rpc('eth_call', [{ to: address(0xca11) }, 'latest'])
      if (!pending) break
      expect(call.result).toBe('0x')
      heads.push(head)
      if (heads.length === whilePending?.after) whilePending.run()
    }
    return { response: await response, heads }
  }

  it('a call that never returns: execution timeout for that request, others answered and blocks sealed meanwhile', async () => {
    const loop = 'for (;;) {}'
    const tracers = {
      step: `{step: function() { ${loop} }, fault: function() {}, result: function() { return 1 }}`,
      result: `{result: function() { ${loop} }, fault: function() {}}`,
      thrownGetter: `{result: function() { var e = new Error("x"); Object.defineProperty(e, "message", { get: function() { ${loop} } }); throw e }, fault: function() {}}`,
      setup: `{setup: function() { ${loop} }, result: function() { return 1 }, fault: function() {}}`,
    }
    for (const [name, tracer] of Object.entries(tracers)) {
      const { response, heads } = await duringTrace(() => traceCall(tracer, '2s'))
      expect(response.error, name).toEqual({ code: -32000, message: 'execution timeout' })
      // Answered while the trace ran, and blocks kept coming (block time 300 ms, the trace 2 s).
      expect(heads.length, name).toBeGreaterThanOrEqual(3)
      expect(Math.max(...heads), name).toBeGreaterThan(Math.min(...heads))
    }
    expect((await traceCall(COUNT, '30s')).result).toBe(70_002)
  }, 120_000)

  it('a full heap and a worker that dies: an error for that request only, the next tracer runs', async () => {
    const fill = '{result: function() { var a = []; for (;;) a.push(new Array(1000000).fill(1.5)) }, fault: function() {}}'
    const full = await duringTrace(() => traceCall(fill, '30s'))
    expect(full.response.error?.message).toMatch(
      /^(InternalError: out of memory {4}in server-side tracer function 'result'|execution timeout)$/,
    )
    expect(full.heads.length).toBeGreaterThan(0)
    expect((await traceCall(COUNT, '30s')).result).toBe(70_002)

    // The worker ends under a tracer that would loop for 30 s: that trace fails at once.
    const looping = `{step: function() { for (;;) {} }, fault: function() {}, result: function() { return 1 }}`
    const killed = await duringTrace(() => traceCall(looping, '30s'), { after: 3, run: stopSandboxWorkers })
    expect(killed.response.error?.message).toMatch(/^InternalError: tracer engine failed/)
    expect(killed.heads.length).toBeGreaterThanOrEqual(3)
    expect((await node.rpc('eth_blockNumber')).result).toMatch(/^0x[0-9a-f]+$/)
    expect((await traceCall(COUNT, '30s')).result).toBe(70_002)
  }, 120_000)

  it('a send during a looping trace is admitted and pre-confirmed before the trace ends', async () => {
    const looping = `{step: function() { for (;;) {} }, fault: function() {}, result: function() { return 1 }}`
    let traceSettled = false
    let sent: Promise<{ status: string; traceSettledAtReceipt: boolean }> | undefined
    const send = async () => {
      const hash = await node.wallet(1).sendTransaction({ to: address(0xbeef), value: 1n })
      const receipt = await poll(async () => (await node.rpc('eth_getTransactionReceipt', [hash])).result)
      return { status: receipt.status, traceSettledAtReceipt: traceSettled }
    }
    const trace = () =>
      traceCall(looping, '5s').finally(() => {
        traceSettled = true
      })
    const { response } = await duringTrace(trace, { after: 2, run: () => (sent = send()) })
    expect(response.error).toEqual({ code: -32000, message: 'execution timeout' })
    expect(await sent).toEqual({ status: '0x1', traceSettledAtReceipt: false })
  }, 120_000)

  it('a C built-in that runs past the deadline (a sort, which never checks it): the worker is terminated', async () => {
    // Two million random numbers take ~0.4 s to make (C built-ins too); the default sort compares
    // them as strings, ~5 s unloaded: it runs well past the 2 s deadline and its 500 ms grace.
    const sort =
      '{result: function() { var a = new Array(2000000).fill(0).map(Math.random); a.sort(); return a.length }, fault: function() {}}'
    await traceCall(COUNT, '30s')
    const before = sandboxWorkersStarted()
    const sorted = await duringTrace(() => traceCall(sort, '2s'))
    expect(sorted.response.error).toEqual({ code: -32000, message: 'execution timeout' })
    expect(sorted.heads.length).toBeGreaterThan(0)
    // The next tracer runs in a new worker.
    expect((await traceCall(COUNT, '30s')).result).toBe(70_002)
    expect(sandboxWorkersStarted()).toBe(before + 1)
  }, 120_000)
})
