// The follower `pcnode send` runs (src/cli/follow.ts): every transition of its state machine, and
// its loop fed by a source, without a node (the CLI tests run it against one).
import { describe, expect, it } from 'vitest'
import { ACCEPTED, advance, type EventSource, type FollowState, follow, type Observation } from '../src/cli/follow.js'
import { transitionLines } from '../src/cli/send-report.js'

const preconfirmedReceipt = { blockHash: `0x${'0'.repeat(64)}`, blockNumber: '0x7', status: '0x1', gasUsed: '0x5208' }
const sealedReceipt = { ...preconfirmedReceipt, blockHash: `0x${'ab'.repeat(32)}` }

describe('the follower', () => {
  it('goes accepted → pre-confirmed → sealed, keeping when each came', () => {
    const pre = advance(ACCEPTED, { kind: 'preconfirmed', at: 40, blockNumber: 7, flashblockIndex: 2 })
    expect(pre).toMatchObject({ stage: 'preconfirmed', preconfirmedMs: 40, blockNumber: 7, flashblockIndex: 2 })
    // Seen pre-confirmed again: nothing changes (the same object).
    expect(advance(pre, { kind: 'preconfirmed', at: 90, blockNumber: 7 })).toBe(pre)
    expect(advance(pre, { kind: 'pending', at: 95 }).stage).toBe('accepted')
    const sealed = advance(pre, { kind: 'sealed', at: 300, receipt: sealedReceipt })
    expect(sealed).toMatchObject({ stage: 'sealed', preconfirmedMs: 40, sealedMs: 300, blockNumber: 7, flashblockIndex: 2 })
    // Final: nothing moves it.
    for (const seen of [
      { kind: 'timeout', at: 1 },
      { kind: 'dropped', at: 1, reason: 'x', requeued: false },
      { kind: 'replaced', at: 1 },
    ] as Observation[]) {
      expect(advance(sealed, seen)).toBe(sealed)
    }
  })

  it('a block sealed before any flashblock was seen counts as the pre-confirmation too', () => {
    const sealed = advance(ACCEPTED, { kind: 'sealed', at: 120, receipt: sealedReceipt, flashblockIndex: 1 })
    expect(sealed).toMatchObject({ stage: 'sealed', preconfirmedMs: 120, sealedMs: 120, flashblockIndex: 1 })
  })

  it('a drop ends it unless the transaction went back to the pool; a replacement and the deadline end it', () => {
    const pre = advance(ACCEPTED, { kind: 'preconfirmed', at: 10, blockNumber: 3 })
    const requeued = advance(pre, { kind: 'dropped', at: 20, reason: 'left out as block 3 sealed', requeued: true })
    expect(requeued).toMatchObject({ stage: 'accepted', dropped: { reason: 'left out as block 3 sealed', requeued: true } })
    expect(requeued.preconfirmedMs).toBeUndefined()
    // Back in the pool and not pre-confirmed: a requeued drop seen again changes nothing.
    expect(advance(requeued, { kind: 'dropped', at: 25, reason: 'again', requeued: true })).toBe(requeued)
    expect(advance(pre, { kind: 'dropped', at: 30, reason: 'discarded', requeued: false })).toMatchObject({
      stage: 'dropped',
      endedMs: 30,
      dropped: { reason: 'discarded' },
    })
    expect(advance(ACCEPTED, { kind: 'replaced', at: 50 })).toMatchObject({ stage: 'replaced', endedMs: 50 })
    expect(advance(pre, { kind: 'timeout', at: 60 })).toMatchObject({ stage: 'timedOut', preconfirmedMs: 10 })
    // Still waiting changes nothing.
    expect(advance(ACCEPTED, { kind: 'pending', at: 5 })).toBe(ACCEPTED)
  })

  it('follow() feeds a source to the machine until a final state and reports each transition once', async () => {
    const script: Array<Observation | undefined> = [
      { kind: 'pending', at: 1 },
      { kind: 'preconfirmed', at: 2, blockNumber: 7, receipt: preconfirmedReceipt },
      { kind: 'preconfirmed', at: 3, blockNumber: 7 },
      { kind: 'sealed', at: 9, receipt: sealedReceipt },
      { kind: 'pending', at: 10 }, // never read: sealed is final
    ]
    const source: EventSource = {
      transport: 'http',
      track: () => {},
      next: async () => script.shift(),
      close: async () => {},
    }
    const seen: Array<[string, string]> = []
    const end = await follow(source, performance.now() + 60_000, performance.now(), (from: FollowState, to: FollowState) => {
      seen.push([from.stage, to.stage])
    })
    expect(end.stage).toBe('sealed')
    expect(seen).toEqual([
      ['accepted', 'preconfirmed'],
      ['preconfirmed', 'sealed'],
    ])
    expect(script).toHaveLength(1)
    // A source that has nothing by the deadline: timed out.
    const silent: EventSource = { ...source, next: async () => undefined }
    expect((await follow(silent, 0, 0, () => {})).stage).toBe('timedOut')
  })

  it("pcnode send's words: sealed straight from accepted says pre-confirmed first; a revert is ✖ with its reason", () => {
    const context = { timeoutMs: 30_000, prepared: { raw: '0x' as const, from: '0xabc', nonce: 4 } }
    const sealed = advance(ACCEPTED, { kind: 'sealed', at: 120, receipt: sealedReceipt, flashblockIndex: 1 })
    expect(transitionLines(ACCEPTED, sealed, context)).toEqual([
      { ok: true, text: 'Pre-confirmed in flashblock 1 of block 7 (+120 ms)' },
      { ok: true, text: `Sealed in block 7 ${sealedReceipt.blockHash} (+120 ms), gas used 21000` },
    ])
    const reverted = advance(ACCEPTED, {
      kind: 'preconfirmed',
      at: 50,
      blockNumber: 7,
      receipt: { ...preconfirmedReceipt, status: '0x0' },
    })
    expect(transitionLines(ACCEPTED, reverted, { ...context, revert: 'no way' })).toEqual([
      { ok: false, text: 'Pre-confirmed in block 7 (+50 ms): reverted: no way' },
    ])
    const replaced = advance(ACCEPTED, { kind: 'replaced', at: 60 })
    expect(transitionLines(ACCEPTED, replaced, context)[0]).toEqual({
      ok: false,
      text: 'Replaced: another transaction from 0xabc with nonce 4 was sealed',
    })
    const timedOut = advance(reverted, { kind: 'timeout', at: 30_000 })
    expect(transitionLines(reverted, timedOut, context)[0].text).toBe('not sealed: still waiting after 30000 ms')
  })
})

