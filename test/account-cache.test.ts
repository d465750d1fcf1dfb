// The decoded account cache (engine/store/account-cache.ts) against ethereumjs' AccountCache on seeded
// random runs of puts, deletes, reads, checkpoints, commits, reverts and flushes: every read and
// every flush must answer the same. PCNODE_TEST_SEED replays a failing run.
import { AccountCache, CacheType } from '@ethereumjs/statemanager'
import { Account, Address, bytesToHex, createAccountFromRLP } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { AccountObjectCache, encodeAccount } from '../src/node/engine/store/account-cache.js'
import { seededRandom, testSeed } from './helpers.js'

const show = (rlp: Uint8Array | undefined) => (rlp === undefined ? 'absent' : bytesToHex(rlp))

describe('decoded account cache (account-cache.ts)', () => {
  it('answers reads and flushes as ethereumjs AccountCache does across checkpoints', () => {
    const seed = testSeed('account cache')
    const rnd = seededRandom(seed)
    const int = (n: number) => Math.floor(rnd() * n)
    const addresses = Array.from(
      { length: 12 },
      (_, i) => new Address(Uint8Array.from({ length: 20 }, (_, j) => (i * 31 + j) & 0xff)),
    )
    const root = Uint8Array.from({ length: 32 }, (_, i) => i)
    const upstream = new AccountCache({ size: 100_000, type: CacheType.ORDERED_MAP })
    const ours = new AccountObjectCache()
    let depth = 0
    for (let step = 0; step < 3_000; step++) {
      const at = `seed ${seed}, step ${step}`
      const address = addresses[int(addresses.length)]
      const op = int(10)
      if (op < 3) {
        const account =
          rnd() < 0.15 ? undefined : new Account(BigInt(int(5)), BigInt(int(1e6)) * 10n ** 12n, rnd() < 0.3 ? root : undefined)
        upstream.put(address, account)
        ours.put(address, account)
        // A caller changing what it put changes nothing in the cache.
        if (account) account.balance += 1n
      } else if (op === 3) {
        upstream.del(address)
        ours.del(address)
      } else if (op < 6) {
        const want = upstream.get(address)
        const got = ours.get(address)
        expect(got === undefined, at).toBe(want === undefined)
        if (want && got) {
          expect(show(got.accountRLP), at).toBe(show(want.accountRLP))
          // A copy handed out and changed leaves the entry as it was.
          const copy = got.copy()
          if (copy) copy.nonce += 1n
          expect(show(ours.get(address)?.accountRLP), at).toBe(show(want.accountRLP))
        }
      } else if (op === 6) {
        upstream.checkpoint()
        ours.checkpoint()
        depth++
      } else if (op === 7 && depth > 0) {
        upstream.commit()
        ours.commit()
        depth--
      } else if (op === 8 && depth > 0) {
        upstream.revert()
        ours.revert()
        depth--
      } else if (op === 9) {
        const want = upstream.flush().map(([key, elem]) => `${key}=${show(elem.accountRLP)}`)
        const got = ours.flush().map(([key, entry]) => `${key}=${show(entry.accountRLP)}`)
        expect(got, at).toEqual(want)
      }
      expect(ours.size(), at).toBe(upstream.size())
    }
    for (const address of addresses) {
      const want = upstream.get(address)?.accountRLP
      expect(show(ours.get(address)?.accountRLP)).toBe(show(want))
      if (want) expect(ours.get(address)?.copy()?.balance).toBe(createAccountFromRLP(want).balance)
    }
  })

  it('encodes an account as Account.serialize() does, at every integer length and edge', () => {
    const seed = testSeed('account rlp')
    const rnd = seededRandom(seed)
    const word = () => Uint8Array.from({ length: 32 }, () => Math.floor(rnd() * 256))
    const edges = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 2n ** 64n - 1n, 2n ** 256n - 1n]
    // Random integers of every byte length, with a random top nibble (odd and even hex lengths).
    const random = (bytes: number) => (bytes === 0 ? 0n : BigInt(Math.floor(rnd() * 16)) << BigInt(bytes * 8 - 4)) | BigInt(bytes)
    const values = [...edges, ...Array.from({ length: 200 }, (_, i) => random(i % 33))]
    for (const nonce of values.slice(0, 40)) {
      for (const balance of values) {
        const account = new Account(nonce, balance, rnd() < 0.5 ? word() : undefined, rnd() < 0.5 ? word() : undefined)
        expect(bytesToHex(encodeAccount(account)), `seed ${seed}: ${nonce} ${balance}`).toBe(bytesToHex(account.serialize()))
      }
    }
  })
})
