// A geth-format genesis file, loaded exactly as geth does: the Common (block- and time-based forks,
// blobSchedule), the alloc (balance, nonce, code, storage) and the header fields, so the genesis
// hash equals geth's. Settings from research/chain-import-feasibility.md §5.
import { readFileSync } from 'node:fs'
import { type Block, createBlock, type HeaderData } from '@ethereumjs/block'
import { type Common, type CustomCrypto, createCommonFromGethGenesis, parseGethGenesisState } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { KZG } from '@ethereumjs/util'
import type { HeaderFields } from '../types.js'

export interface GethGenesis {
  config: { chainId: number; blobSchedule?: Record<string, { target: number; max: number; baseFeeUpdateFraction: number }> }
  alloc: Record<string, unknown>
  [field: string]: unknown
}

export function readGenesisFile(file: string): GethGenesis {
  let genesis: GethGenesis
  try {
    genesis = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new Error(`cannot read genesis file ${file}: ${(error as Error).message}`)
  }
  if (typeof genesis?.config !== 'object' || typeof genesis.alloc !== 'object') {
    throw new Error(`genesis file ${file}: not a geth genesis (no config or alloc)`)
  }
  return genesis
}

/**
 * KZG for decoding blob transactions from block bodies: ethereumjs requires one on the Common even
 * though importing never calls it (research §3b). Every method throws; proofs are not verified.
 */
export const STUB_KZG: KZG = new Proxy({} as KZG, {
  get: (_, name) => () => {
    throw new Error(`KZG is not available (${String(name)}): blob proofs cannot be verified`)
  },
})

/**
 * The Common for a geth genesis. Starts at chainstart (the blockchain-level consensus follows the
 * block: §3a), and carries the bpoN target/max/fraction from blobSchedule as hardfork params, since
 * ethereumjs 10.1.3's parseGethParams drops them (upstream bug, §3c).
 */
export function commonFromGenesis(genesis: GethGenesis, customCrypto: CustomCrypto): Common {
  const params: Record<string, Record<string, number>> = {}
  for (const [hf, s] of Object.entries(genesis.config.blobSchedule ?? {})) {
    if (hf.startsWith('bpo')) params[hf] = { target: s.target, max: s.max, blobGasPriceUpdateFraction: s.baseFeeUpdateFraction }
  }
  return createCommonFromGethGenesis(genesis as never, {
    chain: 'pcnode-genesis',
    params: params as never,
    hardfork: 'chainstart',
    customCrypto: { kzg: STUB_KZG, ...customCrypto },
  })
}

/** Writes the alloc into `state` (empty, no checkpoints) and returns the genesis block. */
export async function writeGenesisFileState(genesis: GethGenesis, common: Common, state: MerkleStateManager): Promise<Block> {
  await state.generateCanonicalGenesis(parseGethGenesisState(genesis as never))
  const stateRoot = await state.getStateRoot()
  const g = common.genesis()
  const timestamp = BigInt(g.timestamp ?? 0)
  common.setHardforkBy({ blockNumber: 0n, timestamp })
  const header: HeaderData = {
    number: 0n,
    timestamp,
    gasLimit: g.gasLimit,
    difficulty: g.difficulty,
    nonce: g.nonce,
    extraData: g.extraData,
    mixHash: (g as { mixHash?: string }).mixHash as HeaderData['mixHash'],
    coinbase: (g as { coinbase?: string }).coinbase as HeaderData['coinbase'],
    stateRoot,
  }
  // Post-London fields only where the genesis' hardfork has them; ethereumjs fills their defaults.
  if (common.isActivatedEIP(1559) && g.baseFeePerGas !== undefined && g.baseFeePerGas !== null) {
    header.baseFeePerGas = g.baseFeePerGas
  }
  if (common.isActivatedEIP(4844) && g.excessBlobGas !== undefined && g.excessBlobGas !== null) {
    header.excessBlobGas = g.excessBlobGas
  }
  if (common.isActivatedEIP(7685) && g.requestsHash !== undefined) header.requestsHash = g.requestsHash
  return createBlock({ header }, { common, setHardfork: false })
}

const ZERO32 = new Uint8Array(32)
const EMPTY_ROOT = Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex')
const EMPTY_REQUESTS_HASH = Buffer.from('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex')

/** The node's header record of an ethereumjs block (fields a hardfork lacks take neutral values). */
export function headerFieldsOf(block: Block): HeaderFields {
  const h = block.header
  return {
    parentHash: h.parentHash,
    number: h.number,
    timestamp: h.timestamp,
    gasLimit: h.gasLimit,
    gasUsed: h.gasUsed,
    baseFeePerGas: h.baseFeePerGas ?? 0n,
    coinbase: h.coinbase.bytes,
    stateRoot: h.stateRoot,
    transactionsRoot: h.transactionsTrie,
    receiptsRoot: h.receiptTrie,
    logsBloom: h.logsBloom,
    mixHash: h.mixHash,
    extraData: h.extraData,
    withdrawalsRoot: h.withdrawalsRoot ?? EMPTY_ROOT,
    blobGasUsed: h.blobGasUsed ?? 0n,
    excessBlobGas: h.excessBlobGas ?? 0n,
    parentBeaconBlockRoot: h.parentBeaconBlockRoot ?? ZERO32,
    requestsHash: h.requestsHash ?? EMPTY_REQUESTS_HASH,
  }
}

/** Header data with the fields the Common's current hardfork lacks left out (ethereumjs rejects them). */
export function activeHeaderData(common: Common, data: HeaderData): HeaderData {
  const out = { ...data }
  if (!common.isActivatedEIP(1559)) delete out.baseFeePerGas
  if (!common.isActivatedEIP(4895)) delete out.withdrawalsRoot
  if (!common.isActivatedEIP(4844)) {
    delete out.blobGasUsed
    delete out.excessBlobGas
  }
  if (!common.isActivatedEIP(4788)) delete out.parentBeaconBlockRoot
  if (!common.isActivatedEIP(7685)) delete out.requestsHash
  return out
}