describe('the WebSocket source', () => {
  it('reports the pre-confirmation a flashblock named before the look found it already dropped', async () => {
    const { SubscriptionSource } = await import('../src/cli/follow-sources.js')
    const hash = `0x${'cd'.repeat(32)}`
    const listeners: Array<(data: unknown) => void> = []
    const ws = {
      async subscribe(params: unknown[], onData: (data: unknown) => void) {
        if (params[0] === 'newFlashblockTransactions') listeners.push(onData)
      },
      async request<T>(method: string): Promise<T> {
        // By the time the source looks, the sealing block left it out.
        if (method !== 'pcnode_transactionStatus') throw new Error(`unexpected ${method}`)
        return { status: 'dropped', blockNumber: '0x9', flashblockIndex: '0x3', reason: 'left out', requeued: false } as T
      },
      close: async () => {},
    }
    const source = new SubscriptionSource(ws)
    await source.open()
    source.track({ hash }, performance.now())
    for (const listener of listeners) listener(hash)
    const deadline = performance.now() + 5000
    const first = await source.next(deadline)
    const second = await source.next(deadline)
    expect(first).toMatchObject({ kind: 'preconfirmed', blockNumber: 9, flashblockIndex: 3 })
    expect(second).toMatchObject({ kind: 'dropped', reason: 'left out', requeued: false })
    const state = advance(advance(ACCEPTED, first as Observation), second as Observation)
    expect(state.stage).toBe('dropped')
    expect(state.preconfirmedMs).toBeGreaterThanOrEqual(0)
  })
})
