// The engine: one Common, one VM over one state trie, and the serial queue every state access goes
// through. Block building, calls, estimates and simulations share the VM's journal, so interleaving
// them would corrupt state (DESIGN "Engine notes").
import { type Block, type BlockHeader, createBlock, createBlockHeader, type HeaderData } from '@ethereumjs/block'
import { type Common, createCustomCommon, Mainnet } from '@ethereumjs/common'
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, Address, hexToBytes } from '@ethereumjs/util'
import { createVM, type VM } from '@ethereumjs/vm'
import { installPredeploys } from '../genesis/predeploys.js'
import type { ResolvedOptions } from '../options.js'
import type { HeaderFields } from '../types.js'
import { blockCommon, indexActivatedEips } from './commons.js'
import { fastCrypto } from './crypto.js'
import { activeHeaderData, commonFromGenesis, type GethGenesis, readGenesisFile } from './genesis-file.js'
import { FastStateManager, NodeStore } from './state.js'

// EIP-2935 and EIP-4788 system contracts: ethereumjs only writes their ring buffers when the code
// is in state, and BLOCKHASH / the beacon-root contract read from there.
const SYSTEM_CONTRACTS: Array<[string, string]> = [
  [
    '0x0000F90827F1C53a10cb7A02335B175320002935',
    '0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500',
  ],
  [
    '0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02',
    '0x3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500',
  ],
]
export const BEACON_ROOTS_ADDRESS = new Address(hexToBytes(SYSTEM_CONTRACTS[1][0] as `0x${string}`))
export const HISTORY_ADDRESS = new Address(hexToBytes(SYSTEM_CONTRACTS[0][0] as `0x${string}`))

/** Serial execution queue: each task starts when the previous one has settled. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()
  private depth = 0
  private consistentRunning = false

  /**
   * Queues `task`. `consistent`: the task hands the event loop back only where the state is
   * whole (a flashblock, between two transactions), so others may read the state cache meanwhile.
   */
  run<T>(task: () => Promise<T>, { consistent = false } = {}): Promise<T> {
    this.depth++
    const result = this.tail.then(() => {
      this.consistentRunning = consistent
      return task()
    })
    const done = () => {
      this.depth--
      this.consistentRunning = false
    }
    this.tail = result.then(done, done)
    return result
  }

  get size(): number {
    return this.depth
  }

  /**
   * True when a synchronous read of the state cache sees what a task queued now would: nothing
   * waits in the queue (a queued state change must not be overtaken) and the running task, if
   * any, is a consistent one.
   */
  get readableNow(): boolean {
    return this.depth === 0 || (this.depth === 1 && this.consistentRunning)
  }
}

/**
 * What BLOCKHASH reads: ethereumjs asks `vm.blockchain.getBlock(n).hash()`; the node points
 * `lookup` at its chain once it has one. Unknown numbers give the zero hash, as the opcode wants.
 */
export class BlockHashes {
  lookup: (n: bigint) => Uint8Array | undefined = () => undefined

  async getBlock(n: number) {
    const hash = this.lookup(BigInt(n)) ?? new Uint8Array(32)
    return { hash: () => hash }
  }

  async putBlock(): Promise<void> {}

  shallowCopy(): BlockHashes {
    return this
  }
}

export interface Engine {
  common: Common
  vm: VM
  state: FastStateManager
  /** The trie nodes and code of every state root the node still holds (pruning.ts). */
  nodes: NodeStore
  queue: SerialQueue
  keccak: (data: Uint8Array) => Uint8Array
  /** A read-only VM over the state at `stateRoot` (an older block's). Cached per root. */
  viewAt(stateRoot: Uint8Array): Promise<VM>
  /** Like viewAt but a new, uncached VM of its own (a throwaway for work that flushes its state). */
  freshViewAt(stateRoot: Uint8Array): Promise<VM>
  /** ethereumjs header object for the given fields (hash, next base fee, blob gas price). */
  header(fields: HeaderFields): BlockHeader
  blockHashes: BlockHashes
  /** The geth genesis the node started from (--genesis), if any: genesis-file.ts. */
  genesisFile?: GethGenesis
  /** With a genesis file: moves the Common to the hardfork of a block (number, timestamp). */
  setHardforkFor?: (number: bigint, timestamp: bigint) => void
}

