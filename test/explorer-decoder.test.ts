// The node's side of the explorer's decoding (src/node/decode/), without a browser: reading an artifact
// directory safely (Foundry and Hardhat shapes; malformed, oversized, build-info, debug and linked files;
// nothing outside the directory), matching runtime code to an artifact past its metadata trailer,
// immutables and library links, the 4-byte table (ERC-20's and ERC-721's Transfer told apart, nested
// structs), Permit2's ABI against the preinstalled code, and pcnode_decodeCall / pcnode_decodeLog /
// pcnode_identifyContract's answers and refusals over JSON-RPC.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  encodeAbiParameters,
  encodeErrorResult,
  encodeEventTopics,
  encodeFunctionData,
  erc20Abi,
  erc721Abi,
  type Hex,
  parseAbi,
  toEventSelector,
  toFunctionSelector,
} from 'viem'
import { formatAbiItem } from 'viem/utils'
import { afterAll, describe, expect, it } from 'vitest'
import { PERMIT2_TEMPLATE } from '../src/contracts/preinstalls.js'
import { ARTIFACT_LIMITS, parseArtifact, readArtifacts } from '../src/node/decode/artifacts.js'
import { matches, shapeOf, stripMetadata, zeroPush32s } from '../src/node/decode/bytecode-match.js'
import { ContractDecoder } from '../src/node/decode/decoder.js'
import { permit2Abi } from '../src/node/decode/permit2.js'
import { ROOT } from './cli.js'
import { counterAbi } from './fixtures/counter.js'
import { useTestNode } from './helpers.js'

const FORGE_COUNTER = join(ROOT, 'test', 'fixtures', 'forge-out', 'Counter.sol', 'Counter.json')
const forge = JSON.parse(readFileSync(FORGE_COUNTER, 'utf8'))
const runtime = Buffer.from(forge.deployedBytecode.object.slice(2), 'hex')

describe('reading an artifact directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pcnode-artifacts-'))
  const outside = mkdtempSync(join(tmpdir(), 'pcnode-outside-'))
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true })
    rmSync(outside, { recursive: true, force: true })
  })

  it('reads Foundry and Hardhat artifacts and skips what is not one, inside the directory only', () => {
    mkdirSync(join(dir, 'out', 'Counter.sol'), { recursive: true })
    writeFileSync(join(dir, 'out', 'Counter.sol', 'Counter.json'), JSON.stringify(forge))
    const hardhat = {
      _format: 'hh-sol-artifact-1',
      contractName: 'HardhatCounter',
      abi: forge.abi,
      deployedBytecode: forge.deployedBytecode.object,
    }
    mkdirSync(join(dir, 'artifacts', 'contracts', 'C.sol'), { recursive: true })
    writeFileSync(join(dir, 'artifacts', 'contracts', 'C.sol', 'HardhatCounter.json'), JSON.stringify(hardhat))
    // Hardhat's debug files, build-info and node_modules are not read at all.
    writeFileSync(join(dir, 'artifacts', 'contracts', 'C.sol', 'HardhatCounter.dbg.json'), '{ not json')
    mkdirSync(join(dir, 'out', 'build-info'))
    writeFileSync(join(dir, 'out', 'build-info', 'x.json'), JSON.stringify({ ...forge, contractName: 'FromBuildInfo' }))
    // Skipped and counted: malformed JSON, an interface (no runtime code), a bad ABI, one past the size limit.
    writeFileSync(join(dir, 'out', 'Broken.json'), '{"abi": [')
    writeFileSync(join(dir, 'out', 'IFace.json'), JSON.stringify({ abi: forge.abi, deployedBytecode: { object: '0x' } }))
    writeFileSync(join(dir, 'out', 'NoAbi.json'), JSON.stringify({ abi: 'nope', deployedBytecode: { object: '0x6000' } }))
    writeFileSync(join(dir, 'out', 'Huge.json'), ' '.repeat(ARTIFACT_LIMITS.fileBytes + 1))
    // A link to a directory outside is not followed.
    mkdirSync(join(outside, 'Other.sol'))
    writeFileSync(join(outside, 'Other.sol', 'Other.json'), JSON.stringify({ ...forge, contractName: 'Outside' }))
    symlinkSync(outside, join(dir, 'out', 'linked'))
    const set = readArtifacts(dir)
    expect(set.contracts.map((a) => [a.name, a.file])).toEqual([
      ['HardhatCounter', join('artifacts', 'contracts', 'C.sol', 'HardhatCounter.json')],
      ['Counter', join('out', 'Counter.sol', 'Counter.json')],
    ])
    expect(set.skipped).toBe(4)
    expect(set.truncated).toBe(false)
    // Both shapes give the same code to match.
    expect(matches(set.contracts[0].shape, runtime)).toBe(true)
    expect(matches(set.contracts[1].shape, runtime)).toBe(true)
  })

  it('keeps only well-formed ABI items of an artifact', () => {
    const artifact = parseArtifact(
      {
        abi: [...forge.abi, { type: 'function', name: 'bad', inputs: [{ name: 'x' }] }, 42],
        deployedBytecode: { object: forge.deployedBytecode.object },
      },
      'x.json',
    )
    expect(artifact?.abi.length).toBe(forge.abi.filter((i: { type: string }) => i.type !== 'constructor').length)
    expect(parseArtifact([], 'x.json')).toBeUndefined()
    expect(parseArtifact({ abi: [], deployedBytecode: { object: '0xzz' } }, 'x.json')).toBeUndefined()
  })
})

