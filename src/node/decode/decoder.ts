// Names contracts and decodes calls, revert data and logs for the explorer (pcnode_decodeCall,
// pcnode_decodeError, pcnode_decodeLog, pcnode_identifyContract), with viem's decodeAbiParameters
// (after the selector, as decodeFunctionData and decodeErrorResult do) and decodeEventLog. A contract is known by
// its runtime code when it is one of the user's artifacts (--artifacts), else by its address when
// pcnode put it in the genesis; its ABI decodes first, then (a proxy) its implementation's, and any
// selector or topic neither knows goes to the 4-byte table (signatures.ts, then every ABI pcnode has).
import { createHash } from 'node:crypto'
import {
  type Abi,
  type AbiEvent,
  type AbiFunction,
  decodeAbiParameters,
  decodeEventLog,
  type Hex,
  hexToBytes,
  toEventSelector,
  toEventSignature,
  toFunctionSelector,
} from 'viem'
import { formatAbiItem } from 'viem/utils'
import type { Artifact, ArtifactSet } from './artifacts.js'
import { withinBudget } from './budget.js'
import { matches, stripMetadata } from './bytecode-match.js'
import { type KnownContract, knownContracts, TABLE_ABIS } from './known.js'
import { type DecodedArg, decodedArgs } from './values.js'

/** Where a decoding's ABI came from. */
export type DecodeSource = 'artifact' | 'known' | 'signature'

export interface ContractIdentity {
  name: string
  /** 'artifact': the user's; 'known': put there by pcnode. */
  source: 'artifact' | 'known'
  /** The artifact's file, relative to the --artifacts directory. */
  file?: string
  abi?: Abi
  /** An EIP-1967 proxy's implementation, or an EIP-7702 account's delegate, when the node names it. */
  implementation?: ContractIdentity
}

/** What names an EIP-1967 proxy whose own code the node does not know. */
export const UNKNOWN_PROXY = 'ERC-1967 proxy'
/** What names an EIP-7702 account, delegating to code the node names. */
export const DELEGATED_ACCOUNT = 'EIP-7702 account'

export interface DecodedCall {
  contract?: string
  implementation?: string
  source: DecodeSource
  function: string
  signature: string
  args: DecodedArg[]
}

export interface DecodedError {
  contract?: string
  implementation?: string
  source: DecodeSource
  error: string
  signature: string
  args: DecodedArg[]
}

export interface DecodedLog {
  contract?: string
  implementation?: string
  source: DecodeSource
  event: string
  signature: string
  args: DecodedArg[]
}

type AbiError = Extract<Abi[number], { type: 'error' }>

/** Code hashes remembered with what they matched; cleared when full. */
const MAX_CACHED = 4096

const sha256 = (code: Uint8Array) => createHash('sha256').update(code).digest('hex')

/** Selector or topic → the ABI items that carry it, in the order the ABIs were given. */
function index(abis: readonly Abi[]): {
  functions: Map<string, AbiFunction[]>
  errors: Map<string, AbiError[]>
  events: Map<string, AbiEvent[]>
} {
  const functions = new Map<string, AbiFunction[]>()
  const errors = new Map<string, AbiError[]>()
  const events = new Map<string, AbiEvent[]>()
  const add = <T>(map: Map<string, T[]>, key: string, item: T) => map.set(key, [...(map.get(key) ?? []), item])
  for (const abi of abis) {
    for (const item of abi) {
      // An artifact's item viem cannot sign (a malformed type) is left out, not thrown.
      try {
        if (item.type === 'function') add(functions, toFunctionSelector(item), item)
        else if (item.type === 'error') add(errors, toFunctionSelector(formatAbiItem(item)), item)
        else if (item.type === 'event' && !item.anonymous) add(events, toEventSelector(item), item)
      } catch {}
    }
  }
  return { functions, errors, events }
}

type Index = ReturnType<typeof index>

const names = (who: ContractIdentity | undefined) => ({
  ...(who ? { contract: who.name } : {}),
  ...(who?.implementation ? { implementation: who.implementation.name } : {}),
})

export class ContractDecoder {
  private readonly known = knownContracts()
  private readonly table = index(TABLE_ABIS)
  /** Each artifact's own selector index, built when it is first matched. */
  private readonly indexes = new Map<Abi, Index>()
  private readonly byLength = new Map<number, Artifact[]>()
  private readonly identities = new Map<string, Artifact | null>()

  constructor(readonly artifacts?: ArtifactSet) {
    for (const a of artifacts?.contracts ?? []) {
      const list = this.byLength.get(a.shape.body.length) ?? []
      list.push(a)
      this.byLength.set(a.shape.body.length, list)
    }
  }

