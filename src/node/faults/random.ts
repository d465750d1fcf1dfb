// Seeded randomness for injected faults, so a run with the same seed injects the same faults
// (pcnode_setPreconfFaults({ seed }), --preconf-seed).
import { createHash } from 'node:crypto'

/** mulberry32: floats in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(n >>> 0)
  return b
}

/**
 * The drop rate's draw for one pre-confirmation, in [0, 1): a function of the seed, the transaction
 * and how often it was dropped before, not of a sequence. A transaction's fate then does not depend
 * on timing (which block it landed in, what else the node ran before it), so a script that sends the
 * same transactions sees the same ones dropped on every run; a dropped one sent again draws anew.
 */
export function dropDraw(seed: number, hash: Uint8Array, attempt: number): number {
  const digest = createHash('sha256').update(u32(seed)).update(hash).update(u32(attempt)).digest()
  return digest.readUInt32BE(0) / 2 ** 32
}

/** The reorg fault's draw for a sealed block, in [0, 1): a function of the seed and the block number, not of timing. */
export function blockDraw(seed: number, blockNumber: bigint): number {
  const digest = createHash('sha256').update('reorg').update(u32(seed)).update(blockNumber.toString()).digest()
  return digest.readUInt32BE(0) / 2 ** 32
}
