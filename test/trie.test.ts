// The hand-written Merkle-Patricia root builder against the reference trie (@ethereumjs/mpt) on
// random key/value sets: the same root, and onNode yields exactly the nodes the reference trie
// stores by hash. Seeded: a failure prints its seed and case, and PCNODE_TEST_SEED replays it.
import { createMPT, MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, KECCAK256_RLP, MapDB, ValueEncoding } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { describe, expect, it } from 'vitest'
import { MemoTrie, ReadMemo } from '../src/node/engine/store/read-memo.js'
import { TrieUpdate, type TrieWrite, trieGet, walkStored } from '../src/node/engine/store/stored-trie.js'
import { orderedTrieRoot, trieRoot, walkTrie } from '../src/node/engine/store/trie.js'
import { seededRandom, testSeed } from './helpers.js'

const keccak = (data: Uint8Array) => keccak_256(data)

type Entry = [Uint8Array, Uint8Array]

/** Root of the reference trie after putting every entry, and the nodes reachable from it by hash. */
async function reference(entries: Entry[]): Promise<{ root: Uint8Array; nodes: Map<string, string> }> {
  const trie = await createMPT()
  for (const [key, value] of entries) await trie.put(key, value)
  const root = trie.root()
  const nodes = new Map<string, string>()
  if (entries.length === 0) return { root, nodes }
  // The store also keeps nodes that later puts replaced: walk from the root instead.
  const visit = async (hash: Uint8Array) => {
    const encoded = await trie.database().get(hash)
    if (!(encoded instanceof Uint8Array)) throw new Error(`reference trie lacks node ${bytesToHex(hash)}`)
    nodes.set(bytesToHex(hash), bytesToHex(encoded))
    for (const child of children(RLP.decode(encoded) as Nested)) await visit(child)
  }
  await visit(root)
  return { root, nodes }
}

type Nested = Uint8Array | Nested[]

/** Hash references of a decoded node (embedded nodes are under 32 bytes, so they hold none). */
function children(node: Nested): Uint8Array[] {
  if (!Array.isArray(node)) return []
  const isRef = (item: Nested): item is Uint8Array => item instanceof Uint8Array && item.length === 32
  if (node.length === 17) return node.slice(0, 16).filter(isRef)
  const path = node[0] as Uint8Array
  const isLeaf = path[0] >> 4 >= 2
  return !isLeaf && isRef(node[1]) ? [node[1]] : []
}

function ours(entries: Entry[]): { root: Uint8Array; nodes: Map<string, string>; last?: string } {
  const nodes = new Map<string, string>()
  let last: string | undefined
  const root = trieRoot(entries, keccak, (hash, encoded) => {
    expect(bytesToHex(hash)).toBe(bytesToHex(keccak(encoded)))
    nodes.set((last = bytesToHex(hash)), bytesToHex(encoded))
  })
  return { root, nodes, last }
}

/** Random key/value sets of many shapes; keys unique within a set, values never empty. */
function generator(random: () => number) {
  const int = (n: number) => Math.floor(random() * n)
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => int(256))
  // Values around the 32-byte line where nodes stop being embedded in their parent.
  const value = () => {
    const r = random()
    return bytes(r < 0.4 ? 1 + int(8) : r < 0.7 ? 24 + int(16) : r < 0.9 ? 33 + int(64) : 100 + int(200))
  }
  const shapes: Array<() => Uint8Array> = [
    () => bytes(32), // hashed keys, as the state and storage tries use
    () => bytes(1 + int(40)), // any length
    () => bytes(1 + int(3)), // short: dense shared prefixes and keys that are prefixes of others
    () => Uint8Array.from({ length: 1 + int(6) }, () => int(3) * 17), // few distinct nibbles: long shared runs
  ]
  return (count: number): Entry[] => {
    const prefix = bytes(int(5))
    const withPrefix = random() < 0.5
    const shape = shapes[int(shapes.length)]
    const byKey = new Map<string, Entry>()
    for (let attempts = 0; byKey.size < count && attempts < count * 20; attempts++) {
      let key = shape()
      if (withPrefix) key = Uint8Array.from([...prefix, ...key])
      // Now and then a key that extends one already in the set.
      const existing = [...byKey.values()]
      if (existing.length > 0 && random() < 0.15)
        key = Uint8Array.from([...existing[int(existing.length)][0], ...bytes(1 + int(2))])
      byKey.set(bytesToHex(key), [key, value()])
    }
    return [...byKey.values()]
  }
}

