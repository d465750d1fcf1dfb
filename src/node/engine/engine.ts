// The engine: one Common, one VM over one state trie, views of older states, and the serial queue
// every state access goes through. The only door to ethereumjs: everything outside engine/ speaks
// the node's own records (types.ts) and the plain-valued views of view.ts.
import { type Common, createCustomCommon, Mainnet } from '@ethereumjs/common'
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm'
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { Caches, type MerkleStateManager } from '@ethereumjs/statemanager'
import { Address, bigIntToUnpaddedBytes, generateAddress } from '@ethereumjs/util'
import { createVM, type VM } from '@ethereumjs/vm'
import type { CallRequest, HeaderFields, TxRecord, Withdrawal } from '../types.js'
import { commonFromGenesis, type GethGenesis, readGenesisFile } from './genesis-file.js'
import { absentHeaderFields, BlockEnv, HeaderView, withdrawalRaw } from './header.js'
import { installB20Code } from './hooks/b20-code.js'
import type { B20Forks } from './hooks/b20-forks.js'
import { type DepositInput, decodeDeposit, depositRecord, encodeDeposit } from './opstack/deposit.js'
import { SerialQueue } from './queue.js'
import { DEPOSIT_TX_TYPE } from './receipts.js'
import { selfCheck } from './selfcheck.js'
import { StateView } from './state-view.js'
import { ForkLink, type ForkSource, ForkStateManager } from './store/fork-state.js'
import { FastStateManager, NodeStore } from './store/state.js'
import { type AccountDump, dumpAccounts, type ForkDump, writeAccounts } from './store/state-io.js'
import { orderedTrieRoot } from './store/trie.js'
import { applySystemWrites, BEACON_ROOTS_ADDRESS, HISTORY_ADDRESS, installSystemContracts } from './system-contracts.js'
import { isBlobNetworkWrapper } from './tx/blob-wrapper.js'
import { buildTransaction, type TxFields, unsignedTransaction } from './tx/build.js'
import { callRecord } from './tx/call.js'
import { decodeBlobTransaction, decodeTransaction, restoreTransaction } from './tx/decode.js'
import { floorDataGas, intrinsicGas, lazyTransaction } from './tx/record.js'
import { ExecView } from './view.js'
import { indexActivatedEips } from './vm/commons.js'
import { fastCrypto } from './vm/crypto.js'
import { WeakHardforkListeners } from './vm/hardfork-listeners.js'
import { installFastInterpreter } from './vm/interpreter.js'

/**
 * What BLOCKHASH reads: ethereumjs asks `blockchain.getBlock(n).hash()`; the node points `lookup`
 * at its chain. Unknown numbers give the zero hash, as the opcode wants.
 */
export class BlockHashes implements EVMMockBlockchainInterface {
  lookup: (n: bigint) => Uint8Array | undefined = () => undefined
  /** On a fork: the hashes of blocks before the local chain's first (the fork block). */
  remote: ((n: bigint) => Promise<Uint8Array | undefined>) | undefined

  async getBlock(n: number): Promise<{ hash(): Uint8Array }> {
    const number = BigInt(n)
    const hash = this.lookup(number) ?? (await this.remote?.(number)) ?? new Uint8Array(32)
    return { hash: () => hash }
  }

  async putBlock(): Promise<void> {}

  shallowCopy(): BlockHashes {
    return this
  }
}

const SYSTEM_ADDRESSES = [HISTORY_ADDRESS, BEACON_ROOTS_ADDRESS]

/** How many read-only views of older states stay cached (latest and the blocks just before it). */
const CACHED_VIEWS = 8

/** What the engine is built from (the node's options satisfy it; reth's EVM takes a chain spec, not the CLI's config). */
export interface EngineConfig {
  chainId: number
  hardfork: string
  /** geth-format genesis file ('' = none): its chain id and forks replace the two above. */
  genesisFile: string
}

export class Engine {
  readonly queue = new SerialQueue()
  /** The live state: the pending (pre-confirmed) block runs on it. */
  readonly live: ExecView
  /** Where Solidity console.log calls go (the node prints them); executions opt in (`console: true`). */
  consoleLog: ((data: Uint8Array) => void) | undefined
  /** When Base's Cobalt and Denim activate: the B20 registries run the block's logic version (assemble sets them). */
  readonly b20Forks: B20Forks = { cobalt: undefined, denim: undefined }
  private readonly views = new Map<string, Promise<ExecView>>()
  /** Views' VMs follow hardfork changes without the Common keeping them alive. */
  private readonly viewListeners: WeakHardforkListeners

