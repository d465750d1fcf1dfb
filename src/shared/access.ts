// Who may talk to the node's HTTP/WebSocket server and to the example app: the Host header (against
// DNS rebinding), a browser's Origin (against other sites' pages) and the request's content type (so a
// cross-origin "simple" POST cannot skip the CORS preflight). Modelled on geth's --http.vhosts,
// --http.corsdomain and --ws.origins (node/rpcstack.go virtualHostHandler, rpc/http.go
// validateRequest, rpc/websocket.go wsHandshakeValidator).
import type { IncomingHttpHeaders } from 'node:http'
import { isIP } from 'node:net'

export interface AccessOptions {
  /** The address the server listens on (--host): when it is a name, that name is a Host the user means. */
  boundHost: string
  /** Extra browser origins (--allow-origin); `*` allows every page. Rules as geth's --ws.origins. */
  allowOrigins?: readonly string[]
  /** Extra Host names (--allow-host); `*` allows any. */
  allowHosts?: readonly string[]
  /** What the refusal texts call the server ("this node", "this app"). */
  serverName?: string
}

/** A request the server refuses before reading it: the HTTP status and a one-line text (geth's http.Error). */
export interface Refusal {
  status: 403
  message: string
}

/** geth's accepted JSON-RPC media types (rpc/http.go acceptedContentTypes). */
const JSON_MEDIA_TYPES = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest'])
/** geth's 415 text for any other content type, an absent one included. */
export const CONTENT_TYPE_REFUSAL = 'invalid content type, only application/json is supported'

/**
 * geth's content-type check: the media type (parameters such as charset ignored, case-insensitive) must
 * be a JSON one. An absent header fails too, as in geth: a browser may POST a body with no content type
 * without a preflight, so only a type a page cannot send cross-origin unasked gets executed.
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false
  return JSON_MEDIA_TYPES.has(header.split(';')[0].trim().toLowerCase())
}

/** One --allow-origin rule: each part that is given must match (geth's ruleAllowsOrigin). */
interface OriginRule {
  scheme?: string
  hostname?: string
  port?: string
}

/**
 * Checks `--allow-origin` values: `*`, `null` (file:// pages, sandboxed frames), an origin
 * (`https://app.example`, `http://localhost:5173`) or a bare host name with an optional port
 * (`app.example`, any scheme). Returns them lowercased; throws a one-line error for anything else.
 */
export function checkAllowOrigins(values: readonly string[]): string[] {
  return values.map((value) => {
    const rule = value.trim().toLowerCase()
    if (rule === '*' || rule === 'null') return rule
    parseOriginRule(rule)
    return rule
  })
}

/** Checks `--allow-host` values: `*` or a host name (no scheme, port or path). Returns them lowercased. */
export function checkAllowHosts(values: readonly string[]): string[] {
  return values.map((value) => {
    const name = stripDot(value.trim().toLowerCase())
    if (name === '*') return name
    if (!/^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/.test(name)) {
      throw new Error(`--allow-host: expected a host name such as devbox.lan (or *), got "${value}"`)
    }
    return name
  })
}

function parseOriginRule(rule: string): OriginRule {
  const bad = () => new Error(`--allow-origin: expected an origin such as https://app.example (or *), got "${rule}"`)
  let url: URL
  try {
    url = new URL(rule.includes('://') ? rule : `x-any://${rule}`)
  } catch {
    throw bad()
  }
  if (!url.hostname || url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    throw bad()
  }
  return {
    scheme: rule.includes('://') ? url.protocol.slice(0, -1) : undefined,
    hostname: url.hostname,
    port: url.port || undefined,
  }
}

/**
 * Browser-extension pages and service workers (wallets such as MetaMask send their own origin to a
 * custom RPC URL). Only an installed extension can send one, and it can reach loopback anyway.
 */
const EXTENSION_SCHEMES = new Set(['chrome-extension', 'moz-extension', 'safari-web-extension'])

/** localhost, *.localhost (browsers resolve them to loopback, never through DNS), 127.0.0.0/8 and ::1. */
function isLoopbackName(hostname: string): boolean {
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true
  if (hostname === '[::1]' || hostname === '::1') return true
  return isIP(hostname) === 4 && hostname.startsWith('127.')
}

/** Whether `--host` binds only to this machine (the banner warns otherwise). */
export function isLoopbackBind(host: string): boolean {
  return isLoopbackName(stripDot(host.toLowerCase()))
}

/** "localhost." is localhost: a fully qualified name ends with a dot. */
function stripDot(name: string): string {
  return name.endsWith('.') ? name.slice(0, -1) : name
}

