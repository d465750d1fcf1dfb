// Addresses and storage slots the live state has written. The state trie keys accounts and slots by
// their keccak hash, so listing the state (anvil_dumpState, `--state`) needs the originals back.
// Recording costs a Map/Set lookup per write; keys are hashed lazily, once, when a dump asks.
import { hexKey } from '../../bytes.js'

type Keccak = (data: Uint8Array) => Uint8Array

export class Preimages {
  /**
   * Address (hex, no 0x) → slots written under it (32-byte hex, no 0x), in the order first written;
   * undefined for an account with none (most of them: a Set each would cost ~30 bytes per account).
   */
  private readonly keys = new Map<string, Set<string> | undefined>()
  private readonly addressByHash = new Map<string, string>()
  private readonly slotByHash = new Map<string, Map<string, string>>()
  /**
   * How much of `keys` is hashed: its first `hashedAddresses` addresses, and the first n slots of
   * each (Maps and Sets keep insertion order). No list of what waits: a million slots set between
   * two dumps would hold a million entries more.
   */
  private hashedAddresses = 0
  private readonly hashedSlots = new Map<string, number>()

  /** Whether keys were recorded since the last settle (a dump looks up every key: settle must be free then). */
  private recorded = false

  account(address: Uint8Array): void {
    const key = hexKey(address)
    if (this.keys.has(key)) return
    this.keys.set(key, undefined)
    this.recorded = true
  }

  slot(address: Uint8Array, slot: Uint8Array): void {
    const key = hexKey(address)
    let slots = this.keys.get(key)
    if (!slots) this.keys.set(key, (slots = new Set()))
    const size = slots.size
    slots.add(hexKey(slot))
    if (slots.size !== size) this.recorded = true
  }

  /** Hashes what was recorded since the last call. */
  private settle(keccak: Keccak): void {
    if (!this.recorded) return
    this.recorded = false
    let index = 0
    for (const [address, slots] of this.keys) {
      if (index++ >= this.hashedAddresses) this.addressByHash.set(hexKey(keccak(Buffer.from(address, 'hex'))), address)
      const done = this.hashedSlots.get(address) ?? 0
      if (!slots || slots.size === done) continue
      let byHash = this.slotByHash.get(address)
      if (!byHash) this.slotByHash.set(address, (byHash = new Map()))
      let i = 0
      for (const slot of slots) {
        if (i++ < done) continue
        byHash.set(hexKey(keccak(Buffer.from(slot, 'hex'))), slot)
      }
      this.hashedSlots.set(address, slots.size)
    }
    this.hashedAddresses = this.keys.size
  }

  /** The address whose keccak is `hash` (hex, no 0x). */
  addressOf(hash: string, keccak: Keccak): string | undefined {
    this.settle(keccak)
    return this.addressByHash.get(hash)
  }

  /** The slot of `address` whose keccak is `hash` (hex, no 0x). */
  slotOf(address: string, hash: string, keccak: Keccak): string | undefined {
    this.settle(keccak)
    return this.slotByHash.get(address)?.get(hash)
  }
}
