// JavaScript tracers run in a QuickJS sandbox: no route out to the node's process (checked by the
// file an escape would write, not only by the error), promise jobs never run, and a tracer that
// loops, fills its heap, recurses or throws values whose text cannot be had gets an error for its
// own request while the node keeps answering. Also: the trace timeout's ceiling, and alto's and
// rundler's ERC-4337 validation tracers (as they send them) through debug_traceCall.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Hex, pad, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_TIMEOUT_MS, parseTraceConfig } from '../src/node/tracing/config.js'
import { startTestNode, type TestNode } from './helpers.js'

type Json = any

const address = (n: number): Hex => pad(toHex(n), { size: 20 })
/** A loop of 7 opcodes per round, 10,000 rounds: step() runs 70,002 times. */
const LOOP = '0x6127105b600190038060035700'
const fixture = (name: string) => {
  const text = readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')
  // The first line names the source; what the bundler sends starts on the next.
  return text.slice(text.indexOf('\n') + 1)
}

describe('JS tracer sandbox', () => {
  let node: TestNode
  let dir: string
  const hostErrors: unknown[] = []
  const onHostError = (error: unknown) => hostErrors.push(error)

  beforeAll(async () => {
    process.on('unhandledRejection', onHostError)
    process.on('uncaughtException', onHostError)
    node = await startTestNode()
    dir = mkdtempSync(join(tmpdir(), 'pcnode-sandbox-'))
  })
  afterAll(async () => {
    await node?.stop()
    rmSync(dir, { recursive: true, force: true })
    process.off('unhandledRejection', onHostError)
    process.off('uncaughtException', onHostError)
  })

  const traceCall = (tracer: string, config: Record<string, unknown> = {}, code?: Hex) =>
    node.rpc('debug_traceCall', [
      { to: address(0xc0de), data: '0x1234' },
      'latest',
      { tracer, ...config, ...(code ? { stateOverrides: { [address(0xc0de)]: { code } } } : {}) },
    ])

  /** Runs `attack` while a second client asks eth_blockNumber; the node must answer it afterwards. */
  const whileServing = async <T>(attack: () => Promise<T>): Promise<T> => {
    let stop = false
    let answered = 0
    const second = (async () => {
      while (!stop) {
        if ((await node.rpc('eth_blockNumber')).result) answered++
      }
    })()
    const out = await attack()
    stop = true
    await second
    expect(answered).toBeGreaterThan(0)
    expect((await node.rpc('eth_blockNumber')).result).toMatch(/^0x[0-9a-f]+$/)
    return out
  }

  it('no route reaches the host: the marker files the escapes write do not appear', async () => {
    const routes: Record<string, string> = {
      globalConstructor: 'constructor.constructor',
      thisConstructor: 'this.constructor.constructor',
      prototypeOfDb: 'Object.getPrototypeOf(db).constructor.constructor',
      errorConstructor: '(function () { try { null.x } catch (e) { return e.constructor.constructor } })()',
      hostReadError: '(function () { try { db.getBalance([1]) } catch (e) { return e.constructor.constructor } })()',
      prepareStackTrace:
        '(function () { Error.prepareStackTrace = function (e, s) { return s }; var s = new Error("x").stack; return (s && s[0] && s[0].getFunction && s[0].getFunction()) || Function })()',
    }
    for (const [name, fn] of Object.entries(routes)) {
      const marker = join(dir, name)
      const attack = `var p = (${fn})("return process")();
        try { p.getBuiltinModule("child_process").execSync("touch ${marker}") } catch (e) {}
        p.getBuiltinModule("fs").writeFileSync("${marker}", "x");`
      const r = await traceCall(`{result: function(ctx, db) { ${attack} return 1 }, fault: function() {}}`)
      expect(r.error?.message, name).toBe("ReferenceError: process is not defined    in server-side tracer function 'result'")
      expect(existsSync(marker), name).toBe(false)
    }
    // A bare expression as the tracer name is evaluated as JavaScript, in the sandbox too.
    const marker = join(dir, 'name')
    const r = await traceCall(
      `constructor.constructor("return process")().getBuiltinModule("fs").writeFileSync("${marker}", "x")`,
    )
    expect(r.error).toEqual({ code: -32000, message: 'ReferenceError: process is not defined' })
    expect(existsSync(marker)).toBe(false)
    // Nothing of Node's is in the realm, and no engine extras (QuickJS's std/os, print, Atomics.wait).
    const globals = await traceCall(
      '{result: function() { return [typeof process, typeof require, typeof console, typeof print, typeof std, typeof os, typeof WebAssembly, typeof Atomics, typeof setTimeout] }, fault: function() {}}',
    )
    expect(globals.result).toEqual(Array(9).fill('undefined'))
  })

  it('promise jobs never run: a rejection, a job loop and an async loop leave the node serving', async () => {
    for (const tracer of [
      '{result: function() { Promise.reject(new Error("bye")); return 1 }, fault: function() {}}',
      '{result: function() { Promise.resolve().then(function() { for (;;) {} }); return 2 }, fault: function() {}}',
      '{result: function() { (async function() { await 0; for (;;) {} })(); return 3 }, fault: function() {}}',
      '{result: function() { new FinalizationRegistry(function() { for (;;) {} }).register({}, 1); return 4 }, fault: function() {}}',
    ]) {
      const r = await whileServing(() => traceCall(tracer, { timeout: '2s' }))
      expect(r.result, tracer).toBeTypeOf('number')
    }
    expect(hostErrors).toEqual([])
  })

  it('what a tracer throws is described inside its time limit: getters and toString that never return', async () => {
    const loop = 'for (;;) {}'
    const cases: Array<[string, string]> = [
      [
        `{result: function() { var e = new Error("x"); Object.defineProperty(e, "message", { get: function() { ${loop} } }); throw e }, fault: function() {}}`,
        'execution timeout',
      ],
      [`{result: function() { throw { toString: function() { ${loop} } } }, fault: function() {}}`, 'execution timeout'],
      [
        `{result: function() { var e = new Error("x"); Object.defineProperty(e, "name", { get: function() { throw { toString: function() { ${loop} } } } }); throw e }, fault: function() {}}`,
        'execution timeout',
      ],
      // Getters on a plain thrown object are never read: geth prints String(value).
      [
        `{result: function() { throw { get message() { ${loop} }, get code() { ${loop} } } }, fault: function() {}}`,
        "[object Object]    in server-side tracer function 'result'",
      ],
      [
        `{step: function() { throw { toString: function() { return "bad step" } } }, fault: function() {}, result: function() { return 1 }}`,
        "bad step    in server-side tracer function 'step'",
      ],
    ]
    for (const [tracer, message] of cases) {
      // A short timeout where the tracer never returns; room for the loop's 70,002 steps (and a
      // worker's start) on a loaded machine where it does.
      const timeout = message === 'execution timeout' ? '1s' : '30s'
      const r = await whileServing(() => traceCall(tracer, { timeout }, LOOP))
      expect(r.error, tracer).toEqual({ code: -32000, message })
    }
  })

  it('loops, a full heap and deep recursion: an error for that request, the node keeps serving', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['{result: function() { for (;;) {} }, fault: function() {}}', { timeout: '1s' }, /^execution timeout$/],
      [
        '{step: function() { for (;;) {} }, fault: function() {}, result: function() {}}',
        { timeout: '1s' },
        /^execution timeout$/,
      ],
      // Every step a little slow: the trace ends at its timeout, others are answered in between.
      [
        '{step: function() { var t = Date.now(); while (Date.now() - t < 1) {} }, fault: function() {}, result: function() {}}',
        { timeout: '2s' },
        /^execution timeout$/,
      ],
      [
        '{result: function() { var a = []; for (;;) a.push(new Array(1000000).fill(1.5)) }, fault: function() {}}',
        { timeout: '30s' },
        /^(InternalError: out of memory {4}in server-side tracer function 'result'|execution timeout)$/,
      ],
      [
        '{result: function() { function f(n) { return f(n + 1) + 1 } return f(0) }, fault: function() {}}',
        {},
        /^(InternalError: stack overflow|RangeError: Maximum call stack size exceeded) {4}in server-side tracer function 'result'$/,
      ],
      // Recursion in the engine's own C code (the parser, JSON.stringify): its own stack check, or V8's stack.
      [
        '{result: function() { return eval("[".repeat(100000) + "]".repeat(100000)) }, fault: function() {}}',
        {},
        /^((Internal|Syntax)Error: stack overflow|RangeError: Maximum call stack size exceeded) {4}in server-side tracer function 'result'$/,
      ],
      // Its own stack check while the result is turned into JSON; on a loaded machine the 200,000
      // arrays can take the trace past its timeout first.
      [
        '{result: function() { var a = []; for (var i = 0; i < 200000; i++) a = [a]; return a }, fault: function() {}}',
        {},
        /^((InternalError: stack overflow|RangeError: Maximum call stack size exceeded) {4}in server-side tracer function 'result'|execution timeout)$/,
      ],
    ]
    for (const [tracer, config, message] of cases) {
      const r = await whileServing(() => traceCall(tracer, config, LOOP))
      expect(r.error?.message, tracer).toMatch(message)
    }
    // The next tracer runs as usual.
    const counted = await traceCall(
      '{n: 0, step: function() { this.n++ }, fault: function() {}, result: function() { return this.n }}',
      {},
      LOOP,
    )
    expect(counted.result).toBe(70_002)
    expect(hostErrors).toEqual([])
  }, 120_000)

  it("timeout: held to the ceiling, Go's error past its own", async () => {
    expect(parseTraceConfig({ timeout: '2000h' }, 1).timeoutMs).toBe(MAX_TIMEOUT_MS)
    expect(parseTraceConfig({ timeout: '1m30s' }, 1).timeoutMs).toBe(MAX_TIMEOUT_MS)
    expect(parseTraceConfig({ timeout: '300ms' }, 1).timeoutMs).toBe(300)
    const quick = '{result: function() { return 7 }, fault: function() {}}'
    expect((await traceCall(quick, { timeout: '2000h' })).result).toBe(7)
    expect(await traceCall(quick, { timeout: '3000000h' })).toEqual({
      error: { code: -32000, message: 'time: invalid duration "3000000h"' },
      id: expect.any(Number),
      jsonrpc: '2.0',
    })
  })
})