describe('matching runtime code to an artifact', () => {
  it('ignores the metadata trailer and nothing else', () => {
    const shape = shapeOf(runtime, [], [])
    expect(stripMetadata(runtime).length).toBe(runtime.length - 2 - runtime.readUInt16BE(runtime.length - 2))
    const otherMetadata = Buffer.from(runtime)
    otherMetadata[otherMetadata.length - 10] ^= 0xff // inside the trailer's IPFS hash
    expect(matches(shape, otherMetadata)).toBe(true)
    const otherCode = Buffer.from(runtime)
    otherCode[40] ^= 0xff
    expect(matches(shape, otherCode)).toBe(false)
    expect(matches(shape, runtime.subarray(0, runtime.length - 1))).toBe(false)
  })

  it('masks immutables (given, or zero PUSH32 operands) and library links', () => {
    // PUSH32 <immutable> POP PUSH20 <library> POP STOP, then a trailer-free end.
    const artifactCode = Buffer.from(`7f${'00'.repeat(32)}5073${'00'.repeat(20)}5000`, 'hex')
    const deployed = Buffer.from(`7f${'ab'.repeat(32)}5073${'cd'.repeat(20)}5000`, 'hex')
    expect(zeroPush32s(artifactCode)).toEqual([{ start: 1, length: 32 }])
    const link = [{ start: 35, length: 20 }]
    expect(matches(shapeOf(artifactCode, undefined, link), deployed)).toBe(true)
    expect(matches(shapeOf(artifactCode, [{ start: 1, length: 32 }], link), deployed)).toBe(true)
    // Given references replace the guess: an immutable solc did not name is code that must match.
    expect(matches(shapeOf(artifactCode, [], link), deployed)).toBe(false)
    expect(matches(shapeOf(artifactCode, undefined, []), deployed)).toBe(false)
  })
})

