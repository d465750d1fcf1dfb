// eth_simulateV1 against a running node, through viem's simulateBlocks / simulateCalls and raw
// requests: chaining, gaps, defaults, block and state overrides, precompile moves, transfer
// tracing, validation, call errors, limits, "pending", and that nothing reaches the node's state.
import {
  type Address,
  concat,
  encodeErrorResult,
  type Hex,
  keccak256,
  numberToHex,
  pad,
  parseAbi,
  parseEther,
  parseSignature,
  toHex,
  toRlp,
  zeroAddress,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestNode, waitForReceipt } from './helpers.js'

// Hand-assembled contracts, put in place with state overrides.
/** Returns the balance of the address in calldata[0:32]. */
const BALANCE_OF = '0x6000353160005260206000f3'
/** Returns storage slot calldata[0:32]. */
const SLOAD = '0x6000355460005260206000f3'
/** Returns NUMBER, TIMESTAMP, COINBASE, PREVRANDAO, BASEFEE, GASLIMIT, BLOBBASEFEE, CHAINID. */
const BLOCK_INFO = '0x43600052426020524160405244606052486080524560a0524a60c0524660e0526101006000f3'
/** Emits LOG0, then forwards its value to the address in calldata[0:32] (ignoring the outcome). */
const FORWARDER = '0x60006000a06000600060006000346000355af100'
/** Returns BLOCKHASH(NUMBER - 1). */
const PARENT_HASH = '0x600143034060005260206000f3'
/** Burns all gas. */
const INVALID = '0xfe'

const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const ETH_ADDRESS = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'
const ZERO_HASH = `0x${'0'.repeat(64)}`

const R = '0x000000000000000000000000000000000000ba1a' as Address // balance reader
const S = '0x0000000000000000000000000000000000005107' as Address // storage reader
const INFO = '0x00000000000000000000000000000000000001f0' as Address
const F = '0x000000000000000000000000000000000000f0d0' as Address
const REV = '0x000000000000000000000000000000000000dead' as Address
const FRESH = '0x00000000000000000000000000000000000a11ce' as Address
const FRESH_CHECKSUMMED = '0x00000000000000000000000000000000000A11cE'

/** Reverts with Error(reason): CODECOPY the payload behind a 12-byte prologue, REVERT. */
function reverter(reason: string): Hex {
  const payload = encodeErrorResult({
    abi: [{ type: 'error', name: 'Error', inputs: [{ type: 'string' }] }],
    errorName: 'Error',
    args: [reason],
  })
  const len = ((payload.length - 2) / 2).toString(16).padStart(2, '0')
  return `0x60${len}600c600039${`60${len}`}6000fd${payload.slice(2)}`
}

/** PUSH20 beneficiary SELFDESTRUCT */
const selfDestructTo = (beneficiary: Address): Hex => `0x73${beneficiary.slice(2)}ff`
const word = (hex: Hex, i: number) => BigInt(`0x${hex.slice(2 + 64 * i, 2 + 64 * (i + 1))}`)
const transferLog = (from: Address, to: Address, value: bigint) => ({
  address: ETH_ADDRESS,
  topics: [TRANSFER_TOPIC, pad(from.toLowerCase() as Hex), pad(to.toLowerCase() as Hex)],
  data: pad(toHex(value)),
})

