// The body of POST /typed-data/verify, checked before anything is verified: every client mistake is a
// 400 that names the field, so what reaches viem and the node can only fail for a server reason. The
// message comes out as values (the nonce and expiry as the uint256 EIP-712 hashes), and the nonce key
// is built from the value, so no re-spelling of a nonce is a fresh key.
import { type Address, getAddress, type Hex, isAddress, isHex, maxUint256 } from 'viem'
import { HttpError } from './http.js'
import { NonceStore } from './nonces.js'
import { APP_PRIMARY_TYPE_STRING, type AppMessage, isAppDomain, isAppTypes } from './typed-data.js'

export interface VerifyInput {
  /** The message as sent (the simple variant answers with it). */
  rawMessage: Record<string, unknown>
  /** The message as values, what the signature is checked over. */
  message: AppMessage
  signature: Hex
  address: Address
  /** Signer address + nonce value (SPEC, "States and transitions"). */
  nonceKey: string
}

/**
 * The longest signature checked. A smart wallet's ERC-6492-wrapped WebAuthn signature with the largest
 * authenticatorData and clientDataJSON the passkey helpers accept is about 14 KiB; a much longer one
 * would only make the node refuse viem's deployless verifier call (EIP-3860's 49,152-byte initcode).
 */
export const MAX_SIGNATURE_BYTES = 24 * 1024

const invalid = (field: string, why?: string) => new HttpError(400, `Missing or invalid field: ${field}${why ? ` (${why})` : ''}`)

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Checks the body's shape; every problem is a 400 that names it. */
export function parseVerifyBody(body: unknown, chainId: number): VerifyInput {
  if (!isObject(body)) throw new HttpError(400, 'Body must be a JSON object')
  const { typedData, signature, address } = body
  if (!isObject(typedData)) throw invalid('typedData')
  for (const field of ['domain', 'types', 'message'] as const) {
    if (!isObject(typedData[field])) throw invalid(`typedData.${field}`)
  }
  if (typeof typedData.primaryType !== 'string') throw invalid('typedData.primaryType')
  // Odd-length hex is not bytes; viem would read it as a signature that merely fails to verify.
  if (typeof signature !== 'string' || !isHex(signature, { strict: true }) || signature.length < 4 || signature.length % 2 !== 0)
    throw invalid('signature')
  if (signature.length > 2 + 2 * MAX_SIGNATURE_BYTES) throw invalid('signature', `longer than ${MAX_SIGNATURE_BYTES} bytes`)
  if (typeof address !== 'string' || !isAddress(address)) throw invalid('address')
  if (!isAppDomain(typedData.domain, chainId))
    throw new HttpError(400, 'Invalid domain: the payload was not prepared by this app on this chain')
  if (typedData.primaryType !== 'Authorization') throw invalid('typedData.primaryType', 'expected "Authorization"')
  if (!isAppTypes(typedData.types)) throw invalid('typedData.types', `expected this app's types: ${APP_PRIMARY_TYPE_STRING}`)
  const raw = typedData.message as Record<string, unknown>
  const message = parseMessage(raw)
  return {
    rawMessage: raw,
    message,
    signature: signature as Hex,
    address: getAddress(address),
    nonceKey: NonceStore.key(address, message.nonce),
  }
}

function parseMessage(message: Record<string, unknown>): AppMessage {
  const { user, action, resource } = message
  if (typeof user !== 'string' || !isAddress(user)) throw invalid('typedData.message.user', 'expected an address')
  if (typeof action !== 'string') throw invalid('typedData.message.action', 'expected a string')
  if (typeof resource !== 'string') throw invalid('typedData.message.resource', 'expected a string')
  return {
    user: getAddress(user),
    action,
    resource,
    nonce: uint256(message.nonce, 'typedData.message.nonce'),
    expiry: uint256(message.expiry, 'typedData.message.expiry'),
  }
}

/**
 * A uint256 field as its value. Accepted: a non-negative safe integer, or a string of decimal digits
 * or 0x-hex (the spellings viem and eth_signTypedData_v4 wallets hash as uint256). Anything else,
 * including a value past 2^256 - 1 that viem would refuse to hash, is a 400.
 */
function uint256(value: unknown, field: string): bigint {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw invalid(field, 'not an integer')
    if (value < 0) throw invalid(field, 'negative')
    // A JSON number past 2^53 has already lost digits: it is not the number that was signed.
    if (!Number.isSafeInteger(value)) throw invalid(field, 'too large for a JSON number; send it as a decimal string')
    return BigInt(value)
  }
  if (typeof value !== 'string') throw invalid(field)
  if (/^-(0x)?[0-9a-fA-F]+$/.test(value)) throw invalid(field, 'negative')
  if (/^[0-9]*\.[0-9]+$|^[0-9]+\.[0-9]*$|^[0-9]+e[0-9]+$/i.test(value)) throw invalid(field, 'not an integer')
  if (!/^[0-9]+$/.test(value) && !/^0x[0-9a-fA-F]+$/.test(value)) throw invalid(field)
  // A longer string is past 2^256 - 1 whatever its digits; checked before BigInt parses it.
  if (value.replace(/^0x0*|^0+/, '').length > 78) throw invalid(field, 'larger than 2^256 - 1')
  const parsed = BigInt(value)
  if (parsed > maxUint256) throw invalid(field, 'larger than 2^256 - 1')
  return parsed
}
