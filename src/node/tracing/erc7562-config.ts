// erc7562Tracer's config as geth decodes it (eth/tracers/native/erc7562.go erc7562TracerConfig, through
// encoding/json): `stackTopItemsSize` (int, 0 meaning 3), `ignoredOpcodes` (hexutil.Uint64 strings; absent
// or null: geth's default list, PUSH0..SWAP16 and the cheap arithmetic and comparison opcodes) and
// `withLog`; keys match in any case, unknown ones are ignored; the errors are encoding/json's texts.
import { NodeError } from '../errors.js'

export interface Erc7562Config {
  stackTopItemsSize: number
  ignoredOpcodes: Set<number>
  withLog: boolean
}

const STRUCT = 'erc7562TracerConfig'

/** geth's defaultIgnoredOpcodes: PUSH0 (0x5f) through SWAP16 (0x9f), and POP, ADD … ISZERO. */
function defaultIgnored(): Set<number> {
  const out = new Set<number>()
  for (let op = 0x5f; op <= 0x9f; op++) out.add(op)
  // POP ADD SUB MUL DIV EQ LT GT SLT SGT SHL SHR AND OR NOT ISZERO
  for (const op of [0x50, 0x01, 0x03, 0x02, 0x04, 0x14, 0x10, 0x11, 0x12, 0x13, 0x1b, 0x1c, 0x16, 0x17, 0x19, 0x15]) out.add(op)
  return out
}

/** The name encoding/json gives a JSON value's kind in an UnmarshalTypeError. */
function jsonKind(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'boolean') return 'bool'
  if (typeof value === 'number') return `number ${value}`
  return typeof value === 'object' ? 'object' : typeof value
}

const fieldError = (what: string, field: string, type: string) =>
  new NodeError(`json: cannot unmarshal ${what} into Go struct field ${STRUCT}.${field} of type ${type}`)

/** hexutil.Uint64's UnmarshalJSON (common/hexutil/json.go checkNumberText), its error as encoding/json words it. */
function hexUint64(value: unknown): number {
  const fail = (what: string) => fieldError(what, 'ignoredOpcodes', 'hexutil.Uint64')
  if (typeof value !== 'string') throw fail('non-string')
  if (value === '') throw fail('empty hex string')
  if (!/^0[xX]/.test(value)) throw fail('hex string without 0x prefix')
  const digits = value.slice(2)
  if (digits === '') throw fail('hex string "0x"')
  if (digits.length > 1 && digits[0] === '0') throw fail('hex number with leading zero digits')
  if (digits.length > 16) throw fail('hex number > 64 bits')
  if (!/^[0-9a-fA-F]+$/.test(digits)) throw fail('invalid hex string')
  // An opcode is a byte: geth's vm.OpCode(op) keeps the low 8 bits.
  return Number(BigInt(`0x${digits}`) & 0xffn)
}

export function parseErc7562Config(json: string): Erc7562Config {
  const cfg: Erc7562Config = { stackTopItemsSize: 0, ignoredOpcodes: defaultIgnored(), withLog: false }
  const raw = JSON.parse(json) as unknown
  if (raw === null) return { ...cfg, stackTopItemsSize: 3 }
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new NodeError(`json: cannot unmarshal ${jsonKind(raw).split(' ')[0]} into Go value of type native.${STRUCT}`)
  }
  for (const [key, v] of Object.entries(raw as Record<string, unknown>)) {
    if (v === null) continue
    switch (key.toLowerCase()) {
      case 'stacktopitemssize':
        if (typeof v !== 'number' || !Number.isInteger(v)) throw fieldError(jsonKind(v), 'stackTopItemsSize', 'int')
        cfg.stackTopItemsSize = v
        break
      case 'ignoredopcodes':
        if (!Array.isArray(v)) throw fieldError(jsonKind(v).split(' ')[0], 'ignoredOpcodes', '[]hexutil.Uint64')
        cfg.ignoredOpcodes = new Set(v.map(hexUint64))
        break
      case 'withlog':
        if (typeof v !== 'boolean') throw fieldError(jsonKind(v).split(' ')[0], 'withLog', 'bool')
        cfg.withLog = v
        break
    }
  }
  if (cfg.stackTopItemsSize === 0) cfg.stackTopItemsSize = 3
  return cfg
}
