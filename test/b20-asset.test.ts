// The Asset variant's own surface against Base's (base/base b20_asset abi/v1.rs, logic/v1.rs,
// storage.rs): the multiplier at WAD precision and its storage word, batchMint, string-keyed extra
// metadata at Solidity's string-key slots, announcements running the token's own calls between
// Announcement and EndAnnouncement, each with Base's events and errors; a Stablecoin refuses them.
import { type Address, decodeEventLog, encodeErrorResult, encodeFunctionData, type Hex, keccak256, pad, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { b20Abi } from '../src/index.js'
import { ASSET, assetParams, b20Actions, MINT_ROLE, revertData, STABLECOIN, stablecoinParams } from './b20-helpers.js'
import { useTestNode } from './helpers.js'

const ASSET_ROOT = 0xfdc6d4552d1286ade4d9facdbf0fb50d2ec9b89a90e104f26fd277585e374b00n
const OPERATOR_ROLE = keccak256(toHex('OPERATOR_ROLE'))
const METADATA_ROLE = keccak256(toHex('METADATA_ROLE'))
const WAD = 10n ** 18n
/** A Solidity short string's storage word: the bytes left-aligned, twice the length in the last byte. */
const shortString = (s: string) => {
  const bytes = new TextEncoder().encode(s)
  const word = new Uint8Array(32)
  word.set(bytes)
  word[31] = bytes.length * 2
  return toHex(word)
}

describe('B20 Asset extras (profile base)', () => {
  const node = useTestNode({ profile: 'base' })
  const { send, createToken } = b20Actions(node)
  const call = (name: string, args: unknown[]) =>
    encodeFunctionData({ abi: b20Abi, functionName: name as never, args: args as never })
  const error = (errorName: string, args: unknown[] = []) =>
    encodeErrorResult({ abi: b20Abi, errorName: errorName as never, args: args as never })
  const slot = (token: Address, at: Hex | bigint) =>
    node
      .rpc('eth_getStorageAt', [token, typeof at === 'bigint' ? toHex(at, { size: 32 }) : at, 'latest'])
      .then((r) => r.result as Hex)

  it('scales balances by the multiplier, batch-mints and keeps extra metadata', async () => {
    const [a, b, c] = [0, 1, 2].map((i) => node.accounts[i].address as Address)
    const { token } = await createToken(0, ASSET, assetParams('Fund', 'FND', a, 18), 21, [
      call('grantRole', [OPERATOR_ROLE, a]),
      call('grantRole', [MINT_ROLE, a]),
      call('grantRole', [METADATA_ROLE, a]),
    ])
    const read = (functionName: string, args: unknown[] = []) =>
      node.publicClient.readContract({ address: token, abi: b20Abi, functionName: functionName as never, args: args as never })
    // Beryl's factory writes a zero multiplier, which reads as WAD.
    expect(await slot(token, ASSET_ROOT + 1n)).toBe(pad('0x00'))
    expect(await read('multiplier')).toBe(WAD)
    expect(await read('WAD_PRECISION')).toBe(WAD)
    expect(await read('OPERATOR_ROLE')).toBe(OPERATOR_ROLE)

    const minted = await send(
      0,
      token,
      call('batchMint', [
        [b, c],
        [10n, 20n],
      ]),
    )
    expect(minted.logs.map((l) => decodeEventLog({ abi: b20Abi, ...l }))).toEqual([
      { eventName: 'Transfer', args: { from: '0x0000000000000000000000000000000000000000', to: b, amount: 10n } },
      { eventName: 'Transfer', args: { from: '0x0000000000000000000000000000000000000000', to: c, amount: 20n } },
    ])
    expect(await read('totalSupply')).toBe(30n)
    expect(await revertData(node, a, token, call('batchMint', [[b, c], [1n]]))).toBe(error('LengthMismatch', [2n, 1n]))
    expect(await revertData(node, a, token, call('batchMint', [[], []]))).toBe(error('EmptyBatch'))
    expect(await revertData(node, b, token, call('batchMint', [[b], [1n]]))).toBe(
      error('AccessControlUnauthorizedAccount', [b, MINT_ROLE]),
    )

    const updated = await send(0, token, call('updateMultiplier', [(3n * WAD) / 2n]))
    // From Cobalt (this chain is Denim's) the failsafe reports old and new multipliers and its block's time.
    const updatedAt = (await node.publicClient.getBlock({ blockNumber: updated.blockNumber })).timestamp
    expect(decodeEventLog({ abi: b20Abi, ...updated.logs[0] })).toEqual({
      eventName: 'UIMultiplierUpdated',
      args: { oldMultiplier: WAD, newMultiplier: (3n * WAD) / 2n, effectiveAtTimestamp: updatedAt },
    })
    expect(BigInt(await slot(token, ASSET_ROOT + 1n))).toBe((3n * WAD) / 2n)
    expect(await read('scaledBalanceOf', [c])).toBe(30n)
    expect(await read('toScaledBalance', [7n])).toBe(10n) // 7 × 1.5, rounded down
    expect(await read('toRawBalance', [30n])).toBe(20n)
    expect(await revertData(node, a, token, call('updateMultiplier', [0n]))).toBe(error('InvalidMultiplier'))
    expect(await revertData(node, b, token, call('updateMultiplier', [WAD]))).toBe(
      error('AccessControlUnauthorizedAccount', [b, OPERATOR_ROLE]),
    )

    const set = await send(0, token, call('updateExtraMetadata', ['category', 'fund']))
    expect(decodeEventLog({ abi: b20Abi, ...set.logs[0] })).toEqual({
      eventName: 'ExtraMetadataUpdated',
      args: { key: 'category', value: 'fund' },
    })
    expect(await read('extraMetadata', ['category'])).toBe('fund')
    // mapping(string => string) at offset 3: keccak256(bytes(key) ‖ slot), as Solidity and Base derive it.
    const metadataSlot = keccak256(
      `0x${Buffer.from('category').toString('hex')}${toHex(ASSET_ROOT + 3n, { size: 32 }).slice(2)}` as Hex,
    )
    expect(await slot(token, metadataSlot)).toBe(shortString('fund'))
    await send(0, token, call('updateExtraMetadata', ['category', '']))
    expect(await read('extraMetadata', ['category'])).toBe('')
    expect(await slot(token, metadataSlot)).toBe(pad('0x00'))
    expect(await revertData(node, a, token, call('updateExtraMetadata', ['', 'x']))).toBe(error('InvalidMetadataKey'))
  })

  it('runs an announcement: its calls atomically between Announcement and EndAnnouncement, each id once', async () => {
    const [a, b] = [0, 1].map((i) => node.accounts[i].address as Address)
    const { token } = await createToken(0, ASSET, assetParams('Split', 'SPL', a, 6), 22, [
      call('grantRole', [OPERATOR_ROLE, a]),
      call('grantRole', [MINT_ROLE, a]),
    ])
    const inner = [call('mint', [b, 5n]), call('updateMultiplier', [2n * WAD])]
    const announced = await send(0, token, call('announce', [inner, 'split-1', 'Two for one', 'https://example.com/split']))
    const announcedAt = (await node.publicClient.getBlock({ blockNumber: announced.blockNumber })).timestamp
    expect(announced.logs.map((l) => decodeEventLog({ abi: b20Abi, ...l }))).toEqual([
      {
        eventName: 'Announcement',
        args: { caller: a, id: 'split-1', description: 'Two for one', uri: 'https://example.com/split' },
      },
      { eventName: 'Transfer', args: { from: '0x0000000000000000000000000000000000000000', to: b, amount: 5n } },
      {
        eventName: 'UIMultiplierUpdated',
        args: { oldMultiplier: WAD, newMultiplier: 2n * WAD, effectiveAtTimestamp: announcedAt },
      },
      { eventName: 'EndAnnouncement', args: { id: 'split-1' } },
    ])
    expect(
      await node.publicClient.readContract({
        address: token,
        abi: b20Abi,
        functionName: 'isAnnouncementIdUsed',
        args: ['split-1'],
      }),
    ).toBe(true)
    // mapping(string => bool) at offset 2.
    const usedSlot = keccak256(
      `0x${Buffer.from('split-1').toString('hex')}${toHex(ASSET_ROOT + 2n, { size: 32 }).slice(2)}` as Hex,
    )
    expect(await slot(token, usedSlot)).toBe(pad('0x01'))
    expect(await revertData(node, a, token, call('announce', [[], 'split-1', '', '']))).toBe(
      error('AnnouncementIdAlreadyUsed', ['split-1']),
    )
    // A failing inner call fails the whole announcement, named by its calldata.
    const failing = call('mint', ['0x0000000000000000000000000000000000000000', 1n])
    expect(await revertData(node, a, token, call('announce', [[failing], 'split-2', '', '']))).toBe(
      error('InternalCallFailed', [failing]),
    )
    expect(await revertData(node, a, token, call('announce', [['0x1234'], 'split-2', '', '']))).toBe(
      error('InternalCallMalformed', ['0x1234']),
    )
    const nested = call('announce', [[], 'nested', '', ''])
    expect(await revertData(node, a, token, call('announce', [[nested], 'split-2', '', '']))).toBe(
      error('AnnouncementInProgress'),
    )
    // Only an operator announces.
    expect(await revertData(node, b, token, call('announce', [[], 'split-3', '', '']))).toBe(
      error('AccessControlUnauthorizedAccount', [b, OPERATOR_ROLE]),
    )
  })

  it('answers the Asset selectors as unknown on a Stablecoin', async () => {
    const a = node.accounts[0].address as Address
    const { token } = await createToken(0, STABLECOIN, stablecoinParams('Plain USD', 'PUSD', a, 'USD'), 23)
    const multiplier = call('multiplier', [])
    expect(await revertData(node, a, token, multiplier)).toBe(multiplier)
    const batch = call('batchMint', [[a], [1n]])
    expect(await revertData(node, a, token, batch)).toBe(batch.slice(0, 10))
  })
})
