// ERC-7677's paymaster service for pcnode's development paymaster (contracts/PcnodePaymaster.sol, at
// genesis for EntryPoint v0.6, v0.7 and v0.8): stub data to estimate with (a signature that fails without
// reverting), then the node's signature over the op's final fields. It sponsors every op until told
// to refuse (pcnode_setPaymasterSponsoring false), so an app's refused-sponsorship path can be tested.
import { type Address, concat, decodeFunctionResult, encodeFunctionData, type Hex, hexToBytes, isAddressEqual, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { DEV_PAYMASTERS, PAYMASTER_SIGNER_KEY, PcnodePaymaster, PcnodePaymasterV06 } from '../../contracts/paymaster.js'
import { entryPointAt } from './entry-points.js'
import { InvalidUserOpError, PaymasterRejectedError } from './errors.js'
import type { BundlerParts } from './parts.js'
import { packed, type UserOp } from './user-op.js'

/** validUntil and validAfter, both 0: valid at any time. */
const VALIDITY: Hex = '0x000000000000000000000000'
/** A 65-byte signature ecrecover rejects (r above the group order): validation fails without reverting. */
const STUB_SIGNATURE: Hex =
  '0xfffffffffffffffffffffffffffffff0000000000000000000000000000000007aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1c'

export type PaymasterFields = { paymaster: Address; paymasterData: Hex } | { paymasterAndData: Hex }

export class DevPaymaster {
  private sponsoring = true
  private readonly signer = privateKeyToAccount(PAYMASTER_SIGNER_KEY)

  constructor(private readonly parts: BundlerParts) {}

  /** pcnode_setPaymasterSponsoring. */
  setSponsoring(on: boolean): void {
    this.sponsoring = on
  }

  get isSponsoring(): boolean {
    return this.sponsoring
  }

  /** The paymaster serving `entryPoint` on this chain; refusals as ERC-7677 services send them. */
  private async paymasterFor(entryPoint: Address, chainId: bigint): Promise<Address> {
    if (chainId !== this.parts.chainId) {
      throw new InvalidUserOpError(`chain id ${chainId} is not this chain's (${this.parts.chainId})`)
    }
    const found = DEV_PAYMASTERS.find((p) => isAddressEqual(p.entryPoint, entryPoint))
    if (!found) {
      throw new InvalidUserOpError(`the development paymaster serves EntryPoint v0.6, v0.7 and v0.8, not ${entryPoint}`)
    }
    if ((await this.parts.code(hexToBytes(found.address))).length === 0) {
      throw new PaymasterRejectedError('no development paymaster on this chain (it is deployed at genesis on the OP profiles)')
    }
    if (!this.sponsoring) {
      throw new PaymasterRejectedError('the development paymaster refuses to sponsor (pcnode_setPaymasterSponsoring)')
    }
    return found.address
  }

  /** pm_getPaymasterStubData: fields to estimate with (v0.6: paymasterAndData). */
  async stubData(entryPointAddress: Address, chainId: bigint): Promise<PaymasterFields & { isFinal: false }> {
    const paymaster = await this.paymasterFor(entryPointAddress, chainId)
    return { ...fields(entryPointAddress, paymaster, concat([VALIDITY, STUB_SIGNATURE])), isFinal: false }
  }

  /** pm_getPaymasterData: the node's signature over the op's fields as they will be sent. */
  async data(op: UserOp, entryPointAddress: Address, chainId: bigint): Promise<PaymasterFields> {
    const paymaster = await this.paymasterFor(entryPointAddress, chainId)
    const entryPoint = entryPointAt(entryPointAddress)
    if (!entryPoint) throw new InvalidUserOpError(`EntryPoint ${entryPointAddress} is not supported`)
    const stub = concat([VALIDITY, STUB_SIGNATURE])
    const withPaymaster = (
      entryPoint.version === '0.6'
        ? { ...op, paymasterAndData: concat([paymaster, stub]) }
        : { ...op, paymaster, paymasterData: stub }
    ) as UserOp
    // The hash from the contract itself (getHash), so node and paymaster cannot disagree on it.
    const abi = entryPoint.version === '0.6' ? PcnodePaymasterV06.abi : PcnodePaymaster.abi
    const output = await this.parts.call({
      to: hexToBytes(paymaster),
      data: hexToBytes(
        encodeFunctionData({ abi, functionName: 'getHash', args: [packed(entryPoint, withPaymaster) as never, 0, 0] }),
      ),
    })
    const hash = decodeFunctionResult({ abi, functionName: 'getHash', data: toHex(output) })
    const signature = await this.signer.signMessage({ message: { raw: hash } })
    return fields(entryPointAddress, paymaster, concat([VALIDITY, signature]))
  }
}

/** ERC-7677's answer: paymaster and paymasterData, or for v0.6 paymasterAndData. */
function fields(entryPoint: Address, paymaster: Address, paymasterData: Hex): PaymasterFields {
  const v06 = DEV_PAYMASTERS.find((p) => isAddressEqual(p.entryPoint, entryPoint))?.version === '0.6'
  return v06 ? { paymasterAndData: concat([paymaster, paymasterData]) } : { paymaster, paymasterData }
}