describe('the decoder', () => {
  const decoder = new ContractDecoder(readArtifacts(join(ROOT, 'test', 'fixtures', 'forge-out')))

  it("tells ERC-20's and ERC-721's Transfer apart by their indexed arguments", () => {
    const from = '0x1111111111111111111111111111111111111111'
    const to = '0x2222222222222222222222222222222222222222'
    const erc20 = encodeEventTopics({ abi: erc20Abi, eventName: 'Transfer', args: { from, to } }) as Hex[]
    const erc20Log = decoder.decodeLog(erc20, encodeAbiParameters([{ type: 'uint256' }], [5n]))
    expect(erc20Log?.args.map((a) => [a.name, a.value])).toEqual([
      ['from', from],
      ['to', to],
      ['value', '5'],
    ])
    const erc721 = encodeEventTopics({ abi: erc721Abi, eventName: 'Transfer', args: { from, to, tokenId: 9n } }) as Hex[]
    expect(decoder.decodeLog(erc721, '0x')?.args.map((a) => a.name)).toEqual(['from', 'to', 'tokenId'])
  })

  it('decodes arrays of structs holding arrays of structs (a Permit2 batch transfer)', () => {
    const input = encodeFunctionData({
      abi: permit2Abi,
      functionName: 'permitTransferFrom',
      args: [
        {
          permitted: [
            { token: '0x00000000000000000000000000000000000000aa', amount: 1n },
            { token: '0x00000000000000000000000000000000000000bb', amount: 2n },
          ],
          nonce: 3n,
          deadline: 4n,
        },
        [{ to: '0x00000000000000000000000000000000000000cc', requestedAmount: 1n }],
        '0x00000000000000000000000000000000000000dd',
        '0x1234',
      ],
    })
    const call = decoder.decodeCall(input)
    expect(call?.signature).toBe('permitTransferFrom(((address,uint256)[],uint256,uint256),(address,uint256)[],address,bytes)')
    expect(call?.source).toBe('signature')
    const permit = call?.args[0]
    expect(permit?.fields?.map((f) => f.name)).toEqual(['permitted', 'nonce', 'deadline'])
    expect(permit?.fields?.[0].items?.[1].fields?.map((f) => [f.name, String(f.value).toLowerCase()])).toEqual([
      ['token', '0x00000000000000000000000000000000000000bb'],
      ['amount', '2'],
    ])
    expect(call?.args[3]).toEqual({ name: 'signature', type: 'bytes', value: '0x1234' })
  })

  it('refuses data whose tails overlap (an ABI bomb) and decodes a canonical one of the same size', () => {
    const word = (n: number) => n.toString(16).padStart(64, '0')
    const multicall = toFunctionSelector('multicall(bytes[])')
    // 4,000 offsets to 4,000 byte strings of 128 kB each, every one starting a word after the last.
    const n = 4000
    const length = 128_000
    let bomb = word(32) + word(n)
    for (let i = 0; i < n; i++) bomb += word(n * 32 + i * 32)
    for (let i = 0; i < n + length / 32; i++) bomb += word(length)
    expect(decoder.decodeCall(`${multicall}${bomb}`)).toBeUndefined()
    const calls = Array.from({ length: 100 }, (_, i) => `0x${word(i).repeat(40)}` as Hex)
    const decoded = decoder.decodeCall(encodeFunctionData({ abi: parseAbi(['function multicall(bytes[] data)']), args: [calls] }))
    expect(decoded?.args[0].items).toHaveLength(50)
    expect(decoded?.args[0].more).toBe(50)
    expect(decoded?.args[0].items?.[99 - 50]?.value).toBe(calls[49])
  })

  it('decodes by the ABI of the contract it identifies by code, and gives null-worthy answers otherwise', () => {
    const who = decoder.identify('0x3333333333333333333333333333333333333333', runtime)
    expect(who).toMatchObject({ name: 'Counter', source: 'artifact', file: join('Counter.sol', 'Counter.json') })
    const call = decoder.decodeCall(encodeFunctionData({ abi: counterAbi, functionName: 'increase', args: [3n] }), who)
    expect(call).toMatchObject({
      contract: 'Counter',
      source: 'artifact',
      function: 'increase',
      args: [{ name: 'by', value: '3' }],
    })
    // Counter's own functions are in no table.
    expect(decoder.decodeCall(encodeFunctionData({ abi: counterAbi, functionName: 'increase', args: [3n] }))).toBeUndefined()
    expect(decoder.identify('0x3333333333333333333333333333333333333333', new Uint8Array())).toBeUndefined()
    expect(decoder.decodeCall('0x1234')).toBeUndefined()
    // A known selector whose arguments do not decode.
    expect(decoder.decodeCall(toFunctionSelector('transfer(address,uint256)'))).toBeUndefined()
  })
})

describe("Permit2's ABI", () => {
  it('names functions, events and errors the preinstalled Permit2 has', () => {
    for (const item of permit2Abi) {
      if (item.type === 'function') expect(PERMIT2_TEMPLATE, item.name).toContain(`63${toFunctionSelector(item).slice(2)}`)
      if (item.type === 'event') expect(PERMIT2_TEMPLATE, item.name).toContain(`7f${toEventSelector(item).slice(2)}`)
      if (item.type === 'error') expect(PERMIT2_TEMPLATE, item.name).toContain(toFunctionSelector(formatAbiItem(item)).slice(2))
    }
  })
})

