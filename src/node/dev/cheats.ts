// Impersonation (anvil's backend/cheats.rs): which senders eth_sendTransaction may send from
// without a key. The send path asks; nothing here sends.
import { hexKey } from '../bytes.js'

export class Cheats {
  private readonly impersonated = new Set<string>()
  private auto = false

  impersonate(address: Uint8Array): void {
    this.impersonated.add(hexKey(address))
  }

  stopImpersonating(address: Uint8Array): void {
    this.impersonated.delete(hexKey(address))
  }

  /** anvil_autoImpersonateAccount: every sender is impersonated. */
  setAutoImpersonate(on: boolean): void {
    this.auto = on
  }

  /** True when eth_sendTransaction from `address` goes out unsigned. */
  impersonating(address: Uint8Array): boolean {
    return this.auto || this.impersonated.has(hexKey(address))
  }

  /** anvil_reset forgets every impersonation. */
  clear(): void {
    this.impersonated.clear()
    this.auto = false
  }
}
