// The example typed-data app against a real node: every row of the state and error tables
// (docs/wallets-and-app.md), for both verification variants, replays across a restart and
// concurrent double-submits.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AppServerOptions, type StartedAppServer, startAppServer } from '../src/app/server.js'
import type { AppTypedData } from '../src/app/typed-data.js'
import { useTestNode } from './helpers.js'

describe('typed-data app', () => {
  const node = useTestNode({ preconfInterval: 50 })
  let app: StartedAppServer
  let simple: StartedAppServer
  const logs: string[] = []
  beforeAll(async () => {
    app = await startAppServer({ rpcUrl: node.rpcUrl, port: 0, log: (l) => logs.push(l) })
    simple = await startAppServer({ rpcUrl: node.rpcUrl, port: 0, verifyMode: 'simple' })
  })
  afterAll(async () => {
    await app.stop()
    await simple.stop()
  })

  const account = () => privateKeyToAccount(node.accounts[0].privateKey)
  const prepare = async (server: StartedAppServer, query: Record<string, string>) => {
    const res = await fetch(`${server.url}/typed-data/prepare?${new URLSearchParams(query)}`)
    return { status: res.status, body: (await res.json()) as any }
  }
  const prepared = async (server = app, address = account().address) =>
    (await prepare(server, { userAddress: address, action: 'read', resource: '/docs/1' })).body as AppTypedData
  const sign = (typedData: AppTypedData, key = node.accounts[0].privateKey) =>
    privateKeyToAccount(key).signTypedData(typedData as never)
  const verify = async (server: StartedAppServer, body: unknown) => {
    const res = await fetch(`${server.url}/typed-data/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as any }
  }

  it('prepares a payload for this app and chain', async () => {
    const before = Math.floor(Date.now() / 1000)
    const { status, body } = await prepare(app, { userAddress: account().address, action: 'write', resource: 'r1' })
    expect(status).toBe(200)
    expect(body.domain).toEqual({
      name: 'pcnode Example App',
      version: '1',
      chainId: 31337,
      verifyingContract: '0x00000000000000000000000000000000000A11cE',
    })
    expect(body.primaryType).toBe('Authorization')
    expect(body.message.user).toBe(account().address)
    expect(body.message).toMatchObject({ action: 'write', resource: 'r1' })
    expect(body.message.nonce).toMatch(/^[0-9]+$/)
    expect(body.message.expiry - before).toBeGreaterThanOrEqual(3600)
    expect(body.message.expiry - before).toBeLessThanOrEqual(3601)
    const other = await prepared()
    expect(other.message.nonce).not.toBe(body.message.nonce)
  })

  it('rejects missing or malformed query parameters with 400 naming them', async () => {
    expect(await prepare(app, { action: 'a', resource: 'b' })).toEqual({
      status: 400,
      body: { error: 'Missing query parameter: userAddress' },
    })
    expect(await prepare(app, { userAddress: account().address, resource: 'b' })).toEqual({
      status: 400,
      body: { error: 'Missing query parameter: action' },
    })
    expect(await prepare(app, { userAddress: account().address, action: 'a' })).toEqual({
      status: 400,
      body: { error: 'Missing query parameter: resource' },
    })
    expect(await prepare(app, { userAddress: '0x1234', action: 'a', resource: 'b' })).toEqual({
      status: 400,
      body: { error: 'Invalid query parameter: userAddress must be an address' },
    })
  })

  it('unused → used on a valid signature (200), then the replay is refused (400, no state change)', async () => {
    const typedData = await prepared()
    const signature = await sign(typedData)
    const ok = await verify(app, { typedData, signature, address: account().address })
    expect(ok).toEqual({
      status: 200,
      body: { valid: true, message: 'Typed data verified successfully', action: 'read', resource: '/docs/1' },
    })
    const again = await verify(app, { typedData, signature, address: account().address.toLowerCase() })
    expect(again).toEqual({ status: 400, body: { error: 'Nonce already used' } })
  })

  it('expired → 400 and the key stays unused; invalid signature → 401 and the key stays unused', async () => {
    const typedData = await prepared()
    const expired = { ...typedData, message: { ...typedData.message, expiry: Math.floor(Date.now() / 1000) - 10 } }
    expect(await verify(app, { typedData: expired, signature: await sign(expired), address: account().address })).toEqual({
      status: 400,
      body: { error: 'Signature expired' },
    })
    const wrongSigner = await sign(typedData, node.accounts[1].privateKey)
    expect(await verify(app, { typedData, signature: wrongSigner, address: account().address })).toEqual({
      status: 401,
      body: { error: 'Invalid signature' },
    })
    const tampered = { ...typedData, message: { ...typedData.message, resource: '/admin' } }
    expect(await verify(app, { typedData: tampered, signature: await sign(typedData), address: account().address })).toEqual({
      status: 401,
      body: { error: 'Invalid signature' },
    })
    // The key is still unused: the valid signature now succeeds.
    expect((await verify(app, { typedData, signature: await sign(typedData), address: account().address })).status).toBe(200)
  })

  it('checks the nonce before the expiry (400 Nonce already used wins)', async () => {
    const typedData = await prepared()
    const signature = await sign(typedData)
    expect((await verify(app, { typedData, signature, address: account().address })).status).toBe(200)
    const expired = { ...typedData, message: { ...typedData.message, expiry: 1 } }
    expect(await verify(app, { typedData: expired, signature: await sign(expired), address: account().address })).toEqual({
      status: 400,
      body: { error: 'Nonce already used' },
    })
  })

  it("refuses a payload whose domain is not this app's", async () => {
    const typedData = await prepared()
    const foreign = { ...typedData, domain: { ...typedData.domain, name: 'Some Other App' } }
    const res = await verify(app, { typedData: foreign, signature: await sign(foreign), address: account().address })
    expect(res.status).toBe(400)
    expect(res.body.error).toMatch(/^Invalid domain/)
    const otherChain = { ...typedData, domain: { ...typedData.domain, chainId: 1 } }
    expect(
      (await verify(app, { typedData: otherChain, signature: await sign(otherChain), address: account().address })).status,
    ).toBe(400)
  })

  it('rejects malformed bodies with 400 naming the problem', async () => {
    const typedData = await prepared()
    const signature = await sign(typedData)
    expect(await verify(app, '{nope')).toEqual({ status: 400, body: { error: 'Malformed JSON body' } })
    expect(await verify(app, '[]')).toEqual({ status: 400, body: { error: 'Body must be a JSON object' } })
    expect(await verify(app, { signature, address: account().address })).toEqual({
      status: 400,
      body: { error: 'Missing or invalid field: typedData' },
    })
    expect(await verify(app, { typedData, address: account().address })).toEqual({
      status: 400,
      body: { error: 'Missing or invalid field: signature' },
    })
    expect(await verify(app, { typedData, signature, address: 'me' })).toEqual({
      status: 400,
      body: { error: 'Missing or invalid field: address' },
    })
    const noNonce = { ...typedData, message: { ...typedData.message, nonce: 'abc' } }
    expect(await verify(app, { typedData: noNonce, signature, address: account().address })).toEqual({
      status: 400,
      body: { error: 'Missing or invalid field: typedData.message.nonce' },
    })
  })

  it('answers 500 Verification failed when the node is unreachable, and logs it', async () => {
    const broken = await startAppServer({
      rpcUrl: 'http://127.0.0.1:9',
      chainId: 31337,
      port: 0,
      log: (l) => logs.push(l),
    } as AppServerOptions)
    try {
      const typedData = await prepared(broken)
      // A contract-wallet-looking signature forces a call to the node.
      const res = await verify(broken, { typedData, signature: `0x${'11'.repeat(200)}`, address: account().address })
      expect(res).toEqual({ status: 500, body: { error: 'Verification failed' } })
      expect(logs.some((l) => l.includes('verification failed'))).toBe(true)
    } finally {
      await broken.stop()
    }
  })

  it('accepts a concurrent double-submit at most once', async () => {
    const typedData = await prepared()
    const signature = await sign(typedData)
    const body = { typedData, signature, address: account().address }
    const results = await Promise.all(Array.from({ length: 8 }, () => verify(app, body)))
    expect(results.filter((r) => r.status === 200)).toHaveLength(1)
    expect(results.filter((r) => r.status === 400 && r.body.error === 'Nonce already used')).toHaveLength(7)
  })

  it('refuses a replay after a restart when the nonces live in a data folder', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pcnode-app-'))
    const first = await startAppServer({ rpcUrl: node.rpcUrl, port: 0, dataDir })
    const typedData = await prepared(first)
    const body = { typedData, signature: await sign(typedData), address: account().address }
    expect((await verify(first, body)).status).toBe(200)
    await first.stop()
    const second = await startAppServer({ rpcUrl: node.rpcUrl, port: 0, dataDir })
    try {
      expect(await verify(second, body)).toEqual({ status: 400, body: { error: 'Nonce already used' } })
    } finally {
      await second.stop()
    }
  })

  describe('simple variant', () => {
    it('verifies first, then expiry (401 Signature expired), and answers with the message as data', async () => {
      const typedData = await prepared(simple)
      const signature = await sign(typedData)
      const ok = await verify(simple, { typedData, signature, address: account().address })
      expect(ok).toEqual({
        status: 200,
        body: { valid: true, message: 'Signature verified successfully', data: typedData.message },
      })
      const expired = { ...typedData, message: { ...typedData.message, expiry: 5 } }
      expect(await verify(simple, { typedData: expired, signature: await sign(expired), address: account().address })).toEqual({
        status: 401,
        body: { error: 'Signature expired' },
      })
      // Signature first: an expired payload with a bad signature is "Invalid signature".
      expect(await verify(simple, { typedData: expired, signature, address: account().address })).toEqual({
        status: 401,
        body: { error: 'Invalid signature' },
      })
    })
  })
})
