// The page's script, plain browser JS with no build step and no outside request: connect (an injected
// wallet, or the node's dev accounts through the same JSON-RPC calls), prepare, sign with
// eth_signTypedData_v4, verify, and the passkey smart-wallet path (WebAuthn credential → undeployed
// wallet, ERC-6492 signature). It shows the prepared message's fields before the raw EIP-712 JSON and
// names each verify answer by the outcomes page.ts embeds as OUTCOMES (page-outcomes.ts).
// (Kept free of backticks and dollar-brace: it sits in a template literal.)

export const PAGE_SCRIPT = String.raw`
const $ = (id) => document.getElementById(id)
const el = (tag, props, ...children) => {
  const node = Object.assign(document.createElement(tag), props ?? {})
  node.append(...children)
  return node
}
let config, payload, signature, signedBy
let rpcId = 0

// WebAuthn takes the page's host as the passkey's site (RP ID), which must be a domain: an IP address
// makes the browser throw "This is an invalid domain.". http://localhost is a domain and a secure context.
const host = location.hostname
const onIp = /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':') || host.startsWith('[')
const localhostUrl = 'http://localhost' + (location.port ? ':' + location.port : '') + location.pathname
function passkeyBlocker() {
  if (onIp) return 'Passkeys need a domain name: WebAuthn does not accept an IP address such as ' + host +
    ' as the site a passkey belongs to (the browser says "This is an invalid domain."). Open this page on localhost instead: '
  if (!window.isSecureContext) return 'Passkeys need a secure context (https, or http on localhost). Open this page on localhost instead: '
  if (!window.PublicKeyCredential) return 'This browser has no WebAuthn (passkey) support.'
  return undefined
}
const blocker = passkeyBlocker()
if (blocker) {
  $('passkey').disabled = true
  const note = $('passkey-note')
  note.hidden = false
  note.replaceChildren(blocker)
  if (onIp || !window.isSecureContext) note.append(el('a', { id: 'localhost-link', href: localhostUrl, textContent: localhostUrl }))
}

config = await (await fetch('/config')).json()
$('network').textContent = 'chain ' + config.chainId + ' · node ' + config.rpcUrl + ' · verify mode ' + config.verifyMode
$('verify-checks').textContent = config.verifyMode === 'simple'
  ? 'Verify mode simple: the app checks the signature, then the expiry; it keeps no nonces.'
  : 'Verify mode full: the app refuses a nonce it has seen, then an expired payload, then checks the signature; a valid one marks the nonce used.'

const nodeProvider = {
  async request({ method, params }) {
    const res = await fetch(config.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params: params ?? [] }) })
    const body = await res.json()
    if (body.error) throw new Error(body.error.message)
    return body.result
  },
}
const provider = window.ethereum ?? nodeProvider
$('wallet-kind').textContent = window.ethereum
  ? 'Injected wallet: it will ask you to approve each step.'
  : 'No injected wallet: the page uses the node’s dev accounts (their keys are in pcnode’s banner) through the same JSON-RPC calls a wallet answers.'

const say = (id, ok, text) => { const node = $(id); node.className = ok ? 'ok' : 'bad'; node.textContent = text }
const post = async (path, body) => {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, body: await res.json() }
}
const hex = (buf) => '0x' + [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('')
const bytes = (h) => Uint8Array.from(h.slice(2).match(/../g).map((b) => parseInt(b, 16)))
const short = (a) => a.slice(0, 6) + '…' + a.slice(-4)
const same = (a, b) => String(a).toLowerCase() === String(b).toLowerCase()

function readableExpiry(expiry) {
  const seconds = Number(expiry)
  const minutes = Math.round((seconds * 1000 - Date.now()) / 60000)
  const when = new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })
  const relative = minutes >= 0 ? 'in ' + minutes + ' min' : -minutes + ' min ago'
  return when + ' (' + relative + '; Unix ' + seconds + ')'
}

// The message's fields first, the domain, then the raw JSON (collapsed): what the wallet signs.
function showPayload(p) {
  const m = p.message
  const d = p.domain
  const fields = (p.types?.[p.primaryType] ?? []).map((f) => f.type + ' ' + f.name).join(', ')
  const rows = [
    ['user', m.user, 'who authorizes: the signature must be this address’s'],
    ['action', m.action],
    ['resource', m.resource],
    ['nonce', m.nonce, 'random, accepted once'],
    ['expiry', readableExpiry(m.expiry)],
    ['domain', d.name + ' v' + d.version + ' · chain ' + d.chainId + ' · contract ' + d.verifyingContract, 'binds the signature to this app and chain'],
    ['type', p.primaryType + '(' + fields + ')'],
  ]
  $('message').replaceChildren(...rows.flatMap(([name, value, hint]) => [
    el('dt', { textContent: name }),
    el('dd', { id: 'field-' + name }, el('span', { className: 'value', textContent: String(value) }),
      ...(hint ? [el('small', { textContent: ' ' + hint })] : [])),
  ]))
  $('payload').textContent = JSON.stringify(p, null, 2)
  $('prepared').hidden = false
}

function resetSignature() {
  signature = undefined
  $('signature').hidden = true
  $('verify').disabled = true
  $('sign-status').textContent = ''
  $('outcome').hidden = true
}

$('connect').onclick = async () => {
  try {
    const accounts = await provider.request({ method: 'eth_requestAccounts' })
    $('account').replaceChildren(...accounts.map((a) => el('option', { value: a, textContent: a })))
    $('account').disabled = false
    $('prepare').disabled = false
    say('account-status', true, 'Connected ' + accounts.length + ' account(s). The selected one signs.')
  } catch (e) { say('account-status', false, 'Connect failed: ' + e.message) }
}

async function prepareFor(address) {
  const q = new URLSearchParams({ userAddress: address, action: $('action').value, resource: $('resource').value })
  const res = await fetch('/typed-data/prepare?' + q)
  const body = await res.json()
  if (!res.ok) throw new Error(res.status + ' ' + body.error)
  return body
}

$('prepare').onclick = async () => {
  try {
    payload = await prepareFor($('account').value)
    showPayload(payload)
    resetSignature()
    $('sign').disabled = false
    say('prepare-status', true, 'Prepared for ' + short(payload.message.user) + ': nonce ' + payload.message.nonce)
  } catch (e) { say('prepare-status', false, 'Prepare failed: ' + e.message) }
}

$('sign').onclick = async () => {
  try {
    const from = $('account').value
    signature = await provider.request({ method: 'eth_signTypedData_v4', params: [from, JSON.stringify(payload)] })
    signedBy = from
    $('signature').hidden = false
    $('signature').textContent = signature
    $('verify').disabled = false
    say('sign-status', true, 'Signed by ' + from + (same(from, payload.message.user) ? '' :
      ': not the payload’s user (' + short(payload.message.user) + '). Verify to see what the app says.'))
  } catch (e) { say('sign-status', false, 'Signing failed: ' + e.message) }
}

function fill(text, groups) {
  const values = { address: signedBy, user: payload?.message.user, expiry: payload ? readableExpiry(payload.message.expiry) : '?',
    chainId: config.chainId, 1: groups[1], 2: groups[2] }
  return text.replace(/\{(\w+)\}/g, (all, key) => values[key] ?? all)
}

// One verify answer, named as the app's state table names it (OUTCOMES), with what to do next.
function showOutcome(status, body) {
  const text = body.error ?? body.message ?? ''
  let outcome
  let groups = []
  for (const o of OUTCOMES) {
    if (o.status !== status || (o.mode && o.mode !== config.verifyMode)) continue
    const match = new RegExp(o.pattern).exec(text)
    if (match) { outcome = o; groups = match; break }
  }
  outcome ??= status === 0
    ? { title: 'No answer', nonce: 'unknown', explain: 'The request did not reach the app: is pcnode (and its app) still running?', next: 'Start pcnode again, then verify.' }
    : { title: text || 'Unexpected answer', nonce: 'unknown', explain: 'The app answered ' + status + '.', next: 'See the app’s log on the terminal.' }
  const action = body.valid ? ' · action ' + (body.action ?? body.data?.action) + ' on ' + (body.resource ?? body.data?.resource) : ''
  const box = $('outcome')
  box.hidden = false
  box.className = 'outcome ' + (status === 200 ? 'ok' : status === 400 ? 'warn' : 'bad')
  $('outcome-status').textContent = status === 0 ? '—' : String(status)
  $('outcome-title').textContent = outcome.title
  $('outcome-answer').textContent = (status ? status + ' ' : '') + text + action
  $('outcome-explain').textContent = fill(outcome.explain, groups)
  $('outcome-nonce').textContent = 'Nonce: ' + outcome.nonce
  $('outcome-next').textContent = 'Next: ' + fill(outcome.next, groups)
  const time = new Date().toLocaleTimeString()
  $('history').prepend(el('li', { textContent: time + ' · ' + status + ' ' + outcome.title + ' · nonce …' +
    String(payload.message.nonce).slice(-6) + ' · signer ' + short(signedBy) }))
  $('history-box').hidden = false
}

async function verify() {
  $('outcome').setAttribute('aria-busy', 'true')
  try {
    const { status, body } = await post('/typed-data/verify', { typedData: payload, signature, address: signedBy })
    showOutcome(status, body)
  } finally { $('outcome').removeAttribute('aria-busy') }
}
$('verify').onclick = () => verify().catch((e) => showOutcome(0, { error: 'The app did not answer: ' + e.message }))

// Passkey path: a new WebAuthn credential owns an undeployed smart wallet; the app helpers compute
// the wallet's address and replay-safe challenge, and wrap the assertion (SignatureWrapper + ERC-6492).
$('passkey').onclick = async () => {
  try {
    say('passkey-status', true, 'Creating a passkey…')
    const credential = await navigator.credentials.create({ publicKey: {
      challenge: crypto.getRandomValues(new Uint8Array(32)),
      rp: { name: 'pcnode example', id: location.hostname },
      user: { id: crypto.getRandomValues(new Uint8Array(16)), name: 'pcnode-user', displayName: 'pcnode user' },
      pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
      authenticatorSelection: { userVerification: 'preferred', residentKey: 'preferred' },
    } })
    const spki = new Uint8Array(credential.response.getPublicKey())
    const point = spki.slice(spki.length - 64)
    const publicKey = { x: hex(point.slice(0, 32)), y: hex(point.slice(32)) }
    const wallet = await post('/wallet/passkey/address', publicKey)
    if (wallet.status !== 200) throw new Error(wallet.body.error)
    const address = wallet.body.address
    // The wallet is the signer: the passkey owns it, the wallet's address is what is verified.
    $('account').replaceChildren(el('option', { value: address, textContent: address + ' (passkey wallet, undeployed)' }))
    $('wallet-kind').textContent = 'Passkey smart wallet ' + address + ', not deployed: verified through ERC-6492.'
    payload = await prepareFor(address)
    showPayload(payload)
    resetSignature()
    say('passkey-status', true, 'Signing with the passkey…')
    const challenge = await post('/wallet/passkey/challenge', { ...publicKey, typedData: payload })
    if (challenge.status !== 200) throw new Error(challenge.body.error)
    const assertion = await navigator.credentials.get({ publicKey: {
      challenge: bytes(challenge.body.challenge),
      allowCredentials: [{ type: 'public-key', id: credential.rawId }],
      userVerification: 'preferred',
    } })
    const wrapped = await post('/wallet/passkey/signature', { ...publicKey,
      authenticatorData: hex(assertion.response.authenticatorData),
      clientDataJSON: new TextDecoder().decode(assertion.response.clientDataJSON),
      signature: hex(assertion.response.signature) })
    if (wrapped.status !== 200) throw new Error(wrapped.body.error)
    signature = wrapped.body.signature
    signedBy = address
    $('signature').hidden = false
    $('signature').textContent = signature
    $('verify').disabled = false
    say('passkey-status', true, 'Signed by the passkey for wallet ' + address + ' (an ERC-6492-wrapped signature: the wallet is not deployed).')
    await verify()
  } catch (e) {
    const hint = e.name === 'NotAllowedError' ? ' (the passkey prompt was cancelled or timed out)' : ''
    say('passkey-status', false, 'Passkey flow failed: ' + e.message + hint)
  }
}
`
