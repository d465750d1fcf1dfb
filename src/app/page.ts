// The browser page: connect a wallet (an injected one, or the node's dev accounts through the same
// JSON-RPC calls), prepare, sign with eth_signTypedData_v4, verify; and a passkey smart-wallet path
// (WebAuthn credential → undeployed wallet, ERC-6492 signature). Plain JS, no build step.

export function renderPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pcnode · typed-data example</title>
<style>
  :root { font-family: system-ui, sans-serif; color: #1b1f24; background: #f6f7f9; }
  main { max-width: 760px; margin: 2rem auto; padding: 0 1rem; }
  h1 { font-size: 1.4rem; } h2 { font-size: 1.05rem; margin-top: 1.6rem; }
  section { background: #fff; border: 1px solid #d8dde3; border-radius: 8px; padding: 1rem 1.2rem; margin: 1rem 0; }
  label { display: block; margin: .5rem 0 .2rem; font-size: .9rem; color: #4a525c; }
  input, select { width: 100%; box-sizing: border-box; padding: .45rem .5rem; border: 1px solid #c4cad1; border-radius: 6px; font: inherit; }
  button { margin: .8rem .5rem 0 0; padding: .5rem .9rem; border: 0; border-radius: 6px; background: #0052ff; color: #fff; font: inherit; cursor: pointer; }
  button:disabled { background: #9fb4e8; cursor: default; }
  pre { background: #0f1419; color: #d6e2ee; padding: .7rem; border-radius: 6px; overflow: auto; font-size: .8rem; max-height: 16rem; }
  .ok { color: #067a3c; font-weight: 600; } .bad { color: #b3261e; font-weight: 600; }
  small { color: #6a737d; }
</style>
</head>
<body>
<main>
  <h1>Sign and verify typed data on pcnode</h1>
  <small id="network">connecting…</small>

  <section>
    <h2>1 · Account</h2>
    <button id="connect">Connect wallet</button>
    <label for="account">Signer</label>
    <select id="account" disabled></select>
    <small id="wallet-kind"></small>
  </section>

  <section>
    <h2>2 · What to authorize</h2>
    <label for="action">Action</label><input id="action" value="read">
    <label for="resource">Resource</label><input id="resource" value="/reports/2026">
    <button id="prepare" disabled>Prepare</button>
    <pre id="payload" hidden></pre>
  </section>

  <section>
    <h2>3 · Sign and verify</h2>
    <button id="sign" disabled>Sign (eth_signTypedData_v4)</button>
    <button id="verify" disabled>Verify</button>
    <button id="passkey" disabled>Sign with a passkey smart wallet</button>
    <pre id="signature" hidden></pre>
    <p id="result" role="status"></p>
  </section>
</main>
<script type="module">
const $ = (id) => document.getElementById(id)
const config = await (await fetch('/config')).json()
$('network').textContent = 'chain ' + config.chainId + ' · node ' + config.rpcUrl + ' · verify mode ' + config.verifyMode
let payload, signature, signer
let rpcId = 0
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
$('wallet-kind').textContent = window.ethereum ? 'Injected wallet' : 'No injected wallet: using the node\\'s dev accounts'
const show = (id, value) => { const el = $(id); el.hidden = false; el.textContent = typeof value === 'string' ? value : JSON.stringify(value, null, 2) }
const result = (ok, text) => { $('result').className = ok ? 'ok' : 'bad'; $('result').textContent = text }
const post = async (path, body) => {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, body: await res.json() }
}
const hex = (buf) => '0x' + [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('')
const bytes = (h) => Uint8Array.from(h.slice(2).match(/../g).map((b) => parseInt(b, 16)))

$('connect').onclick = async () => {
  try {
    const accounts = await provider.request({ method: 'eth_requestAccounts' })
    $('account').innerHTML = accounts.map((a) => '<option>' + a + '</option>').join('')
    $('account').disabled = false
    $('prepare').disabled = false
    $('passkey').disabled = false
    result(true, 'Connected ' + accounts.length + ' account(s)')
  } catch (e) { result(false, 'Connect failed: ' + e.message) }
}

async function prepareFor(address) {
  const q = new URLSearchParams({ userAddress: address, action: $('action').value, resource: $('resource').value })
  const res = await fetch('/typed-data/prepare?' + q)
  const body = await res.json()
  if (!res.ok) throw new Error(body.error)
  return body
}

$('prepare').onclick = async () => {
  try {
    signer = $('account').value
    payload = await prepareFor(signer)
    show('payload', payload)
    $('sign').disabled = false
    result(true, 'Prepared: nonce ' + payload.message.nonce)
  } catch (e) { result(false, e.message) }
}

$('sign').onclick = async () => {
  try {
    signature = await provider.request({ method: 'eth_signTypedData_v4', params: [signer, JSON.stringify(payload)] })
    show('signature', signature)
    $('verify').disabled = false
    result(true, 'Signed by ' + signer)
  } catch (e) { result(false, 'Signing failed: ' + e.message) }
}

async function verify(address) {
  const { status, body } = await post('/typed-data/verify', { typedData: payload, signature, address })
  result(status === 200, status + ' ' + (body.error ?? body.message) + (body.valid ? ' · action ' + (body.action ?? body.data?.action) + ' on ' + (body.resource ?? body.data?.resource) : ''))
}
$('verify').onclick = () => verify(signer).catch((e) => result(false, e.message))

// Passkey path: a new WebAuthn credential owns an undeployed smart wallet; the app helpers compute
// the wallet's address and replay-safe challenge, and wrap the assertion (SignatureWrapper + ERC-6492).
$('passkey').onclick = async () => {
  try {
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
    signer = wallet.body.address
    // Show the wallet as the signer: the passkey owns it, the wallet's address is what is verified.
    $('account').innerHTML = '<option>' + signer + ' (passkey wallet, undeployed)</option>'
    $('wallet-kind').textContent = 'Passkey smart wallet ' + signer + ', verified through ERC-6492'
    payload = await prepareFor(signer)
    show('payload', payload)
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
    show('signature', signature)
    await verify(signer)
  } catch (e) { result(false, 'Passkey flow failed: ' + e.message) }
}
</script>
</body>
</html>
`
}
