// The browser page: the steps of the typed-data flow, each with a line on what it does, the prepared
// message's fields before the raw EIP-712 JSON, and each verify answer named and explained (the
// outcomes of page-outcomes.ts); the script is page-script.ts. Everything is inline: the page makes
// no request beyond this app and the node, and fits a 375 px phone screen.
import { VERIFY_OUTCOMES } from './page-outcomes.js'
import { PAGE_SCRIPT } from './page-script.js'

/** JSON that cannot end the <script> element it is placed in. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c')

const STYLE = `
  :root { font-family: system-ui, sans-serif; color: #1b1f24; background: #f6f7f9; line-height: 1.4; }
  body { margin: 0; }
  main { max-width: 760px; margin: 1.5rem auto; padding: 0 .75rem; overflow-wrap: anywhere; }
  h1 { font-size: 1.35rem; margin-bottom: .3rem; } h2 { font-size: 1.05rem; margin: 0 0 .3rem; }
  p { margin: .4rem 0; }
  section { background: #fff; border: 1px solid #d8dde3; border-radius: 8px; padding: .9rem 1rem; margin: 1rem 0; }
  .what { color: #4a525c; font-size: .9rem; margin-top: 0; }
  label { display: block; margin: .5rem 0 .2rem; font-size: .9rem; color: #4a525c; }
  input, select { width: 100%; max-width: 100%; box-sizing: border-box; padding: .45rem .5rem; border: 1px solid #c4cad1; border-radius: 6px; font: inherit; }
  .buttons { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .8rem; }
  button { padding: .5rem .9rem; border: 0; border-radius: 6px; background: #0052ff; color: #fff; font: inherit; cursor: pointer; }
  button:disabled { background: #9fb4e8; cursor: default; }
  code, .value { font-family: ui-monospace, monospace; font-size: .85rem; overflow-wrap: anywhere; }
  pre { background: #0f1419; color: #d6e2ee; padding: .7rem; border-radius: 6px; overflow: auto; font-size: .8rem; max-height: 20rem; margin: .5rem 0 0; }
  pre.wrap { white-space: pre-wrap; overflow-wrap: anywhere; }
  dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .35rem .8rem; margin: .6rem 0; }
  dt { font-weight: 600; color: #4a525c; } dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
  dd small { display: block; }
  details { margin-top: .6rem; } summary { cursor: pointer; color: #0040c7; }
  .ok { color: #067a3c; } .bad { color: #b3261e; }
  .note { background: #fff7e0; border: 1px solid #e8c96a; border-radius: 6px; padding: .5rem .7rem; font-size: .9rem; overflow-wrap: anywhere; }
  .outcome { border-left: 5px solid; border-radius: 6px; padding: .5rem .8rem; margin-top: .8rem; background: #f6f7f9; }
  .outcome.ok { border-color: #067a3c; } .outcome.warn { border-color: #b76e00; } .outcome.bad { border-color: #b3261e; }
  .outcome p { color: #1b1f24; } .outcome-head { font-size: 1.05rem; }
  .outcome.ok .outcome-head { color: #067a3c; } .outcome.warn .outcome-head { color: #8a5300; } .outcome.bad .outcome-head { color: #b3261e; }
  #outcome-status { font-family: ui-monospace, monospace; }
  ol { padding-left: 1.2rem; font-size: .85rem; overflow-wrap: anywhere; }
  small { color: #6a737d; }
`

export function renderPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>pcnode · typed-data example</title>
<style>${STYLE}</style>
</head>
<body>
<main>
  <h1>Sign and verify typed data on pcnode</h1>
  <p class="what">An app asks a user to sign an authorization as EIP-712 typed data, then checks the signature on its
  server. This page runs that flow against this pcnode: prepare a message, sign it in a wallet, send it back to be verified.</p>
  <small id="network">connecting…</small>

  <section>
    <h2>1 · Account</h2>
    <p class="what">Who signs. <span id="wallet-kind"></span></p>
    <div class="buttons"><button id="connect">Connect wallet</button></div>
    <label for="account">Signer</label>
    <select id="account" disabled></select>
    <p id="account-status" role="status"></p>
  </section>

  <section>
    <h2>2 · Prepare what to authorize</h2>
    <p class="what">The app issues the message to sign (<code>GET /typed-data/prepare</code>): your action and resource,
    the signer as its user, a random nonce and an expiry one hour ahead.</p>
    <label for="action">Action</label><input id="action" value="read">
    <label for="resource">Resource</label><input id="resource" value="/reports/2026">
    <div class="buttons"><button id="prepare" disabled>Prepare</button></div>
    <p id="prepare-status" role="status"></p>
    <div id="prepared" hidden>
      <dl id="message"></dl>
      <details><summary>Raw EIP-712 JSON (what the wallet signs)</summary><pre id="payload"></pre></details>
    </div>
  </section>

  <section>
    <h2>3 · Sign</h2>
    <p class="what">The selected account signs the payload with <code>eth_signTypedData_v4</code>: an off-chain
    signature over its EIP-712 hash. Nothing is sent to the chain.</p>
    <div class="buttons"><button id="sign" disabled>Sign (eth_signTypedData_v4)</button></div>
    <p id="sign-status" role="status"></p>
    <pre id="signature" class="wrap" hidden></pre>
  </section>

  <section>
    <h2>4 · Verify</h2>
    <p class="what">The page sends payload, signature and signer to <code>POST /typed-data/verify</code>. The app checks
    the signature with viem’s <code>verifyTypedData</code> against this node’s pre-confirmed state, so an EOA, a deployed
    smart wallet (EIP-1271) and an undeployed one (ERC-6492) all work. <span id="verify-checks"></span></p>
    <div class="buttons"><button id="verify" disabled>Verify</button></div>
    <div id="outcome" class="outcome" role="status" aria-live="polite" hidden>
      <p class="outcome-head"><span id="outcome-status"></span> · <strong id="outcome-title"></strong></p>
      <p><small>The app answered</small> <code id="outcome-answer"></code></p>
      <p id="outcome-explain"></p>
      <p id="outcome-nonce"></p>
      <p id="outcome-next"></p>
    </div>
    <div id="history-box" hidden><p><small>Attempts, newest first</small></p><ol id="history" reversed></ol></div>
  </section>

  <section>
    <h2>Or · a passkey smart wallet</h2>
    <p class="what">One click: a new passkey (WebAuthn) becomes the owner of a smart wallet that is not deployed; the
    passkey signs the prepared payload for the wallet, and the app verifies it through ERC-6492.</p>
    <div class="buttons"><button id="passkey">Sign with a passkey smart wallet</button></div>
    <p id="passkey-note" class="note" hidden></p>
    <p id="passkey-status" role="status"></p>
  </section>
</main>
<script type="module">
const OUTCOMES = ${scriptJson(VERIFY_OUTCOMES)}
${PAGE_SCRIPT}</script>
</body>
</html>
`
}
