// Following a submitted transaction (`pcnode send`): one state machine, accepted → pre-confirmed →
// sealed, or dropped (a pre-confirmation fault discarded it), replaced (another transaction took its
// nonce) or timed out. It is fed observations by ONE event source chosen before the submission
// (follow-sources.ts: a WebSocket subscription, or a poller); `advance` is pure, so every
// transition is decided in one place whatever the source.

/** The receipt fields the follower reads (eth_getTransactionReceipt). */
export interface Receipt {
  blockHash: string
  blockNumber: string
  status: string
  gasUsed: string
  contractAddress?: string | null
}

/** What a source saw about the transaction; `at` is ms since the submission started. */
export type Observation =
  /** Still waiting: in the pool, or not found. */
  | { kind: 'pending'; at: number }
  | { kind: 'preconfirmed'; at: number; blockNumber: number; flashblockIndex?: number; receipt?: Receipt }
  | { kind: 'sealed'; at: number; receipt: Receipt; flashblockIndex?: number }
  /**
   * Taken out of a sealing block by a fault (pcnode_transactionStatus); `requeued`: back to the pool.
   * `blockNumber`/`flashblockIndex`: where it had been pre-confirmed, when the node says.
   */
  | { kind: 'dropped'; at: number; reason: string; requeued: boolean; blockNumber?: number; flashblockIndex?: number }
  /** Not found, and the sender's sealed nonce has passed it: another transaction took the nonce. */
  | { kind: 'replaced'; at: number }
  | { kind: 'timeout'; at: number }

export type Stage = 'accepted' | 'preconfirmed' | 'sealed' | 'dropped' | 'replaced' | 'timedOut'

export interface FollowState {
  readonly stage: Stage
  /** ms since the submission started. */
  readonly preconfirmedMs?: number
  readonly sealedMs?: number
  readonly endedMs?: number
  readonly blockNumber?: number
  readonly flashblockIndex?: number
  readonly receipt?: Receipt
  /** The last time a pre-confirmation was taken back. */
  readonly dropped?: { reason: string; requeued: boolean }
}

export const ACCEPTED: FollowState = { stage: 'accepted' }

export function isFinal(state: FollowState): boolean {
  return state.stage === 'sealed' || state.stage === 'dropped' || state.stage === 'replaced' || state.stage === 'timedOut'
}

/** The state after `seen`; the same object when nothing changed (a final state never changes). */
export function advance(state: FollowState, seen: Observation): FollowState {
  if (isFinal(state)) return state
  switch (seen.kind) {
    case 'preconfirmed':
      if (state.stage === 'preconfirmed') return state
      return {
        ...state,
        stage: 'preconfirmed',
        preconfirmedMs: seen.at,
        blockNumber: seen.blockNumber,
        flashblockIndex: seen.flashblockIndex,
        receipt: seen.receipt,
      }
    case 'sealed':
      return {
        ...state,
        stage: 'sealed',
        // A block sealed before any flashblock was seen (a poll that came late) pre-confirmed it too.
        preconfirmedMs: state.stage === 'preconfirmed' ? state.preconfirmedMs : seen.at,
        sealedMs: seen.at,
        endedMs: seen.at,
        blockNumber: Number(seen.receipt.blockNumber),
        flashblockIndex: seen.flashblockIndex ?? (state.stage === 'preconfirmed' ? state.flashblockIndex : undefined),
        receipt: seen.receipt,
      }
    case 'dropped':
      if (!seen.requeued) return { ...state, stage: 'dropped', endedMs: seen.at, dropped: seen }
      return state.stage === 'preconfirmed' ? takenBack(seen) : state
    case 'pending':
      // Pre-confirmed, then in the pool (or gone) again: the pre-confirmation was taken back.
      return state.stage === 'preconfirmed' ? takenBack({ reason: 'no longer pre-confirmed', requeued: true }) : state
    case 'replaced':
      return { ...state, stage: 'replaced', endedMs: seen.at }
    case 'timeout':
      return { ...state, stage: 'timedOut', endedMs: seen.at }
  }
}

function takenBack(dropped: { reason: string; requeued: boolean }): FollowState {
  return { stage: 'accepted', dropped: { reason: dropped.reason, requeued: dropped.requeued } }
}

/** Where observations come from: chosen once, before the submission (follow-sources.ts). */
export interface EventSource {
  readonly transport: 'websocket' | 'http'
  /** The transaction to follow, once the node accepted it; `t0` is when the submission started. */
  track(tx: { hash: string; from?: string; nonce?: number }, t0: number): void
  /** The next observation, or undefined once `deadline` (performance.now() time) has passed. */
  next(deadline: number): Promise<Observation | undefined>
  close(): Promise<void>
}

/**
 * Feeds the source's observations to the machine until a final state, calling `changed` on each
 * transition (the reporter prints it). A source error (the connection closed) ends it by throwing.
 */
export async function follow(
  source: EventSource,
  deadline: number,
  t0: number,
  changed: (from: FollowState, to: FollowState) => Promise<void> | void,
): Promise<FollowState> {
  let state = ACCEPTED
  while (!isFinal(state)) {
    const seen = (await source.next(deadline)) ?? { kind: 'timeout', at: Math.round(performance.now() - t0) }
    const next = advance(state, seen)
    if (next !== state) await changed(state, next)
    state = next
  }
  return state
}
