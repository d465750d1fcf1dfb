// The app's passkey helper routes (src/app/wallet-routes.ts) against a real node, with WebAuthn assertions
// made here the way an authenticator makes them (P-256 over authenticatorData ‖ sha256(clientDataJSON), DER):
// address = the factory's counterfactual address, challenge = the wallet's replay-safe hash, and the wrapped
// signature verifies through /typed-data/verify for the undeployed wallet (ERC-6492). Bad input: 400 naming it.
import { createHash } from 'node:crypto'
import { p256 } from '@noble/curves/nist.js'
import { type Hex, hashTypedData, isErc6492Signature, parseErc6492Signature, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { StartedAppServer } from '../src/app/server.js'
import type { AppTypedData } from '../src/app/typed-data.js'
import {
  encodePasskeyOwner,
  factoryData,
  P256_N,
  predictAccountAddress,
  replaySafeHash,
  WALLET_FACTORY_ADDRESS,
  walletFactoryAbi,
} from '../src/contracts/index.js'
import { startAppServer } from '../src/index.js'
import { useTestNode } from './helpers.js'

const sha256 = (data: Uint8Array | string) => new Uint8Array(createHash('sha256').update(data).digest())
const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url')

/** A software passkey: signs challenges as a platform authenticator would for rpId `localhost`. */
function softPasskey() {
  const secretKey = p256.utils.randomSecretKey()
  const pub = p256.getPublicKey(secretKey, false)
  const x = toHex(pub.slice(1, 33))
  const y = toHex(pub.slice(33, 65))
  const assert = (challenge: Hex, { highS = false, type = 'webauthn.get' } = {}) => {
    const authenticatorData = new Uint8Array([...sha256('localhost'), 0x05, 0, 0, 0, 1]) // UP | UV, signCount 1
    const clientDataJSON = JSON.stringify({
      type,
      challenge: base64url(Buffer.from(challenge.slice(2), 'hex')),
      origin: 'http://localhost:3001',
      crossOrigin: false,
    })
    const message = new Uint8Array([...authenticatorData, ...sha256(clientDataJSON)])
    const compact = p256.sign(message, secretKey, { lowS: true }) // sha256(message) is signed
    let sig = p256.Signature.fromBytes(compact)
    if (highS) sig = new p256.Signature(sig.r, P256_N - sig.s)
    return { authenticatorData: toHex(authenticatorData), clientDataJSON, signature: toHex(sig.toBytes('der')) }
  }
  return { x, y, assert }
}

describe('passkey wallet routes', () => {
  const node = useTestNode({ preconfInterval: 50 })
  let app: StartedAppServer
  beforeAll(async () => {
    app = await startAppServer({ rpcUrl: node.rpcUrl, port: 0 }) // the passkey routes are the default
  })
  afterAll(() => app?.stop())

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${app.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as any }
  }
  const prepare = async (address: string) =>
    (await (
      await fetch(
        `${app.url}/typed-data/prepare?${new URLSearchParams({ userAddress: address, action: 'sign-in', resource: '/app' })}`,
      )
    ).json()) as AppTypedData

  /** The page's passkey path, step by step. */
  async function passkeyFlow(key = softPasskey(), options: { highS?: boolean } = {}) {
    const { x, y } = key
    const wallet = await post('/wallet/passkey/address', { x, y })
    expect(wallet.status).toBe(200)
    const typedData = await prepare(wallet.body.address)
    const challenge = await post('/wallet/passkey/challenge', { x, y, typedData })
    expect(challenge.status).toBe(200)
    const wrapped = await post('/wallet/passkey/signature', { x, y, ...key.assert(challenge.body.challenge, options) })
    expect(wrapped.status).toBe(200)
    return { address: wallet.body.address as Hex, typedData, challenge: challenge.body, signature: wrapped.body.signature as Hex }
  }

  it('address: the counterfactual wallet of owners [abi.encode(x, y)], nonce 0, as the factory computes it', async () => {
    const { x, y } = softPasskey()
    const { status, body } = await post('/wallet/passkey/address', { x, y })
    const owners = [encodePasskeyOwner(x, y)]
    expect(status).toBe(200)
    expect(body).toEqual({
      address: predictAccountAddress({ factory: WALLET_FACTORY_ADDRESS, owners }),
      factory: WALLET_FACTORY_ADDRESS,
      factoryData: factoryData(owners, 0n),
    })
    const onChain = await node.publicClient.readContract({
      address: WALLET_FACTORY_ADDRESS,
      abi: walletFactoryAbi,
      functionName: 'getAddress',
      args: [owners, 0n],
    })
    expect(body.address).toBe(onChain)
    expect(await node.publicClient.getCode({ address: body.address })).toBeUndefined() // undeployed
  })

  it("challenge: the wallet's replay-safe hash of the payload's EIP-712 hash", async () => {
    const { x, y } = softPasskey()
    const address = (await post('/wallet/passkey/address', { x, y })).body.address
    const typedData = await prepare(address)
    const { status, body } = await post('/wallet/passkey/challenge', { x, y, typedData })
    const hash = hashTypedData(typedData as never)
    expect(status).toBe(200)
    expect(body).toEqual({ challenge: replaySafeHash({ address, chainId: node.chainId, hash }), hash, address })
  })

  it('signature: an ERC-6492-wrapped SignatureWrapper that /typed-data/verify accepts for the undeployed wallet', async () => {
    const key = softPasskey()
    const flow = await passkeyFlow(key)
    expect(isErc6492Signature(flow.signature)).toBe(true)
    const parsed = parseErc6492Signature(flow.signature)
    expect(parsed.address).toBe(WALLET_FACTORY_ADDRESS)
    expect(parsed.data).toBe(factoryData([encodePasskeyOwner(key.x, key.y)], 0n))
    const ok = await post('/typed-data/verify', { typedData: flow.typedData, signature: flow.signature, address: flow.address })
    expect(ok).toEqual({
      status: 200,
      body: { valid: true, message: 'Typed data verified successfully', action: 'sign-in', resource: '/app' },
    })
    // Verification ran in an eth_call: the wallet is still undeployed. The replay is refused.
    expect(await node.publicClient.getCode({ address: flow.address })).toBeUndefined()
    const again = await post('/typed-data/verify', {
      typedData: flow.typedData,
      signature: flow.signature,
      address: flow.address,
    })
    expect(again).toEqual({ status: 400, body: { error: 'Nonce already used' } })
  })

  it('a high-s DER signature is normalised to low s and verifies', async () => {
    const flow = await passkeyFlow(softPasskey(), { highS: true })
    const res = await post('/typed-data/verify', { typedData: flow.typedData, signature: flow.signature, address: flow.address })
    expect(res.status).toBe(200)
  })

  it("another key's assertion, or one over another payload, is 401 Invalid signature", async () => {
    const key = softPasskey()
    const other = softPasskey()
    const { address } = (await post('/wallet/passkey/address', { x: key.x, y: key.y })).body
    const typedData = await prepare(address)
    const { challenge } = (await post('/wallet/passkey/challenge', { x: key.x, y: key.y, typedData })).body
    // Signed by another passkey, wrapped as if it were this wallet's.
    const forged = await post('/wallet/passkey/signature', { x: key.x, y: key.y, ...other.assert(challenge) })
    expect(forged.status).toBe(200)
    expect(await post('/typed-data/verify', { typedData, signature: forged.body.signature, address })).toEqual({
      status: 401,
      body: { error: 'Invalid signature' },
    })
    // Right key, but the challenge of another payload.
    const second = await prepare(address)
    const stale = await post('/wallet/passkey/signature', { x: key.x, y: key.y, ...key.assert(challenge) })
    expect(await post('/typed-data/verify', { typedData: second, signature: stale.body.signature, address })).toEqual({
      status: 401,
      body: { error: 'Invalid signature' },
    })
    // The first payload's key is still unused: the genuine signature goes through.
    expect((await post('/typed-data/verify', { typedData, signature: stale.body.signature, address })).status).toBe(200)
  })

  it('verifies in the simple variant too', async () => {
    const simple = await startAppServer({ rpcUrl: node.rpcUrl, port: 0, verifyMode: 'simple' })
    try {
      const key = softPasskey()
      const post2 = async (path: string, body: unknown) => {
        const res = await fetch(`${simple.url}${path}`, { method: 'POST', body: JSON.stringify(body) })
        return { status: res.status, body: (await res.json()) as any }
      }
      const { address } = (await post2('/wallet/passkey/address', { x: key.x, y: key.y })).body
      const typedData = await prepare(address) // same domain: same chain, same app
      const { challenge } = (await post2('/wallet/passkey/challenge', { x: key.x, y: key.y, typedData })).body
      const { signature } = (await post2('/wallet/passkey/signature', { x: key.x, y: key.y, ...key.assert(challenge) })).body
      const res = await post2('/typed-data/verify', { typedData, signature, address })
      expect(res).toEqual({
        status: 200,
        body: { valid: true, message: 'Signature verified successfully', data: typedData.message },
      })
    } finally {
      await simple.stop()
    }
  })

  it('answers 400 naming the field on bad input', async () => {
    const key = softPasskey()
    const { x, y } = key
    const typedData = await prepare('0x0000000000000000000000000000000000000001')
    const good = key.assert(`0x${'11'.repeat(32)}`)
    const cases: Array<[string, unknown, RegExp]> = [
      ['/wallet/passkey/address', [], /^Body must be a JSON object$/],
      ['/wallet/passkey/address', '{oops', /^Malformed JSON body$/],
      ['/wallet/passkey/address', { y }, /^Missing or invalid field: x\b/],
      ['/wallet/passkey/address', { x, y: 'zz' }, /^Missing or invalid field: y\b/],
      ['/wallet/passkey/address', { x, y: `0x${'00'.repeat(33)}` }, /^Missing or invalid field: y \(expected 1 to 32 bytes\)/],
      ['/wallet/passkey/address', { x, y: x }, /^Invalid fields: x, y \(not a point on the P-256 curve\)$/],
      ['/wallet/passkey/challenge', { x, y }, /^Missing or invalid field: typedData$/],
      [
        '/wallet/passkey/challenge',
        { x, y, typedData: { ...typedData, types: 1 } },
        /^Missing or invalid field: typedData\.types$/,
      ],
      ['/wallet/passkey/challenge', { x, y, typedData: { ...typedData, primaryType: 7 } }, /typedData\.primaryType$/],
      [
        '/wallet/passkey/challenge',
        { x, y, typedData: { ...typedData, primaryType: 'Nope' } },
        /^Missing or invalid field: typedData \(cannot hash it as EIP-712/,
      ],
      ['/wallet/passkey/signature', { x, y, ...good, authenticatorData: '0x05' }, /field: authenticatorData \(expected 37 to/],
      ['/wallet/passkey/signature', { x, y, ...good, clientDataJSON: undefined }, /field: clientDataJSON \(expected a string\)/],
      ['/wallet/passkey/signature', { x, y, ...good, clientDataJSON: '{' }, /field: clientDataJSON \(not JSON\)/],
      [
        '/wallet/passkey/signature',
        { x, y, ...key.assert(`0x${'11'.repeat(32)}`, { type: 'webauthn.create' }) },
        /field: clientDataJSON \(expected a webauthn\.get assertion/,
      ],
      ['/wallet/passkey/signature', { x, y, ...good, signature: `0x${'ab'.repeat(64)}` }, /field: signature \(expected a DER/],
      ['/wallet/passkey/signature', { x, y, ...good, signature: 'nope' }, /^Missing or invalid field: signature\b/],
    ]
    for (const [path, body, error] of cases) {
      const res = await post(path, body)
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400)
      expect(res.body.error, `${path} ${JSON.stringify(body)}`).toMatch(error)
    }
    // GET is not a route; an unknown path is 404.
    expect((await fetch(`${app.url}/wallet/passkey/address`)).status).toBe(404)
    expect((await post('/wallet/passkey/nope', { x, y })).status).toBe(404)
  })

  it('a caller can replace the routes', async () => {
    const custom = await startAppServer({ rpcUrl: node.rpcUrl, port: 0, routes: { '/hello': async () => ({ hi: true }) } })
    try {
      const res = await fetch(`${custom.url}/hello`, { method: 'POST', body: '{}' })
      expect(await res.json()).toEqual({ hi: true })
      expect((await fetch(`${custom.url}/wallet/passkey/address`, { method: 'POST', body: '{}' })).status).toBe(404)
    } finally {
      await custom.stop()
    }
  })
})
