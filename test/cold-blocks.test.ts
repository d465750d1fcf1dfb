// Cold blocks (chain/cold.ts): sealed blocks past the recent window are kept encoded and decoded
// when read. Every read of an old block answers what it answered while the block was an object:
// blocks by number and hash, transactions, receipts, logs, traces, Otterscan, the state file,
// snapshots and reorgs.
import { createHash } from 'node:crypto'
import { type Hex, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { Dictionary, Reader, Writer } from '../src/node/chain/codec.js'
import { ColdBlock } from '../src/node/chain/cold.js'
import { ColdIndex } from '../src/node/chain/cold-index.js'
import { emitterInitCode, PING, useTestNode, waitForSealed } from './helpers.js'

describe('cold blocks answer as they did (chain/cold.ts)', () => {
  const node = useTestNode({ profile: 'base', mining: false, silent: true })

  /** Every read of the blocks and transactions so far that must not change when they go cold. */
  async function reads(hashes: Hex[], emitter: Hex, head: number): Promise<unknown[]> {
    const out: unknown[] = []
    const call = async (method: string, params: unknown[]) => {
      const answer = await node.rpc(method, params)
      expect(answer.error, `${method} ${JSON.stringify(params)}`).toBeUndefined()
      out.push(answer.result)
      return answer.result
    }
    for (let n = 0; n <= head; n++) {
      const block = await call('eth_getBlockByNumber', [toHex(n), true])
      await call('eth_getBlockByHash', [block.hash, false])
      await call('eth_getBlockReceipts', [toHex(n)])
      await call('eth_getHeaderByNumber', [toHex(n)])
    }
    for (const hash of hashes) {
      await call('eth_getTransactionByHash', [hash])
      await call('eth_getTransactionReceipt', [hash])
      await call('debug_traceTransaction', [hash, { tracer: 'callTracer' }])
      await call('ots_getTransactionError', [hash])
    }
    await call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])
    await call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: emitter, topics: [PING] }])
    await call('ots_searchTransactionsBefore', [node.accounts[1].address, 0, 25])
    await call('ots_getBlockDetails', [2])
    await call('eth_getBlockByNumber', ['finalized', false])
    return out
  }

  it('blocks, transactions, receipts, logs, traces and Otterscan read the same once cold', async () => {
    const wallet = node.wallet(1)
    const hashes: Hex[] = []
    const deploy = await wallet.sendTransaction({ data: emitterInitCode(), gas: 200_000n })
    await node.rpc('evm_mine')
    const emitter = (await waitForSealed(node, deploy)).contractAddress as Hex
    hashes.push(deploy)
    for (let i = 0; i < 3; i++) {
      hashes.push(await wallet.sendTransaction({ to: emitter, data: toHex(`cold ${i}`), gas: 60_000n }))
      hashes.push(await node.wallet(2).sendTransaction({ to: node.accounts[3].address, value: BigInt(i + 1) }))
      await node.rpc('evm_mine')
    }
    // A failed transaction (its receipt's failure is kept) and one from an impersonated sender.
    hashes.push(await wallet.sendTransaction({ to: emitter, data: '0x', gas: 21_000n + 100n, value: 1n }))
    await node.rpc('anvil_impersonateAccount', ['0x00000000000000000000000000000000000000aa'])
    await node.rpc('anvil_setBalance', ['0x00000000000000000000000000000000000000aa', toHex(10n ** 18n)])
    const sent = await node.rpc('eth_sendTransaction', [
      { from: '0x00000000000000000000000000000000000000aa', to: node.accounts[4].address, value: '0x5' },
    ])
    hashes.push(sent.result)
    await node.rpc('anvil_mine', ['0x3'])
    for (const hash of hashes) await waitForSealed(node, hash)
    const head = Number((await node.rpc('eth_blockNumber')).result)
    const dump = (await node.rpc('anvil_dumpState')).result as Hex
    const before = await reads(hashes, emitter, head)

    // Every block but the head (and block 0, kept as it is) goes cold.
    const { chain, engine } = node.node
    chain.keepCold(engine, 1)
    expect(chain.blocks.slice(1, -1).every((b) => b instanceof ColdBlock)).toBe(true)
    expect(chain.head).not.toBeInstanceOf(ColdBlock)
    expect(await reads(hashes, emitter, head)).toEqual(before)
    // The state file's text differs only in its time of writing.
    const text = (hex: Hex) =>
      Buffer.from(hex.slice(2), 'hex')
        .toString()
        .replace(/"savedAt":"[^"]*"/, '')
    expect(text((await node.rpc('anvil_dumpState')).result)).toBe(text(dump))
    // Unknown hashes are still unknown (the cold index matches 30 bits, then the whole hash).
    const unknown = `0x${'ab'.repeat(32)}`
    expect((await node.rpc('eth_getBlockByHash', [unknown, false])).result).toBeNull()
    expect((await node.rpc('eth_getTransactionByHash', [unknown])).result).toBeNull()
  })

  it('snapshots and reorgs over cold blocks keep them, and drop what they replace', async () => {
    const { chain } = node.node
    const snapshot = (await node.rpc('evm_snapshot')).result
    const kept = chain.blocks.length
    await node.rpc('anvil_mine', ['0x4'])
    const dropped = (await node.rpc('eth_getBlockByNumber', ['latest', false])).result.hash
    expect(chain.blocks[chain.blocks.length - 3]).toBeInstanceOf(ColdBlock)
    expect((await node.rpc('evm_revert', [snapshot])).result).toBe(true)
    expect(chain.blocks.length).toBe(kept)
    expect((await node.rpc('eth_getBlockByHash', [dropped, false])).result).toBeNull()
    expect(chain.blocks.slice(1, -1).every((b) => b instanceof ColdBlock)).toBe(true)

    // A reorg replacing cold blocks: the new ones are found by hash, the old ones no more.
    const old = (await node.rpc('eth_getBlockByNumber', ['latest', false])).result
    const oldParent = (await node.rpc('eth_getBlockByNumber', [toHex(Number(old.number) - 1), false])).result
    expect((await node.rpc('anvil_reorg', [2, []])).error).toBeUndefined()
    const parent = (await node.rpc('eth_getBlockByNumber', [oldParent.number, false])).result
    expect(parent.hash).not.toBe(oldParent.hash)
    expect((await node.rpc('eth_getBlockByHash', [parent.hash, false])).result.number).toBe(oldParent.number)
    expect((await node.rpc('eth_getBlockByHash', [oldParent.hash, false])).result).toBeNull()
    expect(chain.blocks[Number(oldParent.number)]).toBeInstanceOf(ColdBlock)
  })
})