describe('trieRoot and orderedTrieRoot (src/node/trie.ts) against @ethereumjs/mpt', () => {
  it('the same root, and the same stored nodes, for random key/value sets', async () => {
    const seed = testSeed('trie property')
    const random = seededRandom(seed)
    const entriesOf = generator(random)
    const sizes = [0, 1, 1, 1, 2, 2, 3]
    for (let i = 0; i < 300; i++) {
      const count = i < sizes.length ? sizes[i] : random() < 0.6 ? 2 + Math.floor(random() * 10) : Math.floor(random() * 120)
      const entries = entriesOf(count)
      const what = `seed ${seed}, case ${i}: ${entries.length} entries, keys ${entries.map(([k]) => bytesToHex(k)).join(' ')}`
      const expected = await reference(entries)
      // Any order of the same set gives the same trie.
      const shuffled = [...entries]
      for (let j = shuffled.length - 1; j > 0; j--) {
        const k = Math.floor(random() * (j + 1))
        ;[shuffled[j], shuffled[k]] = [shuffled[k], shuffled[j]]
      }
      const got = ours(shuffled)
      expect(bytesToHex(got.root), what).toBe(bytesToHex(expected.root))
      if (entries.length > 0) {
        expect(got.last, what).toBe(bytesToHex(got.root)) // the root is announced last
        expect(got.nodes, what).toEqual(expected.nodes)
      }
    }
  })

  it('the same roots for lists (keys RLP(index)) up to past the one-byte index encodings', async () => {
    const seed = testSeed('ordered trie property')
    const random = seededRandom(seed)
    const lengths = [0, 1, 2, 16, 17, 127, 128, 129, 300]
    for (let i = 0; i < 60; i++) {
      const length = i < lengths.length ? lengths[i] : Math.floor(random() * 300)
      const values = Array.from({ length }, () =>
        Uint8Array.from({ length: 1 + Math.floor(random() * (random() < 0.5 ? 20 : 200)) }, () => Math.floor(random() * 256)),
      )
      const expected = await reference(values.map((v, index) => [RLP.encode(index), v]))
      expect(bytesToHex(orderedTrieRoot(values, keccak)), `seed ${seed}, case ${i}: ${length} values`).toBe(
        bytesToHex(expected.root),
      )
    }
  })
})

describe('memoized trie reads (read-memo.ts)', () => {
  it('answer what the trie holds at each root: after writes, back at an older root, and in copies', async () => {
    const trie = MemoTrie.over(await createMPT(), memoStore())
    const rnd = seededRandom(testSeed('memo trie'))
    const keys = Array.from({ length: 40 }, () => Uint8Array.from({ length: 32 }, () => Math.floor(rnd() * 256)))
    const roots: Array<{ root: Uint8Array; values: Map<number, Uint8Array | null> }> = []
    const values = new Map<number, Uint8Array | null>()
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 15; i++) {
        const k = Math.floor(rnd() * keys.length)
        const value = rnd() < 0.2 ? null : Uint8Array.of(round, i, 1)
        if (value) await trie.put(keys[k], value)
        else await trie.del(keys[k])
        values.set(k, value)
        // Read right after each write, so the memo holds entries of every intermediate root.
        expect(await trie.get(keys[k])).toEqual(value)
      }
      roots.push({ root: trie.root(), values: new Map(values) })
    }
    for (const { root, values: expected } of roots.reverse()) {
      trie.root(root)
      const copy = trie.shallowCopy(false)
      expect(copy).toBeInstanceOf(MemoTrie)
      for (const [k, value] of expected) {
        expect(await trie.get(keys[k])).toEqual(value)
        expect(await copy.get(keys[k])).toEqual(value)
      }
    }
  })
})

