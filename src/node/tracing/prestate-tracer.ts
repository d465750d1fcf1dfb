// geth's prestateTracer (eth/tracers/native/prestate.go): every account the transaction touches
// as it was before (balance, code, codeHash, nonce, the storage slots read or written), looked up
// at the moment geth looks it up (the sender, recipient, coinbase and OP fee vaults first; then at
// SLOAD/SSTORE, EXT*/BALANCE/SELFDESTRUCT targets, call targets, creations). Accounts empty before
// the transaction are left out. diffMode: {post, pre} of what changed, unchanged slots and accounts
// dropped, an account created and destroyed in the transaction kept in pre only.
import { OPS, type StepInfo } from '../engine/index.js'
import { NodeError } from '../errors.js'
import { contractAddress, create2Address } from './addresses.js'
import { hex, sortedObject, word } from './format.js'
import type { Tracer, TxContext } from './tracer.js'

export interface PrestateConfig {
  diffMode: boolean
  disableCode: boolean
  disableStorage: boolean
  includeEmpty: boolean
}

const EMPTY_CODE_HASH = 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470'
const DELEGATION = 'ef0100'

interface Account {
  balance: bigint
  /** Left out when the account has none (geth sets Code only for len(code) > 0). */
  code?: Uint8Array
  codeHash?: string
  nonce: bigint
  storage: Map<string, string>
  empty: boolean
}

/** An account in geth's JSON (gen_account_json.go order): balance, code, codeHash, nonce, storage. */
function accountJson(
  a: { balance?: bigint; code?: Uint8Array; codeHash?: string; nonce?: bigint; storage?: Map<string, string> },
  cfg: PrestateConfig,
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (a.balance !== undefined) out.balance = `0x${a.balance.toString(16)}`
  if (a.code !== undefined && !cfg.disableCode) out.code = hex(a.code)
  if (a.codeHash !== undefined) out.codeHash = a.codeHash
  if (a.nonce) out.nonce = Number(a.nonce)
  if (a.storage && a.storage.size > 0) out.storage = sortedObject(a.storage)
  return out
}

export class PrestateTracer implements Tracer {
  private readonly pre = new Map<string, Account>()
  private readonly post = new Map<string, Record<string, unknown>>()
  private readonly created = new Set<string>()
  private readonly deleted = new Set<string>()
  private ctx!: TxContext

  constructor(private readonly cfg: PrestateConfig) {
    if (cfg.diffMode && cfg.includeEmpty) throw new NodeError('cannot use diffMode with includeEmpty')
  }

  readonly hooks = { step: (step: StepInfo) => this.step(step) }

  async txStart(ctx: TxContext): Promise<void> {
    this.ctx = ctx
    const to = ctx.to ?? ctx.created
    if (!ctx.to && ctx.created) this.created.add(hex(ctx.created))
    else if (ctx.to) await this.lookupDelegation(ctx.to)
    await this.lookup(ctx.from)
    if (to) await this.lookup(to)
    await this.lookup(ctx.coinbase)
    // op-geth looks up the L1-fee and base-fee vaults here (OnTxStart, when the chain is Optimism);
    // op-reth's diff holds every account the fees touch, the operator-fee vault too.
    for (const vault of ctx.feeVaults) await this.lookup(vault)
    for (const authority of ctx.authorities) await this.lookup(authority)
  }

  private async lookupDelegation(address: Uint8Array): Promise<void> {
    const code = await this.ctx.state.code(address)
    if (code.length === 23 && Buffer.from(code.subarray(0, 3)).toString('hex') === DELEGATION) await this.lookup(code.subarray(3))
  }

  private async lookup(address: Uint8Array): Promise<void> {
    const key = hex(address)
    if (this.pre.has(key)) return
    const { state } = this.ctx
    const account = await state.account(address)
    const code = account ? await state.code(address) : new Uint8Array()
    const codeHash = account ? Buffer.from(account.codeHash).toString('hex') : undefined
    const entry: Account = {
      balance: account?.balance ?? 0n,
      code: code.length > 0 ? code : undefined,
      codeHash: codeHash && codeHash !== EMPTY_CODE_HASH ? `0x${codeHash}` : undefined,
      nonce: account?.nonce ?? 0n,
      storage: new Map(),
      empty: false,
    }
    entry.empty = !(entry.nonce > 0n || code.length > 0 || entry.balance !== 0n)
    if (this.pre.has(key)) return
    this.pre.set(key, entry)
  }

