// Every relative link in README.md and docs/*.md names a file of the repository that exists, and
// every #anchor a heading of the target page, slugged as GitHub slugs headings (github-slugger:
// lowercase, punctuation other than '-' and '_' dropped, each space a '-', repeats suffixed -1, -2).
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from './cli.js'

const FENCE = /^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm
const INLINE_LINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g
const REFERENCE_LINK = /^\s*\[[^\]]+\]:\s*(\S+)/gm
const HEADING = /^#{1,6}\s+(.+?)\s*#*\s*$/gm
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i

function pages(): string[] {
  const docs = join(ROOT, 'docs')
  const inDocs = readdirSync(docs)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(docs, name))
  return [join(ROOT, 'README.md'), ...inDocs]
}

/** The slug GitHub gives a heading's text. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(FENCE, '')
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const [, heading] of text.matchAll(HEADING)) {
    const base = slug(heading)
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n === 0 ? base : `${base}-${n}`)
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id)
  return anchors
}

/** Link targets outside code blocks and code spans, where a `[x](y)` is only text. */
function linksOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(FENCE, '')
    .replace(/`[^`\n]*`/g, '')
  return [...text.matchAll(INLINE_LINK), ...text.matchAll(REFERENCE_LINK)].map((m) => m[1])
}

/** What is wrong with one relative link, or undefined when it resolves. */
function problemOf(file: string, target: string): string | undefined {
  const [path, anchor] = target.split('#')
  const resolved = path ? resolve(dirname(file), decodeURIComponent(path)) : file
  if (relative(ROOT, resolved).startsWith('..')) return 'points outside the repository'
  if (!existsSync(resolved)) return 'no such file'
  if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) return `no heading #${anchor}`
  return undefined
}

describe('documentation links', () => {
  it('slugs headings as GitHub does', () => {
    expect(slug('Simulation: `eth_simulateV1`')).toBe('simulation-eth_simulatev1')
    expect(slug('`anvil_reset` and the state file')).toBe('anvil_reset-and-the-state-file')
    expect(slug("History at and before the fork block is the upstream's")).toBe(
      'history-at-and-before-the-fork-block-is-the-upstreams',
    )
    expect(slug('Base blocks, profiles, geth genesis files')).toBe('base-blocks-profiles-geth-genesis-files')
  })

  it('tells a missing file, a missing heading and a path outside the repository apart', () => {
    const readme = join(ROOT, 'README.md')
    expect(problemOf(readme, 'docs/no-such-page.md')).toBe('no such file')
    expect(problemOf(readme, 'docs/cli.md#no-such-heading')).toBe('no heading #no-such-heading')
    expect(problemOf(readme, '../outside.md')).toBe('points outside the repository')
    expect(problemOf(readme, 'docs/cli.md#pcnode-start')).toBeUndefined()
  })

  it('finds the README and the docs pages, with links in them', () => {
    const files = pages()
    expect(files.length).toBeGreaterThan(10)
    expect(files.flatMap(linksOf).filter((t) => !HAS_SCHEME.test(t)).length).toBeGreaterThan(50)
  })

  it('resolves every relative link to a file and every #anchor to a heading', () => {
    const problems: string[] = []
    for (const file of pages()) {
      for (const target of linksOf(file)) {
        if (HAS_SCHEME.test(target)) continue
        const problem = problemOf(file, target)
        if (problem) problems.push(`${relative(ROOT, file)}: ${target}: ${problem}`)
      }
    }
    expect(problems).toEqual([])
  })
})
