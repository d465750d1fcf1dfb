// The system contracts blocks write before their transactions: EIP-4788's beacon-root ring
// buffer and EIP-2935's block-hash history (which BLOCKHASH reads). ethereumjs writes them only
// when the code is in state, so genesis installs it; producer and simulation share these writes.
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, Address, bigIntToBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import type { HeaderFields } from '../types.js'
import type { HistoryContract } from './hooks/opcode-wrappers.js'

export const HISTORY_ADDRESS = new Address(hexToBytes('0x0000F90827F1C53a10cb7A02335B175320002935'))
export const BEACON_ROOTS_ADDRESS = new Address(hexToBytes('0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02'))

const SYSTEM_CODE: Array<[Address, Uint8Array]> = [
  [
    HISTORY_ADDRESS,
    hexToBytes(
      '0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500',
    ),
  ],
  [
    BEACON_ROOTS_ADDRESS,
    hexToBytes(
      '0x3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500',
    ),
  ],
]

/** Puts the system contracts' code in state (genesis, inside its checkpoint). */
export async function installSystemContracts(sm: MerkleStateManager): Promise<void> {
  for (const [address, code] of SYSTEM_CODE) {
    await sm.putAccount(address, new Account(1n, 0n))
    await sm.putCode(address, code)
  }
}

const slotKey = (n: bigint) => setLengthLeft(bigIntToBytes(n), 32)

/** The block's system writes, where its hardfork has them and the contract is deployed. */
export async function applySystemWrites(sm: MerkleStateManager, common: Common, header: HeaderFields): Promise<void> {
  if (common.isActivatedEIP(4788) && (await sm.getCode(BEACON_ROOTS_ADDRESS)).length > 0) {
    const len = BigInt(common.param('historicalRootsLength'))
    const slot = header.timestamp % len
    await sm.putStorage(BEACON_ROOTS_ADDRESS, slotKey(slot), bigIntToBytes(header.timestamp))
    await sm.putStorage(BEACON_ROOTS_ADDRESS, slotKey(slot + len), header.parentBeaconBlockRoot)
  }
  if (common.isActivatedEIP(2935) && (await sm.getCode(HISTORY_ADDRESS)).length > 0) {
    const window = BigInt(common.param('historyServeWindow'))
    await sm.putStorage(HISTORY_ADDRESS, slotKey((header.number - 1n) % window), header.parentHash)
  }
}

/** The EIP-2935 contract BLOCKHASH reads in simulations, when the hardfork has it. */
export function historyContract(common: Common): HistoryContract | undefined {
  return common.isActivatedEIP(2935)
    ? { address: HISTORY_ADDRESS, window: BigInt(common.param('historyServeWindow')) }
    : undefined
}