  private constructor(
    /** @internal ethereumjs' Common: hardfork rules and gas parameters. */
    readonly common: Common,
    /** @internal */
    readonly state: ForkStateManager,
    /** The trie nodes and code of every state root the node still holds (storage/pruning.ts). */
    readonly nodes: NodeStore,
    vm: VM,
    /** What BLOCKHASH reads; the node points it at its chain. */
    readonly blockHashes: BlockHashes,
    readonly keccak: (data: Uint8Array) => Uint8Array,
    /** The geth genesis the node started from (--genesis), if any. */
    readonly genesisFile: GethGenesis | undefined,
  ) {
    installB20Code(vm, this.b20Forks)
    this.live = new ExecView(vm, common, () => this.consoleLog)
    this.viewListeners = new WeakHardforkListeners(common)
  }

  static async create(options: EngineConfig): Promise<Engine> {
    const customCrypto = await fastCrypto()
    const genesisFile = options.genesisFile ? readGenesisFile(options.genesisFile) : undefined
    const common = genesisFile
      ? commonFromGenesis(genesisFile, customCrypto)
      : createCustomCommon({ chainId: options.chainId as never, name: 'pcnode' }, Mainnet, {
          hardfork: options.hardfork,
          customCrypto,
        })
    indexActivatedEips(common)
    const nodes = new NodeStore()
    const keccak = customCrypto.keccak256 ?? ((d: Uint8Array) => common.customCrypto.keccak256!(d))
    const state = ForkStateManager.createLive(common, nodes, new ForkLink(keccak))
    const blockHashes = new BlockHashes()
    const vm = await createVM({ common, stateManager: state, blockchain: blockHashes })
    await installFastInterpreter(vm)
    const engine = new Engine(common, state, nodes, vm, blockHashes, keccak, genesisFile)
    await selfCheck(engine)
    return engine
  }

  // --- fork mode (node/fork/) -----------------------------------------------------------------

  /**
   * Reads what the local state lacks from `source` (a fork's upstream at its fork block), or from
   * nothing again. Views of older states are dropped: they read through the previous source.
   */
  attachFork(source: ForkSource | undefined): void {
    this.state.link.attach(source)
    this.blockHashes.remote = source && ((n) => source.blockHash(n))
    this.views.clear()
  }

  get forked(): boolean {
    return this.state.link.source !== undefined
  }

  get chainId(): bigint {
    return this.common.chainId()
  }

  hardfork(): string {
    return this.common.hardfork()
  }

  isActive(eip: number): boolean {
    return this.common.isActivatedEIP(eip)
  }

  /** Whether blocks under the current hardfork are proof-of-stake (pcnode builds only those). */
  isProofOfStake(): boolean {
    return this.common.consensusType() === 'pos'
  }

  /** The proof-of-work block reward (5, 3, 2 ETH by hardfork), 0 after the merge. */
  powBlockReward(): bigint {
    return this.isProofOfStake() ? 0n : this.common.param('minerReward')
  }

  /** Gas of one blob (EIP-4844), under the current hardfork. */
  blobGasPerBlob(): bigint {
    return this.common.param('blobGasPerBlob')
  }

  maxBlobGasPerBlock(): bigint {
    return BigInt(this.common.getBlobGasSchedule().maxBlobGasPerBlock)
  }

  /** EIP-7825 per-transaction gas cap (2^24), when the hardfork has it. */
  txGasCap(): bigint | undefined {
    return this.common.isActivatedEIP(7825) ? 16_777_216n : undefined
  }

  /** Header fields blocks of the current hardfork do not have (no base fee before London…). */
  absentHeaderFields(): Array<keyof HeaderFields> {
    return absentHeaderFields(this.common)
  }

  /** The current hardfork, to put back after work on blocks of another (eth_simulateV1 on old blocks). */
  saveHardfork(): () => void {
    const saved = this.common.hardfork()
    return () => {
      if (this.common.hardfork() !== saved) this.common.setHardfork(saved)
    }
  }

  /** With a genesis file: moves the Common to the hardfork of a block (number, timestamp). */
  setHardforkFor(blockNumber: bigint, timestamp: bigint): void {
    if (this.genesisFile) this.common.setHardforkBy({ blockNumber, timestamp })
  }

