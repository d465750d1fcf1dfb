// Parsing and printing amounts and numbers on the command line.
import { InvalidArgumentError } from 'commander'

const UNITS: Record<string, number> = { wei: 0, gwei: 9, eth: 18, ether: 18 }

/** "1eth", "1.5 ether", "20gwei", "1000" (wei), "0x10" (wei) → wei. */
export function parseAmount(value: string): bigint {
  const m = /^\s*([0-9]+(?:\.[0-9]+)?|0x[0-9a-fA-F]+)\s*([a-zA-Z]*)\s*$/.exec(value)
  if (!m) throw new InvalidArgumentError(`not an amount: "${value}" (try 1eth, 20gwei or a number of wei)`)
  const [, num, unitRaw] = m
  const unit = unitRaw.toLowerCase() || 'wei'
  if (!(unit in UNITS)) throw new InvalidArgumentError(`unknown unit "${unitRaw}" (use wei, gwei or eth)`)
  if (num.startsWith('0x')) return BigInt(num) * 10n ** BigInt(UNITS[unit])
  const [whole, frac = ''] = num.split('.')
  const decimals = UNITS[unit]
  if (frac.length > decimals) throw new InvalidArgumentError(`too many decimals in "${value}"`)
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0')
}

export function parseInteger(name: string, min = 0) {
  return (value: string): number => {
    const n = Number(value)
    if (!Number.isSafeInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be an integer >= ${min}`)
    return n
  }
}

export function parseBigInt(name: string) {
  return (value: string): bigint => {
    try {
      const n = BigInt(value)
      if (n < 0n) throw new Error()
      return n
    } catch {
      throw new InvalidArgumentError(`${name} must be a non-negative integer`)
    }
  }
}

/** Seconds (as anvil takes them, "2", "0.2") or milliseconds with a suffix ("200ms") → ms. */
export function parseDuration(name: string) {
  return (value: string): number => {
    const m = /^([0-9]+(?:\.[0-9]+)?)(ms|s)?$/.exec(value.trim())
    if (!m) throw new InvalidArgumentError(`${name}: expected seconds (2, 0.5) or milliseconds (200ms)`)
    const n = Number(m[1])
    return Math.round(m[2] === 'ms' ? n : n * 1000)
  }
}

/** A fraction from 0 to 1 ("0.2", ".05", "1"). */
export function parseFraction(name: string) {
  return (value: string): number => {
    const n = Number(value)
    if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) {
      throw new InvalidArgumentError(`${name} must be a number from 0 to 1 (e.g. 0.2)`)
    }
    return n
  }
}

/** Milliseconds: "80" or "80ms" (a flag documented as <ms>, unlike the durations above). */
export function parseMilliseconds(name: string) {
  return (value: string): number => {
    const m = /^([0-9]+)(ms)?$/.exec(value.trim())
    if (!m) throw new InvalidArgumentError(`${name}: expected whole milliseconds (80 or 80ms)`)
    return Number(m[1])
  }
}

export function formatEther(wei: bigint, decimals = 4): string {
  const whole = wei / 10n ** 18n
  const frac = (wei % 10n ** 18n).toString().padStart(18, '0').slice(0, decimals).replace(/0+$/, '')
  return frac ? `${whole}.${frac}` : `${whole}`
}
