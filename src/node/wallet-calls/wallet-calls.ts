// EIP-5792's call bundles for the accounts the node holds (dev keys and impersonated senders, the
// ones eth_sendTransaction sends for): each call goes out as the sender's next transaction through
// the same admission path, in order, with gas measured by simulating the calls in order first
// (plan.ts), and the bundle's status is read back from their receipts.
// Atomic only where the account itself can batch (ERC-7821 code it delegated to, erc7821.ts): an
// EOA has no way to run several calls in one transaction, so for it the node says `atomic:
// unsupported` and refuses `atomicRequired`.
import { randomBytes } from 'node:crypto'
import { SenderLocks } from '../admission/sender-locks.js'
import type { CallRequest, IncludedTx } from '../types.js'
import { batchable, executeRequest, saysSupported, supportsBatchRequest } from './erc7821.js'
import {
  AtomicityNotSupportedError,
  BundleTooLargeError,
  DuplicateBundleIdError,
  UnauthorizedAccountError,
  UnknownBundleIdError,
  UnsupportedCapabilityError,
  UnsupportedChainError,
} from './errors.js'
import { planGas, type SimulateCalls } from './plan.js'
import { bundleStatus, type CallOutcome } from './status.js'

/** Calls one bundle may hold: a bound, so one request cannot queue an unbounded run of sends. */
export const MAX_CALLS = 256
/** Bundles remembered for wallet_getCallsStatus; the oldest are forgotten past this. */
export const MAX_BUNDLES = 10_000

/** A capability as an app passes it: its own fields, and `optional: true` when it may be ignored. */
export type CapabilityRequest = Record<string, unknown> & { optional?: unknown }
export type CapabilityRequests = Record<string, CapabilityRequest>

export interface CallInput {
  to?: Uint8Array
  data?: Uint8Array
  value?: bigint
  capabilities?: CapabilityRequests
}

/** wallet_sendCalls' request, parsed (rpc/methods/wallet.ts). */
export interface SendCallsInput {
  chainId: bigint
  /** Absent: the node's first dev account, as a wallet picks its selected account. */
  from?: Uint8Array
  /** The app's id for the bundle; absent, the node makes one. */
  id?: string
  atomicRequired: boolean
  calls: CallInput[]
  capabilities?: CapabilityRequests
}

/** What the service needs of the node: who it sends for, how it sends, what became of a transaction. */
export interface WalletCallsParts {
  chainId: bigint
  /** Whether eth_sendTransaction from `address` would be sent (a dev key, or impersonated). */
  holds(address: Uint8Array): boolean
  defaultSender(): Uint8Array | undefined
  /** eth_call on the pre-confirmed state: the output. */
  call(req: CallRequest): Promise<Uint8Array>
  /** The calls in order on the pre-confirmed state (eth_simulateV1 without validation). */
  simulate: SimulateCalls
  /** eth_sendTransaction's path: fills, signs (or sends unsigned), pools; the hash. */
  send(req: CallRequest): Promise<Uint8Array>
  /** The transaction's receipt, sealed or pre-confirmed, when it is visible. */
  receipt(hash: Uint8Array): IncludedTx | undefined
  /** Whether the transaction still waits: in the pool, or in a block not yet shown. */
  waiting(hash: Uint8Array): boolean
  log(line: string): void
}

interface Bundle {
  /** One per call, in order; undefined for a call not sent (a call before it failed to send). */
  hashes: (Uint8Array | undefined)[]
}

