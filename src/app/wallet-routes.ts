// The smart-wallet helpers behind the page's passkey path (POST, JSON in and out). They do what a
// passkey wallet does for an undeployed PcnodeSmartWallet owned by one P-256 key (owners
// [abi.encode(x, y)], wallet nonce 0), so the browser needs no ABI code:
//   /wallet/passkey/address    {x, y}            → {address, factory, factoryData}  (counterfactual)
//   /wallet/passkey/challenge  {x, y, typedData} → {challenge, hash, address}        (replaySafeHash of the EIP-712 hash)
//   /wallet/passkey/signature  {x, y, authenticatorData, clientDataJSON, signature (DER)}
//                                                → {signature, address}             (SignatureWrapper, ERC-6492-wrapped)
// Bad input is a 400 whose message names the field.
import { p256 } from '@noble/curves/nist.js'
import { type Address, type Hex, hashTypedData, hexToBytes, isHex, serializeErc6492Signature } from 'viem'
import {
  encodePasskeyOwner,
  encodeWebAuthnSignature,
  factoryData,
  P256_N,
  predictAccountAddress,
  replaySafeHash,
  WALLET_FACTORY_ADDRESS,
  WALLET_IMPLEMENTATION_ADDRESS,
  webAuthnIndices,
  wrapSignature,
} from '../contracts/index.js'
import { HttpError, type RouteTable } from './http.js'

/** Wallet nonce of the passkey wallets these helpers serve (one wallet per key). */
export const PASSKEY_WALLET_NONCE = 0n

/** The routes `startAppServer` serves by default (its `routes` option). */
export const passkeyRoutes: RouteTable = {
  '/wallet/passkey/address': async (body) => {
    const wallet = passkeyWallet(object(body))
    return { address: wallet.address, factory: WALLET_FACTORY_ADDRESS, factoryData: wallet.factoryData }
  },
  '/wallet/passkey/challenge': async (body, ctx) => {
    const input = object(body)
    const wallet = passkeyWallet(input)
    const hash = typedDataHash(input.typedData)
    return { challenge: replaySafeHash({ address: wallet.address, chainId: ctx.chainId, hash }), hash, address: wallet.address }
  },
  '/wallet/passkey/signature': async (body) => {
    const input = object(body)
    const wallet = passkeyWallet(input)
    const signature = passkeySignature(input)
    const wrapped = wrapSignature({ ownerIndex: 0, signatureData: encodeWebAuthnSignature(signature) })
    // Always ERC-6492-wrapped: verifiers deploy the wallet in the eth_call when it has no code yet, and skip
    // the factory call when it has.
    return {
      signature: serializeErc6492Signature({ address: WALLET_FACTORY_ADDRESS, data: wallet.factoryData, signature: wrapped }),
      address: wallet.address,
    }
  },
}

function object(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'Body must be a JSON object')
  return body as Record<string, unknown>
}

const invalid = (field: string, why?: string) => new HttpError(400, `Missing or invalid field: ${field}${why ? ` (${why})` : ''}`)

/** A 0x-hex field; `bytes` bounds its length in bytes. */
function hexField(input: Record<string, unknown>, field: string, bytes: { min: number; max: number }): Hex {
  const value = input[field]
  if (typeof value !== 'string' || !isHex(value, { strict: true }) || value.length % 2 !== 0)
    throw invalid(field, 'expected 0x-prefixed hex bytes')
  const length = (value.length - 2) / 2
  if (length < bytes.min || length > bytes.max)
    throw invalid(field, bytes.min === bytes.max ? `expected ${bytes.min} bytes` : `expected ${bytes.min} to ${bytes.max} bytes`)
  return value
}

/** The wallet owned by the P-256 key (x, y): owners, counterfactual address and createAccount calldata. */
function passkeyWallet(input: Record<string, unknown>): { owners: Hex[]; address: Address; factoryData: Hex } {
  const x = BigInt(hexField(input, 'x', { min: 1, max: 32 }))
  const y = BigInt(hexField(input, 'y', { min: 1, max: 32 }))
  try {
    p256.Point.fromAffine({ x, y }).assertValidity()
  } catch {
    throw new HttpError(400, 'Invalid fields: x, y (not a point on the P-256 curve)')
  }
  const owners = [encodePasskeyOwner(x, y)]
  return {
    owners,
    address: predictAccountAddress({
      factory: WALLET_FACTORY_ADDRESS,
      implementation: WALLET_IMPLEMENTATION_ADDRESS,
      owners,
      nonce: PASSKEY_WALLET_NONCE,
    }),
    factoryData: factoryData(owners, PASSKEY_WALLET_NONCE),
  }
}

/** The EIP-712 hash of `{domain, types, primaryType, message}` (any payload, not only this app's). */
function typedDataHash(typedData: unknown): Hex {
  if (typeof typedData !== 'object' || typedData === null || Array.isArray(typedData)) throw invalid('typedData')
  const td = typedData as Record<string, unknown>
  for (const field of ['domain', 'types', 'message'] as const) {
    if (typeof td[field] !== 'object' || td[field] === null || Array.isArray(td[field])) throw invalid(`typedData.${field}`)
  }
  if (typeof td.primaryType !== 'string') throw invalid('typedData.primaryType')
  try {
    return hashTypedData(td as never)
  } catch (error) {
    const reason = (error as { shortMessage?: string; message?: string }).shortMessage ?? (error as Error).message
    throw invalid('typedData', `cannot hash it as EIP-712: ${reason}`)
  }
}

/** The WebAuthn assertion as the wallet's WebAuthnAuth wants it: DER → (r, low s), clientDataJSON indices. */
function passkeySignature(input: Record<string, unknown>) {
  // rpIdHash (32) ‖ flags (1) ‖ signCount (4) ‖ optional extensions.
  const authenticatorData = hexField(input, 'authenticatorData', { min: 37, max: 4096 })
  const clientDataJSON = input.clientDataJSON
  if (typeof clientDataJSON !== 'string' || clientDataJSON.length > 8192) throw invalid('clientDataJSON', 'expected a string')
  let clientData: unknown
  try {
    clientData = JSON.parse(clientDataJSON)
  } catch {
    throw invalid('clientDataJSON', 'not JSON')
  }
  const cd = clientData as Record<string, unknown> | null
  if (typeof cd !== 'object' || cd === null || cd.type !== 'webauthn.get' || typeof cd.challenge !== 'string')
    throw invalid('clientDataJSON', 'expected a webauthn.get assertion with a challenge')
  let indices: { challengeIndex: number; typeIndex: number }
  try {
    indices = webAuthnIndices(clientDataJSON)
  } catch (error) {
    throw invalid('clientDataJSON', (error as Error).message)
  }
  const der = hexField(input, 'signature', { min: 8, max: 72 })
  let r: bigint
  let s: bigint
  try {
    ;({ r, s } = p256.Signature.fromBytes(hexToBytes(der), 'der'))
  } catch {
    throw invalid('signature', 'expected a DER-encoded P-256 ECDSA signature')
  }
  if (s > P256_N / 2n) s = P256_N - s // the wallet accepts only the low-s form of (r, s)
  return { authenticatorData, clientDataJSON, ...indices, r, s }
}
