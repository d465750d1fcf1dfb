// Used nonce keys (signer address + message.nonce). With a data folder they are appended to a
// file and flushed to disk before the request that used them is answered, so a replay after a
// restart is still refused. A key holds the nonce's value, not its spelling: EIP-712 hashes a
// uint256, so "7", "007" and "0x7" sign the same message and must be one key.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export class NonceStore {
  private readonly used = new Set<string>()
  private readonly locks = new Map<string, Promise<void>>()
  private fd: number | undefined

  constructor(dataDir?: string) {
    if (!dataDir) return
    mkdirSync(dataDir, { recursive: true })
    const file = join(dataDir, 'used-nonces.log')
    if (existsSync(file)) {
      const lines = readFileSync(file, 'utf8').split('\n')
      // The last piece has no newline: empty, or a torn append whose request was never answered 200.
      lines.pop()
      for (const line of lines) if (line) this.used.add(canonicalKey(line))
    }
    this.fd = openSync(file, 'a')
  }

  /** The key of `address` and a nonce's value (one key per value, whatever its spelling). */
  static key(address: string, nonce: bigint): string {
    return `${address.toLowerCase()}-${nonce.toString()}`
  }

  has(key: string): boolean {
    return this.used.has(key)
  }

  /** Marks a key used, durably when there is a data folder. */
  markUsed(key: string): void {
    this.used.add(key)
    if (this.fd !== undefined) {
      writeSync(this.fd, `${key}\n`)
      fsyncSync(this.fd)
    }
  }

  /** Runs `fn` with the key locked, so concurrent submissions of one key are decided one at a time. */
  async withKey<T>(key: string, fn: () => Promise<T>): Promise<T> {
    while (this.locks.has(key)) await this.locks.get(key)
    let release!: () => void
    this.locks.set(key, new Promise<void>((resolve) => (release = resolve)))
    try {
      return await fn()
    } finally {
      this.locks.delete(key)
      release()
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }
}

/**
 * A persisted line as a key. A file may hold a nonce as decimal digits with leading zeros (as a
 * request spelled it), so the digits are re-read as a value. A line that does not parse is kept as
 * it is: it matches no key and blocks nothing.
 */
function canonicalKey(line: string): string {
  const dash = line.lastIndexOf('-')
  const nonce = line.slice(dash + 1)
  if (dash < 0 || !/^[0-9]+$/.test(nonce)) return line
  return NonceStore.key(line.slice(0, dash), BigInt(nonce))
}
