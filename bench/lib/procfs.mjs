// Memory and CPU of a process, and of the whole machine, read from /proc (Linux).
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { now, round } from './stats.mjs'

let CLK_TCK = 100
try {
  CLK_TCK =
    Number(
      execFileSync('getconf', ['CLK_TCK'], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim(),
    ) || 100
} catch {}

export function memOf(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (f) => Number(s.match(new RegExp(`^${f}:\\s+(\\d+)\\s*kB`, 'm'))?.[1] ?? Number.NaN)
    return { rssMiB: round(kb('VmRSS') / 1024, 1), peakRssMiB: round(kb('VmHWM') / 1024, 1) }
  } catch {
    return { rssMiB: null, peakRssMiB: null }
  }
}

export function cpuOf(pid) {
  try {
    const st = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ')
    return (Number(f[11]) + Number(f[12])) / CLK_TCK
  } catch {
    return null
  }
}

/** Machine-wide busy CPU seconds (all cores) from /proc/stat, to see other load during a scenario. */
function machineBusyS() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
    return (f[0] + f[1] + f[2] + f[5] + f[6] + (f[7] || 0)) / CLK_TCK
  } catch {
    return null
  }
}

/** CPU used meanwhile by the node, by this script, and by anything else on the machine. */
export function cpuMeter(pid) {
  const node0 = cpuOf(pid)
  const self0 = process.cpuUsage()
  const busy0 = machineBusyS()
  const t0 = now()
  return () => {
    const n = cpuOf(pid)
    const self = process.cpuUsage(self0)
    const busy = machineBusyS()
    const nodeCpuS = n != null && node0 != null ? n - node0 : null
    const benchCpuS = (self.user + self.system) / 1e6
    const otherCpuS = busy != null && busy0 != null && nodeCpuS != null ? Math.max(0, busy - busy0 - nodeCpuS - benchCpuS) : null
    return {
      wallS: round((now() - t0) / 1000),
      nodeCpuS: round(nodeCpuS),
      benchCpuS: round(benchCpuS),
      otherCpuS: round(otherCpuS),
    }
  }
}