  private async lookupStorage(address: Uint8Array, slot: bigint): Promise<void> {
    if (this.cfg.disableStorage) return
    const account = this.pre.get(hex(address))
    const key = word(slot)
    if (!account || account.storage.has(key)) return
    const value = await this.ctx.state.storage(address, Buffer.from(key.slice(2), 'hex'))
    if (!account.storage.has(key)) account.storage.set(key, word(value))
  }

  private step(step: StepInfo): Promise<void> | undefined {
    if (step.error !== undefined) return undefined
    const { stack, op } = step
    const n = stack.length
    const address = (v: bigint) => Buffer.from(v.toString(16).padStart(64, '0').slice(24), 'hex')
    switch (op) {
      case OPS.SLOAD:
      case OPS.SSTORE:
        return n >= 1 ? this.lookupStorage(step.address, stack[n - 1]) : undefined
      case OPS.EXTCODECOPY:
      case OPS.EXTCODEHASH:
      case OPS.EXTCODESIZE:
      case OPS.BALANCE:
      case OPS.SELFDESTRUCT: {
        if (n < 1) return undefined
        if (op === OPS.SELFDESTRUCT && this.created.has(hex(step.address))) this.deleted.add(hex(step.address))
        return this.lookup(address(stack[n - 1]))
      }
      case OPS.DELEGATECALL:
      case OPS.CALL:
      case OPS.STATICCALL:
      case OPS.CALLCODE: {
        if (n < 5) return undefined
        const target = address(stack[n - 2])
        return this.lookup(target).then(() => this.lookupDelegation(target))
      }
      case OPS.CREATE:
      case OPS.CREATE2:
        return this.lookupCreate(step)
      default:
        return undefined
    }
  }

  private async lookupCreate(step: StepInfo): Promise<void> {
    const { stack } = step
    const n = stack.length
    let target: Uint8Array
    if (step.op === OPS.CREATE) {
      const nonce = await this.ctx.state.nonce(step.address)
      target = contractAddress(step.address, nonce)
    } else {
      if (n < 4) return
      const offset = Number(stack[n - 2])
      const size = Number(stack[n - 3])
      const init = new Uint8Array(size)
      init.set(step.memory.subarray(offset, offset + size))
      target = create2Address(step.address, stack[n - 4], init)
    }
    await this.lookup(target)
    this.created.add(hex(target))
  }

  async txEnd(): Promise<void> {
    if (this.cfg.diffMode) await this.diff()
    if (this.cfg.includeEmpty) return
    for (const [key, account] of this.pre) if (account.empty) this.pre.delete(key)
  }

  private async diff(): Promise<void> {
    const { state } = this.ctx
    for (const [key, pre] of this.pre) {
      if (this.deleted.has(key)) continue
      const address = Buffer.from(key.slice(2), 'hex')
      const account = await state.account(address)
      const post: { balance?: bigint; code?: Uint8Array; codeHash?: string; nonce?: bigint; storage: Map<string, string> } = {
        storage: new Map(),
      }
      let modified = false
      const balance = account?.balance ?? 0n
      const nonce = account?.nonce ?? 0n
      // An account the transaction touched exists (empty) until the block is finalised: its code hash
      // is the empty one, as geth's statedb answers at OnTxEnd.
      const codeHash = `0x${account ? Buffer.from(account.codeHash).toString('hex') : EMPTY_CODE_HASH}`
      if (balance !== pre.balance) {
        modified = true
        post.balance = balance
      }
      if (nonce !== pre.nonce) {
        modified = true
        post.nonce = nonce
      }
      if (codeHash !== (pre.codeHash ?? `0x${EMPTY_CODE_HASH}`)) {
        modified = true
        post.codeHash = codeHash
      }
      if (!this.cfg.disableCode) {
        const code = account ? await state.code(address) : new Uint8Array()
        if (Buffer.compare(code, pre.code ?? new Uint8Array()) !== 0) {
          modified = true
          post.code = code
        }
      }
      if (!this.cfg.disableStorage) {
        for (const [slot, value] of [...pre.storage]) {
          const zero = /^0x0*$/.test(value)
          if (zero) pre.storage.delete(slot)
          const now = word(await state.storage(address, Buffer.from(slot.slice(2), 'hex')))
          if (now === value) {
            pre.storage.delete(slot)
          } else {
            modified = true
            if (!/^0x0*$/.test(now)) post.storage.set(slot, now)
          }
        }
      }
      if (modified) this.post.set(key, accountJson(post, this.cfg))
      else this.pre.delete(key)
    }
  }

  result(): unknown {
    const pre = sortedObject([...this.pre].map(([k, a]) => [k, accountJson(a, this.cfg)] as [string, unknown]))
    if (!this.cfg.diffMode) return pre
    return { post: sortedObject(this.post), pre }
  }
}
