// EIP-5792's errors (and EIP-1193's 4100), each with its code on the class, as rpc/errors.ts maps
// every NodeError by `instanceof`. Texts follow the EIP's error table, which viem's errors/rpc.ts
// classifies by code.
import { NodeError } from '../errors.js'

/** EIP-1193 4100: the account is not one the node holds (no dev key, not impersonated). */
export class UnauthorizedAccountError extends NodeError {
  override readonly code: number = 4100
  constructor(address: string) {
    super(`unknown account ${address}: the node holds no key for it and does not impersonate it`)
  }
}

/** 5700: a capability the node does not support, not marked `optional: true`. */
export class UnsupportedCapabilityError extends NodeError {
  override readonly code: number = 5700
  constructor(name: string) {
    super(`unsupported non-optional capability: ${name}`)
  }
}

/** 5710: a chainId other than the node's. */
export class UnsupportedChainError extends NodeError {
  override readonly code: number = 5710
  constructor(have: bigint, want: bigint) {
    super(`unsupported chain id ${have} (this node serves ${want})`)
  }
}

/** 5720: an app-chosen id already names a bundle. */
export class DuplicateBundleIdError extends NodeError {
  override readonly code: number = 5720
  constructor() {
    super('duplicate bundle id')
  }
}

/** 5730: no bundle has that id. */
export class UnknownBundleIdError extends NodeError {
  override readonly code: number = 5730
  constructor() {
    super('unknown bundle id')
  }
}

/** 5740: more calls than one bundle may hold. */
export class BundleTooLargeError extends NodeError {
  override readonly code: number = 5740
  constructor(count: number, max: number) {
    super(`bundle too large: ${count} calls (at most ${max})`)
  }
}

/** 5750: `atomicRequired` on a node that sends each call as its own transaction. */
export class AtomicityNotSupportedError extends NodeError {
  override readonly code: number = 5750
  constructor() {
    super('atomicity not supported: the node sends each call as its own transaction')
  }
}

/**
 * A call of the bundle that fails when the calls are simulated in order (EIP-5792: the wallet MAY
 * reject such a request): the simulation's code, text and data (code 3 with the revert bytes for a
 * revert, which viem decodes), so the request fails as eth_sendTransaction's estimate would.
 */
export class CallWouldFailError extends NodeError {
  override readonly code: number
  constructor(
    readonly index: number,
    failure: { code: number; message: string; data?: Uint8Array },
  ) {
    super(failure.message, failure.data)
    this.code = failure.code
  }
}