  /**
   * The live account as the cache holds it, without touching the trie: `null` when known absent,
   * `undefined` when not cached. Synchronous, so safe outside the serial queue (between two
   * transactions of a flashblock the cache is consistent).
   */
  peekAccount(address: Uint8Array): { nonce: bigint; balance: bigint } | null | undefined {
    return this.state.peekAccount(new Address(address))
  }

  // --- views of states --------------------------------------------------------------------------

  /** A read-only view of the state at `stateRoot` (an older block's). Cached per root. */
  viewAt(stateRoot: Uint8Array): Promise<ExecView> {
    const key = Buffer.from(stateRoot).toString('hex')
    let view = this.views.get(key)
    if (!view) {
      view = this.freshViewAt(stateRoot)
      this.views.set(key, view)
      view.catch(() => this.views.delete(key))
      if (this.views.size > CACHED_VIEWS) this.views.delete(this.views.keys().next().value as string)
    }
    return view
  }

  /** Like viewAt, but a new, uncached view of its own (a throwaway for work that flushes its state). */
  async freshViewAt(stateRoot: Uint8Array): Promise<ExecView> {
    const sm = this.stateOver(new Caches())
    await sm.setStateRoot(stateRoot)
    const vm = await this.viewListeners.adopt(() =>
      createVM({ common: this.common, stateManager: sm, blockchain: this.blockHashes }),
    )
    await installFastInterpreter(vm)
    installB20Code(vm, this.b20Forks)
    return new ExecView(vm, this.common, () => this.consoleLog)
  }

  /** A state at `stateRoot` to write to (dev edits of the head's state); its root() writes them as one batch. */
  async scratchAt(stateRoot: Uint8Array): Promise<StateView> {
    const sm = this.stateOver(new Caches())
    await sm.setStateRoot(stateRoot)
    return new StateView(sm)
  }

  /** A state over the live trie's nodes; on a fork, one that reads through to the upstream too. */
  private stateOver(caches: Caches): MerkleStateManager {
    const opts = { common: this.common, trie: this.trieCopy() as never, caches }
    // FastStateManager, as the live state: upstream's putStorage writes each SSTORE through to the
    // storage trie, which views paid on every call and estimate with storage writes.
    return this.forked ? new ForkStateManager(opts, this.state.link, false) : new FastStateManager(opts, false)
  }

  /** The live trie over the same node store, without its checkpoints (ethereumjs' protected `_trie`). */
  private trieCopy(): MerklePatriciaTrie {
    return (this.state as unknown as { _trie: MerklePatriciaTrie })._trie.shallowCopy(false)
  }

  // --- headers and roots ------------------------------------------------------------------------

  header(fields: HeaderFields): HeaderView {
    return new HeaderView(this.common, fields)
  }

  /** The block transactions of `fields` run in. */
  blockEnv(fields: HeaderFields): BlockEnv {
    return new BlockEnv(this.common, fields)
  }

  /** The block's EIP-4788 / EIP-2935 system writes, where its hardfork has them. */
  applySystemWrites(view: StateView, header: HeaderFields): Promise<void> {
    return applySystemWrites(view.sm, this.common, header)
  }

  /** A fork's start: the system contracts' accounts and code read in parallel (each block writes to them). */
  async prefetchSystemContracts(view: StateView): Promise<void> {
    await Promise.all(SYSTEM_ADDRESSES.map((address) => view.code(address.bytes)))
  }

  /** Genesis: the system contracts' code (EIP-2935, EIP-4788). */
  installSystemContracts(view: StateView): Promise<void> {
    return installSystemContracts(view.sm)
  }

  /** Root of a list trie (transactions, receipts, withdrawals). */
  orderedRoot(values: Uint8Array[]): Uint8Array {
    return orderedTrieRoot(values, this.keccak)
  }

  /** Root of a block's withdrawals list (EIP-4895). */
  withdrawalsRoot(withdrawals: Withdrawal[]): Uint8Array {
    return orderedTrieRoot(
      withdrawals.map((w) => RLP.encode(withdrawalRaw(w))),
      this.keccak,
    )
  }

  // --- transactions -----------------------------------------------------------------------------

  private get decodeContext() {
    return { common: this.common, keccak: this.keccak, chainId: this.chainId }
  }

