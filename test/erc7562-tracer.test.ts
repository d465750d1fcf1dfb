// The native erc7562Tracer against geth's semantics (eth/tracers/native/erc7562.go): a hand-assembled
// contract (set by a state override of debug_traceCall) that does one thing per field, its expected
// frame derived opcode by opcode; the call tree equal to callTracer's for the same call; the shape the
// eth-infinitism bundler's parser (ERC7562Call.ts) and rundler (alloy's Erc7562Frame) read; the config
// (ignoredOpcodes, withLog, geth's decoding errors); debug_traceTransaction and debug_traceBlockByNumber.
import { type Hex, pad, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { useTestNode, waitForReceipt, waitForSealed } from './helpers.js'

type Json = any

const OPCODES: Record<string, number> = {
  STOP: 0x00,
  ISZERO: 0x15,
  KECCAK256: 0x20,
  CODECOPY: 0x39,
  EXTCODESIZE: 0x3b,
  EXTCODEHASH: 0x3f,
  TIMESTAMP: 0x42,
  POP: 0x50,
  MSTORE: 0x52,
  MSTORE8: 0x53,
  SLOAD: 0x54,
  SSTORE: 0x55,
  JUMP: 0x56,
  GAS: 0x5a,
  JUMPDEST: 0x5b,
  TLOAD: 0x5c,
  TSTORE: 0x5d,
  PUSH1: 0x60,
  PUSH2: 0x61,
  DUP1: 0x80,
  LOG0: 0xa0,
  CALL: 0xf1,
  REVERT: 0xfd,
  STATICCALL: 0xfa,
}

/** Bytecode from opcode names and 0x-prefixed immediates. */
function asm(source: string): Hex {
  let out = ''
  for (const token of source.trim().split(/\s+/)) {
    if (token.startsWith('0x')) out += token.slice(2)
    else if (token in OPCODES) out += OPCODES[token].toString(16).padStart(2, '0')
    else throw new Error(`unknown opcode ${token}`)
  }
  return `0x${out}`
}

const address = (n: number): Hex => pad(toHex(n), { size: 20 })
const slot = (n: number): Hex => pad(toHex(n), { size: 32 })
const A = address(0xa1)
const B = address(0xb2)
const C = address(0xc3)
const L = address(0xd4)
const DEAD = address(0xdead)
const FROM = address(0xf00d)

/** B: reads its slot 0, then stops. */
const B_CODE = asm('PUSH1 0x00 SLOAD POP STOP')
/** L: loops until its gas is gone. */
const L_CODE = asm('JUMPDEST PUSH1 0x00 JUMP')
/** Error("no"), ABI-encoded. */
const NO = '08c379a0' + slot(0x20).slice(2) + slot(2).slice(2) + `6e6f${'0'.repeat(60)}`
/** C: reverts with Error("no") (copied from its own code, after the 12 bytes that copy it). */
const C_CODE = `${asm('PUSH1 0x64 PUSH1 0x0c PUSH1 0x00 CODECOPY PUSH1 0x64 PUSH1 0x00 REVERT')}${NO}` as Hex

/** A: one thing per erc7562Tracer field (comments: what geth records). */
const A_SOURCE = `
  PUSH1 0x01 SLOAD POP
  PUSH1 0x07 PUSH1 0x02 SSTORE
  PUSH1 0x08 PUSH1 0x02 SSTORE
  PUSH1 0x02 SLOAD POP
  PUSH1 0x09 PUSH1 0x03 TSTORE
  PUSH1 0x03 TLOAD POP
  PUSH1 0xb2 EXTCODESIZE ISZERO POP
  PUSH2 0xdead EXTCODEHASH POP
  TIMESTAMP POP
  GAS POP
  PUSH1 0xff PUSH1 0x00 MSTORE8
  PUSH1 0x00 DUP1 PUSH1 0x01 PUSH1 0x00 DUP1 PUSH1 0xb2 GAS CALL POP
  PUSH1 0x00 DUP1 DUP1 DUP1 DUP1 PUSH1 0xd4 PUSH2 0x2710 CALL POP
  PUSH1 0x00 DUP1 DUP1 DUP1 PUSH1 0xc3 PUSH2 0xffff STATICCALL POP
  PUSH1 0x2a PUSH1 0x00 MSTORE
  PUSH1 0x20 PUSH1 0x00 KECCAK256 POP
  PUSH1 0x08 PUSH1 0x1c KECCAK256 POP
  PUSH1 0x00 PUSH1 0x00 LOG0
  STOP
`
const A_CODE = asm(A_SOURCE)
/** How many times A runs `op` (its code runs straight through). */
const inA = (op: string) => A_SOURCE.split(/\s+/).filter((t) => t === op).length

const OVERRIDES = {
  [A]: { code: A_CODE, stateDiff: { [slot(1)]: slot(5) } },
  [B]: { code: B_CODE },
  [C]: { code: C_CODE },
  [L]: { code: L_CODE },
}
const size = (code: Hex) => (code.length - 2) / 2

/** The fields callTracer has too. */
function callFields(frame: Json): Json {
  const { accessedSlots, extCodeAccessInfo, usedOpcodes, contractSize, outOfGas, keccak, calls, ...rest } = frame
  return calls ? { ...rest, calls: calls.map(callFields) } : rest
}

/** A frame's keys in geth's order (gen_callframewithopcodes_json.go). */
const FRAME_KEYS = [
  'from',
  'gas',
  'gasUsed',
  'to',
  'input',
  'output',
  'error',
  'revertReason',
  'logs',
  'value',
  'accessedSlots',
  'extCodeAccessInfo',
  'usedOpcodes',
  'contractSize',
  'outOfGas',
  'keccak',
  'calls',
  'type',
]

/** The shape the eth-infinitism bundler validates (ERC7562Call.ts's ow schema) and rundler deserializes. */
function expectParserShape(frame: Json): void {
  for (const key of Object.keys(frame)) expect(FRAME_KEYS).toContain(key)
  for (const key of ['from', 'gas', 'gasUsed', 'input', 'type']) expect(typeof frame[key]).toBe('string')
  expect(Object.keys(frame.accessedSlots)).toEqual(['reads', 'writes', 'transientReads', 'transientWrites'])
  for (const values of Object.values(frame.accessedSlots.reads)) expect(Array.isArray(values)).toBe(true)
  for (const n of Object.values(frame.accessedSlots.writes)) expect(typeof n).toBe('number')
  expect(Array.isArray(frame.extCodeAccessInfo)).toBe(true)
  for (const n of Object.values(frame.usedOpcodes)) expect(typeof n).toBe('number')
  for (const entry of Object.values(frame.contractSize) as Json[]) {
    expect(Object.keys(entry)).toEqual(['contractSize', 'opcode'])
    expect(typeof entry.contractSize).toBe('number')
    expect(typeof entry.opcode).toBe('number')
  }
  expect(typeof frame.outOfGas).toBe('boolean')
  for (const call of frame.calls ?? []) expectParserShape(call)
}

describe('erc7562Tracer', () => {
  const node = useTestNode({}, { timeoutMs: 30_000 })

  const trace = (tracer: string, tracerConfig?: unknown) =>
    node.rpc('debug_traceCall', [
      { from: FROM, to: A, gas: '0x100000' },
      'latest',
      { tracer, stateOverrides: OVERRIDES, ...(tracerConfig === undefined ? {} : { tracerConfig }) },
    ])

  it('records each field as geth does, in geth key order', async () => {
    const { result, error } = await trace('erc7562Tracer', { withLog: true })
    expect(error).toBeUndefined()
    // All but what a call that succeeds without output leaves out.
    const absent = ['output', 'error', 'revertReason']
    expect(Object.keys(result)).toEqual(FRAME_KEYS.filter((key) => !absent.includes(key)))
    expect(result).toMatchObject({ from: FROM, gas: '0x100000', to: A, input: '0x', value: '0x0', type: 'CALL' })
    // SLOAD of 1 (its value then), two SSTOREs of 2 (so its later SLOAD is no read), TSTORE then TLOAD of 3.
    expect(result.accessedSlots).toEqual({
      reads: { [slot(1)]: [slot(5)] },
      writes: { [slot(2)]: 2 },
      transientReads: { [slot(3)]: 1 },
      transientWrites: { [slot(3)]: 1 },
    })
    // EXTCODESIZE followed by ISZERO is left out (OP-051); EXTCODEHASH is kept.
    expect(result.extCodeAccessInfo).toEqual([DEAD])
    // The first EXTCODE*/CALL reaching each address, with its opcode (B's EXTCODESIZE before its CALL).
    expect(result.contractSize).toEqual({
      [B]: { contractSize: size(B_CODE), opcode: 0x3b },
      [C]: { contractSize: size(C_CODE), opcode: 0xfa },
      [L]: { contractSize: size(L_CODE), opcode: 0xf1 },
      [DEAD]: { contractSize: 0, opcode: 0x3f },
    })
    // PUSH, DUP, POP and ISZERO ignored by default; GAS once (the GAS before CALL is not counted); keys sorted as strings.
    expect(result.usedOpcodes).toEqual({
      '0x0': 1,
      '0x20': 2,
      '0x3b': 1,
      '0x3f': 1,
      '0x42': 1,
      '0x52': 1,
      '0x53': 1,
      '0x54': 2,
      '0x55': 2,
      '0x5a': 1,
      '0x5c': 1,
      '0x5d': 1,
      '0xa0': 1,
      '0xf1': 2,
      '0xfa': 1,
    })
    expect(Object.keys(result.usedOpcodes)).toEqual(Object.keys(result.usedOpcodes).sort())
    expect(result.outOfGas).toBe(false)
    // The preimages sorted by bytes: memory[0, 32) and memory[28, 36) zero-padded past memory's 32 bytes.
    expect(result.keccak).toEqual([slot(0x2a), '0x0000002a00000000'])
    expect(result.logs).toEqual([{ address: A, topics: [], data: '0x', index: '0x0', position: '0x3' }])

    const [b, l, c] = result.calls
    // Its input as it was at the CALL (A's memory is overwritten after).
    expect(b).toMatchObject({ from: A, to: B, input: '0xff', type: 'CALL', value: '0x0', outOfGas: false })
    expect(b.accessedSlots.reads).toEqual({ [slot(0)]: [slot(0)] })
    expect(b.usedOpcodes).toEqual({ '0x0': 1, '0x54': 1 })
    expect(b.keccak).toBeUndefined()
    // L: 10,000 gas, 12 a round (JUMPDEST 1, PUSH1 3, JUMP 8): 833 rounds, then JUMPDEST and PUSH1 and a JUMP that fails.
    expect(l).toMatchObject({ to: L, gas: '0x2710', gasUsed: '0x2710', error: 'out of gas', outOfGas: true })
    expect(l.usedOpcodes).toEqual({ '0x56': 834, '0x5b': 834 })
    expect(l.output).toBeUndefined()
    expect(c).toMatchObject({ to: C, type: 'STATICCALL', error: 'execution reverted', revertReason: 'no', output: `0x${NO}` })
    expect(c.value).toBeUndefined()
    expect(c.usedOpcodes).toEqual({ '0x39': 1, '0xfd': 1 })
    expectParserShape(result)
  }, 60_000)

  it('has callTracer’s call tree (from, gas, gasUsed, to, input, output, error, revertReason, logs, value, type)', async () => {
    const [mine, calls] = await Promise.all([trace('erc7562Tracer', { withLog: true }), trace('callTracer', { withLog: true })])
    expect(callFields(mine.result)).toEqual(calls.result)
  }, 60_000)

  it('config: ignoredOpcodes replaces the default list, withLog is off by default, geth’s decoding errors', async () => {
    const plain = (await trace('erc7562Tracer')).result
    expect(plain.logs).toBeUndefined()
    const all = (await trace('erc7562Tracer', { ignoredOpcodes: [] })).result
    // Nothing ignored: PUSH1 (0x60), POP (0x50), DUP1 (0x80), ISZERO (0x15) counted too.
    expect(all.usedOpcodes).toMatchObject({ '0x15': 1, '0x50': inA('POP'), '0x60': inA('PUSH1'), '0x80': inA('DUP1'), '0x54': 2 })
    const some = (await trace('erc7562Tracer', { IgnoredOpcodes: ['0x54', '0x60'] })).result
    expect(some.usedOpcodes['0x54']).toBeUndefined()
    expect(some.usedOpcodes['0x60']).toBeUndefined()
    expect(some.usedOpcodes['0x50']).toBe(inA('POP'))
    expect((await trace('erc7562Tracer', { stackTopItemsSize: 1 })).result.extCodeAccessInfo).toEqual([DEAD])

    const errors: Array<[unknown, string]> = [
      [{ withLog: 1 }, 'json: cannot unmarshal number into Go struct field erc7562TracerConfig.withLog of type bool'],
      [
        { ignoredOpcodes: [84] },
        'json: cannot unmarshal non-string into Go struct field erc7562TracerConfig.ignoredOpcodes of type hexutil.Uint64',
      ],
      [
        { ignoredOpcodes: ['54'] },
        'json: cannot unmarshal hex string without 0x prefix into Go struct field erc7562TracerConfig.ignoredOpcodes of type hexutil.Uint64',
      ],
      [
        { stackTopItemsSize: 1.5 },
        'json: cannot unmarshal number 1.5 into Go struct field erc7562TracerConfig.stackTopItemsSize of type int',
      ],
      [[1], 'json: cannot unmarshal array into Go value of type native.erc7562TracerConfig'],
    ]
    for (const [config, message] of errors) {
      const { error } = await trace('erc7562Tracer', config)
      expect(error).toEqual({ code: -32000, message })
    }
    expect((await node.rpc('eth_blockNumber')).result).toMatch(/^0x/)
  }, 60_000)

  it('traces a mined transaction and a block (debug_traceTransaction, debug_traceBlockByNumber)', async () => {
    // A contract whose constructor hashes and stores: a CREATE at the top, its keccak preimage recorded.
    const init = asm('PUSH1 0x2a PUSH1 0x00 MSTORE PUSH1 0x20 PUSH1 0x00 KECCAK256 PUSH1 0x00 SSTORE STOP')
    const hash = await node.wallet(0).sendTransaction({ data: init })
    const receipt = await waitForReceipt(node, hash)
    const { result } = await node.rpc('debug_traceTransaction', [hash, { tracer: 'erc7562Tracer' }])
    expect(result).toMatchObject({
      type: 'CREATE',
      to: receipt.contractAddress,
      gasUsed: toHex(receipt.gasUsed),
      outOfGas: false,
    })
    expect(result.accessedSlots.writes).toEqual({ [slot(0)]: 1 })
    expect(result.keccak).toEqual([slot(0x2a)])
    expect(result.usedOpcodes).toEqual({ '0x0': 1, '0x20': 1, '0x52': 1, '0x55': 1 })
    expectParserShape(result)
    await waitForSealed(node, hash)
    const block = await node.rpc('debug_traceBlockByNumber', [toHex(receipt.blockNumber), { tracer: 'erc7562Tracer' }])
    const entry = block.result.find((e: Json) => e.txHash === hash)
    expect(entry.result).toEqual(result)
  }, 60_000)
})
