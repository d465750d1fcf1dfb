// Reads and batched writes of a Merkle-Patricia trie in the node store, synchronous and without
// ethereumjs' per-node async walk.
//
// Writes: a batch applied in one pass. ethereumjs' trie puts one key at a time: each put decodes the path from the root, re-encodes it, hashes it
// and stores every node on it, so 1,000 writes to a 100k-key trie decode and store ~5,000 nodes
// and leave ~4,000 of them behind as garbage. Here the keys are sorted and the
// trie walked once: a node on the paths of many keys is decoded once, rebuilt once and hashed
// once, subtrees no key reaches stay as their stored reference, and only the final version of a
// node is stored (reth's sparse trie works the same way). The stored layout is exactly the
// trie's (node hash → RLP node, nodes under 32 bytes embedded in their parent), so ethereumjs
// reads what this writes; test/trie.test.ts checks roots and reads against it.
import { hexKey } from '../../bytes.js'
import { compareBytes, EMPTY_ROOT_KEY, hexPrefix, toNibbles } from './trie.js'

type Hash = (data: Uint8Array) => Uint8Array

/** Where the nodes live (NodeStore): hex hash → RLP node. */
export interface NodeSink {
  get(key: string): Uint8Array | undefined
  put(hash: Uint8Array, encoded: Uint8Array): void
}

/** A write: a 32-byte (hashed) key and its new value, or null to delete it. */
export type TrieWrite = readonly [key: Uint8Array, value: Uint8Array | null]

const EMPTY = new Uint8Array()

class Leaf {
  constructor(
    readonly path: Uint8Array,
    readonly value: Uint8Array,
  ) {}
}
class Extension {
  constructor(
    readonly path: Uint8Array,
    readonly child: Child,
  ) {}
}
class Branch {
  constructor(readonly children: Child[]) {}
}
/** A node under 32 bytes, held inside its parent: its RLP. */
class Embedded {
  constructor(readonly encoded: Uint8Array) {}
}
type Node = Leaf | Extension | Branch
/**
 * A branch's or extension's child: a node rebuilt here, or the reference it had, not decoded (a
 * 32-byte hash, an embedded node, or the empty string for none).
 */
type Child = Node | Embedded | Uint8Array

// --- RLP of trie nodes --------------------------------------------------------------------------
// Nodes are read in place: the items of a node's list are located without copying them (the
// general decoder allocates every item, ~40% of a read's time), and written in one buffer.

/** Where the items of the last node read lie: payload start and end, and whether each is a list. */
const itemStart = new Int32Array(17)
const itemEnd = new Int32Array(17)
const itemIsList = new Uint8Array(17)

/** Reads the header at `pos`: sets `header` to [payload start, payload end]; returns whether it is a list. */
const header = new Int32Array(2)
function readHeader(data: Uint8Array, pos: number): boolean {
  const b = data[pos]
  if (b < 0x80) {
    header[0] = pos
    header[1] = pos + 1
    return false
  }
  const list = b >= 0xc0
  const short = list ? b - 0xc0 : b - 0x80
  if (short <= 55) {
    header[0] = pos + 1
    header[1] = pos + 1 + short
    return list
  }
  const lengthOfLength = short - 55
  let length = 0
  for (let i = 1; i <= lengthOfLength; i++) length = length * 256 + data[pos + i]
  header[0] = pos + 1 + lengthOfLength
  header[1] = header[0] + length
  return list
}

/** Locates the items of the node `data` (a list of 2 or 17 items); returns how many. */
function readNode(data: Uint8Array): number {
  if (!readHeader(data, 0)) throw new Error('trie node is not an RLP list')
  let pos = header[0]
  const end = header[1]
  let n = 0
  while (pos < end) {
    if (n === 17) throw new Error('trie node has more than 17 items')
    const start = pos
    itemIsList[n] = readHeader(data, pos) ? 1 : 0
    // A list item (an embedded node) is kept whole, header included; a string by its payload.
    itemStart[n] = itemIsList[n] ? start : header[0]
    itemEnd[n] = header[1]
    pos = header[1]
    n++
  }
  if (n !== 2 && n !== 17) throw new Error(`trie node has ${n} items`)
  return n
}

