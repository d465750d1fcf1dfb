// The OP-stack (Base) chain parameters pcnode runs with: the L1 fee inputs the L1-info deposit
// carries (OP specs jovian/l1-attributes.md), the EIP-1559 parameters of the header's extraData
// (jovian/exec-engine.md), and the predeploy addresses (predeploys.md). Defaults are Base
// mainnet's, read off a recent L1-info deposit receipt and header.

export interface L1FeeParams {
  /** L1 base fee, wei. */
  baseFee: bigint
  /** L1 blob base fee, wei. */
  blobBaseFee: bigint
  baseFeeScalar: bigint
  blobBaseFeeScalar: bigint
  /** Jovian: operator fee = gas * scalar * 100 + constant. */
  operatorFeeScalar: bigint
  operatorFeeConstant: bigint
  /** Jovian: DA footprint gas per estimated compressed byte (0 in the deposit means 400). */
  daFootprintGasScalar: bigint
}

export const BASE_L1_FEES: Readonly<L1FeeParams> = {
  baseFee: 0x6bdbf6fn,
  blobBaseFee: 0x582765n,
  baseFeeScalar: 0x8ddn,
  blobBaseFeeScalar: 0x101c12n,
  operatorFeeScalar: 0n,
  operatorFeeConstant: 0n,
  daFootprintGasScalar: 0x94n,
}

/** EIP-1559 parameters a Jovian header's extraData carries (version 1). */
export interface Eip1559Params {
  denominator: bigint
  elasticity: bigint
  minBaseFee: bigint
}

/** Base mainnet's: extraData 0x01 00000064 00000005 00000000004c4b40. */
export const BASE_EIP1559: Readonly<Eip1559Params> = { denominator: 100n, elasticity: 5n, minBaseFee: 5_000_000n }

/** Jovian extraData: version byte 1, denominator u32, elasticity u32, minimum base fee u64 (17 bytes). */
export function encodeExtraData(p: Eip1559Params): Uint8Array {
  const out = new Uint8Array(17)
  const view = new DataView(out.buffer)
  out[0] = 1
  view.setUint32(1, Number(p.denominator))
  view.setUint32(5, Number(p.elasticity))
  view.setBigUint64(9, p.minBaseFee)
  return out
}

/** The parameters of a Jovian header's extraData, or undefined when it is not version 1. */
export function decodeExtraData(extra: Uint8Array): Eip1559Params | undefined {
  if (extra.length !== 17 || extra[0] !== 1) return undefined
  const view = new DataView(extra.buffer, extra.byteOffset, extra.byteLength)
  return { denominator: BigInt(view.getUint32(1)), elasticity: BigInt(view.getUint32(5)), minBaseFee: view.getBigUint64(9) }
}

const predeploy = (suffix: string) => Uint8Array.from(Buffer.from(`42000000000000000000000000000000000000${suffix}`, 'hex'))

/** OP predeploys (specs/protocol/predeploys.md). */
export const PREDEPLOYS = {
  WETH9: predeploy('06'),
  L2CrossDomainMessenger: predeploy('07'),
  L2StandardBridge: predeploy('10'),
  SequencerFeeVault: predeploy('11'),
  OptimismMintableERC20Factory: predeploy('12'),
  GasPriceOracle: predeploy('0f'),
  L2ERC721Bridge: predeploy('14'),
  L1Block: predeploy('15'),
  L2ToL1MessagePasser: predeploy('16'),
  OptimismMintableERC721Factory: predeploy('17'),
  ProxyAdmin: predeploy('18'),
  BaseFeeVault: predeploy('19'),
  L1FeeVault: predeploy('1a'),
  OperatorFeeVault: predeploy('1b'),
  SchemaRegistry: predeploy('20'),
  EAS: predeploy('21'),
} as const

/** The account the L1-info deposit comes from (specs/protocol/deposits.md). */
export const DEPOSITOR_ACCOUNT = Uint8Array.from(Buffer.from('deaddeaddeaddeaddeaddeaddeaddeaddead0001', 'hex'))
