// Uniswap V2 on a fresh pair, driven by viem as a dapp ships it (a plain chain, so every read is at
// "latest"), each step's reads made right after waitForTransactionReceipt returns. On the base
// profile (Base after Denim: blocks built whole, no pre-confirmations) the receipt is a sealed
// block's, so the pair, its reserves and the swap's output are all there at "latest".
import { createRequire } from 'node:module'
import { type Abi, type Address, type Hex, keccak256, parseEventLogs, zeroAddress, zeroHash } from 'viem'
import { describe, expect, it } from 'vitest'
import { erc20Abi, erc20Bytecode } from './fixtures/erc20.js'
import { plainClients, type TestNode, useTestNode } from './helpers.js'

interface Artifact {
  abi: Abi
  bytecode: string
}
const require = createRequire(import.meta.url)
const artifact = (path: string): { abi: Abi; bytecode: Hex } => {
  const { abi, bytecode } = require(path) as Artifact
  return { abi, bytecode: (bytecode.startsWith('0x') ? bytecode : `0x${bytecode}`) as Hex }
}
const Factory = artifact('@uniswap/v2-core/build/UniswapV2Factory.json')
const Pair = artifact('@uniswap/v2-core/build/UniswapV2Pair.json')
const Router = artifact('@uniswap/v2-periphery/build/UniswapV2Router02.json')

/** UniswapV2Library.pairFor's hardcoded init code hash: the router finds pairs by CREATE2 with it. */
const PAIR_INIT_CODE_HASH = '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f'
/** WETH9, an OP Stack predeploy: the router's constructor wants one, the workload never touches it. */
const WETH9 = '0x4200000000000000000000000000000000000006'

const SUPPLY = 10n ** 24n
const LIQUIDITY_A = 10n ** 21n
const LIQUIDITY_B = 4n * 10n ** 21n
const SWAP_IN = 10n ** 19n
/**
 * The swap's gas limit, set rather than estimated. eth_estimateGas at "latest" runs in the latest
 * block's context, its timestamp included (geth's DoEstimateGas does the same). When that is
 * addLiquidity's second, the pair's _update skips its price accumulators there; a swap landing in a
 * later second writes both (zero to non-zero, ~44k gas over the estimate) and runs out of gas.
 */
const SWAP_GAS = 300_000n

/** Deploys both tokens, the factory and the router, each waited for. */
async function deployAll(node: TestNode) {
  const { publicClient, wallet } = plainClients(node)
  const owner = wallet.account.address
  const deploy = async (abi: Abi, bytecode: Hex, args: readonly unknown[]): Promise<Address> => {
    const hash = await wallet.deployContract({ abi, bytecode, args })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 })
    expect(receipt.status).toBe('success')
    return receipt.contractAddress!
  }
  const tokenA = await deploy(erc20Abi, erc20Bytecode, [owner, SUPPLY])
  const tokenB = await deploy(erc20Abi, erc20Bytecode, [owner, SUPPLY])
  const factory = await deploy(Factory.abi, Factory.bytecode, [owner])
  const router = await deploy(Router.abi, Router.bytecode, [factory, WETH9])
  return { publicClient, wallet, owner, tokenA, tokenB, factory, router }
}

/** createPair, its receipt, and what getPair answers at the default tag straight after. */
async function createPair(deployed: Awaited<ReturnType<typeof deployAll>>) {
  const { publicClient, wallet, tokenA, tokenB, factory } = deployed
  const hash = await wallet.writeContract({
    address: factory,
    abi: Factory.abi,
    functionName: 'createPair',
    args: [tokenA, tokenB],
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 })
  const read = (await publicClient.readContract({
    address: factory,
    abi: Factory.abi,
    functionName: 'getPair',
    args: [tokenA, tokenB],
  })) as Address
  // PairCreated(token0, token1, pair, uint): its last input is unnamed, so viem decodes the args as a tuple.
  const [created] = parseEventLogs({ abi: Factory.abi, logs: receipt.logs, eventName: 'PairCreated' })
  const [, , logged] = created.args as unknown as readonly [Address, Address, Address, bigint]
  return { receipt, read, logged }
}