describe('reads inside a checkpoint (read-memo.ts)', () => {
  it('leave the checkpoint unwritten, so reads stay on the store; a write inside it is read back', async () => {
    const trie = MemoTrie.over(await createMPT(), memoStore())
    const key = keccak(Uint8Array.of(1))
    await trie.put(key, Uint8Array.of(7))
    trie.checkpoint()
    // ethereumjs' own walk (checkRoot reads the root node through CheckpointDB.get) copied what it
    // read into the layer, which made MemoTrie.get take that walk for every read until the revert.
    expect(await trie.checkRoot(trie.root())).toBe(true)
    expect(trie.writesInCheckpoints()).toBe(false)
    await trie.put(keccak(Uint8Array.of(2)), Uint8Array.of(8))
    expect(trie.writesInCheckpoints()).toBe(true)
    expect(await trie.get(keccak(Uint8Array.of(2)))).toEqual(Uint8Array.of(8))
    expect(await trie.get(key)).toEqual(Uint8Array.of(7))
    await trie.revert()
    expect(trie.writesInCheckpoints()).toBe(false)
    expect(await trie.get(keccak(Uint8Array.of(2)))).toBeNull()
  })
})

describe('walking the stored tries (stored-trie.ts walkStored)', () => {
  it('reaches the nodes ethereumjs-style decoding reaches: account tries, their storage tries, embedded nodes', async () => {
    const rnd = seededRandom(testSeed('walk stored'))
    const int = (n: number) => Math.floor(rnd() * n)
    const store = memoStore()
    const update = new TrieUpdate(store, keccak, KECCAK256_RLP)
    const roots: Uint8Array[] = []
    let accountsRoot = KECCAK256_RLP
    for (let round = 0; round < 5; round++) {
      const accounts: TrieWrite[] = []
      for (let a = 0; a < 30; a++) {
        // Storage keys in families sharing all but the last byte: small leaves, embedded in their parent.
        const base = Uint8Array.from({ length: 32 }, () => int(256))
        const slots: TrieWrite[] = Array.from({ length: int(6) }, (_, i) => {
          const key = base.slice()
          key[31] = i
          return [key, RLP.encode(Uint8Array.of(1 + int(200)))]
        })
        const storageRoot = slots.length ? update.apply(KECCAK256_RLP, slots) : KECCAK256_RLP
        const account = RLP.encode([Uint8Array.of(int(3)), Uint8Array.of(int(256), 1), storageRoot, keccak(Uint8Array.of(a))])
        accounts.push([keccak(Uint8Array.of(a)), account])
      }
      accountsRoot = update.apply(accountsRoot, accounts)
      roots.push(accountsRoot)
    }
    const expected = new Set<string>()
    await walkTrie(store.map, roots, {
      storage: true,
      node: (key) => {
        if (expected.has(key)) return false
        expected.add(key)
        return true
      },
    })
    const reached = new Set<string>()
    await walkStored(store, roots, (key) => {
      if (reached.has(key)) return false
      reached.add(key)
      return true
    })
    expect(expected.size).toBeGreaterThan(100)
    expect([...reached].sort()).toEqual([...expected].sort())
  })
})

/** A node store over a plain map, as state.ts NodeStore is. */
function memoStore(map = new Map<string, Uint8Array>()) {
  return {
    map,
    reads: new ReadMemo(),
    get: (key: string) => map.get(key),
    put: (hash: Uint8Array, encoded: Uint8Array) => void map.set(bytesToHex(hash).slice(2), encoded),
  }
}

