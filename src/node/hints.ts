// Teaching the pre-confirmation traps where they happen. As on Base, `latest` is the last sealed
// block and pre-confirmed transactions show only at `pending`; tools that read `latest` right after
// a pre-confirmed receipt see the old state (ethers' approve-then-transferFrom estimate, a swap on
// a pair created in the open block, cast's second send from one key). When a `latest` read, call
// or estimate would have answered differently at `pending` because of pre-confirmed transactions,
// or a send is refused for a nonce those transactions used, the node logs one line saying so and
// what to do: at most one line per account per block, and each comparison (method, account,
// target) runs at most once per block, so the check costs little while nobody hits the trap.
import { hexKey } from './bytes.js'
import type { Chain } from './chain/chain.js'
import type { BlockRef } from './types.js'

const ADVICE =
  'read with blockTag "pending" (viem: a chain with experimental_preconfirmationTime; ethers: provider.getTransactionCount(addr, "pending")), ' +
  'or start pcnode with --block-time 0 to seal every flashblock at once'

/** Whether `ref` reads the last sealed block by tag (what tools default to). */
export function readsLatest(ref: BlockRef): boolean {
  return 'tag' in ref && (ref.tag === 'latest' || ref.tag === 'safe' || ref.tag === 'finalized')
}

const short = (address: Uint8Array) => `0x${hexKey(address)}`

export class PreconfHints {
  /** Per comparison (method, account, target): the pending block number it was last made in. */
  private readonly compared = new Map<string, bigint>()
  /** Per account: the pending block number it was last told about. */
  private readonly told = new Map<string, bigint>()

  constructor(
    private readonly chain: Chain,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Whether a `latest` read, call or estimate is worth comparing with `pending`: the open block has
   * pre-confirmed transactions, `account` was not told about in it yet, and this comparison was not
   * made in it yet. Marks it made.
   */
  shouldCheck(ref: BlockRef, account: Uint8Array, what: string, target?: Uint8Array): boolean {
    // `safe` / `finalized` behind the head (--safe-lag) differ from `pending` for that reason, not pre-confirmations.
    if (!readsLatest(ref) || this.chain.find(ref) !== this.chain.head || this.toldInBlock(account)) return false
    return this.firstInBlock(this.compared, `${what}:${hexKey(account)}:${target ? hexKey(target) : ''}`)
  }

  /** A read at `latest` differed from `pending`. */
  readDiffers(method: string, account: Uint8Array, latest: string, pending: string): void {
    const n = this.pendingCount()
    this.tell(
      account,
      `hint: ${method}(${short(account)}, "latest") = ${latest}, but "pending" = ${pending}: ${n} pre-confirmed ` +
        `transaction${n === 1 ? ' is' : 's are'} not in a sealed block yet ("latest" is the last sealed block, as on Base). To see ${n === 1 ? 'it' : 'them'}, ${ADVICE}.`,
    )
  }

  /** A call or estimate at `latest` answered differently than it would at `pending`. */
  executionDiffers(method: string, sender: Uint8Array, latest: string, pending: string): void {
    const n = this.pendingCount()
    this.tell(
      sender,
      `hint: ${method} from ${short(sender)} at "latest" ${latest}; at "pending" it ${pending}. It ran on the last sealed ` +
        `block, without the ${n} pre-confirmed transaction${n === 1 ? '' : 's'} of the open one (a transaction sent now runs after them). ` +
        `Estimate and call at "pending": ${ADVICE}.`,
    )
  }

  /** A send refused for a nonce pre-confirmed transactions already used. */
  nonceTooLow(sender: Uint8Array, txNonce: bigint, next: bigint, pendingNonce: bigint): void {
    const own = this.chain.pending?.txs.filter((t) => Buffer.compare(t.tx.from, sender) === 0).length ?? 0
    if (own === 0) return
    this.tell(
      sender,
      `hint: a transaction from ${short(sender)} with nonce ${txNonce} was refused (nonce too low: next nonce ${next}, ` +
        `pending nonce ${pendingNonce}). ${own} pre-confirmed transaction${own === 1 ? '' : 's'} from it ${own === 1 ? 'is' : 'are'} not sealed yet, so its ` +
        `nonce at "latest" lags (cast and other tools read it there). Take the nonce at "pending": ${ADVICE}.`,
    )
  }

  /** Logs `line` unless `account` was told about in this block already. */
  private tell(account: Uint8Array, line: string): void {
    if (this.firstInBlock(this.told, hexKey(account))) this.log(line)
  }

  private toldInBlock(account: Uint8Array): boolean {
    const pending = this.chain.pending
    return pending !== undefined && this.told.get(hexKey(account)) === pending.header.number
  }

  /** True the first time `key` comes up in the open block (which has pre-confirmed transactions). */
  private firstInBlock(seen: Map<string, bigint>, key: string): boolean {
    const pending = this.chain.pending
    if (!pending || this.pendingCount() === 0) return false
    if (seen.get(key) === pending.header.number) return false
    if (seen.size > 10_000) seen.clear()
    seen.set(key, pending.header.number)
    return true
  }

  /** Pre-confirmed transactions of the open block, its deposits (OP stack: flashblock 0's) not counted. */
  private pendingCount(): number {
    const txs = this.chain.pending?.txs ?? []
    let deposits = 0
    while (deposits < txs.length && txs[deposits].tx.deposit) deposits++
    return txs.length - deposits
  }
}
