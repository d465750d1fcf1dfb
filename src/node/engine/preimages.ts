// Addresses and storage slots the live state has written. The state trie keys accounts and slots by
// their keccak hash, so listing the state (anvil_dumpState, `--state`) needs the originals back.
// Recording costs a Map/Set lookup per write; keys are hashed lazily, once, when a dump asks.
import { hexKey } from '../bytes.js'

type Keccak = (data: Uint8Array) => Uint8Array

export class Preimages {
  /** Address (hex, no 0x) → slots written under it (32-byte hex, no 0x). */
  private readonly keys = new Map<string, Set<string>>()
  private readonly addressByHash = new Map<string, string>()
  private readonly slotByHash = new Map<string, Map<string, string>>()
  private unhashedAddresses: string[] = []
  private unhashedSlots: Array<[string, string]> = []

  account(address: Uint8Array): Set<string> {
    const key = hexKey(address)
    let slots = this.keys.get(key)
    if (!slots) {
      this.keys.set(key, (slots = new Set()))
      this.unhashedAddresses.push(key)
    }
    return slots
  }

  slot(address: Uint8Array, slot: Uint8Array): void {
    const slots = this.account(address)
    const key = hexKey(slot)
    if (slots.has(key)) return
    slots.add(key)
    this.unhashedSlots.push([hexKey(address), key])
  }

  /** Hashes what was recorded since the last call. */
  private settle(keccak: Keccak): void {
    for (const address of this.unhashedAddresses) {
      this.addressByHash.set(hexKey(keccak(Buffer.from(address, 'hex'))), address)
    }
    for (const [address, slot] of this.unhashedSlots) {
      let slots = this.slotByHash.get(address)
      if (!slots) this.slotByHash.set(address, (slots = new Map()))
      slots.set(hexKey(keccak(Buffer.from(slot, 'hex'))), slot)
    }
    this.unhashedAddresses = []
    this.unhashedSlots = []
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