/**
 * An EntryPoint-shaped call: the "EntryPoint" stores a selector and CALLs an "account", which reads
 * slot 5, writes slot 6, hashes 64 bytes, logs, asks another contract's code size and reads GAS.
 */
describe('ERC-4337 validation tracers (alto, rundler) through debug_traceCall', () => {
  let node: TestNode
  const [A, B, EP, ACCOUNT, OTHER] = [0xa1, 0xb2, 0xe9, 0xacc, 0x07e4].map(address)
  const call0 = (to: Hex) => `0x6000600060006000600073${to.slice(2)}5af15000` as Hex
  const code: Record<string, Hex> = {
    [A]: call0(B),
    [B]: call0(EP),
    // mstore(0, 0x12345678); call(gas, ACCOUNT, 0, 0x1c, 4, 0, 0); return(0, 32)
    [EP]: `0x6312345678600052600060006004601c600073${ACCOUNT.slice(2)}5af15060206000f3`,
    // sload(5); sstore(6, 7); mstore(0, 0xaa); mstore(32, 0xbb); keccak256(0, 64);
    // log1(0, 32, 0xbeef); extcodesize(OTHER); gas; stop
    [ACCOUNT]: `0x600554506007600655${'60aa600052'}${'60bb602052'}${'604060002050'}${'61beef60206000a1'}73${OTHER.slice(2)}3b505a5000`,
    [OTHER]: '0x6001600101',
  }
  const word = (n: number) => pad(toHex(n), { size: 32 })
  const overrides = Object.fromEntries(
    Object.entries(code).map(([at, c]) => [at, at === ACCOUNT ? { code: c, state: { [word(5)]: word(42) } } : { code: c }]),
  )
  const trace = async (tracer: string, to: Hex) => {
    const r = await node.rpc('debug_traceCall', [{ to }, 'latest', { tracer, stateOverrides: overrides, timeout: '10s' }])
    expect(r.error).toBeUndefined()
    return r.result
  }
  const selectorWord = `0x${'12345678'.padStart(64, '0')}`
  const level = {
    topLevelMethodSig: '0x12345678',
    topLevelTargetAddress: ACCOUNT,
    opcodes: { SLOAD: 1, SSTORE: 1, MSTORE: 2, KECCAK256: 1, LOG1: 1, EXTCODESIZE: 1, GAS: 1, STOP: 1 },
    access: { [ACCOUNT]: { reads: { [word(5)]: word(42) }, writes: { [word(6)]: 1 } } },
    extCodeAccessInfo: { [OTHER]: 'POP' },
  }
  const hashed = `${word(0xaa)}${word(0xbb).slice(2)}`

  beforeAll(async () => {
    node = await startTestNode()
  })
  afterAll(() => node?.stop())

  it("alto's bundlerCollectorTracer (v0.7): the EntryPoint's calls at depth 3, as on geth", async () => {
    const result: Json = await trace(fixture('alto-tracer-v07.js.txt'), A)
    expect(Object.keys(result)).toEqual(['callsFromEntryPoint', 'keccak', 'logs', 'calls', 'debug'])
    expect(result.callsFromEntryPoint).toEqual([
      { ...level, contractSize: { [OTHER]: { contractSize: 5, opcode: 'EXTCODESIZE' } } },
    ])
    expect(result.keccak).toEqual([hashed])
    expect(result.logs).toEqual([{ topics: ['0xbeef'], data: word(0xaa) }])
    expect(result.debug).toEqual([])
    // enter() for every frame but the top one; exit() types each as "REVERT", because alto compares
    // getError() with null and geth answers undefined for a frame without error.
    const calls = result.calls.map((c: Json) =>
      'method' in c ? `${c.type} ${c.from}>${c.to} ${c.method} ${c.value}` : `${c.type} ${c.data}`,
    )
    expect(calls).toEqual([
      `CALL ${A}>${B} 0x 0`,
      `CALL ${B}>${EP} 0x 0`,
      `CALL ${EP}>${ACCOUNT} 0x12345678 0`,
      'REVERT 0x',
      `RETURN ${selectorWord}`,
      `REVERT ${selectorWord}`,
      'REVERT 0x',
    ])
    expect(result.calls[2].gas).toBeGreaterThan(0)
    expect(result.calls[3].gasUsed).toBeGreaterThan(22_100)
  })

  it("rundler's validation tracer (v0.7, swc-minified): the EntryPoint's calls at depth 1, as on geth", async () => {
    const result: Json = await trace(fixture('rundler-tracer-v07.js.txt'), EP)
    expect(Object.keys(result)).toEqual(['callsFromEntryPoint', 'keccak', 'logs', 'calls', 'expectedStorage', 'debug'])
    expect(result.callsFromEntryPoint).toEqual([
      { ...level, contractInfo: { [OTHER]: { length: 5, opcode: 'EXTCODESIZE', header: '0x600160' } } },
    ])
    expect(result.keccak).toEqual([hashed])
    expect(result.logs).toEqual([{ topics: ['0xbeef'], data: word(0xaa) }])
    expect(result.expectedStorage).toEqual({ [ACCOUNT]: { [word(5)]: word(42) } })
    const calls = result.calls.map((c: Json) =>
      'method' in c ? `${c.type} ${c.from}>${c.to} ${c.method} ${c.value}` : `${c.type} ${c.data}`,
    )
    expect(calls).toEqual([`CALL ${EP}>${ACCOUNT} 0x12345678 0`, 'RETURN 0x', `RETURN ${selectorWord}`])
    expect(result.debug).toEqual([])
  })
})
