// Reads and batched writes of a Merkle-Patricia trie in the node store, synchronous and without
// ethereumjs' per-node async walk (issue 18).
//
// Writes: a batch applied in one pass. ethereumjs'
// trie puts one key at a time: each put decodes the path from the root, re-encodes it, hashes it
// and stores every node on it, so 1,000 writes to a 100k-key trie decode and store ~5,000 nodes
// and leave ~4,000 of them behind as garbage (~500 µs a put). Here the keys are sorted and the
// trie walked once: a node on the paths of many keys is decoded once, rebuilt once and hashed
// once, subtrees no key reaches stay as their stored reference, and only the final version of a
// node is stored (reth's sparse trie works the same way). The stored layout is exactly the
// trie's (node hash → RLP node, nodes under 32 bytes embedded in their parent), so ethereumjs
// reads what this writes; test/trie-update.test.ts checks roots and reads against it.
import { RLP } from '@ethereumjs/rlp'
import { hexKey } from '../bytes.js'
import { hexPrefix, toNibbles } from './trie.js'

type Hash = (data: Uint8Array) => Uint8Array

/** A stored node's reference: its hash, an embedded node (under 32 bytes), or the empty string (none). */
type Ref = Uint8Array | Ref[]

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
type Node = Leaf | Extension | Branch
/** A branch's or extension's child: a node rebuilt here, or the reference it had (not decoded). */
type Child = Node | Ref

interface Op {
  nibbles: Uint8Array
  value: Uint8Array | null
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b)
}

function concatNibbles(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

/** The compact path (hex-prefix encoding) of a leaf or extension, back to nibbles. */
function pathNibbles(compact: Uint8Array): Uint8Array {
  const odd = (compact[0] & 0x10) !== 0
  const out = new Uint8Array((compact.length - 1) * 2 + (odd ? 1 : 0))
  let j = 0
  if (odd) out[j++] = compact[0] & 0x0f
  for (let i = 1; i < compact.length; i++) {
    out[j++] = compact[i] >> 4
    out[j++] = compact[i] & 0x0f
  }
  return out
}

/**
 * The value under `key` (32 bytes, already hashed) in the trie at `root`: null when absent,
 * undefined when a node on its path is not in the store.
 */
export function trieGet(store: NodeSink, root: Uint8Array, key: Uint8Array): Uint8Array | null | undefined {
  const nibbles = toNibbles(key)
  let ref: Ref = root
  let depth = 0
  for (;;) {
    let node: Ref[]
    if (Array.isArray(ref)) node = ref
    else if (ref.length === 0) return null
    else {
      const encoded = store.get(hexKey(ref))
      if (encoded === undefined) return undefined
      node = RLP.decode(encoded) as Ref[]
    }
    if (node.length === 17) {
      ref = node[nibbles[depth++]]
      continue
    }
    const compact = node[0] as Uint8Array
    const path = pathNibbles(compact)
    for (let i = 0; i < path.length; i++) if (nibbles[depth + i] !== path[i]) return null
    depth += path.length
    if (compact[0] & 0x20) return depth === nibbles.length ? (node[1] as Uint8Array) : null
    ref = node[1]
  }
}

export class TrieUpdate {
  constructor(
    private readonly store: NodeSink,
    private readonly keccak: Hash,
    /** The root of the empty trie (keccak of RLP("")). */
    private readonly emptyRoot: Uint8Array,
  ) {}

  /** Applies `writes` (at most one per key) to the trie at `root`; returns the new root, its nodes stored. */
  apply(root: Uint8Array, writes: readonly TrieWrite[]): Uint8Array {
    if (writes.length === 0) return root
    const ops: Op[] = writes
      .map(([key, value]) => ({ nibbles: toNibbles(key), value }))
      .sort((a, b) => compareBytes(a.nibbles, b.nibbles))
    const top = compareBytes(root, this.emptyRoot) === 0 ? null : this.decode(root)
    const next = this.update(top, ops, 0, ops.length, 0)
    if (next === null) return this.emptyRoot
    // The root is stored by hash whatever its size.
    const encoded = RLP.encode(this.raw(next))
    const hash = this.keccak(encoded)
    this.store.put(hash, encoded)
    return hash
  }

  /** The node a reference names (read from the store when it is a hash). */
  private decode(ref: Ref): Node | null {
    let raw: Ref
    if (Array.isArray(ref)) raw = ref
    else if (ref.length === 0) return null
    else {
      const encoded = this.store.get(hexKey(ref))
      if (encoded === undefined) throw new Error(`missing trie node 0x${hexKey(ref)}`)
      raw = RLP.decode(encoded) as Ref[]
    }
    const items = raw as Ref[]
    if (items.length === 17) return new Branch(items.slice(0, 16))
    const path = items[0] as Uint8Array
    // Hex-prefix flag 2 marks a leaf (Yellow Paper, appendix C).
    if (path[0] & 0x20) return new Leaf(pathNibbles(path), items[1] as Uint8Array)
    return new Extension(pathNibbles(path), items[1])
  }

  private resolve(child: Child): Node | null {
    return child instanceof Leaf || child instanceof Extension || child instanceof Branch ? child : this.decode(child)
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

  /** A node as its RLP list, its rebuilt children stored (or embedded, under 32 bytes). */
  private raw(node: Node): Ref[] {
    if (node instanceof Leaf) return [hexPrefix(node.path, true), node.value]
    if (node instanceof Extension) return [hexPrefix(node.path, false), this.ref(node.child)]
    const out: Ref[] = node.children.map((child) => this.ref(child))
    out.push(EMPTY)
    return out
  }

  private ref(child: Child): Ref {
    if (!(child instanceof Leaf || child instanceof Extension || child instanceof Branch)) return child
    const raw = this.raw(child)
    const encoded = RLP.encode(raw)
    if (encoded.length < 32) return raw
    const hash = this.keccak(encoded)
    this.store.put(hash, encoded)
    return hash
  }
}
