// The app's own endpoints, GET /typed-data/prepare and POST /typed-data/verify (SPEC, "Endpoints" and
// "States and transitions"), as a table server.ts serves. Signatures are verified through viem's
// public client pointed at the node's URL: the app is an ordinary client of the node.
import { type Chain, createPublicClient, custom, http, isAddress, isHex, RpcRequestError } from 'viem'
import { type EndpointTable, HttpError } from './http.js'
import { NonceStore } from './nonces.js'
import { isAppDomain, prepareTypedData } from './typed-data.js'

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
    const { typedData, signature, address, nonceKey } = parseVerifyBody(body, chainId)
    const message = typedData.message as Record<string, unknown>
    const expired = () => Number(message.expiry) < Math.floor(Date.now() / 1000)
    const valid = async () => {
      const { client, state } = verifyingClient()
      const ok = await client.verifyTypedData({
        address,
        domain: typedData.domain as never,
        types: typedData.types as never,
        primaryType: typedData.primaryType as never,
        message: message as never,
        signature,
      })
      if (!ok && state.unreachable) throw state.unreachable
      return ok
    }
    if (mode === 'simple') {
      if (!(await valid())) throw new HttpError(401, 'Invalid signature')
      if (expired()) throw new HttpError(401, 'Signature expired')
      return { valid: true, message: 'Signature verified successfully', data: message }
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

interface VerifyInput {
  typedData: { domain: unknown; types: Record<string, unknown>; primaryType: string; message: unknown }
  signature: `0x${string}`
  address: `0x${string}`
  nonceKey: string
}

/** Checks the body's shape; every problem is a 400 that names it. */
function parseVerifyBody(body: unknown, chainId: number): VerifyInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'Body must be a JSON object')
  const { typedData, signature, address } = body as Record<string, unknown>
  if (typeof typedData !== 'object' || typedData === null) throw new HttpError(400, 'Missing or invalid field: typedData')
  const td = typedData as Record<string, unknown>
  for (const field of ['domain', 'types', 'message'] as const) {
    if (typeof td[field] !== 'object' || td[field] === null)
      throw new HttpError(400, `Missing or invalid field: typedData.${field}`)
  }
  if (typeof td.primaryType !== 'string') throw new HttpError(400, 'Missing or invalid field: typedData.primaryType')
  if (typeof signature !== 'string' || !isHex(signature) || signature.length < 4)
    throw new HttpError(400, 'Missing or invalid field: signature')
  if (typeof address !== 'string' || !isAddress(address)) throw new HttpError(400, 'Missing or invalid field: address')
  if (!isAppDomain(td.domain, chainId))
    throw new HttpError(400, 'Invalid domain: the payload was not prepared by this app on this chain')
  const message = td.message as Record<string, unknown>
  const nonce = message.nonce
  if ((typeof nonce !== 'string' && typeof nonce !== 'number') || !/^[0-9]+$/.test(String(nonce))) {
    throw new HttpError(400, 'Missing or invalid field: typedData.message.nonce')
  }
  const expiry = message.expiry
  if ((typeof expiry !== 'string' && typeof expiry !== 'number') || !/^[0-9]+$/.test(String(expiry))) {
    throw new HttpError(400, 'Missing or invalid field: typedData.message.expiry')
  }
  return {
    typedData: td as VerifyInput['typedData'],
    signature: signature as `0x${string}`,
    address: address as `0x${string}`,
    nonceKey: NonceStore.key(address, String(nonce)),
  }
}
