// Base's BaseTime predeploy (Denim): the proxy and pcnode's implementation placed as
// installBaseTime writes them, then read and called through a real node with viem (getters,
// version, both custom errors, the depositor's setter); and the BaseTime deposit's encoding and
// hash against viem's op-stack serializer, with its parser round-tripping it.
import { type Address, concat, createWalletClient, type Hex, http, keccak256, pad, parseAbi, parseEther, toHex } from 'viem'
import { serializeTransaction } from 'viem/op-stack'
import { beforeAll, describe, expect, it } from 'vitest'
import { BaseTime } from '../src/contracts/artifacts.js'
import { OP_PROXY_CODE } from '../src/contracts/preinstalls.js'
import type { StateView } from '../src/node/engine/index.js'
import { depositRecord, encodeDeposit } from '../src/node/engine/opstack/deposit.js'
import { baseTimeDeposit, baseTimeMillisOf, installBaseTime } from '../src/node/opstack/base-time.js'
import { testClient, useTestNode, waitForSealed } from './helpers.js'

const PROXY = '0x4200000000000000000000000000000000000030' as Address
const IMPLEMENTATION = '0xc0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d30030'
const DEPOSITOR = '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001' as Address
const IMPLEMENTATION_SLOT = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc'
const ADMIN_SLOT = '0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103'
/** Base's proxy code hash (the OP predeploy Proxy, solc 0.8.15). */
const BASE_PROXY_CODE_HASH = '0xfa8c9db6c6cab7108dea276f4cd09d575674eb0852c0fa3187e59e98ef977998'
const abi = parseAbi([
  'function timestampMillisPart() view returns (uint16)',
  'function timestampMs() view returns (uint64)',
  'function version() view returns (string)',
  'function setTimestampMillisPart(uint16)',
])
const setCalldata = (millis: number) => concat(['0x86bdf394', toHex(millis, { size: 32 })])

/** The code and slots installBaseTime writes, recorded instead of applied. */
async function recordInstall() {
  const code: Array<[Hex, Hex]> = []
  const storage: Array<[Hex, Hex, Hex]> = []
  const view = {
    putCode: async (a: Uint8Array, c: Uint8Array) => void code.push([toHex(a), toHex(c)]),
    putStorage: async (a: Uint8Array, s: Uint8Array, v: Uint8Array) => void storage.push([toHex(a), toHex(s), toHex(v)]),
  }
  await installBaseTime(view as unknown as StateView)
  return { code, storage }
}

