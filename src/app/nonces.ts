// Used nonce keys (signer address + message.nonce). With a data folder they are appended to a
// file and flushed to disk before the request that used them is answered, so a replay after a
// restart is still refused.
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
      for (const line of lines) if (line) this.used.add(line)
    }
    this.fd = openSync(file, 'a')
  }

  static key(address: string, nonce: string): string {
    return `${address.toLowerCase()}-${nonce}`
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
