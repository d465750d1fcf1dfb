// The L1Block predeploy's values (OP specs: predeploys.md, jovian/l1-attributes.md): read from its
// storage, as op-geth and op-revm read the L1 fee inputs, and written by the L1-info deposit that
// opens every block, whose calldata and source hash are built here. The L1 chain is pcnode's own
// stand-in: a new L1 block (origin) every EPOCH_BLOCKS L2 blocks, with a made-up hash.
import { concat, encodePacked, hexToBytes, keccak256, pad, toHex } from 'viem'
import { getSourceHash } from 'viem/op-stack'
import { hexKey } from '../bytes.js'
import type { DepositInput, StateView } from '../engine/index.js'
import type { TxRecord } from '../types.js'
import { DEPOSITOR_ACCOUNT, type L1FeeParams, PREDEPLOYS } from './params.js'

/** Everything L1Block holds: the fee inputs and the L1 origin. */
export interface L1BlockValues extends L1FeeParams {
  number: bigint
  timestamp: bigint
  hash: Uint8Array
  sequenceNumber: bigint
  batcherHash: Uint8Array
}

/** L2 blocks per L1 origin: Base's 2 s blocks over Ethereum's 12 s slots. */
export const EPOCH_BLOCKS = 6n

/** Gas of the L1-info deposit (post-Regolith). */
export const L1_INFO_GAS = 1_000_000n

/** setL1BlockValuesJovian(): the 178-byte packed calldata's selector. */
const JOVIAN_SELECTOR = '0x3db6be2b'

/** Base mainnet's batcher (the batcherHash of its L1-info deposits). */
const BASE_BATCHER = '0x5050F69a9786F081509234F1a7F4684b5E5b76C9'

const slot = (n: number) => {
  const key = new Uint8Array(32)
  key[31] = n
  return key
}
const big = (bytes: Uint8Array) => BigInt(toHex(bytes))
/** `bits` bits of `word` starting `shift` bits from its low end. */
const field = (word: bigint, shift: number, bits: number) => (word >> BigInt(shift)) & ((1n << BigInt(bits)) - 1n)

/** L1Block's values in the state `view` (its storage layout: contracts/L1Block.sol). */
export async function readL1Block(view: StateView): Promise<L1BlockValues> {
  const at = (n: number) => view.storage(PREDEPLOYS.L1Block, slot(n))
  const [s0, s1, s2, s3, s4, s7, s8] = await Promise.all([0, 1, 2, 3, 4, 7, 8].map(at))
  const w0 = big(s0)
  const w3 = big(s3)
  const w8 = big(s8)
  return {
    number: field(w0, 0, 64),
    timestamp: field(w0, 64, 64),
    baseFee: big(s1),
    hash: s2,
    sequenceNumber: field(w3, 0, 64),
    blobBaseFeeScalar: field(w3, 64, 32),
    baseFeeScalar: field(w3, 96, 32),
    batcherHash: s4,
    blobBaseFee: big(s7),
    operatorFeeConstant: field(w8, 0, 64),
    operatorFeeScalar: field(w8, 64, 32),
    daFootprintGasScalar: field(w8, 96, 16),
  }
}

/** L1Block's storage for `values` (genesis writes it: the values before the first deposit). */
export function l1BlockStorage(v: L1BlockValues): Array<[Uint8Array, Uint8Array]> {
  const word = (value: bigint) => hexToBytes(toHex(value, { size: 32 }))
  return [
    [slot(0), word((v.timestamp << 64n) | v.number)],
    [slot(1), word(v.baseFee)],
    [slot(2), v.hash],
    [slot(3), word((v.baseFeeScalar << 96n) | (v.blobBaseFeeScalar << 64n) | v.sequenceNumber)],
    [slot(4), v.batcherHash],
    [slot(7), word(v.blobBaseFee)],
    [slot(8), word((v.daFootprintGasScalar << 96n) | (v.operatorFeeScalar << 64n) | v.operatorFeeConstant)],
  ]
}

/** The stand-in hash of L1 block `number`. */
function l1Hash(number: bigint): Uint8Array {
  return hexToBytes(keccak256(encodePacked(['string', 'uint64'], ['pcnode L1 block', number])))
}

/** The values before block 1: L1 origin 1, sequence number 0, the given fees. */
export function genesisL1Block(fees: L1FeeParams, timestamp: bigint): L1BlockValues {
  return {
    ...fees,
    number: 1n,
    timestamp,
    hash: l1Hash(1n),
    sequenceNumber: 0n,
    batcherHash: hexToBytes(pad(BASE_BATCHER)),
  }
}

/**
 * The values the next block's L1-info deposit sets: the same L1 origin with the next sequence
 * number, or the next origin every EPOCH_BLOCKS blocks; the fees as they were, with `changes`.
 */
export function nextL1Block(prev: L1BlockValues, changes: Partial<L1FeeParams>, timestamp: bigint): L1BlockValues {
  const newEpoch = prev.sequenceNumber + 1n >= EPOCH_BLOCKS
  const number = newEpoch ? prev.number + 1n : prev.number
  return {
    ...prev,
    ...changes,
    number,
    timestamp: newEpoch ? timestamp : prev.timestamp,
    hash: newEpoch ? l1Hash(number) : prev.hash,
    sequenceNumber: newEpoch ? 0n : prev.sequenceNumber + 1n,
  }
}

/** Whether `tx` is an L1-info deposit (every OP block makes its own; it is never kept or replayed). */
export function isL1InfoDeposit(tx: TxRecord): boolean {
  return (
    tx.deposit !== undefined &&
    hexKey(tx.from) === hexKey(DEPOSITOR_ACCOUNT) &&
    tx.to !== undefined &&
    hexKey(tx.to) === hexKey(PREDEPLOYS.L1Block)
  )
}

/** The Jovian L1-info deposit's calldata: setL1BlockValuesJovian() and 174 packed bytes. */
export function l1InfoCalldata(v: L1BlockValues): Uint8Array {
  const packed = encodePacked(
    ['uint32', 'uint32', 'uint64', 'uint64', 'uint64', 'uint256', 'uint256', 'bytes32', 'bytes32', 'uint32', 'uint64', 'uint16'],
    [
      Number(v.baseFeeScalar),
      Number(v.blobBaseFeeScalar),
      v.sequenceNumber,
      v.timestamp,
      v.number,
      v.baseFee,
      v.blobBaseFee,
      toHex(v.hash),
      toHex(v.batcherHash),
      Number(v.operatorFeeScalar),
      v.operatorFeeConstant,
      Number(v.daFootprintGasScalar),
    ],
  )
  return hexToBytes(concat([JOVIAN_SELECTOR, packed]))
}

/** The L1-info deposit's fields (OP specs, deposits.md#l1-attributes-deposited-transaction). */
export function l1InfoDeposit(v: L1BlockValues): DepositInput {
  const sourceHash = getSourceHash({
    domain: 'l1InfoDeposit',
    l1BlockHash: toHex(v.hash),
    sequenceNumber: Number(v.sequenceNumber),
  })
  return {
    sourceHash: hexToBytes(sourceHash),
    from: DEPOSITOR_ACCOUNT,
    to: PREDEPLOYS.L1Block,
    mint: 0n,
    value: 0n,
    gasLimit: L1_INFO_GAS,
    isSystemTx: false,
    data: l1InfoCalldata(v),
  }
}
