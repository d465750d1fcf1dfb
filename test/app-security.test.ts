// The example app's promises under hostile input: a nonce is one number whatever its spelling (one
// acceptance per signature, in memory, under concurrency and across a restart with a data folder),
// a payload is accepted only from the user it was prepared for, and malformed typed data is a 400
// that names the field, never a 500. The nonce state table (docs/wallets-and-app.md) still holds with re-spelled nonces.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { maxUint256 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StartedAppServer, startAppServer } from '../src/app/server.js'
import type { AppTypedData } from '../src/app/typed-data.js'
import { startTestNode, type TestNode } from './helpers.js'

describe('typed-data app security', () => {
  let node: TestNode
  let app: StartedAppServer
  let simple: StartedAppServer
  const logs: string[] = []
  beforeAll(async () => {
    node = await startTestNode({ preconfInterval: 50 })
    app = await startAppServer({ rpcUrl: node.rpcUrl, port: 0, log: (l) => logs.push(l) })
    simple = await startAppServer({ rpcUrl: node.rpcUrl, port: 0, verifyMode: 'simple', log: (l) => logs.push(l) })
  }, 120_000)
  afterAll(async () => {
    await app?.stop()
    await simple?.stop()
    await node?.stop()
  })

  const key = (i: number) => node.accounts[i].privateKey
  const addr = (i: number) => node.accounts[i].address
  const prepared = async (server: StartedAppServer, user: string, action = 'read', resource = '/docs/1') => {
    const res = await fetch(`${server.url}/typed-data/prepare?${new URLSearchParams({ userAddress: user, action, resource })}`)
    expect(res.status).toBe(200)
    return (await res.json()) as AppTypedData
  }
  const sign = (typedData: unknown, i = 0) => privateKeyToAccount(key(i)).signTypedData(typedData as never)
  const verify = async (server: StartedAppServer, body: unknown) => {
    const res = await fetch(`${server.url}/typed-data/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as any }
  }
  /** The payload with its nonce spelled otherwise (or replaced by something that is no nonce). */
  const withNonce = (typedData: AppTypedData, nonce: unknown) =>
    ({ ...typedData, message: { ...typedData.message, nonce } }) as unknown as AppTypedData
  /** Spellings of one value: leading zeros, 0x-hex in both cases, with leading zeros after 0x. */
  const spellings = (nonce: string) => {
    const hex = BigInt(nonce).toString(16)
    return [
      `0${nonce}`,
      `00${nonce}`,
      `0x${hex}`,
      `0x${hex.toUpperCase()}`,
      `0x000${hex}`,
      ...Array.from({ length: 17 }, (_, i) => `${'0'.repeat(i + 3)}${nonce}`),
    ]
  }

  describe('a nonce is one number', () => {
    it('one signature, its nonce spelled 22 ways: exactly one 200', async () => {
      const typedData = await prepared(app, addr(0))
      const signature = await sign(typedData)
      const first = await verify(app, { typedData, signature, address: addr(0) })
      expect(first.status).toBe(200)
      const variants = spellings(typedData.message.nonce)
      expect(new Set(variants).size).toBe(22)
      // Sequentially, then all again at once.
      for (const nonce of variants) {
        expect(await verify(app, { typedData: withNonce(typedData, nonce), signature, address: addr(0) }), nonce).toEqual({
          status: 400,
          body: { error: 'Nonce already used' },
        })
      }
      const parallel = await Promise.all(
        variants.map((nonce) =>
          verify(app, { typedData: withNonce(typedData, nonce), signature, address: addr(0).toLowerCase() }),
        ),
      )
      expect(parallel.map((r) => r.status)).toEqual(variants.map(() => 400))
    })

    it('22 spellings posted at once, none accepted before: exactly one 200', async () => {
      const typedData = await prepared(app, addr(0))
      const signature = await sign(typedData)
      const variants = [typedData.message.nonce, ...spellings(typedData.message.nonce).slice(0, 21)]
      const results = await Promise.all(
        variants.map((nonce) => verify(app, { typedData: withNonce(typedData, nonce), signature, address: addr(0) })),
      )
      expect(results.filter((r) => r.status === 200)).toHaveLength(1)
      expect(results.filter((r) => r.status === 400 && r.body.error === 'Nonce already used')).toHaveLength(21)
    })

    it('two parallel posts of one nonce in two spellings: one 200, one 400', async () => {
      for (let round = 0; round < 5; round++) {
        const typedData = await prepared(app, addr(1))
        const signature = await sign(typedData, 1)
        const hex = `0x${BigInt(typedData.message.nonce).toString(16)}`
        const [a, b] = await Promise.all([
          verify(app, { typedData, signature, address: addr(1) }),
          verify(app, { typedData: withNonce(typedData, hex), signature, address: addr(1) }),
        ])
        expect([a.status, b.status].sort()).toEqual([200, 400])
        expect([a, b].find((r) => r.status === 400)?.body).toEqual({ error: 'Nonce already used' })
      }
    })

    it('a small nonce as a JSON number and as strings is one key', async () => {
      const typedData = withNonce(await prepared(app, addr(2)), 4242)
      const signature = await sign(typedData, 2)
      expect((await verify(app, { typedData, signature, address: addr(2) })).status).toBe(200)
      for (const nonce of ['4242', '04242', '0x1092']) {
        expect((await verify(app, { typedData: withNonce(typedData, nonce), signature, address: addr(2) })).status, nonce).toBe(
          400,
        )
      }
    })

    it('with a data folder: a re-spelled replay after a restart is refused, and older files keep working', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'pcnode-app-sec-'))
      // A file written before keys were canonical: the nonce as it was spelled, leading zeros and all.
      const legacy = await prepared(app, addr(3))
      const legacySig = await sign(legacy, 3)
      writeFileSync(join(dataDir, 'used-nonces.log'), `${addr(3).toLowerCase()}-000${legacy.message.nonce}\n`)
      const first = await startAppServer({ rpcUrl: node.rpcUrl, port: 0, dataDir })
      const typedData = await prepared(first, addr(3))
      const signature = await sign(typedData, 3)
      try {
        expect(
          (await verify(first, { typedData: withNonce(typedData, `00${typedData.message.nonce}`), signature, address: addr(3) }))
            .status,
        ).toBe(200)
        expect(await verify(first, { typedData: legacy, signature: legacySig, address: addr(3) })).toEqual({
          status: 400,
          body: { error: 'Nonce already used' },
        })
      } finally {
        await first.stop()
      }
      const second = await startAppServer({ rpcUrl: node.rpcUrl, port: 0, dataDir })
      try {
        const hex = `0x${BigInt(typedData.message.nonce).toString(16)}`
        for (const nonce of [typedData.message.nonce, hex]) {
          expect(await verify(second, { typedData: withNonce(typedData, nonce), signature, address: addr(3) }), nonce).toEqual({
            status: 400,
            body: { error: 'Nonce already used' },
          })
        }
        expect((await verify(second, { typedData: legacy, signature: legacySig, address: addr(3) })).status).toBe(400)
      } finally {
        await second.stop()
      }
    })
  })

  describe('the signer must be the user the payload was prepared for', () => {
    it("Alice's valid signature over Bob's payload is 401, and Bob's nonce stays unused", async () => {
      const bob = addr(0)
      const alice = addr(1)
      const typedData = await prepared(app, bob, 'admin', '/bob/wallet')
      const aliceSig = await sign(typedData, 1)
      const refused = await verify(app, { typedData, signature: aliceSig, address: alice })
      expect(refused).toEqual({
        status: 401,
        body: { error: `Invalid signature: signed by ${alice}, but the payload is for ${bob}` },
      })
      // The same with the addresses in lower case, and in the simple variant.
      expect((await verify(app, { typedData, signature: aliceSig, address: alice.toLowerCase() })).status).toBe(401)
      const forSimple = await prepared(simple, bob, 'admin', '/bob/wallet')
      expect((await verify(simple, { typedData: forSimple, signature: await sign(forSimple, 1), address: alice })).status).toBe(
        401,
      )
      // Bob's own signature still goes through once.
      expect((await verify(app, { typedData, signature: await sign(typedData, 0), address: bob })).status).toBe(200)
      expect((await verify(app, { typedData, signature: await sign(typedData, 0), address: bob })).status).toBe(400)
    })

    it('a signature that does not verify for the claimed signer is still plain "Invalid signature"', async () => {
      const typedData = await prepared(app, addr(0))
      expect(await verify(app, { typedData, signature: await sign(typedData, 1), address: addr(0) })).toEqual({
        status: 401,
        body: { error: 'Invalid signature' },
      })
      expect(await verify(app, { typedData, signature: await sign(typedData, 1), address: addr(2) })).toEqual({
        status: 401,
        body: { error: 'Invalid signature' },
      })
    })
  })

  describe('malformed typed data is a 400 naming the field', () => {
    it('answers each case with its message, logs nothing, and the node keeps serving', async () => {
      const typedData = await prepared(app, addr(0))
      const signature = await sign(typedData)
      const { EIP712Domain, Authorization } = typedData.types
      const m = typedData.message
      const typesError = /^Missing or invalid field: typedData\.types \(expected this app's types: Authorization\(address user,/
      const withoutNonce = { EIP712Domain, Authorization: Authorization.slice(0, 3) }
      const cases: Array<[string, unknown, string | RegExp]> = [
        ['types as an array', { ...typedData, types: [] }, 'Missing or invalid field: typedData.types'],
        ['types without the primary type', { ...typedData, types: { EIP712Domain } }, typesError],
        [
          'an unknown primaryType',
          { ...typedData, primaryType: 'Nope' },
          'Missing or invalid field: typedData.primaryType (expected "Authorization")',
        ],
        ['primaryType EIP712Domain', { ...typedData, primaryType: 'EIP712Domain' }, /typedData\.primaryType \(expected/],
        ['types that leave out the nonce and expiry', { ...typedData, types: withoutNonce }, typesError],
        [
          'a recursive type',
          { ...typedData, types: { EIP712Domain, Authorization: [...Authorization, { name: 'next', type: 'Authorization' }] } },
          typesError,
        ],
        ['an extra type', { ...typedData, types: { ...typedData.types, Extra: [{ name: 'a', type: 'uint256' }] } }, typesError],
        [
          'a field of another type',
          {
            ...typedData,
            types: { EIP712Domain, Authorization: Authorization.map((f) => (f.name === 'nonce' ? { ...f, type: 'uint8' } : f)) },
          },
          typesError,
        ],
        [
          'message.user not an address',
          { ...typedData, message: { ...m, user: 'x' } },
          'Missing or invalid field: typedData.message.user (expected an address)',
        ],
        [
          'message.user a number',
          { ...typedData, message: { ...m, user: 5 } },
          /typedData\.message\.user \(expected an address\)/,
        ],
        [
          'message.action missing',
          { ...typedData, message: { ...m, action: undefined } },
          'Missing or invalid field: typedData.message.action (expected a string)',
        ],
        [
          'message.resource an object',
          { ...typedData, message: { ...m, resource: {} } },
          'Missing or invalid field: typedData.message.resource (expected a string)',
        ],
        [
          'message.expiry missing',
          { ...typedData, message: { ...m, expiry: undefined } },
          'Missing or invalid field: typedData.message.expiry',
        ],
        [
          'nonce 2^256',
          withNonce(typedData, (maxUint256 + 1n).toString()),
          'Missing or invalid field: typedData.message.nonce (larger than 2^256 - 1)',
        ],
        ['nonce of 100 nines', withNonce(typedData, '9'.repeat(100)), /nonce \(larger than 2\^256 - 1\)/],
        ['nonce 2^256 in hex', withNonce(typedData, `0x1${'0'.repeat(64)}`), /nonce \(larger than 2\^256 - 1\)/],
        [
          'expiry 2^256',
          { ...typedData, message: { ...m, expiry: (maxUint256 + 1n).toString() } },
          'Missing or invalid field: typedData.message.expiry (larger than 2^256 - 1)',
        ],
        ['nonce negative', withNonce(typedData, '-1'), 'Missing or invalid field: typedData.message.nonce (negative)'],
        ['nonce a negative number', withNonce(typedData, -1), 'Missing or invalid field: typedData.message.nonce (negative)'],
        ['nonce 1.5', withNonce(typedData, 1.5), 'Missing or invalid field: typedData.message.nonce (not an integer)'],
        ['nonce "1.5"', withNonce(typedData, '1.5'), 'Missing or invalid field: typedData.message.nonce (not an integer)'],
        ['nonce "1e3"', withNonce(typedData, '1e3'), 'Missing or invalid field: typedData.message.nonce (not an integer)'],
        [
          'nonce past 2^53 as a JSON number',
          withNonce(typedData, 2 ** 60),
          /nonce \(too large for a JSON number; send it as a decimal string\)/,
        ],
        ['nonce empty', withNonce(typedData, ''), 'Missing or invalid field: typedData.message.nonce'],
        ['nonce with spaces', withNonce(typedData, ` ${m.nonce}`), 'Missing or invalid field: typedData.message.nonce'],
        ['nonce missing', withNonce(typedData, undefined), 'Missing or invalid field: typedData.message.nonce'],
      ]
      const failures: string[] = []
      for (const [name, td, error] of cases) {
        const res = await verify(app, { typedData: td, signature, address: addr(0) })
        const ok = res.status === 400 && (typeof error === 'string' ? res.body.error === error : error.test(res.body.error))
        if (!ok) failures.push(`${name}: ${res.status} ${JSON.stringify(res.body)}`)
      }
      expect(failures).toEqual([])
      // A types object with an own "__proto__" key, as JSON.parse makes it.
      const proto = JSON.parse(`{"__proto__": {"x": 1}, "Authorization": ${JSON.stringify(Authorization)}}`)
      expect((await verify(app, { typedData: { ...typedData, types: proto }, signature, address: addr(0) })).body.error).toMatch(
        typesError,
      )
      // The simple variant checks the same things.
      const simpleRes = await verify(simple, { typedData: withNonce(typedData, '9'.repeat(100)), signature, address: addr(0) })
      expect(simpleRes).toEqual({
        status: 400,
        body: { error: 'Missing or invalid field: typedData.message.nonce (larger than 2^256 - 1)' },
      })
      expect(logs.filter((l) => l.includes('verification failed'))).toEqual([])
      // None of them used the nonce.
      expect((await verify(app, { typedData, signature, address: addr(0) })).status).toBe(200)
    })

    it('a signature that is not bytes, too long, or a wrapper that does not decode is a 400', async () => {
      const typedData = await prepared(app, addr(0))
      const erc8010Magic = '8010'.repeat(16)
      const cases: Array<[string, string, RegExp]> = [
        ['odd-length hex', `0x${'a'.repeat(131)}`, /^Missing or invalid field: signature$/],
        ['not hex', `0x${'zz'.repeat(65)}`, /^Missing or invalid field: signature$/],
        [
          'longer than the limit',
          `0x${'ab'.repeat(24 * 1024 + 1)}`,
          /^Missing or invalid field: signature \(longer than 24576 bytes\)$/,
        ],
        [
          'an ERC-8010 wrapper around nothing',
          `0x${'ab'.repeat(10)}${erc8010Magic}`,
          /^Missing or invalid field: signature \(it cannot be checked: /,
        ],
        [
          'an ERC-8010 wrapper around garbage',
          `0x${'ff'.repeat(400)}${erc8010Magic}`,
          /^Missing or invalid field: signature \(it cannot be checked: /,
        ],
      ]
      for (const [name, signature, error] of cases) {
        const res = await verify(app, { typedData, signature, address: addr(0) })
        expect(res.status, name).toBe(400)
        expect(res.body.error, name).toMatch(error)
      }
      // Well-formed bytes that are no valid signature stay a 401 (docs/wallets-and-app.md: the signature does not verify).
      for (const signature of [`0x${'00'.repeat(65)}`, `0x${'ab'.repeat(10)}${'6492'.repeat(16)}`, '0x1234']) {
        expect(await verify(app, { typedData, signature, address: addr(0) }), signature).toEqual({
          status: 401,
          body: { error: 'Invalid signature' },
        })
      }
      expect(logs.filter((l) => l.includes('verification failed'))).toEqual([])
      expect((await node.rpc('eth_chainId')).result).toBe('0x7a69')
    })
  })

  describe('the nonce state table, with re-spelled nonces', () => {
    it('invalid → 401 and expired → 400 leave the key unused; valid → 200 uses it; used → 400 for every spelling', async () => {
      const typedData = await prepared(app, addr(4))
      const hex = `0x${BigInt(typedData.message.nonce).toString(16)}`
      // Signature invalid (signed by someone else, posted under the user's address): 401, key unused.
      expect(
        await verify(app, { typedData: withNonce(typedData, hex), signature: await sign(typedData, 0), address: addr(4) }),
      ).toEqual({ status: 401, body: { error: 'Invalid signature' } })
      // Expired: 400, key unused.
      const expired = { ...typedData, message: { ...typedData.message, expiry: Math.floor(Date.now() / 1000) - 60 } }
      expect(await verify(app, { typedData: expired, signature: await sign(expired, 4), address: addr(4) })).toEqual({
        status: 400,
        body: { error: 'Signature expired' },
      })
      // Valid, in the hex spelling: 200.
      const signature = await sign(typedData, 4)
      expect(await verify(app, { typedData: withNonce(typedData, hex), signature, address: addr(4) })).toEqual({
        status: 200,
        body: { valid: true, message: 'Typed data verified successfully', action: 'read', resource: '/docs/1' },
      })
      // Used: 400 whichever spelling, and it wins over an expiry.
      expect(await verify(app, { typedData, signature, address: addr(4) })).toEqual({
        status: 400,
        body: { error: 'Nonce already used' },
      })
      expect(
        await verify(app, {
          typedData: withNonce(expired, `0${typedData.message.nonce}`),
          signature: await sign(expired, 4),
          address: addr(4),
        }),
      ).toEqual({
        status: 400,
        body: { error: 'Nonce already used' },
      })
    })

    it('the simple variant: expired → 401 Signature expired, valid → 200', async () => {
      const typedData = await prepared(simple, addr(4))
      const expired = { ...typedData, message: { ...typedData.message, expiry: 5 } }
      expect(await verify(simple, { typedData: expired, signature: await sign(expired, 4), address: addr(4) })).toEqual({
        status: 401,
        body: { error: 'Signature expired' },
      })
      const res = await verify(simple, { typedData, signature: await sign(typedData, 4), address: addr(4) })
      expect(res).toEqual({
        status: 200,
        body: { valid: true, message: 'Signature verified successfully', data: typedData.message },
      })
    })
  })
})
