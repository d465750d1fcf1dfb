// The node's handle on a state: accounts, code and storage in plain values, read and written
// through the engine's state manager (ExecView adds execution on top). Callers run everything
// inside the engine's serial queue.
import { RLP } from '@ethereumjs/rlp'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, Address, equalsBytes, KECCAK256_NULL } from '@ethereumjs/util'
import type { AccountEntry } from './store/account-cache.js'
import { ForkStateManager } from './store/fork-state.js'
import { type AccountProof, proveAccount } from './store/proof.js'

interface PeekCaches {
  account?: { get(a: Address): AccountEntry | undefined }
  code?: { get(a: Address): { code?: Uint8Array } | undefined }
  storage?: { get(a: Address, key: Uint8Array): Uint8Array | undefined }
}

/** Cache-only state reads: undefined = not cached, null = known absent account. */
export interface StatePeek {
  account(address: Uint8Array): AccountState | null | undefined
  code(address: Uint8Array): Uint8Array | undefined
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array | undefined
}

export interface AccountState {
  nonce: bigint
  balance: bigint
  codeHash: Uint8Array
  storageRoot: Uint8Array
}

/** Accounts, code and storage of one state root; writes stay in it until commit. */
export class StateView {
  /** @internal */
  constructor(readonly sm: MerkleStateManager) {}

  async account(address: Uint8Array): Promise<AccountState | undefined> {
    const a = await this.sm.getAccount(new Address(address))
    return a && { nonce: a.nonce, balance: a.balance, codeHash: a.codeHash, storageRoot: a.storageRoot }
  }

  async nonce(address: Uint8Array): Promise<bigint> {
    return (await this.sm.getAccount(new Address(address)))?.nonce ?? 0n
  }

  async balance(address: Uint8Array): Promise<bigint> {
    return (await this.sm.getAccount(new Address(address)))?.balance ?? 0n
  }

  code(address: Uint8Array): Promise<Uint8Array> {
    return this.sm.getCode(new Address(address))
  }

  /** Whether the account has code other than an EIP-7702 delegation. */
  async hasCode(address: Uint8Array): Promise<boolean> {
    const a = await this.sm.getAccount(new Address(address))
    return a !== undefined && !equalsBytes(a.codeHash, KECCAK256_NULL)
  }

  /** The slot's value, left-padded to 32 bytes (zero for an absent account or slot). */
  async storage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const addr = new Address(address)
    const out = new Uint8Array(32)
    if (!(await this.sm.getAccount(addr))) return out
    const value = await this.sm.getStorage(addr, slot)
    out.set(value, 32 - value.length)
    return out
  }

  /**
   * Synchronous reads from the state's cache (what execution has loaded), for JS tracers whose
   * `db` answers at once: undefined when the cache does not hold it. Reads the protected caches
   * (selfcheck.ts checks their shape).
   */
  peek(): StatePeek {
    const caches = (this.sm as unknown as { _caches?: PeekCaches })._caches
    return {
      account: (address) => {
        const elem = caches?.account?.get(new Address(address))
        if (elem === undefined) return undefined
        const a = elem.account
        if (a === undefined) return null
        if (this.sm instanceof ForkStateManager && this.sm.link.isTombstone(a)) return null
        return { nonce: a.nonce, balance: a.balance, codeHash: a.codeHash, storageRoot: a.storageRoot }
      },
      code: (address) => caches?.code?.get(new Address(address))?.code,
      storage: (address, slot) => {
        const raw = caches?.storage?.get(new Address(address), slot)
        if (raw === undefined) return undefined
        const value = RLP.decode(raw) as Uint8Array
        const out = new Uint8Array(32)
        out.set(value, 32 - value.length)
        return out
      },
    }
  }

  /** Creates or updates an account; absent fields keep their value (0 for a new account). */
  async putAccount(address: Uint8Array, fields: { nonce?: bigint; balance?: bigint }): Promise<void> {
    const addr = new Address(address)
    const account = (await this.sm.getAccount(addr)) ?? new Account()
    if (fields.nonce !== undefined) account.nonce = fields.nonce
    if (fields.balance !== undefined) account.balance = fields.balance
    await this.sm.putAccount(addr, account)
  }

  async putCode(address: Uint8Array, code: Uint8Array): Promise<void> {
    await this.sm.putCode(new Address(address), code)
  }

  /** Writes a slot, creating the account when it does not exist (as anvil_setStorageAt does). */
  async putStorage(address: Uint8Array, slot: Uint8Array, value: Uint8Array): Promise<void> {
    const addr = new Address(address)
    if (!(await this.sm.getAccount(addr))) await this.sm.putAccount(addr, new Account())
    await this.sm.putStorage(addr, slot, value)
  }

  async clearStorage(address: Uint8Array): Promise<void> {
    await this.sm.clearStorage(new Address(address))
  }

  /** EIP-1186 proof of the account and of `slots` (32-byte keys) in this state. */
  proof(address: Uint8Array, slots: Uint8Array[]): Promise<AccountProof> {
    return proveAccount(this.sm, address, slots)
  }

  checkpoint(): Promise<void> {
    return this.sm.checkpoint()
  }

  commit(): Promise<void> {
    return this.sm.commit()
  }

  revert(): Promise<void> {
    return this.sm.revert()
  }

  root(): Promise<Uint8Array> {
    return this.sm.getStateRoot()
  }

  setRoot(root: Uint8Array): Promise<void> {
    return this.sm.setStateRoot(root)
  }
}

/** What executing a transaction did, in plain values. */
