// EIP-7702: the accounts that signed a transaction's authorizations (prestateTracer looks them up
// before the transaction runs, as geth's does with tx.SetCodeAuthorizations()).
import { bigIntToUnpaddedBytes, eoaCode7702RecoverAuthority } from '@ethereumjs/util'
import type { Authorization } from '../types.js'

/** The authorities of `list`; entries whose signature does not recover are left out, as geth skips them. */
export function authoritiesOf(list: Authorization[] | undefined): Uint8Array[] {
  const out: Uint8Array[] = []
  for (const a of list ?? []) {
    try {
      const item = [
        bigIntToUnpaddedBytes(a.chainId),
        a.address,
        bigIntToUnpaddedBytes(a.nonce),
        bigIntToUnpaddedBytes(a.yParity),
        bigIntToUnpaddedBytes(a.r),
        bigIntToUnpaddedBytes(a.s),
      ]
      out.push(eoaCode7702RecoverAuthority(item as never).bytes)
    } catch {
      // not recoverable: no authority to look up
    }
  }
  return out
}
