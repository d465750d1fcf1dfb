// `pcnode start`'s access flags (--allow-origin, --allow-host) and the banner lines that say who may
// call the node: loopback pages and names by default, as geth's --http.vhosts / --ws.origins
// (docs/security.md). Warnings when a flag opens it to every page or name, or --host to the network.

import { isIP } from 'node:net'
import type { ChalkInstance } from 'chalk'
import { InvalidArgumentError } from 'commander'
import { checkAllowHosts, checkAllowOrigins, isLoopbackBind } from '../shared/access.js'

/** --allow-origin, repeatable: each value checked as it is parsed. */
export function collectOrigin(value: string, previous: string[]): string[] {
  return [...previous, ...checked(() => checkAllowOrigins([value]))]
}

/** --allow-host, repeatable. */
export function collectHost(value: string, previous: string[]): string[] {
  return [...previous, ...checked(() => checkAllowHosts([value]))]
}

function checked(check: () => string[]): string[] {
  try {
    return check()
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message.replace(/^--allow-\w+: /, ''))
  }
}

export interface AccessSettings {
  host: string
  allowOrigins: readonly string[]
  allowHosts: readonly string[]
}

/** The banner's lines on who may call the node (and the example app, which follows the same rules). */
export function accessLines(chalk: ChalkInstance, s: AccessSettings): string[] {
  const warn = (text: string) => chalk.bold.red(`WARNING: ${text}`)
  const lines: string[] = []
  if (s.allowOrigins.includes('*')) {
    lines.push(warn('any web page may call this node (--allow-origin *): a site you visit can send from the dev accounts'))
  } else {
    const pages = ['http://localhost:*', 'http://127.0.0.1:*', ...s.allowOrigins]
    const list = `${pages.slice(0, -1).join(', ')} and ${pages.at(-1)}`
    const hint = s.allowOrigins.length ? '' : ' (--allow-origin to open)'
    lines.push(`Web pages:         ${s.allowOrigins.length ? '' : 'only '}${list} may call this node${hint}`)
  }
  if (s.allowHosts.includes('*')) {
    lines.push(warn('any Host name is answered (--allow-host *): DNS rebinding can reach this node'))
  } else {
    // A --host name is one the node answers to as well (a bare IPv6 address has colons, not brackets).
    const bound = isIP(s.host) || s.host.includes(':') ? [] : [s.host.toLowerCase()]
    const names = [...new Set(['localhost', ...bound, ...s.allowHosts])].join(', ')
    lines.push(`Host names:        ${names} and IP addresses${s.allowHosts.length ? '' : ' (--allow-host to add)'}`)
  }
  if (!isLoopbackBind(s.host)) {
    lines.push(warn(`listening on ${s.host}: the node is reachable from the network, with the dev accounts' keys`))
  }
  return lines
}