describe('eth_simulateV1', () => {
  // A long block time keeps "latest" still and pre-confirmed transactions pending; the default
  // timestamp step is then 60 s.
  const node = useTestNode({ blockTime: 60_000, preconfInterval: 50 })
  let A: Address[]
  const sim = (payload: unknown, block: unknown = 'latest') => node.rpc('eth_simulateV1', [payload, block])
  const latest = () => node.rpc('eth_getBlockByNumber', ['latest', false]).then((r) => r.result)

  beforeAll(() => {
    A = node.accounts.map((a) => a.address as Address)
  })

  it('chains blocks: state, number and timestamp carry forward, step = block time', async () => {
    const head = await latest()
    const blocks = await node.publicClient.simulateBlocks({
      blockTag: 'latest',
      blocks: [
        { calls: [{ from: A[0], to: FRESH, value: parseEther('1') }] },
        {
          stateOverrides: [{ address: R, code: BALANCE_OF }],
          calls: [{ from: A[0], to: R, data: pad(FRESH) }],
        },
      ],
    })
    expect(blocks.map((b) => b.number)).toEqual([BigInt(head.number) + 1n, BigInt(head.number) + 2n])
    expect(blocks.map((b) => b.timestamp)).toEqual([BigInt(head.timestamp) + 60n, BigInt(head.timestamp) + 120n])
    expect(blocks[0].parentHash).toBe(head.hash)
    expect(blocks[1].parentHash).toBe(blocks[0].hash)
    expect(blocks[1].calls[0].status).toBe('success')
    expect(BigInt(blocks[1].calls[0].data)).toBe(parseEther('1'))
  })

  it('fills gaps in block numbers with empty blocks', async () => {
    const head = await latest()
    const target = BigInt(head.number) + 4n
    const { result } = await sim({
      blockStateCalls: [
        {
          blockOverrides: { number: toHex(target) },
          stateOverrides: { [INFO]: { code: BLOCK_INFO } },
          calls: [{ to: INFO }],
        },
      ],
    })
    expect(result).toHaveLength(4)
    expect(result.map((b: any) => BigInt(b.number))).toEqual([target - 3n, target - 2n, target - 1n, target])
    expect(result.map((b: any) => BigInt(b.timestamp) - BigInt(head.timestamp))).toEqual([60n, 120n, 180n, 240n])
    expect(result.slice(0, 3).map((b: any) => b.calls)).toEqual([[], [], []])
    expect(result[3].parentHash).toBe(result[2].hash)
    expect(word(result[3].calls[0].returnData, 0)).toBe(target)
  })

  it('rejects block numbers and timestamps that do not increase (-38020, -38021)', async () => {
    const head = await latest()
    const n = BigInt(head.number)
    const t = BigInt(head.timestamp)
    const numbers = await sim({
      blockStateCalls: [{ blockOverrides: { number: toHex(n + 5n) } }, { blockOverrides: { number: toHex(n + 5n) } }],
    })
    expect(numbers.error.code).toBe(-38020)
    expect(numbers.error.message).toBe(`block numbers must be in order: ${n + 5n} <= ${n + 5n}`)
    const times = await sim({
      blockStateCalls: [{ blockOverrides: { time: toHex(t + 10n) } }, { blockOverrides: { time: toHex(t + 9n) } }],
    })
    expect(times.error.code).toBe(-38021)
    expect(times.error.message).toBe(`block timestamps must be in order: ${t + 9n} <= ${t + 10n}`)
    const past = await sim({ blockStateCalls: [{ blockOverrides: { time: toHex(t) } }] })
    expect(past.error.code).toBe(-38021)
  })

  it("base fee: 0 without validation, the chain's next base fee with validation (Base's Jovian rule)", async () => {
    const head = await latest()
    const plain = await sim({ blockStateCalls: [{}, {}] })
    expect(plain.result.map((b: any) => b.baseFeePerGas)).toEqual(['0x0', '0x0'])
    const validated = await sim({ blockStateCalls: [{}, {}], validation: true })
    // EIP-1559 with Base's extraData parameters: elasticity 5, denominator 100, at least 5e6 wei.
    const next = (baseFee: bigint, used: bigint, limit: bigint) => {
      const target = limit / 5n
      let fee = baseFee
      if (used > target) fee = baseFee + ((baseFee * (used - target)) / target / 100n || 1n)
      if (used < target) fee = baseFee - (baseFee * (target - used)) / target / 100n
      return fee < 5_000_000n ? 5_000_000n : fee
    }
    const first = next(BigInt(head.baseFeePerGas), BigInt(head.gasUsed), BigInt(head.gasLimit))
    expect(BigInt(validated.result[0].baseFeePerGas)).toBe(first)
    expect(BigInt(validated.result[1].baseFeePerGas)).toBe(next(first, 0n, BigInt(head.gasLimit)))
  })

  it('block overrides reach the header and the EVM', async () => {
    const head = await latest()
    const overrides = {
      // No gap: viem pairs result blocks with the request's by index (gaps are tested raw above).
      number: BigInt(head.number) + 1n,
      time: BigInt(head.timestamp) + 1000n,
      gasLimit: 30_000_000n,
      feeRecipient: '0x000000000000000000000000000000000000fee0' as Address,
      prevRandao: 0x1234n,
      baseFeePerGas: 7n,
      blobBaseFee: 3n,
    }
    const blocks = await node.publicClient.simulateBlocks({
      blockTag: 'latest',
      blocks: [{ blockOverrides: overrides, stateOverrides: [{ address: INFO, code: BLOCK_INFO }], calls: [{ to: INFO }] }],
    })
    const b = blocks[0]
    expect(blocks).toHaveLength(1)
    expect(b.number).toBe(overrides.number)
    expect(b.timestamp).toBe(overrides.time)
    expect(b.gasLimit).toBe(overrides.gasLimit)
    expect(b.miner).toBe(overrides.feeRecipient)
    expect(b.mixHash).toBe(pad('0x1234'))
    expect(b.baseFeePerGas).toBe(7n)
    const out = b.calls[0].data
    expect(word(out, 0)).toBe(overrides.number)
    expect(word(out, 1)).toBe(overrides.time)
    expect(word(out, 2)).toBe(BigInt(overrides.feeRecipient))
    expect(word(out, 3)).toBe(0x1234n)
    // The call pays no fee, as without validation, yet BASEFEE shows the overridden base fee.
    expect(word(out, 4)).toBe(7n)
    expect(word(out, 5)).toBe(30_000_000n)
    expect(word(out, 6)).toBe(3n)
    expect(word(out, 7)).toBe(BigInt(node.chainId))
  })

  it('withdrawals are credited after the block and listed in it', async () => {
    const W = '0x0000000000000000000000000000000000000e1f' as Address
    const withdrawals = [{ index: '0x0', validatorIndex: '0x7', address: W, amount: '0x3e8' }]
    const { result } = await sim({
      blockStateCalls: [
        { blockOverrides: { withdrawals }, stateOverrides: { [R]: { code: BALANCE_OF } }, calls: [{ to: R, input: pad(W) }] },
        { calls: [{ to: R, input: pad(W) }] },
      ],
    })
    expect(BigInt(result[0].calls[0].returnData)).toBe(0n)
    expect(BigInt(result[1].calls[0].returnData)).toBe(1000n * 10n ** 9n)
    expect(result[0].withdrawals).toEqual(withdrawals)
    expect(result[0].withdrawalsRoot).not.toBe(result[1].withdrawalsRoot)
    expect(result[1].withdrawals).toEqual([])
  })

  it('state overrides: balance, nonce, code, state (replaces) and stateDiff (patches)', async () => {
    const slot = (n: number) => pad(toHex(n))
    const { result } = await sim({
      returnFullTransactions: true,
      blockStateCalls: [
        {
          stateOverrides: {
            [S]: { code: SLOAD, stateDiff: { [slot(2)]: slot(7) } },
            [R]: { code: BALANCE_OF },
            [FRESH]: { balance: toHex(parseEther('3')), nonce: '0x5' },
          },
          calls: [
            { to: S, input: slot(2) },
            { to: R, input: pad(FRESH) },
            { from: FRESH, to: A[1], value: '0x1' },
            { from: FRESH, to: A[1], value: '0x1' },
          ],
        },
        {
          stateOverrides: { [S]: { state: { [slot(1)]: slot(5) } } },
          calls: [
            { to: S, input: slot(1) },
            { to: S, input: slot(2) },
          ],
        },
      ],
    })
    expect(BigInt(result[0].calls[0].returnData)).toBe(7n)
    expect(BigInt(result[0].calls[1].returnData)).toBe(parseEther('3'))
    expect(result[0].transactions.slice(2).map((t: any) => t.nonce)).toEqual(['0x5', '0x6'])
    expect(BigInt(result[1].calls[0].returnData)).toBe(5n)
    expect(BigInt(result[1].calls[1].returnData)).toBe(0n)
    const both = await sim({ blockStateCalls: [{ stateOverrides: { [S]: { state: {}, stateDiff: {} } } }] })
    expect(both.error.code).toBe(-32602)
    expect(both.error.message).toMatch(/has both 'state' and 'stateDiff'/)
  })

  describe('movePrecompileToAddress', () => {
    const ECRECOVER = '0x0000000000000000000000000000000000000001' as Address
    const MOVED = '0x0000000000000000000000000000000000000123' as Address
    let input: Hex
    let signer: Address
    beforeAll(async () => {
      const account = privateKeyToAccount(node.accounts[5].privateKey)
      signer = account.address
      const hash = keccak256(toHex('pcnode'))
      const sig = parseSignature(await account.sign({ hash }))
      input = concat([hash, pad(toHex(Number(sig.v ?? 27n))), sig.r, sig.s])
    })

    it('runs the precompile at its new address and the override code at the old one, for that block', async () => {
      const { result } = await sim({
        blockStateCalls: [
          {
            stateOverrides: { [ECRECOVER]: { movePrecompileToAddress: MOVED, code: '0x602a60005260206000f3' } },
            calls: [
              { to: MOVED, input },
              { to: ECRECOVER, input },
            ],
          },
          // geth starts each block from the chain's precompiles (the code override stays, unused).
          {
            calls: [
              { to: MOVED, input },
              { to: ECRECOVER, input },
            ],
          },
        ],
      })
      expect(result[0].calls[0].returnData).toBe(pad(signer.toLowerCase() as Hex))
      expect(BigInt(result[0].calls[1].returnData)).toBe(42n)
      expect(result[1].calls[0].returnData).toBe('0x')
      expect(result[1].calls[1].returnData).toBe(pad(signer.toLowerCase() as Hex))
      // The node's own map is back: ecrecover at 0x01 again.
      const call = await node.rpc('eth_call', [{ to: ECRECOVER, input }, 'latest'])
      expect(call.result).toBe(pad(signer.toLowerCase() as Hex))
    })

    it('eth_call shares the override code', async () => {
      const call = await node.rpc('eth_call', [
        { to: MOVED, input },
        'latest',
        { [ECRECOVER]: { movePrecompileToAddress: MOVED } },
      ])
      expect(call.result).toBe(pad(signer.toLowerCase() as Hex))
    })

    it('errors: -38022 to itself, -38023 same target twice or an overridden target, -32000 not a precompile', async () => {
      const self = await sim({ blockStateCalls: [{ stateOverrides: { [ECRECOVER]: { movePrecompileToAddress: ECRECOVER } } }] })
      expect(self.error.code).toBe(-38022)
      const twice = await sim({
        blockStateCalls: [
          {
            stateOverrides: {
              [ECRECOVER]: { movePrecompileToAddress: MOVED },
              '0x0000000000000000000000000000000000000002': { movePrecompileToAddress: MOVED },
            },
          },
        ],
      })
      expect(twice.error.code).toBe(-38023)
      const overridden = await sim({
        blockStateCalls: [{ stateOverrides: { [ECRECOVER]: { movePrecompileToAddress: MOVED }, [MOVED]: { balance: '0x1' } } }],
      })
      expect(overridden.error.code).toBe(-38023)
      const notPrecompile = await sim({ blockStateCalls: [{ stateOverrides: { [FRESH]: { movePrecompileToAddress: MOVED } } }] })
      expect(notPrecompile.error).toEqual({ code: -32000, message: `account ${FRESH_CHECKSUMMED} is not a precompile` })
    })
  })

  it('per-call defaults: nonce per sender, gas = the block remainder, zero fees, from 0x0', async () => {
    const nonce = await node.publicClient.getTransactionCount({ address: A[0], blockTag: 'latest' })
    const { result } = await sim({
      returnFullTransactions: true,
      blockStateCalls: [
        {
          blockOverrides: { gasLimit: toHex(1_000_000) },
          calls: [{ from: A[0], to: A[1] }, { from: A[0], to: A[1] }, { to: A[1] }],
        },
      ],
    })
    const txs = result[0].transactions
    expect(txs.map((t: any) => BigInt(t.nonce))).toEqual([BigInt(nonce), BigInt(nonce) + 1n, 0n])
    expect(txs.map((t: any) => BigInt(t.gas))).toEqual([1_000_000n, 979_000n, 958_000n])
    expect(txs[2].from).toBe(zeroAddress)
    for (const t of txs) {
      expect(t).toMatchObject({
        type: '0x2',
        maxFeePerGas: '0x0',
        maxPriorityFeePerGas: '0x0',
        gasPrice: '0x0',
        v: '0x0',
        r: '0x0',
        s: '0x0',
      })
      expect(t.blockHash).toBe(result[0].hash)
      expect(BigInt(t.chainId)).toBe(BigInt(node.chainId))
    }
    expect(result[0].calls).toHaveLength(3)
  })

  describe('traceTransfers', () => {
    const base = { [F]: { code: FORWARDER }, [REV]: { code: reverter('nope') } }

    it('logs every ETH movement as a Transfer from 0xeeee…, in execution order with real logs', async () => {
      const { result } = await sim({
        traceTransfers: true,
        blockStateCalls: [
          {
            stateOverrides: base,
            calls: [
              { from: A[0], to: A[1], value: toHex(5n) },
              { from: A[0], to: F, value: toHex(7n), input: pad(A[2]) },
            ],
          },
        ],
      })
      const [plain, forwarded] = result[0].calls
      expect(plain.logs).toMatchObject([transferLog(A[0], A[1], 5n)])
      expect(forwarded.logs).toMatchObject([
        transferLog(A[0], F, 7n),
        { address: F, topics: [], data: '0x' },
        transferLog(F, A[2], 7n),
      ])
      // Block-wide log indexes, log fields filled.
      expect(forwarded.logs.map((l: any) => l.logIndex)).toEqual(['0x1', '0x2', '0x3'])
      for (const log of forwarded.logs) {
        expect(log).toMatchObject({
          blockHash: result[0].hash,
          blockNumber: result[0].number,
          blockTimestamp: result[0].timestamp,
          transactionHash: result[0].transactions[1],
          transactionIndex: '0x1',
          removed: false,
        })
      }
      // Transfer logs stay out of the bloom; the forwarder's LOG0 is in.
      expect(result[0].logsBloom).not.toBe(`0x${'0'.repeat(512)}`)
    })

    it('drops the logs of reverted frames, and of a reverted call altogether', async () => {
      const { result } = await sim({
        traceTransfers: true,
        blockStateCalls: [
          {
            stateOverrides: base,
            calls: [
              { from: A[0], to: F, value: toHex(9n), input: pad(REV) },
              { from: A[0], to: REV, value: toHex(9n) },
            ],
          },
        ],
      })
      const [outer, reverted] = result[0].calls
      expect(outer.status).toBe('0x1')
      expect(outer.logs).toMatchObject([transferLog(A[0], F, 9n), { address: F, topics: [] }])
      expect(outer.logs).toHaveLength(2)
      expect(reverted.status).toBe('0x0')
      expect(reverted.logs).toEqual([])
    })

    it('logs selfdestruct payouts', async () => {
      const SD = '0x0000000000000000000000000000000000005d5d' as Address
      const { result } = await sim({
        traceTransfers: true,
        blockStateCalls: [
          { stateOverrides: { [SD]: { code: selfDestructTo(A[3]), balance: toHex(3n) } }, calls: [{ from: A[0], to: SD }] },
        ],
      })
      expect(result[0].calls[0].logs).toMatchObject([transferLog(SD, A[3], 3n)])
    })

    it('adds nothing without traceTransfers', async () => {
      const { result } = await sim({
        blockStateCalls: [{ stateOverrides: base, calls: [{ from: A[0], to: F, value: toHex(7n), input: pad(A[2]) }] }],
      })
      expect(result[0].calls[0].logs).toMatchObject([{ address: F, topics: [], data: '0x' }])
      expect(result[0].calls[0].logs).toHaveLength(1)
    })

    it('works through viem simulateCalls, with asset changes', async () => {
      const account = A[4]
      const { results, assetChanges } = await node.publicClient.simulateCalls({
        account,
        calls: [{ to: A[5], value: parseEther('2') }],
        traceTransfers: true,
        traceAssetChanges: true,
      })
      expect(results[0].status).toBe('success')
      expect(results[0].logs?.[0]).toMatchObject({ address: ETH_ADDRESS, data: pad(toHex(parseEther('2'))) })
      const eth = assetChanges.find((c) => c.token.address === ETH_ADDRESS)
      expect(eth?.value.diff).toBe(-parseEther('2'))
    })
  })

  describe('validation', () => {
    const fees = { maxFeePerGas: toHex(10_000_000_000n), maxPriorityFeePerGas: '0x0' }
    const validate = (calls: unknown[], stateOverrides?: unknown) =>
      sim({ validation: true, blockStateCalls: [{ stateOverrides, calls }] })

    it('nonce too low -38010 and too high -38011 (unchecked without validation)', async () => {
      const over = { [FRESH]: { balance: toHex(parseEther('1')), nonce: '0x5' } }
      const low = await validate([{ from: FRESH, to: A[1], nonce: '0x4', ...fees }], over)
      expect(low.error.code).toBe(-38010)
      expect(low.error.message).toMatch(
        new RegExp(`^err: nonce too low: address ${FRESH_CHECKSUMMED}, tx: 4 state: 5 \\(supplied gas \\d+\\)$`),
      )
      const high = await validate([{ from: FRESH, to: A[1], nonce: '0x6', ...fees }], over)
      expect(high.error.code).toBe(-38011)
      const lax = await sim({ blockStateCalls: [{ stateOverrides: over, calls: [{ from: FRESH, to: A[1], nonce: '0x4' }] }] })
      expect(lax.result[0].calls[0].status).toBe('0x1')
    })

    it('fee below the base fee -38012, intrinsic gas -38013, funds -38014: the request aborts', async () => {
      const fee = await validate([{ from: A[0], to: A[1] }])
      expect(fee.error.code).toBe(-38012)
      expect(fee.error.message).toMatch(
        /^err: max fee per gas less than block base fee: address 0x\w+, maxFeePerGas: 0, baseFee: \d+/,
      )
      const intrinsic = await validate([{ from: A[0], to: A[1], gas: toHex(20_000), ...fees }])
      expect(intrinsic.error).toEqual({
        code: -38013,
        message: 'err: intrinsic gas too low: have 20000, want 21000 (supplied gas 20000)',
      })
      const funds = await validate([
        { from: A[0], to: A[1], ...fees },
        { from: FRESH, to: A[1], value: '0x1', gas: toHex(21_000), ...fees },
      ])
      expect(funds.error.code).toBe(-38014)
      expect(funds.error.message).toBe(
        `err: insufficient funds for gas * price + value: address ${FRESH_CHECKSUMMED} have 0 want ${21_000n * 10_000_000_000n + 1n} (supplied gas 21000)`,
      )
      // The value is checked without validation too (geth does), with zero fees.
      const value = await sim({ blockStateCalls: [{ calls: [{ from: FRESH, to: A[1], value: '0x3e8' }] }] })
      expect(value.error.code).toBe(-38014)
    })

    it('charges fees when the calls pay them', async () => {
      const { result } = await sim({
        validation: true,
        blockStateCalls: [
          {
            stateOverrides: { [FRESH]: { balance: toHex(parseEther('1')) }, [R]: { code: BALANCE_OF } },
            calls: [{ from: FRESH, to: A[1], ...fees }],
          },
          { calls: [{ from: A[1], to: R, input: pad(FRESH), ...fees }] },
        ],
      })
      const baseFee = BigInt(result[0].baseFeePerGas)
      // Base charges the L1 data fee beside gas: this call is small enough to pay its minimum,
      // what GasPriceOracle.getL1Fee answers for an empty transaction.
      const minL1Fee = await node.publicClient.readContract({
        address: '0x420000000000000000000000000000000000000F',
        abi: parseAbi(['function getL1Fee(bytes) view returns (uint256)']),
        functionName: 'getL1Fee',
        args: ['0x'],
      })
      expect(minL1Fee).toBeGreaterThan(0n)
      expect(BigInt(result[1].calls[0].returnData)).toBe(parseEther('1') - 21_000n * baseFee - minL1Fee)
    })
  })

  it('reports failed calls in their result: revert (3, data, reason), VM error (-32015)', async () => {
    const blocks = await node.publicClient.simulateBlocks({
      blocks: [
        {
          stateOverrides: [
            { address: REV, code: reverter('nope') },
            { address: R, code: INVALID },
          ],
          calls: [{ to: REV }, { to: R, gas: 50_000n }, { from: A[0], to: A[1], value: 1n }],
        },
      ],
    })
    const [reverted, invalid, ok] = blocks[0].calls
    expect(reverted.status).toBe('failure')
    expect(reverted.error?.message).toMatch(/nope/)
    expect(invalid.status).toBe('failure')
    expect(invalid.gasUsed).toBe(50_000n)
    expect(ok.status).toBe('success')
    const { result } = await sim({
      blockStateCalls: [
        { stateOverrides: { [REV]: { code: reverter('nope') }, [R]: { code: INVALID } }, calls: [{ to: REV }, { to: R }] },
      ],
    })
    expect(result[0].calls[0]).toMatchObject({
      status: '0x0',
      returnData: '0x',
      logs: [],
      error: { code: 3, message: 'execution reverted: nope', data: reverter('nope').slice(0, 2) + reverter('nope').slice(26) },
    })
    expect(result[0].calls[1]).toMatchObject({ status: '0x0', error: { code: -32015, message: 'invalid opcode' } })
  })

  it('returns full block objects whose hash is the header hash and stateRoot is zero', async () => {
    const { result } = await sim({ traceTransfers: true, blockStateCalls: [{ calls: [{ from: A[0], to: A[1], value: '0x1' }] }] })
    const b = result[0]
    const keys = [
      'number',
      'hash',
      'parentHash',
      'timestamp',
      'gasLimit',
      'gasUsed',
      'baseFeePerGas',
      'stateRoot',
      'blobGasUsed',
      'excessBlobGas',
      'difficulty',
      'extraData',
      'logsBloom',
      'miner',
      'mixHash',
      'nonce',
      'parentBeaconBlockRoot',
      'receiptsRoot',
      'requestsHash',
      'sha3Uncles',
      'size',
      'transactionsRoot',
      'withdrawalsRoot',
      'transactions',
      'uncles',
      'withdrawals',
      'calls',
    ]
    for (const key of keys) expect(b, key).toHaveProperty(key)
    expect(b.stateRoot).toBe(ZERO_HASH)
    expect(b.uncles).toEqual([])
    expect(b.withdrawals).toEqual([])
    expect(b.calls[0]).toMatchObject({ status: '0x1', gasUsed: '0x5208', returnData: '0x' })
    const q = (hex: Hex) => (BigInt(hex) === 0n ? '0x' : numberToHex(BigInt(hex)))
    const header = toRlp([
      b.parentHash,
      b.sha3Uncles,
      b.miner,
      b.stateRoot,
      b.transactionsRoot,
      b.receiptsRoot,
      b.logsBloom,
      q(b.difficulty),
      q(b.number),
      q(b.gasLimit),
      q(b.gasUsed),
      q(b.timestamp),
      b.extraData,
      b.mixHash,
      b.nonce,
      q(b.baseFeePerGas),
      b.withdrawalsRoot,
      q(b.blobGasUsed),
      q(b.excessBlobGas),
      b.parentBeaconBlockRoot,
      b.requestsHash,
    ])
    expect(keccak256(header)).toBe(b.hash)
    expect(b.calls[0].logs[0].transactionHash).toBe(b.transactions[0])
  })

  it('BLOCKHASH sees the simulated parents', async () => {
    const { result } = await sim({
      blockStateCalls: [{ stateOverrides: { [R]: { code: PARENT_HASH } }, calls: [{ to: R }] }, { calls: [{ to: R }] }],
    })
    const head = await latest()
    expect(result[0].calls[0].returnData).toBe(head.hash)
    expect(result[1].calls[0].returnData).toBe(result[0].hash)
  })

  describe('limits and request errors', () => {
    it('256 blocks including gap fillers, 5000 calls per block, 10000 in total: -38026', async () => {
      const head = await latest()
      expect((await sim({ blockStateCalls: Array.from({ length: 257 }, () => ({})) })).error.code).toBe(-38026)
      const span = await sim({ blockStateCalls: [{ blockOverrides: { number: toHex(BigInt(head.number) + 257n) } }] })
      expect(span.error).toEqual({ code: -38026, message: 'too many blocks' })
      const ok = await sim({ blockStateCalls: [{ blockOverrides: { number: toHex(BigInt(head.number) + 256n) } }] })
      expect(ok.result).toHaveLength(256)
      const call = { to: A[1] }
      const perBlock = await sim({ blockStateCalls: [{ calls: Array.from({ length: 5001 }, () => call) }] })
      expect(perBlock.error.code).toBe(-38026)
      const total = await sim({
        blockStateCalls: Array.from({ length: 3 }, () => ({ calls: Array.from({ length: 5000 }, () => call) })),
      })
      expect(total.error.code).toBe(-38026)
    })

    it('a 50M gas budget shared by all calls: -38026 once spent', async () => {
      const burn = { to: R }
      const spent = await sim({
        blockStateCalls: [{ stateOverrides: { [R]: { code: INVALID } }, calls: [burn, burn] }, { calls: [burn, burn] }],
      })
      expect(spent.error.code).toBe(-38026)
      expect(spent.error.message).toMatch(/gas budget/)
      // As geth: a call gets the whole remaining budget (no EIP-7825 cap in simulation), so one burns all 50M.
      const fits = await sim({ blockStateCalls: [{ stateOverrides: { [R]: { code: INVALID } }, calls: [burn] }] })
      const used = fits.result[0].calls.map((c: any) => BigInt(c.gasUsed))
      expect(used.reduce((a: bigint, b: bigint) => a + b, 0n)).toBe(50_000_000n)
    })

    it('malformed input -32602, unknown base block -32000 header not found', async () => {
      expect((await sim({ blockStateCalls: [] })).error).toEqual({ code: -32602, message: 'empty input' })
      expect((await sim({})).error.code).toBe(-32602)
      const typo = await sim({ blockStateCalls: [{ call: [] }] })
      expect(typo.error.code).toBe(-32602)
      expect(typo.error.message).toMatch(/blockStateCalls\[0\]: unknown field "call"/)
      const badCall = await sim({ blockStateCalls: [{ calls: [{ to: '0x12' }] }] })
      expect(badCall.error.message).toMatch(/blockStateCalls\[0\]\.calls\[0\]\.to/)
      expect((await sim({ blockStateCalls: [{}] }, '0x10000')).error).toEqual({ code: -32000, message: 'header not found' })
    })
  })

  it('"pending" simulates on the pre-confirmed state', async () => {
    const wallet = node.wallet(6)
    const to = A[7]
    const before = await node.publicClient.getBalance({ address: to, blockTag: 'latest' })
    const hash = await wallet.sendTransaction({ to, value: parseEther('1.25') })
    await waitForReceipt(node, hash)
    const pending = await node.rpc('eth_getBlockByNumber', ['pending', false])
    const payload = { blockStateCalls: [{ stateOverrides: { [R]: { code: BALANCE_OF } }, calls: [{ to: R, input: pad(to) }] }] }
    const onPending = (await sim(payload, 'pending')).result[0]
    const onLatest = (await sim(payload, 'latest')).result[0]
    expect(BigInt(onPending.calls[0].returnData)).toBe(before + parseEther('1.25'))
    expect(BigInt(onLatest.calls[0].returnData)).toBe(before)
    expect(BigInt(onPending.number)).toBe(BigInt(pending.result.number) + 1n)
    expect(onPending.parentHash).toBe(pending.result.hash)
    // viem, too.
    const viaViem = await node.publicClient.simulateBlocks({
      blockTag: 'pending',
      blocks: [{ stateOverrides: [{ address: R, code: BALANCE_OF }], calls: [{ to: R, data: pad(to) }] }],
    })
    expect(BigInt(viaViem[0].calls[0].data)).toBe(before + parseEther('1.25'))
  })

  it('nothing a simulation does reaches the node state', async () => {
    const watched = [A[0], A[1], A[2], FRESH, F, R, S, '0x0000000000000000000000000000000000000001' as Address]
    const snapshot = async (blockTag: 'latest' | 'pending') =>
      Promise.all(
        watched.map(async (address) => [
          await node.publicClient.getBalance({ address, blockTag }),
          await node.publicClient.getTransactionCount({ address, blockTag }),
          await node.publicClient.getCode({ address, blockTag }),
          await node.publicClient.getStorageAt({ address: S, slot: pad('0x1'), blockTag }),
        ]),
      )
    const before = [await snapshot('latest'), await snapshot('pending')]
    const blockNumber = await node.publicClient.getBlockNumber()
    for (const [validation, block] of [
      [false, 'latest'],
      [true, 'pending'],
    ] as const) {
      const { result, error } = await sim(
        {
          validation,
          traceTransfers: true,
          blockStateCalls: [
            {
              blockOverrides: {
                baseFeePerGas: '0x0',
                withdrawals: [{ index: '0x0', validatorIndex: '0x0', address: A[2], amount: '0x1' }],
              },
              stateOverrides: {
                [FRESH]: { balance: toHex(parseEther('100')), nonce: '0x9' },
                [F]: { code: FORWARDER },
                [S]: { code: SLOAD, state: { [pad('0x1')]: pad('0x99') } },
                '0x0000000000000000000000000000000000000001': { movePrecompileToAddress: R },
              },
              calls: [
                { from: A[0], to: A[1], value: toHex(parseEther('1')) },
                { from: FRESH, to: F, value: toHex(parseEther('2')), input: pad(A[2]) },
                { from: A[1], input: '0x600160005560016000f3' },
              ],
            },
            // Base fee 0 again: Base's rule would lift it to its 5e6 wei minimum, which a fee-less call cannot pay.
            {
              blockOverrides: { number: toHex(blockNumber + 5n), baseFeePerGas: '0x0' },
              calls: [{ from: A[2], to: A[0], value: '0x1' }],
            },
          ],
        },
        block,
      )
      expect(error).toBeUndefined()
      expect(result.at(-1).calls[0].status).toBe('0x1')
    }
    expect([await snapshot('latest'), await snapshot('pending')]).toEqual(before)
    // The node goes on as before: a real transaction from A[0] gets the nonce it expects.
    const hash = await node.wallet(0).sendTransaction({ to: A[1], value: 1n })
    const receipt = await waitForReceipt(node, hash)
    expect(receipt.status).toBe('success')
    const tx = await node.publicClient.getTransaction({ hash })
    expect(tx.nonce).toBe(before[1][0][1])
  })

  it('eth_call and eth_estimateGas take block and state overrides, and "pending"', async () => {
    const head = await latest()
    const call = await node.rpc('eth_call', [
      { to: INFO },
      'pending',
      { [INFO]: { code: BLOCK_INFO } },
      { number: toHex(BigInt(head.number) + 100n), time: '0x1234' },
    ])
    expect(word(call.result, 0)).toBe(BigInt(head.number) + 100n)
    expect(word(call.result, 1)).toBe(0x1234n)
    const estimate = await node.rpc('eth_estimateGas', [
      { from: FRESH, to: F, value: toHex(parseEther('1')), input: pad(A[2]) },
      'pending',
      { [FRESH]: { balance: toHex(parseEther('5')) }, [F]: { code: FORWARDER } },
    ])
    expect(BigInt(estimate.result)).toBeGreaterThan(21_000n)
  })
})
