// Sample statistics and the number helpers the scenarios and the report share.
import { performance } from 'node:perf_hooks'

export const now = () => performance.now()
export const hexN = (x) => (x == null ? null : Number(BigInt(x)))
export const round = (x, d = 2) => (x == null || !Number.isFinite(x) ? null : Math.round(x * 10 ** d) / 10 ** d)

export function quantile(sorted, p) {
  if (!sorted.length) return null
  const idx = (sorted.length - 1) * p
  const lo = Math.floor(idx)
  const hi = Math.ceil(idx)
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (idx - lo)
}

export function stats(samples) {
  const s = samples.filter(Number.isFinite).sort((a, b) => a - b)
  if (!s.length) return { n: 0, p50: null, p90: null, p99: null, min: null, max: null, mean: null }
  return {
    n: s.length,
    p50: round(quantile(s, 0.5), 3),
    p90: round(quantile(s, 0.9), 3),
    p99: round(quantile(s, 0.99), 3),
    min: round(s[0], 3),
    max: round(s[s.length - 1], 3),
    mean: round(s.reduce((a, b) => a + b, 0) / s.length, 3),
  }
}

/** The upper middle sample, not interpolated (undefined when there is none). */
export function middle(samples) {
  return samples.length ? [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] : undefined
}
