// The chain's first blocks (anvil's backend/genesis.rs): the dev genesis (funded dev accounts, the
// system contracts, pcnode's predeploys) or a geth genesis file with an optional chain import.
import { berylUpgrades, crossBeryl } from '../b20/upgrades.js'
import type { Chain } from '../chain/chain.js'
import { type Engine, genesisFileBlock, importChainFile } from '../engine/index.js'
import type { Fork } from '../fork/fork.js'
import { writeForkGenesis } from '../fork/genesis.js'
import { emptyHeader } from '../header-fields.js'
import { installBaseTime } from '../opstack/base-time.js'
import { DENIM_SCALING } from '../opstack/denim.js'
import { BASE_EIP1559, BASE_L1_FEES, encodeExtraData, type L1FeeParams, PREDEPLOYS } from '../opstack/params.js'
import type { ResolvedOptions } from '../options.js'
import { getProfile } from '../profile.js'
import type { BlockRecord } from '../types.js'
import { installOpStack } from './opstack.js'
import { installPaymasters } from './paymasters.js'
import { installPredeploys } from './predeploys.js'

/**
 * Writes the genesis state and puts block 0 (and imported blocks) on `chain`. `opStack`: the OP
 * predeploys and preinstalls too, and Jovian's extraData from block 0; `denimTime` (profile base):
 * when Denim activates, the BaseTime predeploy in genesis if it is active there. On a fork, the
 * fork block instead, with the dev accounts funded over the upstream's state.
 */
export async function writeGenesis(
  engine: Engine,
  chain: Chain,
  options: ResolvedOptions,
  alloc: Array<{ address: Uint8Array; balance: bigint }>,
  opStack: boolean,
  denimTime: bigint | undefined,
  fork?: Fork,
): Promise<void> {
  if (fork) return writeForkGenesis(engine, chain, fork, alloc, opStack)
  if (engine.genesisFile) return fileGenesis(engine, chain, options)
  chain.addSealed(await devGenesis(engine, options, alloc, opStack, denimTime))
}

/** The dev genesis: the accounts of `alloc` funded, the system contracts and predeploys installed. */
async function devGenesis(
  engine: Engine,
  options: ResolvedOptions,
  alloc: Array<{ address: Uint8Array; balance: bigint }>,
  opStack: boolean,
  denimTime: bigint | undefined,
): Promise<BlockRecord> {
  const { live } = engine
  const timestamp = BigInt(Math.floor(Date.now() / 1000))
  // A chain Denim from genesis installs BaseTime there, with Denim's EIP-1559 denominator (base/docs 200ms-blocks).
  const denim = denimTime !== undefined && timestamp >= denimTime
  await live.checkpoint()
  for (const { address, balance } of alloc) await live.putAccount(address, { nonce: 0n, balance })
  await engine.installSystemContracts(live)
  await installPredeploys(engine) // the smart-wallet factory and implementation
  if (opStack) await installOpStack(live, engine.chainId, l1FeesOf(options), timestamp)
  if (opStack) await installPaymasters(engine) // pcnode's development paymasters, deposits in their EntryPoints
  if (denim) await installBaseTime(live)
  // The B20 precompiles when Beryl is active at genesis (b20/upgrades.ts; Beryl precedes Denim).
  await crossBeryl(live, timestamp, berylUpgrades(getProfile(options.profile), { ...options, denimTime }))
  await live.commit()
  const eip1559 = denim ? { ...BASE_EIP1559, denominator: BASE_EIP1559.denominator * DENIM_SCALING } : BASE_EIP1559
  const header = emptyHeader({
    timestamp,
    gasLimit: options.gasLimit,
    baseFeePerGas: options.baseFee,
    stateRoot: await live.root(),
    ...(opStack ? { extraData: encodeExtraData(eip1559), coinbase: PREDEPLOYS.SequencerFeeVault } : {}),
  })
  const view = engine.header(header)
  return { header, hash: view.hash(), sealed: true, txs: [], flashblocks: 0, size: BigInt(view.size()) + 3n }
}

/** The L1 values the options give (the rest Base's defaults). */
export function l1FeesOf(options: ResolvedOptions): L1FeeParams {
  return {
    ...BASE_L1_FEES,
    baseFee: options.l1BaseFee,
    blobBaseFee: options.l1BlobBaseFee,
    baseFeeScalar: options.l1BaseFeeScalar,
    blobBaseFeeScalar: options.l1BlobBaseFeeScalar,
  }
}

/** --genesis FILE (and --import FILE): geth's genesis, then the imported blocks. */
async function fileGenesis(engine: Engine, chain: Chain, options: ResolvedOptions): Promise<void> {
  chain.addSealed(await genesisFileBlock(engine))
  if (options.importFile) await importChainFile(engine, options.importFile, chain.head, (block) => chain.addSealed(block))
  const head = chain.head.header
  engine.setHardforkFor(head.number + 1n, head.timestamp + 1n)
  if (options.mining && !engine.isProofOfStake()) {
    throw new Error(
      `cannot produce blocks on a ${engine.hardfork()} head (pcnode builds post-merge blocks only): import up to the merge or start with --no-mining`,
    )
  }
}
