// Helpers the bundler's reputation tests share: the Reputation.sol fixtures deployed and staked, and
// v0.7 ops built by hand for plain JSON-RPC.
import { type Abi, type Address, encodeFunctionData, getAddress, type Hex, parseEther } from 'viem'
import { entryPoint07Address } from 'viem/account-abstraction'
import { reputationAccountAbi, reputationAccountBytecode } from './fixtures/reputation.js'
import { type TestNode, waitForReceipt } from './helpers.js'

export const EP = entryPoint07Address
export const RECIPIENT: Address = '0x000000000000000000000000000000000000bEEF'
export const ONE_ETH_HEX = '0xde0b6b3a7640000'
const NO_AGGREGATOR: Address = '0x0000000000000000000000000000000000000000'

export async function deploy(node: TestNode, abi: Abi, bytecode: Hex, args: unknown[] = [], value = 0n): Promise<Address> {
  const hash = await node.wallet(0).deployContract({ abi, bytecode, args, value } as never)
  return getAddress((await waitForReceipt(node, hash)).contractAddress as Address)
}

/** A ReputationAccount holding 1 ETH; `aggregator` is what its validation names (none by default). */
export function account(node: TestNode, aggregator: Address = NO_AGGREGATOR) {
  return deploy(node, reputationAccountAbi, reputationAccountBytecode, [aggregator], parseEther('1'))
}

/** A call from the first dev account to one of the Stakable fixtures (stake, deposit, setFailing). */
export async function call(node: TestNode, address: Address, functionName: string, args: unknown[], value = 0n) {
  const hash = await node.wallet(0).sendTransaction({
    to: address,
    value,
    data: encodeFunctionData({ abi: reputationAccountAbi, functionName, args } as never),
  })
  await waitForReceipt(node, hash)
}

/** EntryPoint.addStake from the entity itself: 1 ETH locked for `delay` seconds. */
export function stake(node: TestNode, address: Address, delay = 2) {
  return call(node, address, 'stake', [delay], parseEther('1'))
}

/** A v0.7 op from `sender` with nonce key `key`, paid by `pm` when given. */
export async function op(node: TestNode, sender: Address, key: bigint, pm?: Address) {
  const baseFee = (await node.publicClient.getBlock({ blockTag: 'pending' })).baseFeePerGas ?? 0n
  return {
    sender,
    nonce: `0x${(key << 64n).toString(16)}`,
    callData: encodeFunctionData({ abi: reputationAccountAbi, functionName: 'execute', args: [RECIPIENT, 0n, '0x'] }),
    callGasLimit: '0x30000',
    verificationGasLimit: '0x60000',
    preVerificationGas: '0x30000',
    maxFeePerGas: `0x${(baseFee * 2n + 1_000_000_000n).toString(16)}`,
    maxPriorityFeePerGas: '0x3b9aca00',
    signature: '0x',
    ...(pm
      ? { paymaster: pm, paymasterVerificationGasLimit: '0x30000', paymasterPostOpGasLimit: '0x10000', paymasterData: '0x' }
      : {}),
  }
}

export async function reputationOf(node: TestNode, address: Address) {
  const { result } = await node.rpc('debug_bundler_dumpReputation', [EP])
  return result.find((e: { address: string }) => e.address.toLowerCase() === address.toLowerCase())
}
