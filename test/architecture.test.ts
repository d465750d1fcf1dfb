// The shape the code must keep: no import cycle anywhere in src/, ethereumjs only behind the
// engine boundary (src/node/engine/), in static, dynamic and type-only imports alike, and the
// folders of src/ in layers that import only downward.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from './cli.js'
import { isLocal, moduleImports, resolveLocal } from './imports.js'

const SRC = join(ROOT, 'src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : []
  })
}

/** Each source file's specifiers (relative ones resolved to .ts paths). */
function imports(file: string): { local: string[]; packages: string[] } {
  const found = moduleImports(file)
  return {
    local: found.filter((i) => isLocal(i.specifier)).map((i) => resolveLocal(file, i.specifier)),
    packages: found.filter((i) => !isLocal(i.specifier)).map((i) => i.specifier),
  }
}

/** Strongly connected components with more than one file (Tarjan's algorithm): the import cycles. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0
  const indexOf = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const out: string[][] = []
  const visit = (v: string) => {
    indexOf.set(v, index)
    low.set(v, index++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indexOf.get(w)!))
      }
    }
    if (low.get(v) === indexOf.get(v)) {
      const scc: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        scc.push(w)
      } while (w !== v)
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.map((f) => relative(ROOT, f)).sort())
    }
  }
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v)
  return out
}

const VOCABULARY = ['types', 'errors', 'bytes', 'header-fields', 'fees', 'accounts', 'derive-accounts', 'profile', 'events'].map(
  (name) => `src/node/${name}.ts`,
)

/**
 * The layers of src/, bottom first: a folder (ending in /), a file, or a group of files. A file
 * imports values only from its own layer or the ones below it. The node's vocabulary (its records,
 * errors, byte and fee arithmetic, accounts and events) sits under everything that computes, the
 * engine under every service that drives it, the facade (node.ts) over all of them.
 */
const LAYERS: readonly (string | readonly string[])[] = [
  'src/shared/',
  'src/contracts/',
  // The explorer page is a string: under the node, so it can import nothing of it (the node decodes
  // calls and logs for it: src/node/decode/).
  'src/explorer/',
  'src/chain.ts',
  VOCABULARY,
  'src/node/engine/',
  'src/node/chain/',
  'src/node/hints.ts',
  'src/node/tx-stages.ts',
  'src/node/pool/',
  'src/node/opstack/',
  'src/node/b20/',
  'src/node/sequencer/',
  'src/node/admission/',
  'src/node/snapshot.ts',
  'src/node/context.ts',
  'src/node/execution/',
  'src/node/tracing/',
  'src/node/faults/',
  'src/node/options.ts',
  'src/node/storage/',
  'src/node/fork/',
  'src/node/dev/',
  'src/node/wallet-calls/',
  'src/node/bundler/',
  'src/node/genesis/',
  // Names contracts and decodes calls and logs for the explorer (pcnode_decodeCall, …).
  'src/node/decode/',
  'src/node/fee-history.ts',
  'src/node/assemble.ts',
  'src/node/node.ts',
  'src/rpc/',
  'src/app/',
  'src/index.ts',
  'src/cli/',
]

/** Type-only imports allowed to point up the layers: leaf types that live in a higher folder. */
const UPWARD_TYPE_IMPORTS = [
  'src/node/context.ts → src/node/dev/cheats.ts',
  'src/node/context.ts → src/node/dev/time.ts',
  'src/node/context.ts → src/node/fork/fork.ts',
  'src/node/context.ts → src/node/options.ts',
  'src/node/options.ts → src/node/fork/options.ts',
]

/**
 * Value imports that point up the layers. This list may only shrink: a new upward value import
 * fails, and so does an entry whose import has gone (remove it).
 */
const KNOWN_UPWARD_VALUE_IMPORTS: readonly string[] = []

/** A file-to-file import (repository-relative paths); type-only when no import between them is a value. */
interface Edge {
  from: string
  to: string
  typeOnly: boolean
}

function layerOf(layers: readonly (string | readonly string[])[], file: string): number[] {
  const holds = (entry: string) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry)
  return layers.flatMap((layer, index) => ((typeof layer === 'string' ? [layer] : layer).some(holds) ? [index] : []))
}

/** The imports that point from a lower layer to a higher one, as "from → to", sorted. */
function upward(layers: readonly (string | readonly string[])[], edges: Edge[]): { value: string[]; type: string[] } {
  const value: string[] = []
  const type: string[] = []
  for (const { from, to, typeOnly } of edges) {
    if (layerOf(layers, from)[0] < layerOf(layers, to)[0]) (typeOnly ? type : value).push(`${from} → ${to}`)
  }
  return { value: value.sort(), type: type.sort() }
}

function importEdges(files: string[]): Edge[] {
  const edges = new Map<string, Edge>()
  for (const file of files) {
    const from = relative(ROOT, file)
    for (const { specifier, typeOnly } of moduleImports(file)) {
      if (!isLocal(specifier)) continue
      const to = relative(ROOT, resolveLocal(file, specifier))
      const seen = edges.get(`${from} ${to}`)
      if (seen) seen.typeOnly &&= typeOnly
      else edges.set(`${from} ${to}`, { from, to, typeOnly })
    }
  }
  return [...edges.values()]
}