describe('Uniswap V2 artifacts', () => {
  it("the v2-core pair's init code hashes to the periphery's hardcoded pair init code hash", () => {
    expect(keccak256(Pair.bytecode)).toBe(PAIR_INIT_CODE_HASH)
    // The router carries the same constant (UniswapV2Library.pairFor): it finds the factory's pairs.
    expect(Router.bytecode.includes(PAIR_INIT_CODE_HASH.slice(2))).toBe(true)
  })
})

describe('Uniswap V2 on a fresh pair, profile base: every read right after the receipt sees it', () => {
  const node = useTestNode({ profile: 'base' })

  it('createPair, addLiquidity, swapExactTokensForTokens: getPair, reserves and balance at "latest" straight after each receipt', async () => {
    const deployed = await deployAll(node)
    const { publicClient, wallet, owner, tokenA, tokenB, factory, router } = deployed
    const recipient = node.accounts[1].address
    const wait = async (hash: Hex) => {
      const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 })
      expect(receipt.status).toBe('success')
      // Built whole and sealed: a real block hash, never the pre-confirmed zero hash.
      expect(receipt.blockHash).not.toBe(zeroHash)
      return receipt
    }

    const created = await createPair(deployed)
    expect(created.receipt.status).toBe('success')
    expect(created.logged).not.toBe(zeroAddress)
    expect(created.read).toBe(created.logged)
    const pair = created.logged
    expect(await publicClient.getCode({ address: pair })).toMatch(/^0x[0-9a-f]{2,}$/)

    for (const token of [tokenA, tokenB]) {
      await wait(await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [router, SUPPLY] }))
      expect(
        await publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner, router] }),
      ).toBe(SUPPLY)
    }

    const latest = await publicClient.getBlock()
    const deadline = latest.timestamp + 600n
    await wait(
      await wallet.writeContract({
        address: router,
        abi: Router.abi,
        functionName: 'addLiquidity',
        args: [tokenA, tokenB, LIQUIDITY_A, LIQUIDITY_B, LIQUIDITY_A, LIQUIDITY_B, owner, deadline],
      }),
    )
    const [reserve0, reserve1] = (await publicClient.readContract({
      address: pair,
      abi: Pair.abi,
      functionName: 'getReserves',
    })) as [bigint, bigint, number]
    // The pair orders its tokens by address.
    const aIsToken0 = BigInt(tokenA) < BigInt(tokenB)
    expect(aIsToken0 ? [reserve0, reserve1] : [reserve1, reserve0]).toEqual([LIQUIDITY_A, LIQUIDITY_B])
    // The router's CREATE2 address (from the init code hash) is the factory's pair.
    expect(
      await publicClient.readContract({ address: factory, abi: Factory.abi, functionName: 'getPair', args: [tokenB, tokenA] }),
    ).toBe(pair)

    const path = [tokenA, tokenB]
    const amounts = (await publicClient.readContract({
      address: router,
      abi: Router.abi,
      functionName: 'getAmountsOut',
      args: [SWAP_IN, path],
    })) as readonly bigint[]
    expect(amounts[0]).toBe(SWAP_IN)
    expect(amounts[1]).toBeGreaterThan(0n)
    await wait(
      await wallet.writeContract({
        address: router,
        abi: Router.abi,
        functionName: 'swapExactTokensForTokens',
        args: [SWAP_IN, amounts[1], path, recipient, deadline],
        gas: SWAP_GAS,
      }),
    )
    expect(
      await publicClient.readContract({ address: tokenB, abi: erc20Abi, functionName: 'balanceOf', args: [recipient] }),
    ).toBe(amounts[1])
    expect(await publicClient.readContract({ address: tokenA, abi: erc20Abi, functionName: 'balanceOf', args: [pair] })).toBe(
      LIQUIDITY_A + SWAP_IN,
    )
  }, 90_000)
})