function childAt(data: Uint8Array, i: number): Embedded | Uint8Array {
  const bytes = data.subarray(itemStart[i], itemEnd[i])
  return itemIsList[i] ? new Embedded(bytes) : bytes
}

/** The compact path (hex-prefix encoding) at data[start, end), as nibbles. */
function pathNibbles(data: Uint8Array, start: number, end: number): Uint8Array {
  const odd = (data[start] & 0x10) !== 0
  const out = new Uint8Array((end - start - 1) * 2 + (odd ? 1 : 0))
  let j = 0
  if (odd) out[j++] = data[start] & 0x0f
  for (let i = start + 1; i < end; i++) {
    out[j++] = data[i] >> 4
    out[j++] = data[i] & 0x0f
  }
  return out
}

/** Length of a string item's RLP. */
function stringLength(s: Uint8Array): number {
  if (s.length === 1 && s[0] < 0x80) return 1
  return s.length <= 55 ? 1 + s.length : 2 + (s.length > 255 ? 1 : 0) + s.length
}

function writeString(out: Uint8Array, pos: number, s: Uint8Array): number {
  if (s.length === 1 && s[0] < 0x80) {
    out[pos] = s[0]
    return pos + 1
  }
  if (s.length <= 55) out[pos++] = 0x80 + s.length
  else if (s.length <= 255) {
    out[pos++] = 0xb8
    out[pos++] = s.length
  } else {
    out[pos++] = 0xb9
    out[pos++] = s.length >> 8
    out[pos++] = s.length & 0xff
  }
  out.set(s, pos)
  return pos + s.length
}

/** RLP of a list of items, each a string or (Embedded) an already-encoded node. */
function encodeList(items: Array<Uint8Array | Embedded>): Uint8Array {
  let payload = 0
  for (const item of items) payload += item instanceof Embedded ? item.encoded.length : stringLength(item)
  const headerLength = payload <= 55 ? 1 : payload <= 255 ? 2 : 3
  const out = new Uint8Array(headerLength + payload)
  let pos = 0
  if (payload <= 55) out[pos++] = 0xc0 + payload
  else if (payload <= 255) {
    out[pos++] = 0xf8
    out[pos++] = payload
  } else {
    out[pos++] = 0xf9
    out[pos++] = payload >> 8
    out[pos++] = payload & 0xff
  }
  for (const item of items) {
    if (item instanceof Embedded) {
      out.set(item.encoded, pos)
      pos += item.encoded.length
    } else pos = writeString(out, pos, item)
  }
  return out
}

/**
 * The value under `key` (32 bytes, already hashed) in the trie at `root`: null when absent,
 * undefined when a node on its path is not in the store.
 */
export function trieGet(store: NodeSink, root: Uint8Array, key: Uint8Array): Uint8Array | null | undefined {
  let data = store.get(hexKey(root))
  if (data === undefined) return undefined
  let depth = 0
  for (;;) {
    const n = readNode(data)
    let next: number
    if (n === 17) {
      next = key[depth >> 1]
      next = depth & 1 ? next & 0x0f : next >> 4
      depth++
    } else {
      const start = itemStart[0]
      const end = itemEnd[0]
      const flags = data[start]
      // Hex-prefix flag 1: odd length, the first nibble in the flag byte; flag 2: a leaf.
      if (flags & 0x10 && nibbleAt(key, depth++) !== (flags & 0x0f)) return null
      for (let i = start + 1; i < end; i++) {
        if (nibbleAt(key, depth++) !== data[i] >> 4 || nibbleAt(key, depth++) !== (data[i] & 0x0f)) return null
      }
      if (flags & 0x20) return depth === 64 ? data.slice(itemStart[1], itemEnd[1]) : null
      next = 1
    }
    if (itemIsList[next]) {
      data = data.subarray(itemStart[next], itemEnd[next])
      continue
    }
    if (itemEnd[next] === itemStart[next]) return null
    const child = store.get(hexKey(data.subarray(itemStart[next], itemEnd[next])))
    if (child === undefined) return undefined
    data = child
  }
}

