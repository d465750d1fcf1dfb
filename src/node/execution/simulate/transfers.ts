// eth_simulateV1 traceTransfers: every ETH movement as an ERC-20 Transfer log from the ERC-7528
// native-asset address, in execution order with the real logs (geth's logtracer).
import type { FrameType, TraceFrame, TraceFrameEnd, TraceHooks } from '../../engine/index.js'
import type { LogEntry } from '../../types.js'

const TRANSFER_ADDRESS = Uint8Array.from(Buffer.from('eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', 'hex'))
const TRANSFER_TOPIC = Uint8Array.from(Buffer.from('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', 'hex'))

function word(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(32)
  out.set(bytes.subarray(Math.max(0, bytes.length - 32)), Math.max(0, 32 - bytes.length))
  return out
}

function quantityWord(value: bigint): Uint8Array {
  const out = new Uint8Array(32)
  for (let i = 31, v = value; i >= 0 && v > 0n; i--, v >>= 8n) out[i] = Number(v & 0xffn)
  return out
}

function transferLog(from: Uint8Array, to: Uint8Array, value: bigint): LogEntry {
  return { address: TRANSFER_ADDRESS, topics: [TRANSFER_TOPIC, word(from), word(to)], data: quantityWord(value) }
}

type Frame = { logs: LogEntry[] }

/**
 * The frames that move value between accounts: DELEGATECALL carries its parent's value and moves
 * none, CALLCODE sends it to the caller itself, STATICCALL has none.
 */
const MOVES_VALUE = new Set<FrameType>(['CALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT'])

/**
 * One frame per frame geth enters, opened on enter and closed on exit. A value-carrying frame
 * starts with its Transfer log (a SELFDESTRUCT is a frame of its own, so its payout lands where it
 * runs); LOG opcodes append to the running frame, so real and synthetic logs keep execution order.
 * A failed frame's logs are dropped, a successful one's move to its parent.
 */
export class TransferTracer implements TraceHooks {
  private frames: Frame[] = []
  private done: LogEntry[] = []
  /** Logs captured since the last reset, dropped ones included: geth's log index counts them all. */
  private captured = 0
  /** `captured` of the call last taken. */
  takenCount = 0

  reset(): void {
    this.frames = []
    this.done = []
    this.captured = 0
  }

  /** The finished call's logs. */
  take(): LogEntry[] {
    const logs = this.done
    this.takenCount = this.captured
    this.reset()
    return logs
  }

  private push(frame: Frame | undefined, log: LogEntry): void {
    if (!frame) return
    frame.logs.push(log)
    this.captured++
  }

  enter(trace: TraceFrame): void {
    const frame: Frame = { logs: [] }
    this.frames.push(frame)
    // A frame that failed before it started moved nothing and ran no code: it logs no transfer and
    // takes no log index (it fails, so the frame itself is dropped on exit).
    if (trace.failedToStart || !MOVES_VALUE.has(trace.type) || !trace.value) return
    // For a creation `to` is the address it deploys to.
    this.push(frame, transferLog(trace.from, trace.to, trace.value))
  }

  exit(end: TraceFrameEnd): void {
    const frame = this.frames.pop()
    if (!frame) return
    if (end.error !== undefined) return
    const parent = this.frames.at(-1)
    if (parent) parent.logs.push(...frame.logs)
    else this.done = frame.logs
  }

  log(entry: LogEntry): void {
    this.push(this.frames.at(-1), entry)
  }
}
