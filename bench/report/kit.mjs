// What every report table is made of: the printed row (pcnode beside each anvil, with the
// pcnode/anvil ratio and the row's aim), number formatting, and the aims the last line counts.
import { hexN } from '../lib/stats.mjs'

export function fmt(v, unit) {
  if (v == null || (typeof v === 'number' && !Number.isFinite(v))) return 'n/a'
  if (typeof v === 'string') return v
  const a = Math.abs(v)
  const s = a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2)
  return unit ? `${s} ${unit}` : s
}

export function ratio(a, b) {
  return typeof a === 'number' && typeof b === 'number' && Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : null
}

/** A hex quantity as a decimal string, 'n/a' if it is not one. */
export const hexNs = (x) => (typeof x === 'string' && /^0x[0-9a-f]+$/i.test(x) ? String(hexN(x)) : 'n/a')

/**
 * The row makers and aim makers of one report. `skipAnvil` (--no-anvil) leaves the anvil columns
 * out, and with them the aims on ratios to anvil.
 */
export function reportKit(skipAnvil) {
  const aims = []
  const aim = (text, pass) => {
    aims.push({ text, pass })
    return { text, pass }
  }
  // An aim on the pcnode/anvil ratio of one run; none without anvil.
  const ratioAim = (what, pc, anvil, bound, higherIsBetter = false) => {
    if (skipAnvil) return undefined
    const r = ratio(pc, anvil)
    const text = `${what} ${higherIsBetter ? '≥' : '≤'} ${bound}× anvil`
    return aim(text, r == null ? null : higherIsBetter ? r >= bound : r <= bound)
  }
  /** One printed line: label, pcnode value, then each anvil value with the pcnode/anvil ratio, then the aim. */
  const line = (label, pc, anvils, unit, aimed) => {
    let s = label.padEnd(40)
    s += `${pc.name} ${fmt(pc.value, unit)}`.padEnd(32)
    for (const a of anvils) {
      if (skipAnvil) break
      const r = ratio(pc.value, a.value)
      const text = `${a.name} ${fmt(a.value, unit)}`
      s +=
        typeof a.value === 'string'
          ? `${text}  `.padEnd(45)
          : text.padEnd(32) + `ratio ${r == null ? 'n/a' : r.toFixed(2)}`.padEnd(13)
    }
    if (aimed) s += `aim ${aimed.text}: ${aimed.pass == null ? 'n/a' : aimed.pass ? 'met' : 'MISSED'}`
    return s.trimEnd()
  }
  // A row of pcnode(200ms) beside anvil(automine): `value(name)` of each.
  const beside = (label, value, unit, aimed) =>
    line(
      label,
      { name: 'pcnode', value: value('pcnode(200ms)') },
      [{ name: 'anvil(automine)', value: value('anvil(automine)') }],
      unit,
      aimed,
    )
  // A row of pcnode(200ms) beside anvil(bt 0.2) and anvil(automine): `f` of each one's entry in `byName`.
  const besideBoth = (byName, label, f, unit, aimed) =>
    line(
      label,
      { name: 'pcnode', value: f(byName['pcnode(200ms)']) },
      [
        { name: 'anvil(bt 0.2)', value: f(byName['anvil(bt 0.2)']) },
        { name: 'anvil(automine)', value: f(byName['anvil(automine)']) },
      ],
      unit,
      aimed,
    )
  /** The last line: how many aims were met, and which were missed. */
  const summary = () => {
    const missed = aims.filter((a) => a.pass === false)
    return `aims: ${aims.filter((a) => a.pass).length} met, ${missed.length} missed${missed.length ? ` (${missed.map((a) => a.text).join('; ')})` : ''}`
  }
  return { line, aim, ratioAim, beside, besideBoth, summary }
}