describe('pcnode_decodeCall, pcnode_decodeLog and pcnode_identifyContract', () => {
  const node = useTestNode({ artifacts: join(ROOT, 'test', 'fixtures', 'forge-out') })
  const PERMIT2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3'

  it('answer decoded values, null for what they cannot decode, and -32602 for bad parameters', async () => {
    const approve = encodeFunctionData({
      abi: permit2Abi,
      functionName: 'approve',
      args: ['0x00000000000000000000000000000000000000aa', '0x00000000000000000000000000000000000000bb', 5n, 6],
    })
    const { result } = await node.rpc('pcnode_decodeCall', [{ to: PERMIT2, input: approve }])
    expect(result).toMatchObject({
      contract: 'Permit2',
      source: 'known',
      function: 'approve',
      signature: 'approve(address,address,uint160,uint48)',
    })
    expect(result.args.map((a: { name: string; value: string }) => `${a.name}=${a.value.toLowerCase()}`)).toEqual([
      'token=0x00000000000000000000000000000000000000aa',
      'spender=0x00000000000000000000000000000000000000bb',
      'amount=5',
      'expiration=6',
    ])
    expect((await node.rpc('pcnode_decodeCall', [{ to: PERMIT2, data: '0xdeadbeef' }])).result).toBeNull()
    expect((await node.rpc('pcnode_identifyContract', [PERMIT2])).result).toEqual({ name: 'Permit2', source: 'known' })
    expect((await node.rpc('pcnode_identifyContract', [node.accounts[0].address])).result).toBeNull()
    const topics = encodeEventTopics({ abi: parseAbi(['event Paused(address account)']), eventName: 'Paused' })
    const log = await node.rpc('pcnode_decodeLog', [
      { address: node.accounts[0].address, topics, data: encodeAbiParameters([{ type: 'address' }], [PERMIT2]) },
    ])
    expect(log.result).toMatchObject({ source: 'signature', event: 'Paused', args: [{ name: 'account', value: PERMIT2 }] })
    // An EIP-1967 proxy (code the node does not know) whose implementation is the artifact's Counter.
    const proxy = '0x00000000000000000000000000000000000a11ce'
    const implementation = '0x0000000000000000000000000000000000c0ffee'
    await node.rpc('anvil_setCode', [implementation, forge.deployedBytecode.object])
    await node.rpc('anvil_setCode', [proxy, '0x363d3d373d3d3d363d7f'])
    await node.rpc('anvil_setStorageAt', [
      proxy,
      '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
      `0x${implementation.slice(2).padStart(64, '0')}`,
    ])
    await node.rpc('evm_mine')
    expect((await node.rpc('pcnode_identifyContract', [proxy])).result).toEqual({
      name: 'ERC-1967 proxy',
      source: 'known',
      implementation: { name: 'Counter', source: 'artifact', file: join('Counter.sol', 'Counter.json') },
    })
    const increase = encodeFunctionData({ abi: counterAbi, functionName: 'increase', args: [3n] })
    expect((await node.rpc('pcnode_decodeCall', [{ to: proxy, input: increase }])).result).toMatchObject({
      contract: 'ERC-1967 proxy',
      implementation: 'Counter',
      source: 'artifact',
      function: 'increase',
    })
    // A custom error by the artifact's ABI through the proxy, a panic and Permit2's errors by the table.
    const above = encodeErrorResult({ abi: counterAbi, errorName: 'CountAbove', args: [10n, 5n] })
    expect((await node.rpc('pcnode_decodeError', [{ to: proxy, data: above }])).result).toMatchObject({
      implementation: 'Counter',
      source: 'artifact',
      error: 'CountAbove',
      signature: 'CountAbove(uint256,uint256)',
      args: [
        { name: 'count', value: '10' },
        { name: 'limit', value: '5' },
      ],
    })
    const panic = encodeErrorResult({ abi: parseAbi(['error Panic(uint256)']), errorName: 'Panic', args: [0x11n] })
    expect((await node.rpc('pcnode_decodeError', [{ data: panic }])).result).toMatchObject({
      error: 'Panic',
      args: [{ value: '17' }],
    })
    const expired = encodeErrorResult({ abi: permit2Abi, errorName: 'SignatureExpired', args: [9n] })
    expect((await node.rpc('pcnode_decodeError', [{ to: PERMIT2, data: expired }])).result).toMatchObject({
      contract: 'Permit2',
      source: 'known',
      error: 'SignatureExpired',
    })
    for (const [method, params] of [
      ['pcnode_decodeCall', []],
      ['pcnode_decodeCall', ['0x12']],
      ['pcnode_decodeCall', [{ to: '0x12', input: '0x' }]],
      ['pcnode_decodeCall', [{ input: 'zz' }]],
      ['pcnode_decodeLog', [{ address: PERMIT2, topics: Array(5).fill(topics[0]) }]],
      ['pcnode_decodeLog', [{ address: PERMIT2, topics: ['0x12'] }]],
      ['pcnode_identifyContract', ['0x12']],
      ['pcnode_decodeError', [{ to: PERMIT2 }]],
    ] as const) {
      expect((await node.rpc(method, [...params])).error?.code, `${method} ${JSON.stringify(params)}`).toBe(-32602)
    }
  })
})
