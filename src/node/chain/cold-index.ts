// Cold blocks' hashes and their transactions' hashes, to the block's place in the chain. A Map
// keyed by hex strings costs ~150 bytes an entry, a Map of numbers ~40; this open-addressing table
// keeps 32 bits of the hash and the place in 8 bytes a slot (at most 3/4 full). The caller checks
// the whole hash in the block, so two hashes sharing 32 bits cost one more decode, never a wrong
// answer.

const EMPTY = -1
const DELETED = -2
const FIRST_SLOTS = 1024

export class ColdIndex {
  private keys = new Uint32Array(FIRST_SLOTS)
  private places = new Int32Array(FIRST_SLOTS).fill(EMPTY)
  /** Slots not EMPTY: entries and the DELETED marks that keep probe sequences whole. */
  private used = 0

  add(hash: Uint8Array, place: number): void {
    if ((this.used + 1) * 4 > this.keys.length * 3) this.grow()
    const key = keyOf(hash)
    const mask = this.keys.length - 1
    let i = key & mask
    while (this.places[i] >= 0) i = (i + 1) & mask
    if (this.places[i] === EMPTY) this.used++
    this.keys[i] = key
    this.places[i] = place
  }

  delete(hash: Uint8Array, place: number): void {
    const key = keyOf(hash)
    const mask = this.keys.length - 1
    for (let i = key & mask; this.places[i] !== EMPTY; i = (i + 1) & mask) {
      if (this.places[i] === place && this.keys[i] === key) {
        this.places[i] = DELETED
        return
      }
    }
  }

  /** The places a hash may be at (its first 32 bits match). */
  candidates(hash: Uint8Array): number[] {
    const key = keyOf(hash)
    const mask = this.keys.length - 1
    const out: number[] = []
    for (let i = key & mask; this.places[i] !== EMPTY; i = (i + 1) & mask) {
      if (this.places[i] >= 0 && this.keys[i] === key) out.push(this.places[i])
    }
    return out
  }

  /** Twice the slots when more than half would hold entries, else the same number without DELETED marks. */
  private grow(): void {
    const { keys, places } = this
    let live = 0
    for (const p of places) if (p >= 0) live++
    const size = live * 2 > keys.length ? keys.length * 2 : keys.length
    this.keys = new Uint32Array(size)
    this.places = new Int32Array(size).fill(EMPTY)
    this.used = 0
    const mask = size - 1
    for (let j = 0; j < keys.length; j++) {
      if (places[j] < 0) continue
      let i = keys[j] & mask
      while (this.places[i] !== EMPTY) i = (i + 1) & mask
      this.keys[i] = keys[j]
      this.places[i] = places[j]
      this.used++
    }
  }
}

/** A hash's first 32 bits (hashes are uniform: their low bits pick the slot). */
function keyOf(hash: Uint8Array): number {
  return ((hash[0] << 24) | (hash[1] << 16) | (hash[2] << 8) | hash[3]) >>> 0
}
