// ERC-7562's "associated storage": a slot is associated with address A when it is A, or lies 0..128 past
// keccak256(A ‖ x) for a preimage the transaction hashed (erc7562Tracer's `keccak`): a mapping's entry
// keyed by A, and the struct it starts.
import { keccak256 } from 'viem'

/** Preimages' hashes by the address their first word holds (the mapping bases keyed by it). */
export class Associations {
  private readonly bases = new Map<string, bigint[]>()

  constructor(private readonly preimages: readonly string[]) {}

  /** Whether `slot` (a 32-byte hex word) is associated with `address` (lowercase hex). */
  has(slot: string, address: string): boolean {
    const word = `0x${address.slice(2).padStart(64, '0')}`
    if (slot === word) return true
    const n = BigInt(slot)
    return this.basesOf(word).some((base) => n >= base && n - base <= 128n)
  }

  private basesOf(word: string): bigint[] {
    let bases = this.bases.get(word)
    if (!bases) {
      bases = this.preimages
        .filter((p) => p.length >= 66 && p.slice(0, 66) === word)
        .map((p) => BigInt(keccak256(p as `0x${string}`)))
      this.bases.set(word, bases)
    }
    return bases
  }
}
