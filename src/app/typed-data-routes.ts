// The app's own endpoints, GET /typed-data/prepare and POST /typed-data/verify (SPEC, "Endpoints" and
// "States and transitions"), as a table server.ts serves. Signatures are verified through viem's
// public client pointed at the node's URL: the app is an ordinary client of the node.
import { BaseError, type Chain, createPublicClient, custom, http, isAddress, RpcRequestError } from 'viem'
import { type EndpointTable, HttpError } from './http.js'
import type { NonceStore } from './nonces.js'
import { appDomain, appTypes, prepareTypedData } from './typed-data.js'
import { parseVerifyBody } from './verify-input.js'

export type VerifyMode = 'full' | 'simple'

export interface TypedDataRoutesOptions {
  /** The chain payloads are prepared for and checked against. */
  chain: Chain
  /** The node that verifies signatures. */
  rpcUrl: string
  /** 'full': nonce, expiry, signature; 'simple': signature, then expiry, no nonce tracking. */
  mode: VerifyMode
  /** Used nonces (mode 'full'); the server owns it and closes it. */
  nonces: NonceStore
}

export function typedDataRoutes({ chain, rpcUrl, mode, nonces }: TypedDataRoutesOptions): EndpointTable {
  const chainId = chain.id

  // viem's verifyTypedData answers false when the node can't be reached; a per-request transport
  // that remembers transport failures turns that case into the 500 it is.
  const verifyingClient = () => {
    const state = { unreachable: undefined as Error | undefined }
    const inner = http(rpcUrl, { retryCount: 0 })({ chain })
    const transport = custom({
      request: async (args: { method: string; params?: unknown }) => {
        try {
          return await inner.request(args as never)
        } catch (error) {
          if (!(error instanceof RpcRequestError)) state.unreachable = error as Error
          throw error
        }
      },
    })
    return { client: createPublicClient({ chain, transport }), state }
  }

  const prepare = (query: URLSearchParams) => {
    const read = (name: string) => {
      const value = query.get(name)
      if (value === null || value.trim() === '') throw new HttpError(400, `Missing query parameter: ${name}`)
      if (value.length > 256) throw new HttpError(400, `Query parameter too long: ${name}`)
      return value
    }
    const userAddress = read('userAddress')
    if (!isAddress(userAddress)) throw new HttpError(400, 'Invalid query parameter: userAddress must be an address')
    return prepareTypedData(chainId, userAddress, read('action'), read('resource'))
  }

  const verify = async (body: unknown) => {
    const { rawMessage, message, signature, address, nonceKey } = parseVerifyBody(body, chainId)
    const expired = () => message.expiry < BigInt(Math.floor(Date.now() / 1000))
    // Step (3) of the SPEC's processing order. The payload names the user it was prepared for, so a
    // signature is valid only from that user (for a smart wallet, the wallet's address): another
    // signer's valid signature over it is an invalid one for this payload, the SPEC's 401 row.
    // The signature is checked first, so "Invalid signature" alone still means it does not verify.
    const valid = async () => {
      const { client, state } = verifyingClient()
      let ok: boolean
      try {
        ok = await client.verifyTypedData({
          address,
          // The app's own domain and types (parseVerifyBody checked the payload's against them) and the
          // message as values: what is hashed is exactly what the nonce key and expiry check read.
          domain: appDomain(chainId),
          types: appTypes,
          primaryType: 'Authorization',
          message,
          signature,
        })
      } catch (error) {
        throw state.unreachable ?? signatureError(error)
      }
      if (!ok && state.unreachable) throw state.unreachable
      if (ok && message.user !== address)
        throw new HttpError(401, `Invalid signature: signed by ${address}, but the payload is for ${message.user}`)
      return ok
    }
    if (mode === 'simple') {
      if (!(await valid())) throw new HttpError(401, 'Invalid signature')
      if (expired()) throw new HttpError(401, 'Signature expired')
      return { valid: true, message: 'Signature verified successfully', data: rawMessage }
    }
    return nonces.withKey(nonceKey, async () => {
      if (nonces.has(nonceKey)) throw new HttpError(400, 'Nonce already used')
      if (expired()) throw new HttpError(400, 'Signature expired')
      if (!(await valid())) throw new HttpError(401, 'Invalid signature')
      nonces.markUsed(nonceKey)
      return { valid: true, message: 'Typed data verified successfully', action: message.action, resource: message.resource }
    })
  }

  return {
    '/typed-data/prepare': { method: 'GET', handle: prepare },
    '/typed-data/verify': { method: 'POST', handle: verify },
  }
}

/**
 * What verifyTypedData threw, once the node was reached. Domain, types and message are the app's own
 * and checked, so viem's and ox's errors (they carry a shortMessage: a wrapped signature that does not
 * decode, a call the node refuses for its size) are about the signature: a 400. The node's internal
 * error (JSON-RPC -32603) and anything else stay the server's fault, a 500.
 */
function signatureError(error: unknown): unknown {
  const shortMessage = error instanceof Error ? (error as { shortMessage?: unknown }).shortMessage : undefined
  if (typeof shortMessage !== 'string') return error
  if (error instanceof BaseError && error.walk((e) => (e as { code?: unknown }).code === -32603)) return error
  const reason = (error instanceof BaseError && error.details) || shortMessage
  return new HttpError(400, `Missing or invalid field: signature (it cannot be checked: ${reason.slice(0, 200)})`)
}
