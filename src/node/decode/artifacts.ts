// A user's compiled contracts (`pcnode start --artifacts <dir>`): Foundry's out/**/<Name>.json
// ({ abi, deployedBytecode: { object, immutableReferences, linkReferences } }) and Hardhat's
// artifacts/**/<Name>.json ({ contractName, abi, deployedBytecode, deployedLinkReferences }). The read
// stays inside the directory given (symbolic links are not followed), skips build-info (whole
// compiler inputs and outputs), Hardhat's *.dbg.json and node_modules, bounds the files it reads and
// their sizes, and skips, counting them, files that are not JSON or not an artifact: it never throws
// on their content. Contracts without runtime code (interfaces, abstract contracts) are left out.
import { type Dirent, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join, relative, resolve } from 'node:path'
import type { Abi } from 'viem'
import { type ByteRange, type CodeShape, shapeOf } from './bytecode-match.js'

/** How much of a directory is read: enough for a large Foundry project (OpenZeppelin's is ~1,500 artifacts). */
export const ARTIFACT_LIMITS = { files: 5_000, fileBytes: 8 * 1024 * 1024, totalBytes: 256 * 1024 * 1024, depth: 12 }

export interface Artifact {
  /** The contract's name (Hardhat's contractName, else the file's name). */
  name: string
  /** Its file, relative to the directory. */
  file: string
  abi: Abi
  shape: CodeShape
}

export interface ArtifactSet {
  dir: string
  contracts: Artifact[]
  /** JSON files that were not an artifact with runtime code (malformed, too large, no code). */
  skipped: number
  /** Whether a limit stopped the walk before the end. */
  truncated: boolean
}

const SKIP_DIRS = new Set(['build-info', 'node_modules', 'cache', '.git'])
const PLACEHOLDER = /__.{36}__/g

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Hex runtime code with link placeholders zeroed (their ranges returned), or undefined. */
function codeOf(object: unknown): { code: Uint8Array; links: ByteRange[] } | undefined {
  if (typeof object !== 'string') return undefined
  let hex = object.startsWith('0x') ? object.slice(2) : object
  const links: ByteRange[] = []
  hex = hex.replace(PLACEHOLDER, (_, at: number) => {
    links.push({ start: at / 2, length: 20 })
    return '0'.repeat(40)
  })
  if (hex.length === 0 || hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined
  return { code: Buffer.from(hex, 'hex'), links }
}

/** solc's { id: [{ start, length }] } (immutableReferences) or { file: { lib: [{ start, length }] } }. */
function ranges(refs: unknown, depth: number): ByteRange[] {
  if (Array.isArray(refs)) {
    return refs.filter(
      (r): r is ByteRange =>
        isRecord(r) && Number.isSafeInteger(r.start) && Number.isSafeInteger(r.length) && (r.length as number) <= 32,
    )
  }
  if (!isRecord(refs) || depth > 2) return []
  return Object.values(refs).flatMap((r) => ranges(r, depth + 1))
}

/** The ABI's functions, events and errors that have the shape of ABI items. */
function abiOf(value: unknown): Abi | undefined {
  if (!Array.isArray(value)) return undefined
  return value.filter(
    (item) =>
      isRecord(item) &&
      (item.type === 'function' || item.type === 'event' || item.type === 'error') &&
      typeof item.name === 'string' &&
      Array.isArray(item.inputs) &&
      item.inputs.every((p) => isRecord(p) && typeof p.type === 'string'),
  ) as Abi
}

/** One file's artifact, or undefined when it is not one with runtime code. */
export function parseArtifact(json: unknown, file: string): Artifact | undefined {
  if (!isRecord(json)) return undefined
  const abi = abiOf(json.abi)
  const deployed = json.deployedBytecode
  // Foundry nests the object; Hardhat gives the string.
  const runtime = codeOf(isRecord(deployed) ? deployed.object : deployed)
  if (!abi || !runtime) return undefined
  const immutables =
    isRecord(deployed) && isRecord(deployed.immutableReferences) ? ranges(deployed.immutableReferences, 0) : undefined
  const declared = ranges(isRecord(deployed) ? deployed.linkReferences : json.deployedLinkReferences, 0)
  const name = typeof json.contractName === 'string' && json.contractName ? json.contractName : basename(file, '.json')
  return { name, file, abi, shape: shapeOf(runtime.code, immutables, [...runtime.links, ...declared]) }
}

/** Reads every artifact under dir (sorted, so the first of two identical contracts is always the same). */
export function readArtifacts(dir: string): ArtifactSet {
  const set: ArtifactSet = { dir, contracts: [], skipped: 0, truncated: false }
  let files = 0
  let bytes = 0
  const walk = (at: string, depth: number) => {
    if (depth > ARTIFACT_LIMITS.depth) return
    let entries: Dirent[]
    try {
      entries = readdirSync(at, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))
    } catch {
      return
    }
    for (const entry of entries) {
      if (set.truncated) return
      const path = join(at, entry.name)
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) walk(path, depth + 1)
        continue
      }
      // Dirent does not follow links: a symbolic link is neither a directory nor a file here.
      if (!entry.isFile() || !entry.name.endsWith('.json') || entry.name.endsWith('.dbg.json')) continue
      if (++files > ARTIFACT_LIMITS.files) {
        set.truncated = true
        return
      }
      const artifact = readOne(path, dir, (size) => {
        bytes += size
        if (bytes > ARTIFACT_LIMITS.totalBytes) set.truncated = true
        return size <= ARTIFACT_LIMITS.fileBytes && !set.truncated
      })
      if (artifact) set.contracts.push(artifact)
      else set.skipped++
    }
  }
  walk(dir, 0)
  return set
}

function readOne(path: string, dir: string, admit: (size: number) => boolean): Artifact | undefined {
  try {
    if (!admit(statSync(path).size)) return undefined
    return parseArtifact(JSON.parse(readFileSync(path, 'utf8')), relative(dir, path))
  } catch {
    return undefined
  }
}

const read = new Map<string, ArtifactSet>()

/** The directory's artifacts, read once per process (the node's decoder and the banner share them). */
export function artifactsIn(dir: string): ArtifactSet {
  const path = resolve(dir)
  let set = read.get(path)
  if (!set) read.set(path, (set = readArtifacts(path)))
  return set
}