  /** The contract at `address` with runtime `code`: the user's artifact it matches, else pcnode's own. */
  identify(address: string, code: Uint8Array): ContractIdentity | undefined {
    if (code.length === 0) return undefined
    const artifact = this.artifactFor(code)
    if (artifact) return { name: artifact.name, source: 'artifact', file: artifact.file, abi: artifact.abi }
    const known: KnownContract | undefined = this.known.get(address.toLowerCase())
    return known ? { name: known.name, source: 'known', abi: known.abi } : undefined
  }

  private artifactFor(code: Uint8Array): Artifact | undefined {
    if (this.byLength.size === 0) return undefined
    const key = sha256(code)
    let found = this.identities.get(key)
    if (found === undefined) {
      found = this.byLength.get(stripMetadata(code).length)?.find((a) => matches(a.shape, code)) ?? null
      if (this.identities.size >= MAX_CACHED) this.identities.clear()
      this.identities.set(key, found)
    }
    return found ?? undefined
  }

  /** The contract's own ABI, then its implementation's (a proxy's), with where each came from. */
  private own(who: ContractIdentity | undefined): [Abi, DecodeSource][] {
    const out: [Abi, DecodeSource][] = []
    for (const id of [who, who?.implementation]) if (id?.abi) out.push([id.abi, id.source])
    return out
  }

  private indexOf(abi: Abi): Index {
    let found = this.indexes.get(abi)
    if (!found) this.indexes.set(abi, (found = index([abi])))
    return found
  }

  /** A call's input decoded: by the contract's ABI, else by the 4-byte table. */
  decodeCall(input: Hex, who?: ContractIdentity): DecodedCall | undefined {
    const found = this.bySelector('functions', input, who)
    return (
      found && { ...names(who), source: found.source, function: found.item.name, signature: found.signature, args: found.args }
    )
  }

  /** Revert data decoded: a custom error of the contract's ABI, else of the table (Error, Panic, …). */
  decodeError(data: Hex, who?: ContractIdentity): DecodedError | undefined {
    const found = this.bySelector('errors', data, who)
    return found && { ...names(who), source: found.source, error: found.item.name, signature: found.signature, args: found.args }
  }

  private bySelector(kind: 'functions' | 'errors', data: Hex, who: ContractIdentity | undefined) {
    if (data.length < 10) return undefined
    const selector = data.slice(0, 10).toLowerCase()
    const tries: [(AbiFunction | AbiError)[] | undefined, DecodeSource][] = [
      ...this.own(who).map(([abi, source]): [(AbiFunction | AbiError)[] | undefined, DecodeSource] => [
        this.indexOf(abi)[kind].get(selector),
        source,
      ]),
      [this.table[kind].get(selector), 'signature'],
    ]
    const body = hexToBytes(data).subarray(4)
    for (const [candidates, source] of tries) {
      for (const item of candidates ?? []) {
        try {
          if (!withinBudget(item.inputs, body)) continue
          const values = decodeAbiParameters(item.inputs, body)
          const signature = formatAbiItem(item).replace(/^(function|error) /, '')
          return { item, source, signature, args: decodedArgs(item.inputs, values) }
        } catch {}
      }
    }
    return undefined
  }

  /** A log decoded: by the emitting contract's ABI, else by the table (the indexed count must fit). */
  decodeLog(topics: Hex[], data: Hex, who?: ContractIdentity): DecodedLog | undefined {
    if (topics.length === 0) return undefined
    const topic = topics[0].toLowerCase()
    const tries: [AbiEvent[] | undefined, DecodeSource][] = [
      ...this.own(who).map(([abi, source]): [AbiEvent[] | undefined, DecodeSource] => [
        this.indexOf(abi).events.get(topic),
        source,
      ]),
      [this.table.events.get(topic), 'signature'],
    ]
    for (const [candidates, source] of tries) {
      for (const item of candidates ?? []) {
        // ERC-20's and ERC-721's Transfer share a topic: the count of indexed arguments tells them apart.
        if (item.inputs.filter((p) => p.indexed).length !== topics.length - 1) continue
        try {
          if (
            !withinBudget(
              item.inputs.filter((p) => !p.indexed),
              hexToBytes(data),
            )
          )
            continue
          const { args } = decodeEventLog({ abi: [item], topics: topics as [Hex, ...Hex[]], data, strict: true })
          const decoded = decodedArgs(item.inputs, args)
          item.inputs.forEach((p, i) => {
            if (p.indexed && /^(string|bytes|tuple)$|\[\d*\]$/.test(p.type)) decoded[i].hashed = true
          })
          return { ...names(who), source, event: item.name, signature: toEventSignature(item), args: decoded }
        } catch {}
      }
    }
    return undefined
  }
}
