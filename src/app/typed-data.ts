// The app's EIP-712 payload: what /typed-data/prepare issues and /typed-data/verify accepts.
import { randomBytes } from 'node:crypto'
import { type Address, getAddress, isAddress } from 'viem'

export const APP_DOMAIN_NAME = 'pcnode Example App'
export const APP_DOMAIN_VERSION = '1'
/** The app's verifying contract: a fixed address that names this app in the signed domain. */
export const APP_VERIFYING_CONTRACT: Address = '0x00000000000000000000000000000000000A11cE'
/** Seconds a prepared payload stays valid. */
export const EXPIRY_SECONDS = 3600

export const appTypes = {
  EIP712Domain: [
    { name: 'name', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' },
  ],
  Authorization: [
    { name: 'user', type: 'address' },
    { name: 'action', type: 'string' },
    { name: 'resource', type: 'string' },
    { name: 'nonce', type: 'uint256' },
    { name: 'expiry', type: 'uint256' },
  ],
} as const

export interface AppTypedData {
  domain: { name: string; version: string; chainId: number; verifyingContract: Address }
  types: typeof appTypes
  primaryType: 'Authorization'
  message: { user: Address; action: string; resource: string; nonce: string; expiry: number }
}

/** A verified message's fields as values: the nonce and expiry as the uint256 the signature covers. */
export type AppMessage = {
  user: Address
  action: string
  resource: string
  nonce: bigint
  expiry: bigint
}

/** The primary type in EIP-712's encodeType form, for error messages. */
export const APP_PRIMARY_TYPE_STRING = `Authorization(${appTypes.Authorization.map((f) => `${f.type} ${f.name}`).join(',')})`

/**
 * True when `types` are this app's: `Authorization` field for field, and `EIP712Domain` as the app
 * declares it or absent (viem then derives it from the domain, which gives the same type). Other
 * types would let a signature leave out the nonce or the expiry, so no other set is accepted.
 */
export function isAppTypes(types: unknown): boolean {
  if (typeof types !== 'object' || types === null || Array.isArray(types)) return false
  const t = types as Record<string, unknown>
  const names = Object.keys(t)
  if (!names.includes('Authorization') || names.some((name) => name !== 'Authorization' && name !== 'EIP712Domain')) return false
  const same = (fields: unknown, expected: readonly { name: string; type: string }[]) =>
    Array.isArray(fields) &&
    fields.length === expected.length &&
    fields.every((field, i) => {
      if (typeof field !== 'object' || field === null) return false
      const f = field as Record<string, unknown>
      return f.name === expected[i].name && f.type === expected[i].type
    })
  return same(t.Authorization, appTypes.Authorization) && (!('EIP712Domain' in t) || same(t.EIP712Domain, appTypes.EIP712Domain))
}

export function appDomain(chainId: number): AppTypedData['domain'] {
  return { name: APP_DOMAIN_NAME, version: APP_DOMAIN_VERSION, chainId, verifyingContract: APP_VERIFYING_CONTRACT }
}

/** A numeric nonce from a cryptographically secure source (128 bits, as a decimal string). */
export function newNonce(): string {
  return BigInt(`0x${randomBytes(16).toString('hex')}`).toString()
}

export function prepareTypedData(
  chainId: number,
  user: Address,
  action: string,
  resource: string,
  now = Date.now(),
): AppTypedData {
  return {
    domain: appDomain(chainId),
    types: appTypes,
    primaryType: 'Authorization',
    message: {
      user: getAddress(user),
      action,
      resource,
      nonce: newNonce(),
      expiry: Math.floor(now / 1000) + EXPIRY_SECONDS,
    },
  }
}

/** True when the payload's domain is exactly this app's on this chain. */
export function isAppDomain(domain: unknown, chainId: number): boolean {
  if (typeof domain !== 'object' || domain === null) return false
  const d = domain as Record<string, unknown>
  return (
    d.name === APP_DOMAIN_NAME &&
    d.version === APP_DOMAIN_VERSION &&
    Number(d.chainId) === chainId &&
    typeof d.verifyingContract === 'string' &&
    isAddress(d.verifyingContract) &&
    d.verifyingContract.toLowerCase() === APP_VERIFYING_CONTRACT.toLowerCase()
  )
}