/** A bundle as wallet_getCallsStatus reports it. */
export interface BundleStatus {
  id: string
  chainId: bigint
  status: number
  /** True only for a single call, which one transaction runs atomically. */
  atomic: boolean
  receipts: IncludedTx[]
}

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`

export class WalletCalls {
  private readonly bundles = new Map<string, Bundle>()
  private readonly senders = new SenderLocks()

  constructor(private readonly parts: WalletCallsParts) {}

  /** wallet_getCapabilities: per chain (the node's one), what the node offers for `address`. */
  async capabilities(address: Uint8Array | undefined, chainIds?: bigint[]): Promise<Record<string, Record<string, unknown>>> {
    if (address && !this.parts.holds(address)) throw new UnauthorizedAccountError(hex(address))
    const { chainId } = this.parts
    if (chainIds && !chainIds.includes(chainId)) return {}
    const status = address && (await this.canBatch(address)) ? 'supported' : 'unsupported'
    return { [`0x${chainId.toString(16)}`]: { atomic: { status } } }
  }

  /** wallet_sendCalls: checks the request, then sends each call in order; the bundle's id. */
  async sendCalls(input: SendCallsInput): Promise<string> {
    const { parts } = this
    if (input.chainId !== parts.chainId) throw new UnsupportedChainError(input.chainId, parts.chainId)
    const from = input.from ?? parts.defaultSender()
    if (!from || !parts.holds(from)) throw new UnauthorizedAccountError(from ? hex(from) : 'none')
    requireSupported(input.capabilities)
    for (const call of input.calls) requireSupported(call.capabilities)
    if (input.calls.length > MAX_CALLS) throw new BundleTooLargeError(input.calls.length, MAX_CALLS)
    if (input.id !== undefined && this.bundles.has(input.id)) throw new DuplicateBundleIdError()
    let requests: CallRequest[] = input.calls.map((call) => ({ from, to: call.to, data: call.data, value: call.value }))
    // Several calls: one transaction when the account can batch them, else one each (unless the
    // app requires atomicity). A single call is one transaction either way.
    if (requests.length > 1 && batchable(requests) && (await this.canBatch(from))) requests = [executeRequest(from, requests)]
    else if (input.atomicRequired && requests.length > 1) throw new AtomicityNotSupportedError()
    // One bundle at a time per sender, so a bundle's transactions take consecutive nonces.
    return this.senders.with(hex(from), () => this.send(requests, input.id))
  }

  /** Measures, then sends each call in order; the bundle's id. */
  private async send(requests: CallRequest[], appId: string | undefined): Promise<string> {
    const { parts } = this
    const gas = await planGas(parts.simulate, requests)
    // Checked again: another request may have taken the id while this one waited.
    if (appId !== undefined && this.bundles.has(appId)) throw new DuplicateBundleIdError()
    const id = appId ?? hex(randomBytes(32))
    // Held before the first send, so a second request with the same id is refused meanwhile.
    const bundle: Bundle = { hashes: requests.map(() => undefined) }
    this.remember(id, bundle)
    for (const [i, req] of requests.entries()) {
      try {
        bundle.hashes[i] = await parts.send({ ...req, gas: gas[i] })
      } catch (error) {
        // Nothing sent: the request fails as eth_sendTransaction would. Later: the EIP's "SHOULD
        // stop executing the calls if any call fails"; the bundle ends as a partial failure.
        if (i === 0) {
          this.bundles.delete(id)
          throw error
        }
        parts.log(`wallet_sendCalls ${id}: call ${i} not sent (${(error as Error).message}); the calls after it were not sent`)
        break
      }
    }
    return id
  }

  /** wallet_getCallsStatus. */
  status(id: string): BundleStatus {
    const bundle = this.bundles.get(id)
    if (!bundle) throw new UnknownBundleIdError()
    const receipts: IncludedTx[] = []
    const outcomes = bundle.hashes.map((hash): CallOutcome => {
      if (!hash) return 'gone'
      const included = this.parts.receipt(hash)
      if (included) {
        receipts.push(included)
        return included.receipt.status === 1 ? 'success' : 'reverted'
      }
      return this.parts.waiting(hash) ? 'pooled' : 'gone'
    })
    return { id, chainId: this.parts.chainId, status: bundleStatus(outcomes), atomic: bundle.hashes.length === 1, receipts }
  }

  /** wallet_showCallsStatus: a node has no screen, so the status goes to its log. */
  show(id: string): void {
    const { status, receipts } = this.status(id)
    const hashes = receipts.map((r) => hex(r.tx.hash)).join(', ')
    this.parts.log(`wallet_showCallsStatus ${id}: status ${status}, ${receipts.length} receipt(s)${hashes ? `: ${hashes}` : ''}`)
  }

  /** Whether `account` runs ERC-7821 batches (asked by eth_call; a failing call is a no). */
  private async canBatch(account: Uint8Array): Promise<boolean> {
    try {
      return saysSupported(await this.parts.call(supportsBatchRequest(account)))
    } catch {
      return false
    }
  }

  private remember(id: string, bundle: Bundle): void {
    if (this.bundles.size >= MAX_BUNDLES) {
      const oldest = this.bundles.keys().next().value
      if (oldest !== undefined) this.bundles.delete(oldest)
    }
    this.bundles.set(id, bundle)
  }
}

/** EIP-5792: a capability the node does not know fails the request unless marked optional. */
function requireSupported(capabilities: CapabilityRequests | undefined): void {
  for (const [name, value] of Object.entries(capabilities ?? {})) {
    if (value.optional !== true) throw new UnsupportedCapabilityError(name)
  }
}
