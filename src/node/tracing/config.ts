// debug_trace*'s config object as geth decodes it (eth/tracers/api.go TraceConfig with the struct
// logger's Config embedded; TraceCallConfig adds stateOverrides, blockOverrides, txIndex): field
// names match case-insensitively, as encoding/json matches them, unknown fields are ignored, and
// `timeout` is a Go duration ("5s" by default, "300ms", "1m30s"), held to MAX_TIMEOUT_MS.
import { InvalidParamsError, NodeError } from '../errors.js'
import type { LoggerConfig } from './struct-logger.js'

export interface TraceConfig {
  /** undefined: the struct logger. */
  tracer?: string
  timeoutMs: number
  /** The tracer's own config (JSON object text; "{}" when absent). */
  tracerConfig: string
  logger: LoggerConfig
}

export interface TraceCallConfig extends TraceConfig {
  stateOverrides?: unknown
  blockOverrides?: unknown
  txIndex?: number
}

/** geth's defaultTraceTimeout. */
const DEFAULT_TIMEOUT_MS = 5000

/** The longest a trace may run. geth takes any duration, but there a trace runs beside the node
 * in its own goroutine; here a JS tracer's code runs on the node's thread, so its timeout is how
 * long one request can hold the node up. A longer timeout is lowered to this (not refused): clients
 * that habitually ask for minutes keep working, and a trace that needs more ends with geth's
 * "execution timeout". 60 s is 12 times geth's default and covers tracing any gas-capped call. */
export const MAX_TIMEOUT_MS = 60_000

/** Go's time.Duration ceiling (2^63-1 ns), in ms: ParseDuration refuses longer ones. */
const GO_MAX_DURATION_MS = 9_223_372_036_854.775

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** Go's time.ParseDuration, in milliseconds; its error texts. */
export function parseDuration(text: string): number {
  const quoted = JSON.stringify(text)
  if (text === '0') return 0
  const m = /^([-+]?)(.+)$/.exec(text)
  let rest = m?.[2] ?? ''
  if (rest === '') throw new NodeError(`time: invalid duration ${quoted}`)
  let total = 0
  while (rest.length > 0) {
    const part = /^(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)?/.exec(rest)
    if (!part) throw new NodeError(`time: invalid duration ${quoted}`)
    if (!part[2]) throw new NodeError(`time: missing unit in duration ${quoted}`)
    total += Number(part[1]) * UNITS[part[2]]
    rest = rest.slice(part[0].length)
  }
  if (!(total <= GO_MAX_DURATION_MS)) throw new NodeError(`time: invalid duration ${quoted}`)
  return m?.[1] === '-' ? -total : total
}

function goType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value === 'object' ? 'object' : typeof value
}

/** Parses params[index] (the config) as geth's JSON decoder would; -32602 for a wrong shape. */
export function parseTraceConfig(value: unknown, index: number, forCall = false): TraceCallConfig {
  const cfg: TraceCallConfig = {
    timeoutMs: DEFAULT_TIMEOUT_MS,
    tracerConfig: '{}',
    logger: { enableMemory: false, disableStack: false, disableStorage: false, enableReturnData: false, limit: 0 },
  }
  if (value === undefined || value === null) return cfg
  const type = forCall ? 'tracers.TraceCallConfig' : 'tracers.TraceConfig'
  const bad = (field: string, want: string, got: unknown) =>
    new InvalidParamsError(
      `invalid argument ${index}: json: cannot unmarshal ${goType(got)} into Go struct field ${type}.${field} of type ${want}`,
    )
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidParamsError(
      `invalid argument ${index}: json: cannot unmarshal ${goType(value)} into Go value of type ${type}`,
    )
  }
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const bool = (field: keyof LoggerConfig) => {
      if (v === null) return
      if (typeof v !== 'boolean') throw bad(field, 'bool', v)
      ;(cfg.logger as unknown as Record<string, unknown>)[field] = v
    }
    switch (key.toLowerCase()) {
      case 'enablememory':
        bool('enableMemory')
        break
      case 'disablestack':
        bool('disableStack')
        break
      case 'disablestorage':
        bool('disableStorage')
        break
      case 'enablereturndata':
        bool('enableReturnData')
        break
      case 'limit':
        if (v === null) break
        if (typeof v !== 'number' || !Number.isInteger(v)) throw bad('limit', 'int', v)
        cfg.logger.limit = v
        break
      case 'tracer':
        if (v === null) break
        if (typeof v !== 'string') throw bad('tracer', 'string', v)
        cfg.tracer = v
        break
      case 'timeout':
        if (v === null) break
        if (typeof v !== 'string') throw bad('timeout', 'string', v)
        cfg.timeoutMs = Math.min(parseDuration(v), MAX_TIMEOUT_MS)
        break
      case 'tracerconfig':
        if (v !== null) cfg.tracerConfig = JSON.stringify(v)
        break
      case 'stateoverrides':
        if (forCall) cfg.stateOverrides = v
        break
      case 'blockoverrides':
        if (forCall) cfg.blockOverrides = v
        break
      case 'txindex':
        if (!forCall || v === null) break
        if (typeof v !== 'string' || !/^0x(0|[1-9a-f][0-9a-f]*)$/i.test(v)) throw bad('txIndex', 'hexutil.Uint', v)
        cfg.txIndex = Number.parseInt(v, 16)
        break
    }
  }
  return cfg
}

/** A native tracer's config (geth json.Unmarshal into its config struct): booleans by name. */
export function tracerFlags<T extends string>(json: string, struct: string, fields: readonly T[]): Record<T, boolean> {
  const raw = JSON.parse(json) as unknown
  const out = Object.fromEntries(fields.map((f) => [f, false])) as Record<T, boolean>
  if (raw === null) return out
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new NodeError(`json: cannot unmarshal ${goType(raw)} into Go value of type native.${struct}`)
  }
  for (const [key, v] of Object.entries(raw as Record<string, unknown>)) {
    const field = fields.find((f) => f.toLowerCase() === key.toLowerCase())
    if (!field || v === null) continue
    if (typeof v !== 'boolean')
      throw new NodeError(`json: cannot unmarshal ${goType(v)} into Go struct field ${struct}.${field} of type bool`)
    out[field] = v
  }
  return out
}
