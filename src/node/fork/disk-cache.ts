// What a fork read from its upstream, kept on disk between runs (foundry-fork-db's
// JsonBlockCacheDB; Hardhat's edr-fork-cache): the fork block's header, accounts, storage slots,
// block hashes and history answers, keyed by chain id, fork block and upstream URL. Only upstream
// answers at the fork block go in, never a local write (anvil's #1531), so the cache is the same
// whatever a run did. One JSON file per fork, loaded at start and written at stop (and every
// minute while it changes), crash-safe as the state file is.
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { Hex } from '../../shared/hex.js'
import { writeFileAtomic } from '../storage/state-file/file.js'

const FORMAT = 'pcnode-fork-cache'
const VERSION = 1

export interface CachedAccount {
  nonce: Hex
  balance: Hex
  code: Hex
}

interface CacheFile {
  format: typeof FORMAT
  version: typeof VERSION
  /** For people reading the file: the upstream, key redacted. */
  upstream: string
  chainId: number
  blockNumber: Hex
  /** The fork block as the upstream served it (eth_getBlockByNumber(n, false)). */
  block: Record<string, unknown> | null
  /** null: empty at the fork block. */
  accounts: Record<string, CachedAccount | null>
  storage: Record<string, Record<string, Hex>>
  blockHashes: Record<string, Hex | null>
  /** History before and at the fork block: "method params" → the upstream's answer. */
  history: Record<string, unknown>
}

/** The per-user cache folder (XDG on Linux, the platforms' own elsewhere). */
export function userCacheDir(): string {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'pcnode')
  if (process.platform === 'win32')
    return join(process.env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'pcnode', 'Cache')
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'pcnode')
}

/** Where a fork's cache files live: `<dataDir>/fork-cache`, or the per-user cache folder's `fork`. */
export function cacheRoot(dataDir: string): string {
  return dataDir ? join(dataDir, 'fork-cache') : join(userCacheDir(), 'fork')
}

const urlKey = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 16)

/** The newest fork block cached for (chain, url), for an offline start that names no block. */
export function newestCachedBlock(root: string, chainId: number, url: string): bigint | undefined {
  let newest: bigint | undefined
  let names: string[]
  try {
    names = readdirSync(join(root, String(chainId)))
  } catch {
    return undefined
  }
  for (const name of names) {
    if (!/^\d+$/.test(name) || !existsSync(join(root, String(chainId), name, `${urlKey(url)}.json`))) continue
    const n = BigInt(name)
    if (newest === undefined || n > newest) newest = n
  }
  return newest
}

export class ForkCache {
  private accounts = new Map<string, CachedAccount | null>()
  private storage = new Map<string, Map<string, Hex>>()
  private blockHashes = new Map<string, Hex | null>()
  private history = new Map<string, unknown>()
  block: Record<string, unknown> | null = null
  private dirty = false
  private timer: NodeJS.Timeout | undefined
  private writing: Promise<void> = Promise.resolve()

  /**
   * The cache of (chain, block, url) under `root`; `root` undefined keeps it in memory only
   * (--no-fork-cache). A file that is unreadable or of another fork is ignored (and replaced).
   */
  constructor(
    readonly file: string | undefined,
    private readonly meta: { chainId: number; blockNumber: bigint; upstream: string },
  ) {
    if (file) this.load(file)
  }

  static at(root: string | undefined, chainId: number, blockNumber: bigint, url: string, upstream: string): ForkCache {
    const file = root && join(root, String(chainId), String(blockNumber), `${urlKey(url)}.json`)
    return new ForkCache(file, { chainId, blockNumber, upstream })
  }

  private load(file: string): void {
    let doc: CacheFile
    try {
      doc = JSON.parse(readFileSync(file, 'utf8'))
    } catch {
      return
    }
    if (doc.format !== FORMAT || doc.version !== VERSION) return
    if (doc.chainId !== this.meta.chainId || BigInt(doc.blockNumber) !== this.meta.blockNumber) return
    this.block = doc.block
    this.accounts = new Map(Object.entries(doc.accounts ?? {}))
    this.storage = new Map(
      Object.entries(doc.storage ?? {}).map(([a, slots]) => [a, new Map(Object.entries(slots)) as Map<string, Hex>]),
    )
    this.blockHashes = new Map(Object.entries(doc.blockHashes ?? {}))
    this.history = new Map(Object.entries(doc.history ?? {}))
    let slots = 0
    for (const m of this.storage.values()) slots += m.size
    this.loaded = { accounts: this.accounts.size, slots }
  }

  /** What the file held when loaded (the banner shows it). */
  loaded = { accounts: 0, slots: 0 }

  account(address: string): CachedAccount | null | undefined {
    return this.accounts.get(address)
  }

  putAccount(address: string, account: CachedAccount | null): void {
    this.accounts.set(address, account)
    this.changed()
  }

  slot(address: string, slot: string): Hex | undefined {
    return this.storage.get(address)?.get(slot)
  }

  putSlot(address: string, slot: string, value: Hex): void {
    let slots = this.storage.get(address)
    if (!slots) this.storage.set(address, (slots = new Map()))
    slots.set(slot, value)
    this.changed()
  }

  blockHash(n: bigint): Hex | null | undefined {
    return this.blockHashes.get(String(n))
  }

  putBlockHash(n: bigint, hash: Hex | null): void {
    this.blockHashes.set(String(n), hash)
    this.changed()
  }

  answer(key: string): unknown {
    return this.history.get(key)
  }

  hasAnswer(key: string): boolean {
    return this.history.has(key)
  }

  putAnswer(key: string, value: unknown): void {
    this.history.set(key, value)
    this.changed()
  }

  putBlock(block: Record<string, unknown>): void {
    this.block = block
    this.changed()
  }

  private changed(): void {
    this.dirty = true
    // Written every minute while it changes, so a killed node keeps most of what it read.
    if (this.file && !this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined
        void this.save().catch(() => {})
      }, 60_000)
      this.timer.unref()
    }
  }

  /** Writes the file if anything was added since the last write. */
  save(): Promise<void> {
    if (!this.file || !this.dirty) return this.writing
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    this.dirty = false
    const doc: CacheFile = {
      format: FORMAT,
      version: VERSION,
      upstream: this.meta.upstream,
      chainId: this.meta.chainId,
      blockNumber: `0x${this.meta.blockNumber.toString(16)}`,
      block: this.block,
      accounts: Object.fromEntries(this.accounts),
      storage: Object.fromEntries([...this.storage].map(([a, slots]) => [a, Object.fromEntries(slots)])),
      blockHashes: Object.fromEntries(this.blockHashes),
      history: Object.fromEntries(this.history),
    }
    const file = this.file
    this.writing = this.writing.then(() => writeFileAtomic(file, JSON.stringify(doc)))
    return this.writing
  }

  /** Forgets everything (the upstream's chain changed under the same chain id and URL). */
  clear(): void {
    this.accounts.clear()
    this.storage.clear()
    this.blockHashes.clear()
    this.history.clear()
    this.block = null
    this.loaded = { accounts: 0, slots: 0 }
    this.changed()
  }

  /** Stops the periodic write (the caller saves last). */
  close(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
  }
}