describe('the cold stream (chain/codec.ts)', () => {
  it('reads back what was written: literals, repeats, patches of long values and quantities', () => {
    const dict = new Dictionary()
    const constant = new Uint8Array(32).fill(7)
    const long = (n: number) => Uint8Array.from({ length: 300 }, (_, i) => (i === 5 || i === 290 ? n : i % 251))
    const quantities = [0n, 1n, 255n, 256n, 2n ** 48n - 1n, 2n ** 48n, 2n ** 200n + 12345n]
    const streams: Uint8Array[] = []
    for (let b = 0; b < 4; b++) {
      const w = new Writer(dict)
      w.fixed(new Uint8Array(32).fill(b))
      w.bytes(constant)
      w.bytes(new Uint8Array(32).fill(b + 100))
      w.bytes(long(b))
      w.bytes(new Uint8Array())
      for (const q of quantities) w.quantity(q + BigInt(b))
      w.varint(2 ** 40 + b)
      streams.push(w.finish().slice())
    }
    streams.forEach((stream, b) => {
      const r = new Reader(stream, dict)
      expect(r.fixed(32)).toEqual(new Uint8Array(32).fill(b))
      expect(r.bytes()).toEqual(constant)
      expect(r.bytes()).toEqual(new Uint8Array(32).fill(b + 100))
      expect(r.bytes()).toEqual(long(b))
      expect(r.bytes()).toEqual(new Uint8Array())
      for (const q of quantities) expect(r.quantity()).toBe(q + BigInt(b))
      expect(r.varint()).toBe(2 ** 40 + b)
    })
    // The repeated constant became a reference, the long value a patch of a few bytes.
    expect(streams[3].length).toBeLessThan(streams[0].length - 250)
  })
})

describe('the cold index (chain/cold-index.ts)', () => {
  it('finds every place a hash was added at, across growth and deletes, and nothing else', () => {
    const index = new ColdIndex()
    const hash = (n: number) => Uint8Array.from(createHash('sha256').update(`${n}`).digest())
    for (let n = 0; n < 5000; n++) index.add(hash(n), n)
    // Two places under one hash (a hash prefix two blocks share), one of them deleted later.
    index.add(hash(7), 9999)
    for (let n = 0; n < 5000; n += 3) index.delete(hash(n), n)
    for (let n = 0; n < 5000; n++) {
      const found = index.candidates(hash(n))
      if (n % 3 === 0) expect(found).not.toContain(n)
      else expect(found).toContain(n)
    }
    expect(index.candidates(hash(7)).sort()).toEqual([7, 9999])
    index.delete(hash(7), 9999)
    expect(index.candidates(hash(7))).toEqual([7])
    // Adding after deletes reuses their slots and still finds everything.
    for (let n = 0; n < 5000; n += 3) index.add(hash(n), n + 100_000)
    for (let n = 0; n < 5000; n += 3) expect(index.candidates(hash(n))).toContain(n + 100_000)
    expect(index.candidates(new Uint8Array(32).fill(0xee))).toEqual([])
  })
})