export async function createEngine(options: ResolvedOptions): Promise<Engine> {
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
  const state = FastStateManager.create(common, nodes)
  const blockHashes = new BlockHashes()
  const vm = await createVM({ common, stateManager: state, blockchain: blockHashes as never })
  const keccak = customCrypto.keccak256 ?? ((d: Uint8Array) => common.customCrypto.keccak256!(d))
  const views = new Map<string, Promise<VM>>()

  const freshViewAt = async (stateRoot: Uint8Array): Promise<VM> => {
    const trie = (state as unknown as { _trie: { shallowCopy(includeCheckpoints: boolean): unknown } })._trie
    const sm = new MerkleStateManager({ common, trie: trie.shallowCopy(false) as never, caches: new Caches() })
    await sm.setStateRoot(stateRoot)
    return createVM({ common, stateManager: sm, blockchain: blockHashes as never })
  }

  const viewAt = (stateRoot: Uint8Array): Promise<VM> => {
    const key = Buffer.from(stateRoot).toString('hex')
    let view = views.get(key)
    if (!view) {
      view = freshViewAt(stateRoot)
      views.set(key, view)
      view.catch(() => views.delete(key))
      // A few views cover "latest" and the blocks just before it; older ones are rebuilt on demand.
      if (views.size > 8) views.delete(views.keys().next().value as string)
    }
    return view
  }

  const header = (f: HeaderFields): BlockHeader =>
    createBlockHeader(activeHeaderData(common, toHeaderData(f)), { common: blockCommon(common), setHardfork: false })
  const setHardforkFor = genesisFile
    ? (blockNumber: bigint, timestamp: bigint) => void common.setHardforkBy({ blockNumber, timestamp })
    : undefined

  return {
    common,
    vm,
    state,
    nodes,
    queue: new SerialQueue(),
    keccak,
    viewAt,
    freshViewAt,
    header,
    blockHashes,
    genesisFile,
    setHardforkFor,
  }
}

/** An ethereumjs block for `fields` under `common`'s hardfork, as runTx and the EVM read it. */
export function blockAt(common: Common, fields: HeaderFields): Block {
  return createBlock({ header: toHeaderData(fields) }, { common: blockCommon(common), setHardfork: false })
}

export function toHeaderData(f: HeaderFields): HeaderData {
  return {
    parentHash: f.parentHash,
    number: f.number,
    timestamp: f.timestamp,
    gasLimit: f.gasLimit,
    gasUsed: f.gasUsed,
    baseFeePerGas: f.baseFeePerGas,
    coinbase: f.coinbase,
    stateRoot: f.stateRoot,
    transactionsTrie: f.transactionsRoot,
    receiptTrie: f.receiptsRoot,
    logsBloom: f.logsBloom,
    mixHash: f.mixHash,
    extraData: f.extraData,
    withdrawalsRoot: f.withdrawalsRoot,
    blobGasUsed: f.blobGasUsed,
    excessBlobGas: f.excessBlobGas,
    parentBeaconBlockRoot: f.parentBeaconBlockRoot,
    requestsHash: f.requestsHash,
    difficulty: 0n,
    nonce: new Uint8Array(8),
  }
}

/** Funds the dev accounts and installs the system contracts and predeploys; returns the genesis state root. */
export async function writeGenesisState(
  engine: Engine,
  alloc: Array<{ address: Uint8Array; balance: bigint }>,
): Promise<Uint8Array> {
  const { state } = engine
  await state.checkpoint()
  for (const { address, balance } of alloc) {
    await state.putAccount(new Address(address), new Account(0n, balance))
  }
  for (const [address, code] of SYSTEM_CONTRACTS) {
    const addr = new Address(hexToBytes(address as `0x${string}`))
    await state.putAccount(addr, new Account(1n, 0n))
    await state.putCode(addr, hexToBytes(code as `0x${string}`))
  }
  await installPredeploys(engine) // the smart-wallet factory and implementation (predeploys.ts)
  await state.commit()
  return state.getStateRoot()
}

/** EIP-7825 per-transaction gas cap (2^24), when the hardfork has it. */
export function txGasCap(common: Common): bigint | undefined {
  return common.isActivatedEIP(7825) ? 16_777_216n : undefined
}
