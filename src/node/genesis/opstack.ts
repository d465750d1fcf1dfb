// An OP-stack genesis (profiles flashblocks and base): the predeploys and preinstalls at their fixed addresses (OP
// specs, predeploys.md and preinstalls.md). L1Block and GasPriceOracle run pcnode's implementations
// of the spec (contracts/); WETH9, L2ToL1MessagePasser and the preinstalls their official code
// (src/contracts/preinstalls.ts says where each comes from); the other predeploys are stubs that
// revert naming themselves, as Hardhat's OP chains have them.
import {
  domainSeparator as eip712DomainSeparator,
  encodeAbiParameters,
  getAddress,
  hexToBytes,
  keccak256,
  toBytes,
  toHex,
} from 'viem'
import { GasPriceOracle, L1Block, PredeployStub } from '../../contracts/artifacts.js'
import { ENTRYPOINT_V08, PERMIT2_TEMPLATE, PREINSTALLS } from '../../contracts/preinstalls.js'
import type { StateView } from '../engine/index.js'
import { genesisL1Block, l1BlockStorage } from '../opstack/l1-block.js'
import { type L1FeeParams, PREDEPLOYS } from '../opstack/params.js'

/** Permit2's canonical address (preinstalls.md). */
export const PERMIT2_ADDRESS = '0x000000000022D473030F116dDEE9F6B43aC78BA3'

/** GasPriceOracle slot 0: isEcotone, isFjord, isIsthmus and isJovian all set. */
const GPO_FLAGS = hexToBytes(toHex(0x01010101n, { size: 32 }))

/** Predeploys with code of their own; every other one in PREDEPLOYS gets the stub. */
const IMPLEMENTED = new Set(['GasPriceOracle', 'L1Block', 'WETH9', 'L2ToL1MessagePasser'])

/** Writes the OP predeploys and preinstalls into `view` (inside the genesis checkpoint). */
export async function installOpStack(view: StateView, chainId: bigint, fees: L1FeeParams, timestamp: bigint): Promise<void> {
  for (const p of PREINSTALLS) await view.putCode(hexToBytes(p.address), hexToBytes(p.code))
  await view.putCode(hexToBytes(PERMIT2_ADDRESS), permit2Code(chainId))
  await view.putCode(hexToBytes(ENTRYPOINT_V08.address), entryPointV08Code(chainId))

  await view.putCode(PREDEPLOYS.L1Block, hexToBytes(L1Block.deployedBytecode))
  for (const [slot, value] of l1BlockStorage(genesisL1Block(fees, timestamp)))
    await view.putStorage(PREDEPLOYS.L1Block, slot, value)
  await view.putCode(PREDEPLOYS.GasPriceOracle, hexToBytes(GasPriceOracle.deployedBytecode))
  await view.putStorage(PREDEPLOYS.GasPriceOracle, new Uint8Array(32), GPO_FLAGS)

  const stub = hexToBytes(PredeployStub.deployedBytecode)
  for (const [name, address] of Object.entries(PREDEPLOYS)) {
    if (IMPLEMENTED.has(name)) continue
    await view.putCode(address, stub)
    await view.putStorage(address, new Uint8Array(32), shortString(name))
  }
}

/** Solidity's storage of a string under 32 bytes: the bytes left-aligned, twice the length last. */
function shortString(value: string): Uint8Array {
  const bytes = toBytes(value)
  if (bytes.length > 31) throw new Error(`predeploy name too long: ${value}`)
  const word = new Uint8Array(32)
  word.set(bytes)
  word[31] = bytes.length * 2
  return word
}

/** Permit2's runtime code for `chainId`: its template with the chain id and EIP-712 domain separator filled in (Preinstalls.sol getPermit2Code). */
export function permit2Code(chainId: bigint): Uint8Array {
  const typeHash = keccak256(toBytes('EIP712Domain(string name,uint256 chainId,address verifyingContract)'))
  const nameHash = keccak256(toBytes('Permit2'))
  const domainSeparator = keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }],
      [typeHash, nameHash, chainId, PERMIT2_ADDRESS],
    ),
  )
  const code = hexToBytes(PERMIT2_TEMPLATE)
  code.set(hexToBytes(toHex(chainId, { size: 32 })), 6945)
  code.set(hexToBytes(domainSeparator), 6983)
  return code
}

/**
 * EntryPoint v0.8's runtime code for `chainId`, as its CREATE2 deployment on that chain leaves it: OpenZeppelin's
 * EIP712 caches the chain id and the domain separator in immutables at construction, so each chain's code differs.
 */
export function entryPointV08Code(chainId: bigint): Uint8Array {
  const separator = eip712DomainSeparator({
    domain: { name: 'ERC4337', version: '1', chainId, verifyingContract: getAddress(ENTRYPOINT_V08.address) },
  })
  const code = hexToBytes(ENTRYPOINT_V08.template)
  for (const at of ENTRYPOINT_V08.chainIdAt) code.set(hexToBytes(toHex(chainId, { size: 32 })), at)
  for (const at of ENTRYPOINT_V08.domainSeparatorAt) code.set(hexToBytes(separator), at)
  return code
}