describe('architecture', () => {
  const files = sourceFiles(SRC)

  it('has no import cycle in src/ (type-only imports included)', () => {
    const graph = new Map(files.map((f) => [f, imports(f).local]))
    expect(graph.size).toBeGreaterThan(50)
    expect(cycles(graph)).toEqual([])
  })

  it('finds a cycle when there is one (the check can fail)', () => {
    const a = join(SRC, 'a.ts')
    const b = join(SRC, 'b.ts')
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([['src/a.ts', 'src/b.ts']])
  })

  it('imports @ethereumjs only inside src/node/engine/', () => {
    const engine = join(SRC, 'node', 'engine') + '/'
    const outside = files
      .filter((f) => !f.startsWith(engine))
      .filter((f) => imports(f).packages.some((p) => p.startsWith('@ethereumjs/')))
      .map((f) => relative(ROOT, f))
    expect(outside).toEqual([])
    // …and the engine does import it (the check looks at the right files).
    expect(
      files.filter((f) => f.startsWith(engine) && imports(f).packages.some((p) => p.startsWith('@ethereumjs/'))).length,
    ).toBeGreaterThan(5)
  })

  describe('layers', () => {
    const edges = importEdges(files)
    const found = upward(LAYERS, edges)

    it('places every file of src/ in exactly one layer', () => {
      const misplaced = files.map((f) => relative(ROOT, f)).filter((f) => layerOf(LAYERS, f).length !== 1)
      expect(misplaced).toEqual([])
      expect(edges.length).toBeGreaterThan(200)
    })

    it('imports values only downward (the known upward ones may only go)', () => {
      console.log(`layers: ${found.value.length} upward value imports, ${found.type.length} upward type-only imports`)
      expect(found.value.filter((edge) => !KNOWN_UPWARD_VALUE_IMPORTS.includes(edge))).toEqual([])
      const gone = KNOWN_UPWARD_VALUE_IMPORTS.filter((edge) => !found.value.includes(edge))
      expect(gone, 'these upward imports are gone: remove them from KNOWN_UPWARD_VALUE_IMPORTS').toEqual([])
    })

    it('imports types upward only where listed', () => {
      expect(found.type).toEqual([...UPWARD_TYPE_IMPORTS].sort())
    })

    it('finds an upward import when there is one (the check can fail)', () => {
      const layers = ['src/low/', ['src/mid.ts', 'src/mid2.ts'], 'src/high/']
      expect(layerOf(layers, 'src/mid2.ts')).toEqual([1])
      expect(layerOf(layers, 'src/other.ts')).toEqual([])
      expect(
        upward(layers, [
          { from: 'src/high/a.ts', to: 'src/low/b.ts', typeOnly: false },
          { from: 'src/mid.ts', to: 'src/mid2.ts', typeOnly: false },
          { from: 'src/low/b.ts', to: 'src/mid.ts', typeOnly: false },
          { from: 'src/mid2.ts', to: 'src/high/a.ts', typeOnly: true },
        ]),
      ).toEqual({ value: ['src/low/b.ts → src/mid.ts'], type: ['src/mid2.ts → src/high/a.ts'] })
    })
  })

  // patches/ (applied by patch-package at `npm ci`, through the prepare script), V8 slow paths:
  // ethereumjs' EVM built each frame's message and result with chained spreads (~50 µs per call
  // frame), its storage cache deleted on revert the slots a call had read (Map churn), its
  // setLengthLeft padded through array spreads (~3 µs, each SLOAD's gas), its RLP encoder joined
  // every item through a rest-spread concat, its hex helpers ran a String.match per address and
  // per bigint, and its stripZeros sliced a new array per leading zero (31 for a storage word
  // holding a small number, at every SSTORE and anvil_setStorageAt). patches.test.ts checks that the rewritten functions answer as before.
  it('runs ethereumjs with the patches in patches/ applied', () => {
    expect(readdirSync(join(ROOT, 'patches')).sort()).toEqual([
      '@ethereumjs+evm+10.1.3.patch',
      '@ethereumjs+rlp+10.1.3.patch',
      '@ethereumjs+statemanager+10.1.3.patch',
      '@ethereumjs+util+10.1.3.patch',
    ])
    const read = (path: string) => readFileSync(join(ROOT, 'node_modules/@ethereumjs', path), 'utf8')
    const evm = read('evm/dist/esm/evm.js')
    expect(evm).not.toMatch(/\.\.\.\{ codeAddress: message\.codeAddress \}/)
    expect(evm).toContain('runState: Object.assign({}, interpreterRes.runState, result, interpreter._env)')
    expect(read('statemanager/dist/esm/cache/storage.js')).not.toContain('storageMap.delete(keyHex)')
    expect(read('util/dist/esm/bytes.js')).not.toContain('new Uint8Array([...new Uint8Array(length - msg.length), ...msg])')
    expect(read('util/dist/esm/bytes.js')).toContain('hexToBytesNoble(padToEven(num.toString(16)))')
    expect(read('util/dist/esm/internal.js')).not.toContain('value.match(')
    expect(read('util/dist/esm/bytes.js')).not.toMatch(
      /while \(a\.length > 0 && first\.toString\(\) === '0'\) \{\s*a = a\.slice\(1\)/,
    )
    expect(read('rlp/dist/esm/index.js')).not.toContain('concatBytes(encodeLength(outputLength, 192), ...output)')
  })
})
