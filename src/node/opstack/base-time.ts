// Base's BaseTime predeploy (Denim, 200 ms blocks): the OP predeploy Proxy at 0x4200…0030 in front
// of the implementation at 0xc0d3…0030, and the deposit that sets the block's millisecond part as
// every Denim block's second transaction (base/base crates/consensus/protocol base_time.rs; Base's
// docs, specs/upgrades/denim/200ms-blocks). The proxy's code is the OP stack's own (Base's hash);
// the implementation is pcnode's contracts/BaseTime.sol with Base's ABI and storage.
import { concat, encodeFunctionData, hexToBytes, keccak256, pad, toHex } from 'viem'
import { BaseTime } from '../../contracts/artifacts.js'
import { OP_PROXY_CODE } from '../../contracts/preinstalls.js'
import { sameBytes } from '../bytes.js'
import type { DepositInput, StateView } from '../engine/index.js'
import type { TxRecord } from '../types.js'
import { DEPOSITOR_ACCOUNT, PREDEPLOYS } from './params.js'

/** The BaseTime proxy, where blocks' deposits and contracts call it. */
export const BASE_TIME_ADDRESS = hexToBytes('0x4200000000000000000000000000000000000030')

/** The implementation the proxy delegates to (the OP convention: 0xc0d3… and the predeploy's suffix). */
export const BASE_TIME_IMPLEMENTATION = hexToBytes('0xc0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d30030')

/** EIP-1967 slots: keccak256('eip1967.proxy.implementation') - 1 and keccak256('eip1967.proxy.admin') - 1. */
export const EIP1967_IMPLEMENTATION_SLOT = hexToBytes('0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc')
export const EIP1967_ADMIN_SLOT = hexToBytes('0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103')

/** setTimestampMillisPart(uint16): the BaseTime deposit's selector. */
export const SET_MILLIS_SELECTOR = '0x86bdf394'

/** Gas of the BaseTime deposit: REGOLITH_SYSTEM_TX_GAS, as the L1-info deposit. */
export const BASE_TIME_GAS = 1_000_000n

/** Block time step under Denim: each second holds five blocks, at .000, .200 … .800. */
export const BASE_TIME_STEP_MS = 200

/** Deposit source domain 3 (BaseTime): the number in a 32-byte word. */
const BASE_TIME_SOURCE_DOMAIN = 3n

/**
 * Writes the BaseTime predeploy into `view`: the proxy's and the implementation's code, and the
 * proxy's EIP-1967 implementation and admin (ProxyAdmin) slots. The part (slot 0) starts at 0.
 */
export async function installBaseTime(view: StateView): Promise<void> {
  await view.putCode(BASE_TIME_ADDRESS, hexToBytes(OP_PROXY_CODE))
  await view.putCode(BASE_TIME_IMPLEMENTATION, hexToBytes(BaseTime.deployedBytecode))
  await view.putStorage(BASE_TIME_ADDRESS, EIP1967_IMPLEMENTATION_SLOT, hexToBytes(pad(toHex(BASE_TIME_IMPLEMENTATION))))
  await view.putStorage(BASE_TIME_ADDRESS, EIP1967_ADMIN_SLOT, hexToBytes(pad(toHex(PREDEPLOYS.ProxyAdmin))))
}

/** keccak256(bytes32(3) ‖ keccak256(uint256(blockNumber))): base/base's BaseTimeDepositSource. */
export function baseTimeSourceHash(blockNumber: bigint): Uint8Array {
  const inner = keccak256(toHex(blockNumber, { size: 32 }))
  return hexToBytes(keccak256(concat([toHex(BASE_TIME_SOURCE_DOMAIN, { size: 32 }), inner])))
}

/** Whether `millis` is a part BaseTime accepts: 0, 200, 400, 600 or 800. */
export function isMillisPart(millis: number): boolean {
  return Number.isInteger(millis) && millis >= 0 && millis <= 800 && millis % BASE_TIME_STEP_MS === 0
}

/** The BaseTime deposit of block `blockNumber`, setting its millisecond part to `millis`. */
export function baseTimeDeposit(blockNumber: bigint, millis: number): DepositInput {
  if (!isMillisPart(millis)) throw new RangeError(`BaseTime millisecond part must be 0, 200, 400, 600 or 800, got ${millis}`)
  return {
    sourceHash: baseTimeSourceHash(blockNumber),
    from: DEPOSITOR_ACCOUNT,
    to: BASE_TIME_ADDRESS,
    mint: 0n,
    value: 0n,
    gasLimit: BASE_TIME_GAS,
    isSystemTx: false,
    data: hexToBytes(encodeFunctionData({ abi: BaseTime.abi, functionName: 'setTimestampMillisPart', args: [millis] })),
  }
}

/**
 * The millisecond part a block's transaction sets when it is a BaseTime deposit (a deposit from
 * the depositor to the proxy whose 36-byte input is setTimestampMillisPart with a valid part),
 * else undefined.
 */
export function baseTimeMillisOf(tx: TxRecord): number | undefined {
  if (!tx.deposit || !tx.to || !sameBytes(tx.to, BASE_TIME_ADDRESS) || !sameBytes(tx.from, DEPOSITOR_ACCOUNT)) return undefined
  if (tx.data.length !== 36 || toHex(tx.data.subarray(0, 4)) !== SET_MILLIS_SELECTOR) return undefined
  // The word must be a uint16 as ABI-encoded: 30 zero bytes, then the part big-endian.
  if (tx.data.subarray(4, 34).some((b) => b !== 0)) return undefined
  const millis = (tx.data[34] << 8) | tx.data[35]
  return isMillisPart(millis) ? millis : undefined
}
