// The bench's progress log (stderr, so stdout stays the report) and its error tallies.

export const log = (...a) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a)
export const short = (s, n = 160) => {
  s = String(s).replace(/\s+/g, ' ')
  return s.length > n ? `${s.slice(0, n)}…` : s
}

/** Errors grouped by message with numbers and hashes masked. */
export class ErrorLog {
  constructor() {
    this.count = 0
    this.kinds = new Map()
  }
  add(e) {
    this.count++
    const msg = short(`${e?.code != null ? `[${e.code}] ` : ''}${e?.message ?? e}`, 200)
    const key = msg.replace(/0x[0-9a-fA-F]{8,}/g, '<hex>').replace(/\d+(\.\d+)?/g, 'N')
    const k = this.kinds.get(key)
    if (k) k.count++
    else this.kinds.set(key, { example: msg, count: 1 })
  }
  toJSON() {
    return {
      count: this.count,
      top: [...this.kinds.values()].sort((a, b) => b.count - a.count).slice(0, 5),
    }
  }
}
