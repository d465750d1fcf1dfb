// The shape the code must keep: no import cycle anywhere in src/, and ethereumjs only behind the
// engine boundary (src/node/engine/), in static, dynamic and type-only imports alike.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from './cli.js'

const SRC = join(ROOT, 'src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : []
  })
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

/** Each source file's specifiers (relative ones resolved to .ts paths). */
function imports(file: string): { local: string[]; packages: string[] } {
  const local: string[] = []
  const packages: string[] = []
  for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const spec = m[1] ?? m[2]
    if (spec.startsWith('.')) local.push(resolve(dirname(file), spec).replace(/\.js$/, '.ts'))
    else packages.push(spec)
  }
  return { local, packages }
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
