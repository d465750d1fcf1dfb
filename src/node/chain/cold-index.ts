// Cold blocks' hashes and their transactions' hashes, to the block's place in the chain. A Map
// keyed by hex strings costs ~150 bytes an entry; this one is keyed by 30 bits of the hash (a
// small integer, no object of its own) and the caller checks the full hash in the block, so a
// rare collision costs one more decode, never a wrong answer.

/** A hash's first 30 bits as a small integer (V8 keeps it unboxed). */
function keyOf(hash: Uint8Array): number {
  return (hash[0] << 22) | (hash[1] << 14) | (hash[2] << 6) | (hash[3] >> 2)
}

export class ColdIndex {
  private readonly places = new Map<number, number | number[]>()

  add(hash: Uint8Array, place: number): void {
    const key = keyOf(hash)
    const known = this.places.get(key)
    if (known === undefined) this.places.set(key, place)
    else if (typeof known === 'number') this.places.set(key, [known, place])
    else known.push(place)
  }

  delete(hash: Uint8Array, place: number): void {
    const key = keyOf(hash)
    const known = this.places.get(key)
    if (known === place) this.places.delete(key)
    else if (Array.isArray(known)) {
      const rest = known.filter((p) => p !== place)
      this.places.set(key, rest.length === 1 ? rest[0] : rest)
    }
  }

  /** The places a hash may be at (its first 30 bits match). */
  candidates(hash: Uint8Array): readonly number[] {
    const known = this.places.get(keyOf(hash))
    return known === undefined ? [] : typeof known === 'number' ? [known] : known
  }

  clear(): void {
    this.places.clear()
  }
}
