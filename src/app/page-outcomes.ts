// What the page says about each answer of POST /typed-data/verify: the case's name in the SPEC's nonce
// state table ("States and transitions") and its error table, what happened to the nonce, what it
// means and what to try next. The page matches an answer's status and text against these in order;
// the texts are the ones typed-data-routes.ts and verify-input.ts answer with.

export interface VerifyOutcome {
  status: number
  /** A regular expression (source) the answer's `message` (200) or `error` must match; groups fill {1}, {2}. */
  pattern: string
  /** Only in this verify mode; both when absent. */
  mode?: 'full' | 'simple'
  /** The case, as the state table names it. */
  title: string
  /** The nonce key's state: before → after (the state table's "Next state"). */
  nonce: string
  /** What the answer means. Placeholders: {address} the signer sent, {user} the payload's user, {expiry}, {chainId}, {1}, {2}. */
  explain: string
  /** What to try next (same placeholders). */
  next: string
}

const ADDRESS = '(0x[0-9a-fA-F]{40})'

export const VERIFY_OUTCOMES: readonly VerifyOutcome[] = [
  {
    status: 200,
    pattern: '^Typed data verified successfully$',
    title: 'Valid',
    nonce: 'unused → used',
    explain:
      'The signature is {address}’s over exactly this payload, and the payload has not expired. The app marked its nonce used: a signed payload is accepted once.',
    next: 'Press Verify again: the same signed payload is now refused as a replay. Or prepare a new one.',
  },
  {
    status: 200,
    pattern: '^Signature verified successfully$',
    title: 'Valid',
    nonce: 'not tracked (verify mode simple)',
    explain:
      'The signature is {address}’s over exactly this payload, and the payload has not expired. Simple mode keeps no nonces, so the same payload verifies again.',
    next: 'Start pcnode with --verify-mode full to see replay protection.',
  },
  {
    status: 400,
    pattern: '^Nonce already used$',
    title: 'Nonce already used',
    nonce: 'used (unchanged)',
    explain:
      'This payload’s nonce was already accepted for {address}: each signed payload is accepted once, so a copy of it (a replay) is refused and nothing changes.',
    next: 'Prepare a new payload (it gets a fresh nonce), sign it, and verify that.',
  },
  {
    status: 400,
    pattern: '^Signature expired$',
    mode: 'full',
    title: 'Expired',
    nonce: 'unused (unchanged)',
    explain:
      'The payload’s expiry, {expiry}, has passed: a prepared payload is valid for one hour. The signature was not checked.',
    next: 'Prepare a new payload and sign it.',
  },
  {
    status: 401,
    pattern: '^Signature expired$',
    mode: 'simple',
    title: 'Expired',
    nonce: 'not tracked (verify mode simple)',
    explain: 'The signature is valid, but the payload’s expiry, {expiry}, has passed: a prepared payload is valid for one hour.',
    next: 'Prepare a new payload and sign it.',
  },
  {
    status: 401,
    pattern: `^Invalid signature: signed by ${ADDRESS}, but the payload is for ${ADDRESS}$`,
    title: 'Invalid signature: another signer',
    nonce: 'unused (unchanged)',
    explain:
      'The signature really is {1}’s, but the payload was prepared for {2}: an authorization counts only from the user it names.',
    next: 'Choose {2} as the signer and sign again, or prepare a new payload for {1}.',
  },
  {
    status: 401,
    pattern: '^Invalid signature$',
    title: 'Invalid signature',
    nonce: 'unused (unchanged)',
    explain:
      'The signature does not verify for {address} over this payload: another key made it, or the payload changed after it was signed.',
    next: 'Sign the prepared payload with its user’s account, then verify.',
  },
  {
    status: 400,
    pattern: '^Missing or invalid field: (.+)$',
    title: 'Missing or invalid field',
    nonce: 'unchanged (nothing was verified)',
    explain: 'The request was refused before any check: {1}.',
    next: 'Prepare again and sign the payload exactly as the app issued it.',
  },
  {
    status: 400,
    pattern: '^Invalid domain',
    title: 'Not this app’s payload',
    nonce: 'unchanged (nothing was verified)',
    explain: 'The payload’s domain is not this app’s on chain {chainId}: it was prepared by another app or for another chain.',
    next: 'Prepare a payload on this page and sign that.',
  },
  {
    status: 500,
    pattern: '^Verification failed$',
    title: 'Verification failed',
    nonce: 'unchanged',
    explain: 'The app could not finish the check (the node not answering, for example); the app’s log on the terminal says why.',
    next: 'Check that pcnode is still running, then verify again.',
  },
]
