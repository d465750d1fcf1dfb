// What `pcnode send` prints: a spinner per stage on a terminal (plain lines when piped, nothing but
// the JSON with --json), and the words for each transition of the follower (follow.ts).
// Type-only imports: chalk, ora and viem come in through SendDeps, loaded when `send` runs.
import type { ChalkInstance } from 'chalk'
import type { Ora } from 'ora'
import type { Hex } from 'viem'
import type { FollowState } from './follow.js'
import { RpcCallError } from './rpc-client.js'
import { formatEther } from './units.js'

export interface SendDeps {
  chalk: ChalkInstance
  ora: typeof import('ora').default
  viem: typeof import('viem')
  accounts: typeof import('viem/accounts')
  /** Revert data in words (Error, Panic, or a custom error's selector). */
  describeRevert: (data: unknown) => string | undefined
}

/** The signed transaction and what it says. */
export interface Prepared {
  raw: Hex
  from?: string
  to?: string | null
  nonce?: number
  value?: bigint
}

export class Reporter {
  private spinner: Ora | undefined
  /** Spinners only on a terminal: piped, each stage's outcome is one plain line. */
  private readonly live = process.stdout.isTTY === true

  constructor(
    private readonly deps: SendDeps,
    private readonly json: boolean,
  ) {}

  step(text: string): void {
    if (this.json || !this.live) return
    this.spinner?.stop()
    this.spinner = this.deps.ora({ text, stream: process.stdout }).start()
  }

  /** The prepared transaction, as the first stage's line. */
  done(prepared: Prepared): void {
    const what = [
      prepared.from ? `from ${prepared.from}` : undefined,
      prepared.to ? `to ${prepared.to}` : prepared.to === null ? 'deploying a contract' : undefined,
      prepared.value !== undefined ? `value ${formatEther(prepared.value, 18)} ETH` : undefined,
      prepared.nonce !== undefined ? `nonce ${prepared.nonce}` : undefined,
    ]
      .filter(Boolean)
      .join(', ')
    this.line(true, what ? `Signed: ${what}` : 'Raw transaction read')
  }

  /** A stage's outcome: ✔ or ✖, on the spinner's line when there is one. */
  line(ok: boolean, text: string): void {
    if (this.json) return
    const { chalk } = this.deps
    if (this.spinner) {
      if (ok) this.spinner.succeed(text)
      else this.spinner.fail(text)
      this.spinner = undefined
    } else if (ok) {
      console.log(`${chalk.green('✔')} ${text}`)
    } else {
      console.log(`${chalk.red('✖')} ${text}`)
    }
  }

  /** A failure that ends the send; with --json, one JSON object saying which stage failed. */
  fail(stage: string, reason: unknown): void {
    const message = reason instanceof Error ? reason.message : String(reason)
    if (this.json) {
      const rpc = reason instanceof RpcCallError ? { code: reason.code, data: reason.data } : {}
      console.log(JSON.stringify({ error: message, stage, ...rpc }))
      return
    }
    const text = `${stage}: ${message}`
    if (this.spinner) this.spinner.fail(text)
    else console.error(`${this.deps.chalk.red('✖')} ${text}`)
    this.spinner = undefined
  }
}

/**
 * The lines for one transition of the follower: ✔ for progress, ✖ for a revert or an end short of
 * sealed. Sealed straight from accepted (a poll that came late, --block-time 0) says pre-confirmed too.
 */
export function transitionLines(
  from: FollowState,
  to: FollowState,
  context: { revert?: string; timeoutMs: number; prepared: Prepared },
): Array<{ ok: boolean; text: string }> {
  const lines = [transitionLine(from, to, context)]
  if (from.stage === 'accepted' && to.stage === 'sealed') {
    lines.unshift(transitionLine(from, { ...to, stage: 'preconfirmed' }, context))
  }
  return lines
}

function transitionLine(
  from: FollowState,
  to: FollowState,
  context: { revert?: string; timeoutMs: number; prepared: Prepared },
): { ok: boolean; text: string } {
  const reverted = to.receipt?.status === '0x0'
  const why = reverted ? `: reverted: ${context.revert ?? 'no reason given'}` : ''
  switch (to.stage) {
    case 'preconfirmed': {
      const where = to.flashblockIndex !== undefined ? `flashblock ${to.flashblockIndex} of block` : 'block'
      return { ok: !reverted, text: `Pre-confirmed in ${where} ${to.blockNumber ?? '?'} (+${to.preconfirmedMs} ms)${why}` }
    }
    case 'sealed': {
      const gas = to.receipt ? `, gas used ${BigInt(to.receipt.gasUsed)}` : ''
      const hash = to.receipt?.blockHash ?? ''
      return { ok: !reverted, text: `Sealed in block ${to.blockNumber} ${hash} (+${to.sealedMs} ms)${gas}${why}` }
    }
    case 'accepted':
      // Only reached from pre-confirmed: a fault took the pre-confirmation back.
      return {
        ok: false,
        text: `Pre-confirmation taken back (${to.dropped?.reason ?? 'dropped'}); the transaction is in the pool again`,
      }
    case 'dropped':
      return { ok: false, text: `Dropped: ${to.dropped?.reason ?? 'the node discarded it'}` }
    case 'replaced': {
      const { from: sender, nonce } = context.prepared
      return { ok: false, text: `Replaced: another transaction from ${sender} with nonce ${nonce} was sealed` }
    }
    case 'timedOut': {
      const stage = from.stage === 'preconfirmed' ? 'not sealed' : 'not pre-confirmed'
      return { ok: false, text: `${stage}: still waiting after ${context.timeoutMs} ms` }
    }
  }
}
