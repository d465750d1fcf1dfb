// The explorer page the node serves at GET / on its own port: the latest blocks arriving live, the open
// block's flashblocks, a search box, and block, transaction and address views. It is one string (HTML,
// inline style and script, a `data:` favicon) and an ordinary client of the node's JSON-RPC over the
// same origin, so it needs nothing from the node's internals and makes no request beyond the node.
import { createHash } from 'node:crypto'
import { SCRIPT_CORE } from './script-core.js'
import { SCRIPT_VIEWS } from './script-views.js'
import { EXPLORER_STYLE } from './style.js'

const SCRIPT = `${SCRIPT_CORE}${SCRIPT_VIEWS}`

export const EXPLORER_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pcnode explorer</title>
<link rel="icon" href="data:,">
<style>${EXPLORER_STYLE}</style>
</head>
<body>
<main>
  <h1>pcnode explorer <small id="chain"></small> <small id="live">connecting…</small></h1>
  <form id="search" role="search">
    <input id="q" name="q" autocomplete="off" spellcheck="false" aria-label="Search"
      placeholder="Block number or hash, transaction or user-operation hash, address">
    <button type="submit">Search</button>
  </form>
  <section id="view" hidden aria-live="polite"></section>
  <section id="flash" hidden>
    <h2>Flashblocks of the open block <small id="flash-block"></small></h2>
    <ul class="rows" id="flash-list"></ul>
    <div id="flash-prev" hidden>
      <h3>Previous <small id="flash-prev-block"></small></h3>
      <ul class="rows" id="flash-prev-list"></ul>
    </div>
  </section>
  <section id="drops" hidden>
    <h2>Faults and dropped pre-confirmations</h2>
    <ul class="rows" id="drops-list"></ul>
  </section>
  <section>
    <h2>Latest blocks</h2>
    <ul class="rows" id="blocks"></ul>
  </section>
  <p class="muted"><small>This page reads the node through its own JSON-RPC endpoint: POST JSON-RPC 2.0 requests
  to this address, WebSocket on the same port. <code>pcnode start --no-explorer</code> turns the page off.</small></p>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`

/** CSP source hash of an inline element's text (CSP Level 2 'sha256-…'). */
const sourceHash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`

const SCRIPT_HASH = sourceHash(SCRIPT)
const STYLE_HASH = sourceHash(EXPLORER_STYLE)

/**
 * The page's response headers. The CSP lets only this page's own script and style run and the page
 * reach only the node it came from: 'self' for fetch, and ws:// of the same Host for the WebSocket
 * (CSP Level 2 browsers do not count ws: as 'self'). `host` passed the node's Host check already; it
 * is kept to host-name characters all the same.
 */
export function explorerHeaders(host: string | undefined): string[] {
  const safeHost = host && /^[A-Za-z0-9.:[\]-]+$/.test(host) ? host : undefined
  const connect = safeHost ? `'self' ws://${safeHost} wss://${safeHost}` : `'self'`
  const csp = [
    `default-src 'self'`,
    `script-src ${SCRIPT_HASH}`,
    `style-src ${STYLE_HASH}`,
    `connect-src ${connect}`,
    `img-src data:`,
    `base-uri 'none'`,
    `form-action 'none'`,
    `frame-ancestors 'none'`,
  ].join('; ')
  return [
    'content-type',
    'text/html; charset=utf-8',
    'content-security-policy',
    csp,
    'x-content-type-options',
    'nosniff',
    'cache-control',
    'no-store',
  ]
}