/** The host part of a Host header, lowercased, without the port or an IPv6 literal's brackets. */
function hostOf(header: string): string {
  const value = header.trim().toLowerCase()
  if (value.startsWith('[')) {
    const end = value.indexOf(']')
    return end < 0 ? value.slice(1) : value.slice(1, end)
  }
  const colon = value.indexOf(':')
  // Two colons or more with no brackets: a bare IPv6 address, as Go's SplitHostPort fallback keeps it.
  if (colon >= 0 && value.indexOf(':', colon + 1) < 0) return stripDot(value.slice(0, colon))
  return stripDot(value)
}

export class AccessPolicy {
  private readonly allHosts: boolean
  private readonly hosts: Set<string>
  private readonly allOrigins: boolean
  private readonly nullOrigin: boolean
  private readonly originRules: OriginRule[]
  private readonly serverName: string

  constructor(options: AccessOptions) {
    const hosts = checkAllowHosts(options.allowHosts ?? [])
    const origins = checkAllowOrigins(options.allowOrigins ?? [])
    this.allHosts = hosts.includes('*')
    this.hosts = new Set(hosts)
    const bound = hostOf(options.boundHost)
    if (bound && isIP(bound) === 0) this.hosts.add(bound)
    this.allOrigins = origins.includes('*')
    this.nullOrigin = origins.includes('null')
    this.originRules = origins.filter((o) => o !== '*' && o !== 'null').map(parseOriginRule)
    this.serverName = options.serverName ?? 'this node'
  }

  /** The refusal for a request, or undefined when it may go on: the Host check, then the Origin check. */
  check(headers: IncomingHttpHeaders): Refusal | undefined {
    const host = headers.host
    if (!this.hostAllowed(host)) {
      const name = hostOf(host ?? '')
      return {
        status: 403,
        message: `invalid host specified: ${name} is not a name of ${this.serverName} (localhost, an IP address or --allow-host <name>)`,
      }
    }
    const origin = headers.origin
    if (origin !== undefined && !this.originAllowed(origin, host)) {
      return {
        status: 403,
        message: `origin not allowed: ${origin} (only pages on http://localhost, http://127.0.0.1 and http://[::1], any port, may call ${this.serverName}; --allow-origin <origin> allows another)`,
      }
    }
    return undefined
  }

  /**
   * geth's vhosts rule: a request with no Host (HTTP/1.0) or an IP-address Host is served, since DNS
   * rebinding needs a name; a name must be localhost (or *.localhost), the --host name or an allowed one.
   */
  hostAllowed(header: string | undefined): boolean {
    if (!header || this.allHosts) return true
    const host = hostOf(header)
    if (isIP(host) !== 0) return true
    return isLoopbackName(host) || this.hosts.has(host)
  }

  /**
   * A browser's Origin: a loopback page (http or https, any port), a browser extension, the server's
   * own origin (the Host it was reached by), or one the user allowed. Requests without Origin are not from a page and pass.
   */
  originAllowed(origin: string, host: string | undefined): boolean {
    if (this.allOrigins) return true
    const value = origin.trim().toLowerCase()
    if (value === 'null') return this.nullOrigin
    let url: URL
    try {
      url = new URL(value)
    } catch {
      return false
    }
    const scheme = url.protocol.slice(0, -1)
    if (EXTENSION_SCHEMES.has(scheme)) return true
    if (scheme !== 'http' && scheme !== 'https') return this.matchesRule(scheme, url)
    if (isLoopbackName(url.hostname)) return true
    if (host && scheme === 'http' && url.host === host.trim().toLowerCase()) return true
    return this.matchesRule(scheme, url)
  }

  private matchesRule(scheme: string, url: URL): boolean {
    return this.originRules.some(
      (rule) =>
        (rule.scheme === undefined || rule.scheme === scheme) &&
        (rule.hostname === undefined || rule.hostname === url.hostname) &&
        (rule.port === undefined || rule.port === url.port),
    )
  }

  /**
   * The CORS headers (a flat [name, value, ...] list) for a request whose Origin passed `check`: the
   * origin echoed (with Vary, as it differs per origin). Without Origin: none, a non-browser needs none.
   * A preflight also gets the methods and the headers it asked for, and Chrome's Private Network
   * Access grant when it asks for one (an allowed public page calling a node on loopback).
   */
  corsHeaders(headers: IncomingHttpHeaders, preflight = false): string[] {
    const origin = headers.origin
    if (origin === undefined) return []
    const out = ['access-control-allow-origin', origin, 'vary', 'Origin']
    if (!preflight) return out
    out.push('access-control-allow-methods', 'POST, GET, OPTIONS')
    out.push('access-control-allow-headers', String(headers['access-control-request-headers'] ?? 'content-type'))
    out.push('access-control-max-age', '600')
    if (headers['access-control-request-private-network'] === 'true') out.push('access-control-allow-private-network', 'true')
    return out
  }
}