  /**
   * A signed transaction as eth_sendRawTransaction receives it (geth's texts on refusal), or an
   * OP-stack deposit (type 0x7e, unsigned; the caller decides whether the chain takes them).
   */
  decodeTransaction(raw: Uint8Array): Promise<TxRecord> | TxRecord {
    if (raw[0] === DEPOSIT_TX_TYPE) return depositRecord(this.keccak, decodeDeposit(raw), raw)
    if (isBlobNetworkWrapper(raw)) return decodeBlobTransaction(this.decodeContext, raw)
    return decodeTransaction(this.decodeContext, raw)
  }

  /** An OP-stack deposit transaction (the L1-info deposit every OP block opens with, or a user's). */
  buildDeposit(d: DepositInput): TxRecord {
    const raw = encodeDeposit(d)
    return depositRecord(this.keccak, d, raw)
  }

  buildTransaction(fields: TxFields, signer: { privateKey: Uint8Array } | { impersonated: Uint8Array }): TxRecord {
    return buildTransaction(this.decodeContext, fields, signer)
  }

  /** `fields` unsigned, with a zero signature (eth_fillTransaction's answer). */
  unsignedTransaction(fields: TxFields, from: Uint8Array): TxRecord {
    return unsignedTransaction(this.decodeContext, fields, from)
  }

  restoreTransaction(raw: Uint8Array, impersonatedFrom?: Uint8Array): TxRecord {
    if (raw[0] === DEPOSIT_TX_TYPE) return this.restoreDeposit(raw)
    return restoreTransaction(this.common, this.keccak, raw, impersonatedFrom)
  }

  lazyTransaction(raw: Uint8Array, hash: Uint8Array, from: Uint8Array): TxRecord {
    if (raw[0] === DEPOSIT_TX_TYPE) return this.restoreDeposit(raw)
    return lazyTransaction(this.common, raw, hash, from)
  }

  /** A deposit from a state file (errors worded as restoreTransaction's). */
  private restoreDeposit(raw: Uint8Array): TxRecord {
    try {
      return depositRecord(this.keccak, decodeDeposit(raw), raw)
    } catch (error) {
      throw new Error(`not a transaction (${(error as Error).message})`)
    }
  }

  callRecord(req: CallRequest, gas: bigint, nonce: bigint, raw?: { gasLimit?: bigint; nonce?: bigint }): TxRecord {
    return callRecord(this.decodeContext, req, gas, nonce, raw)
  }

  intrinsicGas(tx: TxRecord): bigint {
    return intrinsicGas(tx)
  }

  floorDataGas(tx: TxRecord): bigint {
    return floorDataGas(tx)
  }

  /** The address a creation from `from` at `nonce` deploys to (CREATE). */
  contractAddress(from: Uint8Array, nonce: bigint): Uint8Array {
    return generateAddress(from, bigIntToUnpaddedBytes(nonce))
  }

  // --- whole states -----------------------------------------------------------------------------

  /** Runs creation code from `caller` on the live state (genesis predeploys); the caller's nonce moves. */
  async runCreation(
    caller: Uint8Array,
    code: Uint8Array,
    gasLimit: bigint,
  ): Promise<{ createdAddress?: Uint8Array; error?: string }> {
    const evm = this.live.vm.evm
    const result = await evm.runCall({ caller: new Address(caller), data: code, gasLimit })
    // Drop the call's warm/touched sets so they don't leak into the first transaction.
    await evm.journal.cleanup()
    return { createdAddress: result.createdAddress?.bytes, error: result.execResult.exceptionError?.error }
  }

  /** Every account of the state at `root`; on a fork, the local changes (deletions and zeroed slots included). */
  dumpAccounts(root: Uint8Array): Promise<AccountDump[]> {
    return dumpAccounts(this.state, this.nodes, root, this.keccak, this.forkDump())
  }

  writeAccounts(accounts: AccountDump[]): Promise<Uint8Array> {
    return writeAccounts(this.state, accounts, this.keccak, this.forkDump())
  }

  private forkDump(): ForkDump | undefined {
    const link = this.state.link
    if (!link.source) return undefined
    return {
      isTombstone: (account) => link.isTombstone(account),
      tombstone: () => link.tombstone(),
      code: async (address, codeHash) => {
        const remote = await link.account(address)
        return remote && Buffer.compare(remote.codeHash, codeHash) === 0 ? remote.code : undefined
      },
    }
  }
}
