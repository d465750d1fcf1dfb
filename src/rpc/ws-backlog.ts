// Memory held for WebSocket clients that do not read: what the node has handed to a socket and the
// kernel has not taken yet. Each connection has a cap, and so do all of them together, so that many
// stalled subscribers cannot grow the node without bound (geth drops a client whose writes time out).

/** A WebSocket client whose unsent backlog passes this is dropped rather than slowing the node. */
export const MAX_WS_BACKLOG = 16 * 1024 * 1024
/**
 * All connections' backlogs together. A client that reads keeps a backlog near zero, so this is
 * only reached by stalled ones: four of them at the per-connection cap. It bounds what they can add
 * to a node of a few hundred MB to a small share of it.
 */
export const MAX_WS_TOTAL_BACKLOG = 64 * 1024 * 1024

/** One connection's share: `admit` before each write, its callback once the socket has taken it. */
export interface Backlog {
  /** Bytes written to the socket and not yet flushed to the kernel. */
  readonly pending: number
  /**
   * Before a write of `size` (JSON text length): drops this or other connections whose backlog is
   * over a cap. false: this connection was dropped, do not write. A message is always admitted to a
   * connection with no backlog, however big (a large reply to a client that reads is fine).
   */
  admit(size: number): boolean
  /** The write callback that returns `size` to the budget once the socket has flushed it. */
  written(size: number): () => void
  /** The connection closed: its backlog is gone with its socket. */
  close(): void
}

export class BacklogBudget {
  private total = 0
  private readonly open = new Set<ConnectionBacklog>()
  /** Connections dropped for their backlog, and the most bytes ever waiting at once (for tests and logs). */
  dropped = 0
  peak = 0

  constructor(
    readonly perConnection = MAX_WS_BACKLOG,
    readonly overall = MAX_WS_TOTAL_BACKLOG,
  ) {}

  /** Bytes waiting in all connections together. */
  get buffered(): number {
    return this.total
  }

  /** A connection's account; `terminate` ends its socket at once (its buffered bytes are freed). */
  connect(terminate: () => void): Backlog {
    const budget = this
    const backlog: ConnectionBacklog = {
      pending: 0,
      closed: false,
      terminate,
      admit(size) {
        if (backlog.closed) return false
        if (backlog.pending > budget.perConnection) {
          budget.drop(backlog)
          return false
        }
        // Over the overall cap: drop the largest backlogs (this one too, if it is the largest) until under it.
        while (budget.total > budget.overall) {
          const largest = budget.largest()
          budget.drop(largest)
          if (largest === backlog) return false
        }
        backlog.pending += size
        budget.total += size
        if (budget.total > budget.peak) budget.peak = budget.total
        return true
      },
      written: (size) => () => {
        if (backlog.closed) return
        backlog.pending -= size
        budget.total -= size
      },
      close() {
        budget.release(backlog)
      },
    }
    this.open.add(backlog)
    return backlog
  }

  private largest(): ConnectionBacklog {
    let largest: ConnectionBacklog | undefined
    for (const b of this.open) if (!largest || b.pending > largest.pending) largest = b
    return largest as ConnectionBacklog
  }

  private drop(backlog: ConnectionBacklog): void {
    if (backlog.closed) return
    this.dropped++
    this.release(backlog)
    backlog.terminate()
  }

  private release(backlog: ConnectionBacklog): void {
    if (backlog.closed) return
    backlog.closed = true
    this.total -= backlog.pending
    backlog.pending = 0
    this.open.delete(backlog)
  }
}

interface ConnectionBacklog extends Backlog {
  pending: number
  closed: boolean
  terminate: () => void
}