describe('batched trie writes (stored-trie.ts)', () => {
  it('give the roots of one-by-one puts and deletes, and ethereumjs and trieGet read every key back from the stored nodes', async () => {
    const seed = testSeed('trie update')
    const rnd = seededRandom(seed)
    const int = (n: number) => Math.floor(rnd() * n)
    const bytes = (n: number) => Uint8Array.from({ length: n }, () => int(256))
    // Keys in families sharing all but their last byte or two: their leaves sit deep and are
    // small enough to be embedded in their parent (under 32 bytes), the case a hash-keyed trie rarely shows.
    const keys: Uint8Array[] = []
    for (let f = 0; f < 30; f++) {
      const base = bytes(32)
      const size = 1 + int(4)
      for (let i = 0; i < size; i++) {
        const key = base.slice()
        key[31] = int(256)
        if (rnd() < 0.3) key[30] = int(256)
        if (!keys.some((k) => bytesToHex(k) === bytesToHex(key))) keys.push(key)
      }
    }
    const reference = await createMPT()
    const store = memoStore()
    const update = new TrieUpdate(store, keccak, KECCAK256_RLP)
    let root = KECCAK256_RLP
    const model = new Map<number, Uint8Array>()
    for (let round = 0; round < 40; round++) {
      const batch = new Map<number, Uint8Array | null>()
      const size = round % 10 === 9 ? keys.length : 1 + int(12)
      for (let i = 0; i < size; i++) {
        // Deletes of absent keys too, and now and then every key at once (down to an empty trie).
        const k = int(keys.length)
        batch.set(k, rnd() < (round % 10 === 9 ? 0.9 : 0.35) ? null : rnd() < 0.5 ? bytes(1 + int(3)) : bytes(1 + int(80)))
      }
      const writes: TrieWrite[] = []
      for (const [k, value] of batch) {
        writes.push([keys[k], value])
        if (value) {
          await reference.put(keys[k], value)
          model.set(k, value)
        } else {
          await reference.del(keys[k])
          model.delete(k)
        }
      }
      root = update.apply(root, writes)
      const where = `seed ${seed}, round ${round}`
      expect(bytesToHex(root), where).toBe(bytesToHex(reference.root()))
      const reader = new MerklePatriciaTrie({ db: new MapDB(store.map), valueEncoding: ValueEncoding.Bytes, root })
      for (let k = 0; k < keys.length; k++) {
        expect(await reader.get(keys[k]), `${where}, key ${k}`).toEqual(model.get(k) ?? null)
        if (model.size > 0) expect(trieGet(store, root, keys[k]), `${where}, key ${k} (trieGet)`).toEqual(model.get(k) ?? null)
      }
    }
  })

  it("keeps the last of a key's writes in one batch, as the reference trie does", async () => {
    const key = (n: number) => keccak(Uint8Array.of(n))
    const reference = await createMPT()
    await reference.put(key(1), Uint8Array.of(1))
    await reference.put(key(3), Uint8Array.of(3, 3))
    const store = memoStore()
    const update = new TrieUpdate(store, keccak, KECCAK256_RLP)
    const start = update.apply(KECCAK256_RLP, [
      [key(1), Uint8Array.of(1)],
      [key(2), Uint8Array.of(2)],
    ])
    // key 1 put again, key 2 deleted then put then deleted, key 3 put twice: the last write wins.
    const root = update.apply(start, [
      [key(2), null],
      [key(1), Uint8Array.of(9)],
      [key(3), Uint8Array.of(3)],
      [key(2), Uint8Array.of(2, 2)],
      [key(1), Uint8Array.of(1)],
      [key(3), Uint8Array.of(3, 3)],
      [key(2), null],
    ])
    expect(bytesToHex(root)).toBe(bytesToHex(reference.root()))
    expect(trieGet(store, root, key(2))).toBeNull()
    expect(trieGet(store, root, key(3))).toEqual(Uint8Array.of(3, 3))
  })
})
