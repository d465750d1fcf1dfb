// A geth-format genesis file, loaded exactly as geth does: the Common (block- and time-based forks,
// blobSchedule), the alloc (balance, nonce, code, storage) and the header fields, so the genesis
// hash equals geth's (core/genesis.go).
import { readFileSync } from 'node:fs'
import { type Block, createBlock, type HeaderData } from '@ethereumjs/block'
import { type Common, type CustomCrypto, createCommonFromGethGenesis, parseGethGenesisState } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'

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
    customCrypto,
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
