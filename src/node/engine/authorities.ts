// EIP-7702: the accounts that signed a transaction's authorizations (prestateTracer looks them up
// before the transaction runs, as geth's does with tx.SetCodeAuthorizations()).
import { eoaCode7702RecoverAuthority } from '@ethereumjs/util'
import type { Authorization } from '../types.js'
import { authorizationItem } from './tx/record.js'

/** The authorities of `list`; entries whose signature does not recover are left out, as geth skips them. */
export function authoritiesOf(list: Authorization[] | undefined): Uint8Array[] {
  const out: Uint8Array[] = []
  for (const a of list ?? []) {
    try {
      out.push(eoaCode7702RecoverAuthority(authorizationItem(a) as never).bytes)
    } catch {
      // not recoverable: no authority to look up
    }
  }
  return out
}
