// Shared by the B20 tests (b20.test.ts, b20-token.test.ts): Base's create-params encodings, the
// token's ERC-7201 slots, revert data of an eth_call, and sending and creating through a test node.
import { type Address, encodeAbiParameters, encodeFunctionData, type Hex, keccak256, pad, toHex } from 'viem'
import { expect } from 'vitest'
import { B20_FACTORY_ADDRESS, b20Address, b20FactoryAbi } from '../src/index.js'
import { type TestNode, waitForSealed } from './helpers.js'
export const ASSET = 0
export const STABLECOIN = 1
export const B20_ROOT = 0xc78b71fee795ddd74aff64ea9b2474194c938c3196430e10bb5f01ed48434000n
export const DEFAULT_ADMIN_ROLE = pad('0x00')
export const MINT_ROLE = keccak256(toHex('MINT_ROLE'))
export const TRANSFER_SENDER_POLICY = keccak256(toHex('TRANSFER_SENDER_POLICY'))
export const TRANSFER_RECEIVER_POLICY = keccak256(toHex('TRANSFER_RECEIVER_POLICY'))

export const assetParams = (name: string, symbol: string, admin: Address, decimals: number, version = 1) =>
  encodeAbiParameters(
    [
      {
        type: 'tuple',
        components: [
          { name: 'version', type: 'uint8' },
          { name: 'name', type: 'string' },
          { name: 'symbol', type: 'string' },
          { name: 'initialAdmin', type: 'address' },
          { name: 'decimals', type: 'uint8' },
        ],
      },
    ],
    [{ version, name, symbol, initialAdmin: admin, decimals }],
  )

export const stablecoinParams = (name: string, symbol: string, admin: Address, currency: string) =>
  encodeAbiParameters(
    [
      {
        type: 'tuple',
        components: [
          { name: 'version', type: 'uint8' },
          { name: 'name', type: 'string' },
          { name: 'symbol', type: 'string' },
          { name: 'initialAdmin', type: 'address' },
          { name: 'currency', type: 'string' },
        ],
      },
    ],
    [{ version: 1, name, symbol, initialAdmin: admin, currency }],
  )

/** The revert data of a failed eth_call (code 3), as the node answers it. */
export async function revertData(node: TestNode, from: Address, to: Address, data: Hex): Promise<Hex> {
  const answer = await node.rpc('eth_call', [{ from, to, data }, 'latest'])
  expect(answer.error?.code).toBe(3)
  return answer.error.data
}

/** The slot of `mapping(address => …)` at `offset` of the token's ERC-7201 namespace. */
export const balanceSlot = (holder: Address) =>
  keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder, B20_ROOT + 4n]))

export const salt = (n: number) => pad(toHex(n))

/** Sending a call from dev account `index`, and creating a token through the factory. */
export function b20Actions(node: TestNode) {
  async function send(index: number, to: Address, data: Hex) {
    const hash = await node.wallet(index).sendTransaction({ to, data, gas: 3_000_000n })
    return waitForSealed(node, hash)
  }

  async function createToken(index: number, variant: number, params: Hex, n: number, initCalls: Hex[] = []) {
    const sender = node.accounts[index].address as Address
    const data = encodeFunctionData({
      abi: b20FactoryAbi,
      functionName: 'createB20',
      args: [variant, salt(n), params, initCalls],
    })
    const receipt = await send(index, B20_FACTORY_ADDRESS, data)
    expect(receipt.status).toBe('success')
    return { token: b20Address(variant, sender, salt(n)), receipt }
  }

  return { send, createToken }
}
