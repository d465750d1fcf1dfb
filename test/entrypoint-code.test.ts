// EntryPoint v0.8's runtime code is per chain (OpenZeppelin EIP712 caches the chain id and the domain separator at
// construction): a pcnode with chain id X holds at 0x4337…F108 exactly what its CREATE2 deployment on chain X holds,
// so with --chain-id 8453 the code is Base's. The expected hashes are those scripts/gen-preinstalls.mjs prints,
// from running @account-abstraction/contracts@0.8.0's init code through 0x4e59 in a VM with each chain id.
import { type Hex, keccak256 } from 'viem'
import { entryPoint08Address } from 'viem/account-abstraction'
import { afterAll, describe, expect, it } from 'vitest'
import { startTestNode, type TestNode } from './helpers.js'

const ENTRYPOINT_V08_CODE_HASH: Record<number, Hex> = {
  1: '0x44e632a24c6f2600cbd5b5b8b4c2d372359112c8b5774297f5fd0a9e64f11f86',
  8453: '0x28f989233f4ffb52e4b168fb74df5dfa52fe0f846141774f5abc56c5604d8e46',
  84532: '0xa06a3208a3f27999ffae96d26acf86a40a16e582c5467513cbf2c7e96e68029c',
  31337: '0x0a58ad57e3f8266dcc99cda79b0d3d784a4cedc4e972f33a8a2c5cecbb9e67b4',
}
/** The v0.8 contracts without a chain in their code: the same on every chain. */
const SAME_EVERYWHERE = {
  SenderCreator_v080: '0x449ed7c3e6fee6a97311d4b55475df59c44add33',
  Simple7702Account_v080: '0xe6cae83bde06e4c305530e199d7217f42808555b',
} as const

describe('EntryPoint v0.8 code for the chain id', () => {
  const nodes: TestNode[] = []
  afterAll(async () => {
    for (const node of nodes) await node.stop()
  })

  const codeHashes = new Map<number, Record<string, Hex | undefined>>()
  for (const chainId of [31337, 8453, 84532, 1]) {
    it(`--chain-id ${chainId}: the code its deployment on that chain leaves`, async () => {
      const node = await startTestNode({ chainId })
      nodes.push(node)
      expect(node.chainId).toBe(chainId)
      const hashOf = async (address: Hex) => {
        const code = await node.publicClient.getCode({ address })
        return code === undefined ? undefined : keccak256(code)
      }
      expect(await hashOf(entryPoint08Address)).toBe(ENTRYPOINT_V08_CODE_HASH[chainId])
      codeHashes.set(chainId, {
        SenderCreator_v080: await hashOf(SAME_EVERYWHERE.SenderCreator_v080),
        Simple7702Account_v080: await hashOf(SAME_EVERYWHERE.Simple7702Account_v080),
      })
    }, 60_000)
  }

  it('SenderCreator v0.8 and Simple7702Account v0.8 are the same code on every chain', () => {
    const [first, ...rest] = [...codeHashes.values()]
    expect(codeHashes.size).toBe(4)
    expect(first.SenderCreator_v080).toMatch(/^0x[0-9a-f]{64}$/)
    expect(first.Simple7702Account_v080).toMatch(/^0x[0-9a-f]{64}$/)
    for (const hashes of rest) expect(hashes).toEqual(first)
  })
})