describe('BaseTime predeploy on a node', () => {
  const node = useTestNode({ blockTime: 500, preconfInterval: 10 })
  const call = (data: Hex, from?: Address) => node.rpc('eth_call', [{ to: PROXY, data, ...(from ? { from } : {}) }, 'latest'])

  beforeAll(async () => {
    const { code, storage } = await recordInstall()
    for (const [address, bytes] of code) expect((await node.rpc('anvil_setCode', [address, bytes])).error).toBeUndefined()
    for (const [address, slot, value] of storage)
      expect((await node.rpc('anvil_setStorageAt', [address, slot, pad(value)])).error).toBeUndefined()
  })

  it('installs the OP proxy (Base code hash) with its EIP-1967 slots, in front of pcnode BaseTime', async () => {
    const { publicClient } = node
    const proxyCode = await publicClient.getCode({ address: PROXY })
    expect(proxyCode).toBe(OP_PROXY_CODE)
    expect(keccak256(proxyCode!)).toBe(BASE_PROXY_CODE_HASH)
    expect(await publicClient.getCode({ address: IMPLEMENTATION })).toBe(BaseTime.deployedBytecode)
    expect(await publicClient.getStorageAt({ address: PROXY, slot: IMPLEMENTATION_SLOT })).toBe(
      toHex(BigInt(IMPLEMENTATION), { size: 32 }),
    )
    expect(await publicClient.getStorageAt({ address: PROXY, slot: ADMIN_SLOT })).toBe(
      toHex(0x4200000000000000000000000000000000000018n, { size: 32 }),
    )
  })

  it('answers the getters and version through the proxy; timestampMs is timestamp * 1000 + part', async () => {
    const { publicClient } = node
    expect(await publicClient.readContract({ address: PROXY, abi, functionName: 'version' })).toBe('1.0.0')
    const block = await publicClient.getBlock({ blockTag: 'latest' })
    const blockNumber = block.number
    // 0 where no BaseTime deposit has run since the install; a Denim block's own part otherwise.
    const part = await publicClient.readContract({ address: PROXY, abi, functionName: 'timestampMillisPart', blockNumber })
    expect([0, 200, 400, 600, 800]).toContain(part)
    expect(await publicClient.getStorageAt({ address: PROXY, slot: '0x0', blockNumber })).toBe(toHex(part, { size: 32 }))
    const ms = await publicClient.readContract({ address: PROXY, abi, functionName: 'timestampMs', blockNumber })
    expect(ms).toBe(block.timestamp * 1000n + BigInt(part))
  })

  it('refuses a non-depositor (BaseTime_NotDepositor) and invalid parts (BaseTime_InvalidTimestampMillisPart)', async () => {
    const stranger = await call(setCalldata(400), node.accounts[0].address)
    expect(stranger.error.data).toBe('0x3c7b5203')
    expect((await call(setCalldata(400))).error.data).toBe('0x3c7b5203')
    for (const bad of [300, 1000]) expect((await call(setCalldata(bad), DEPOSITOR)).error.data).toBe('0xceb5df05')
    const ok = await call(setCalldata(400), DEPOSITOR)
    expect(ok.error).toBeUndefined()
    expect(ok.result).toBe('0x')
  })

  it('a transaction from the depositor sets the part; timestampMs is then timestamp * 1000 + part', async () => {
    const test = testClient(node)
    await test.setBalance({ address: DEPOSITOR, value: parseEther('1') })
    await test.impersonateAccount({ address: DEPOSITOR })
    const wallet = createWalletClient({ chain: node.chain, transport: http(node.rpcUrl, { retryCount: 0 }), account: DEPOSITOR })
    const hash = await wallet.writeContract({
      address: PROXY,
      abi,
      functionName: 'setTimestampMillisPart',
      args: [400],
      gas: 100_000n,
    })
    const receipt = await waitForSealed(node, hash)
    expect(receipt.status).toBe('success')
    await test.stopImpersonatingAccount({ address: DEPOSITOR })

    const { publicClient } = node
    const blockNumber = receipt.blockNumber
    const block = await publicClient.getBlock({ blockNumber })
    expect(await publicClient.readContract({ address: PROXY, abi, functionName: 'timestampMillisPart', blockNumber })).toBe(400)
    expect(await publicClient.getStorageAt({ address: PROXY, slot: '0x0', blockNumber })).toBe(toHex(400, { size: 32 }))
    expect(await publicClient.readContract({ address: PROXY, abi, functionName: 'timestampMs', blockNumber })).toBe(
      block.timestamp * 1000n + 400n,
    )
  })
})

describe('BaseTime deposit', () => {
  it('encodes as viem op-stack serializes it, hashes to keccak256 of that, and parses back', () => {
    const blockNumber = 1234n
    const d = baseTimeDeposit(blockNumber, 200)
    const sourceHash = keccak256(concat([toHex(3n, { size: 32 }), keccak256(toHex(blockNumber, { size: 32 }))]))
    const serialized = serializeTransaction({
      type: 'deposit',
      sourceHash,
      from: DEPOSITOR,
      to: PROXY,
      mint: 0n,
      value: 0n,
      gas: 1_000_000n,
      isSystemTx: false,
      data: setCalldata(200),
    })
    const raw = encodeDeposit(d)
    expect(toHex(raw)).toBe(serialized)
    expect(toHex(d.data)).toHaveLength(2 + 36 * 2)
    const record = depositRecord((bytes) => keccak256(bytes, 'bytes'), d, raw)
    expect(toHex(record.hash)).toBe(keccak256(serialized))
    expect(baseTimeMillisOf(record)).toBe(200)
    for (const millis of [0, 400, 600, 800])
      expect(baseTimeMillisOf(depositRecord(() => new Uint8Array(32), baseTimeDeposit(7n, millis), raw))).toBe(millis)
  })

  it('refuses an invalid part, and parses nothing out of other transactions', () => {
    for (const bad of [100, 300, 1000, -200, 200.5]) expect(() => baseTimeDeposit(1n, bad)).toThrow(RangeError)
    const d = baseTimeDeposit(5n, 600)
    const record = depositRecord(() => new Uint8Array(32), d, encodeDeposit(d))
    expect(baseTimeMillisOf(record)).toBe(600)
    expect(baseTimeMillisOf({ ...record, deposit: undefined })).toBeUndefined()
    expect(baseTimeMillisOf({ ...record, from: new Uint8Array(20) })).toBeUndefined()
    expect(baseTimeMillisOf({ ...record, to: new Uint8Array(20) })).toBeUndefined()
    expect(baseTimeMillisOf({ ...record, data: record.data.subarray(0, 35) })).toBeUndefined()
    const wide = Uint8Array.from(record.data)
    wide[33] = 1
    expect(baseTimeMillisOf({ ...record, data: wide })).toBeUndefined()
    const other = Uint8Array.from(record.data)
    other[0] = 0
    expect(baseTimeMillisOf({ ...record, data: other })).toBeUndefined()
  })
})
