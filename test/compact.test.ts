// Sealed records share the values they repeat from the block before (chain/compact.ts): equal
// bytes and bigints become the earlier block's objects, different ones stay, and what a record
// says is unchanged.
import { describe, expect, it } from 'vitest'
import { packed } from '../src/node/bytes.js'
import { shareWithPrevious } from '../src/node/chain/compact.js'
import { emptyHeader } from '../src/node/header-fields.js'
import type { BlockRecord, IncludedTx, TxRecord } from '../src/node/types.js'

function block(number: bigint, parentHash: Uint8Array, data: Uint8Array): BlockRecord {
  const hash = Uint8Array.of(Number(number), 1, 2, 3)
  const record: BlockRecord = {
    header: emptyHeader({ number, parentHash, coinbase: new Uint8Array(20).fill(7), gasLimit: 30_000_000n * 1n }),
    hash,
    sealed: true,
    txs: [],
    flashblocks: 1,
    size: 600n + number,
  }
  const tx: TxRecord = {
    type: 0x7e,
    hash: Uint8Array.of(9, Number(number)),
    raw: data,
    from: new Uint8Array(20).fill(0xde),
    nonce: 0n,
    gasLimit: 1_000_000n + 0n,
    to: new Uint8Array(20).fill(0x15),
    value: 0n,
    data,
  }
  const included: IncludedTx = {
    tx,
    index: 0,
    flashblockIndex: 0,
    preconfirmedAt: 0,
    block: record,
    receipt: {
      status: 1,
      gasUsed: 45_000n + 0n,
      cumulativeGasUsed: 45_000n + 0n,
      effectiveGasPrice: 0n,
      logs: [],
      logsBloom: new Uint8Array(256),
      firstLogIndex: 0,
    },
  }
  record.txs.push(included)
  return record
}

describe('records shared with the previous block (compact.ts)', () => {
  it('makes equal values one object and leaves the others as they were', () => {
    const first = block(1n, new Uint8Array(32), new Uint8Array(300).fill(1))
    const second = block(2n, first.hash.slice(), new Uint8Array(300).fill(1))
    const before = JSON.stringify(second, (k, v) => (k === 'block' ? undefined : typeof v === 'bigint' ? `${v}` : v))
    shareWithPrevious(second, first)
    expect(JSON.stringify(second, (k, v) => (k === 'block' ? undefined : typeof v === 'bigint' ? `${v}` : v))).toBe(before)
    expect(second.header.coinbase).toBe(first.header.coinbase)
    expect(second.header.logsBloom).toBe(first.header.logsBloom)
    expect(second.header.parentHash).toBe(first.hash)
    expect(second.txs[0].tx.from).toBe(first.txs[0].tx.from)
    expect(second.txs[0].tx.to).toBe(first.txs[0].tx.to)
    expect(second.txs[0].receipt.logsBloom).toBe(first.txs[0].receipt.logsBloom)
    // Different values stay their own; long data is not compared.
    expect(second.header.number).toBe(2n)
    expect(second.txs[0].tx.hash).not.toBe(first.txs[0].tx.hash)
    expect(second.txs[0].tx.data).not.toBe(first.txs[0].tx.data)
    // They moved into one shared chunk (views, not arrays with buffers of their own).
    const { hash, data } = second.txs[0].tx
    expect(hash.buffer).toBe(second.hash.buffer)
    expect(data.buffer).toBe(second.hash.buffer)
    expect(hash.buffer.byteLength).toBeGreaterThan(hash.byteLength + data.byteLength)
  })

  it('packs bytes into chunks without changing them', () => {
    const fresh = () => Uint8Array.from({ length: 40 }, (_, i) => i)
    const a = packed(fresh())
    const b = packed(fresh())
    expect(a).toEqual(fresh())
    expect(b).toEqual(fresh())
    expect(a.buffer).toBe(b.buffer)
    // Writing one view leaves its neighbours alone; packing a packed view is a no-op.
    b[0] = 99
    expect(a[0]).toBe(0)
    expect(packed(a)).toBe(a)
    // Long bytes keep their own buffer; a full chunk starts a new one.
    const long = new Uint8Array(4096)
    expect(packed(long)).toBe(long)
    const views = Array.from({ length: 100 }, () => packed(new Uint8Array(1024).fill(5)))
    expect(new Set(views.map((v) => v.buffer)).size).toBeGreaterThan(1)
    for (const v of views) expect(v.every((x) => x === 5)).toBe(true)
  })

  it('leaves the lazily decoded fields of loaded transactions alone, unread', () => {
    const first = block(1n, new Uint8Array(32), new Uint8Array(8))
    const second = block(2n, first.hash, new Uint8Array(8))
    const unread = () => {
      throw new Error('a lazy field was read')
    }
    // As engine/tx/record.ts loads them: the decoded fields are getters.
    for (const t of [first, second]) {
      for (const field of ['chainId', 'nonce', 'to']) Object.defineProperty(t.txs[0].tx, field, { enumerable: true, get: unread })
    }
    shareWithPrevious(second, first)
    // The rest of the record is shared still.
    expect(second.header.coinbase).toBe(first.header.coinbase)
    expect(second.txs[0].receipt.logsBloom).toBe(first.txs[0].receipt.logsBloom)
  })
})