function nibbleAt(key: Uint8Array, i: number): number {
  return i >= 64 ? -1 : i & 1 ? key[i >> 1] & 0x0f : key[i >> 1] >> 4
}

interface Op {
  nibbles: Uint8Array
  value: Uint8Array | null
}

/**
 * A key's first six bytes as a number, to sort by: numbers compare inline, and hashed keys almost
 * never share six bytes (then the whole keys decide). Sorting nibble arrays with Buffer.compare would
 * cost ~8% of a flush of 50k new accounts.
 */
function sortKey(key: Uint8Array): number {
  return (key[0] * 2 ** 8 + key[1]) * 2 ** 32 + (((key[2] << 24) | (key[3] << 16) | (key[4] << 8) | key[5]) >>> 0)
}

function concatNibbles(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

export class TrieUpdate {
  constructor(
    private readonly store: NodeSink,
    private readonly keccak: Hash,
    /** The root of the empty trie (keccak of RLP("")). */
    private readonly emptyRoot: Uint8Array,
  ) {}

  /**
   * Applies `writes` to the trie at `root`; returns the new root, its nodes stored. A key written
   * more than once keeps its last write, as a Map would (build() needs distinct keys).
   */
  apply(root: Uint8Array, writes: readonly TrieWrite[]): Uint8Array {
    if (writes.length === 0) return root
    // Array.prototype.sort is stable: a key's writes stay in their order, the last one last.
    const sorted = writes
      .map(([key, value]) => ({ order: sortKey(key), key, value }))
      .sort((a, b) => a.order - b.order || compareBytes(a.key, b.key))
    const ops: Op[] = []
    for (let i = 0; i < sorted.length; i++) {
      const { order, key, value } = sorted[i]
      const later = sorted[i + 1]
      if (later !== undefined && later.order === order && compareBytes(later.key, key) === 0) continue
      ops.push({ nibbles: toNibbles(key), value })
    }
    const top = compareBytes(root, this.emptyRoot) === 0 ? null : this.resolve(root)
    const next = this.update(top, ops, 0, ops.length, 0)
    if (next === null) return this.emptyRoot
    // The root is stored by hash whatever its size.
    const encoded = this.encode(next)
    const hash = this.keccak(encoded)
    this.store.put(hash, encoded)
    return hash
  }

  /** The node a child reference names (read from the store when it is a hash). */
  private resolve(child: Child): Node | null {
    if (child instanceof Leaf || child instanceof Extension || child instanceof Branch) return child
    if (child instanceof Embedded) return this.decode(child.encoded)
    if (child.length === 0) return null
    const encoded = this.store.get(hexKey(child))
    if (encoded === undefined) throw new Error(`missing trie node 0x${hexKey(child)}`)
    return this.decode(encoded)
  }

  private decode(data: Uint8Array): Node {
    if (readNode(data) === 17) {
      const children: Child[] = new Array(16)
      for (let i = 0; i < 16; i++) children[i] = childAt(data, i)
      return new Branch(children)
    }
    const path = pathNibbles(data, itemStart[0], itemEnd[0])
    if (data[itemStart[0]] & 0x20) return new Leaf(path, data.subarray(itemStart[1], itemEnd[1]))
    return new Extension(path, childAt(data, 1))
  }

  /** `node` (at key depth `depth`) with ops[lo, hi) applied; every op's key passes through it. */
  private update(node: Node | null, ops: Op[], lo: number, hi: number, depth: number): Node | null {
    if (node === null)
      return this.build(
        ops.slice(lo, hi).filter((op) => op.value !== null),
        depth,
      )
    if (node instanceof Leaf) return this.mergeLeaf(node, ops, lo, hi, depth)
    if (node instanceof Extension) {
      const path = node.path
      const shared = Math.min(
        this.sharedLength(ops[lo].nibbles, path, depth),
        this.sharedLength(ops[hi - 1].nibbles, path, depth),
      )
      if (shared === path.length) {
        return this.prefixed(path, this.update(this.resolve(node.child), ops, lo, hi, depth + path.length))
      }
      // Some key leaves the extension's path: split it at that nibble into a branch.
      const children: Child[] = new Array(16).fill(EMPTY)
      const rest = path.subarray(shared + 1)
      children[path[shared]] = rest.length > 0 ? new Extension(rest, node.child) : node.child
      const branch = this.update(new Branch(children), ops, lo, hi, depth + shared)
      return shared > 0 ? this.prefixed(path.subarray(0, shared), branch) : branch
    }
    const children = node.children.slice()
    let i = lo
    while (i < hi) {
      const nibble = ops[i].nibbles[depth]
      let j = i + 1
      while (j < hi && ops[j].nibbles[depth] === nibble) j++
      children[nibble] = this.update(this.resolve(children[nibble]), ops, i, j, depth + 1) ?? EMPTY
      i = j
    }
    let only = -1
    for (let n = 0; n < 16; n++) {
      const child = children[n]
      if (child instanceof Uint8Array && child.length === 0) continue
      if (only !== -1) return new Branch(children)
      only = n
    }
    if (only === -1) return null
    // One child left: the branch folds into it (a trie has no branch with a single child).
    return this.prefixed(Uint8Array.of(only), this.resolve(children[only]))
  }

  /** How many nibbles of `path` the key matches from `depth`. */
  private sharedLength(key: Uint8Array, path: Uint8Array, depth: number): number {
    let n = 0
    while (n < path.length && key[depth + n] === path[n]) n++
    return n
  }

  /** `node` under a path of `prefix` nibbles: merged into a leaf's or extension's own path. */
  private prefixed(prefix: Uint8Array, node: Node | null): Node | null {
    if (node === null) return null
    if (node instanceof Leaf) return new Leaf(concatNibbles(prefix, node.path), node.value)
    if (node instanceof Extension) return new Extension(concatNibbles(prefix, node.path), node.child)
    return new Extension(prefix, node)
  }

  /** A leaf with ops applied: its key joins the ops unless one of them writes it. */
  private mergeLeaf(leaf: Leaf, ops: Op[], lo: number, hi: number, depth: number): Node | null {
    const key = concatNibbles(ops[lo].nibbles.subarray(0, depth), leaf.path)
    const merged: Op[] = []
    let placed = false
    for (let i = lo; i < hi; i++) {
      const order = placed ? 1 : compareBytes(ops[i].nibbles, key)
      if (order === 0) placed = true
      else if (order > 0 && !placed) {
        merged.push({ nibbles: key, value: leaf.value })
        placed = true
      }
      if (ops[i].value !== null) merged.push(ops[i])
    }
    if (!placed) merged.push({ nibbles: key, value: leaf.value })
    return this.build(merged, depth)
  }

  /** A subtree of puts (sorted, distinct keys) from key depth `depth`. */
  private build(puts: Op[], depth: number): Node | null {
    if (puts.length === 0) return null
    if (puts.length === 1) return new Leaf(puts[0].nibbles.subarray(depth), puts[0].value as Uint8Array)
    const first = puts[0].nibbles
    const last = puts[puts.length - 1].nibbles
    let p = depth
    while (first[p] === last[p]) p++
    const children: Child[] = new Array(16).fill(EMPTY)
    let i = 0
    while (i < puts.length) {
      const nibble = puts[i].nibbles[p]
      let j = i + 1
      while (j < puts.length && puts[j].nibbles[p] === nibble) j++
      children[nibble] = this.build(puts.slice(i, j), p + 1) as Node
      i = j
    }
    const branch = new Branch(children)
    return p > depth ? new Extension(first.subarray(depth, p), branch) : branch
  }

  /** A node's RLP, its rebuilt children stored (or embedded, under 32 bytes). */
  private encode(node: Node): Uint8Array {
    if (node instanceof Leaf) return encodeList([hexPrefix(node.path, true), node.value])
    if (node instanceof Extension) return encodeList([hexPrefix(node.path, false), this.ref(node.child)])
    const items: Array<Uint8Array | Embedded> = node.children.map((child) => this.ref(child))
    items.push(EMPTY)
    return encodeList(items)
  }

  private ref(child: Child): Uint8Array | Embedded {
    if (!(child instanceof Leaf || child instanceof Extension || child instanceof Branch)) return child
    const encoded = this.encode(child)
    if (encoded.length < 32) return new Embedded(encoded)
    const hash = this.keccak(encoded)
    this.store.put(hash, encoded)
    return hash
  }
}

/**
 * Visits every stored node reachable from `roots`: the tries and, from account leaves, the storage
 * tries they name (pruning.ts marks what to keep with it). `enter(key)` is asked for each node by
 * its hash (hex) before it is read; false skips it and what lies under it (a node seen before).
 * Nodes are read in place, as trieGet reads them: the general RLP decoder allocated every item,
 * most of a sweep's ~3 s over 8,192 blocks of state. Yields to the event loop every `yieldMs`.
 */
export async function walkStored(
  store: NodeSink,
  roots: Uint8Array[],
  enter: (key: string) => boolean,
  yieldMs = Number.POSITIVE_INFINITY,
): Promise<void> {
  // References to visit: a hash, or (embedded) a node held inside its parent; and whether it is in an account trie.
  const refs: Uint8Array[] = [...roots]
  const embedded: boolean[] = roots.map(() => false)
  const inAccounts: boolean[] = roots.map(() => true)
  const push = (ref: Uint8Array, isNode: boolean, accounts: boolean) => {
    refs.push(ref)
    embedded.push(isNode)
    inAccounts.push(accounts)
  }
  let yieldAt = performance.now() + yieldMs
  let steps = 0
  while (refs.length > 0) {
    const ref = refs.pop() as Uint8Array
    const isNode = embedded.pop() as boolean
    const accounts = inAccounts.pop() as boolean
    let data: Uint8Array | undefined = ref
    if (!isNode) {
      const key = hexKey(ref)
      if (key === EMPTY_ROOT_KEY || !enter(key)) continue
      data = store.get(key)
      if (data === undefined) continue
    }
    const n = readNode(data)
    if (n === 17) {
      for (let i = 15; i >= 0; i--) {
        if (itemEnd[i] > itemStart[i]) push(data.subarray(itemStart[i], itemEnd[i]), itemIsList[i] === 1, accounts)
      }
    } else if (data[itemStart[0]] & 0x20) {
      // A leaf: an account's names its storage trie (its third item).
      if (accounts) push(accountStorageRoot(data.subarray(itemStart[1], itemEnd[1])), false, false)
    } else {
      push(data.subarray(itemStart[1], itemEnd[1]), itemIsList[1] === 1, accounts)
    }
    if (++steps % 256 === 0 && performance.now() > yieldAt) {
      await new Promise(setImmediate)
      yieldAt = performance.now() + yieldMs
    }
  }
}

/** The storage root in an account's RLP, [nonce, balance, storageRoot, codeHash]. */
function accountStorageRoot(account: Uint8Array): Uint8Array {
  readHeader(account, 0)
  let pos = header[0]
  for (let i = 0; i < 2; i++) {
    readHeader(account, pos)
    pos = header[1]
  }
  readHeader(account, pos)
  return account.subarray(header[0], header[1])
}
