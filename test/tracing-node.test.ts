// debug_trace* on pcnode alone, expected values worked out from geth's definitions
// (eth/tracers/*, core/vm/*): step errors and the frames geth enters for calls that fail fast,
// the implicit STOP, the struct logger's options and byte `limit`, JavaScript tracers, traceCall
// overrides, block traces, pre-confirmed transactions, timeouts and errors, console.log.
import { encodeFunctionData, getAddress, type Hex, keccak256, pad, toHex } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { traceRootAbi, traceRootBytecode } from './fixtures/tracing.js'
import { startTestNode, until, useTestNode, waitForReceipt, waitForSealed } from './helpers.js'

type Json = any

describe('debug_trace* (geth semantics)', () => {
  const lines: string[] = []
  const node = useTestNode({ blockTime: 400, preconfInterval: 50, silent: false, logger: (line) => lines.push(line) })
  let root: Hex
  let everything: Hex
  const send = async (to: Hex | undefined, data: Hex, gas = 3_000_000n, value = 0n) => {
    const hash = await node.wallet(0).sendTransaction({ to, data, gas, value })
    return { hash, receipt: await waitForReceipt(node, hash) }
  }
  const trace = async (hash: Hex, config?: unknown) => {
    const r = await node.rpc('debug_traceTransaction', config === undefined ? [hash] : [hash, config])
    expect(r.error).toBeUndefined()
    return r.result
  }
  /** Runtime code put at a fresh address (anvil_setCode). */
  const codeAt = async (code: Hex, seed: number): Promise<Hex> => {
    const address = pad(toHex(0xc0de00 + seed), { size: 20 })
    expect((await node.rpc('anvil_setCode', [address, code])).error).toBeUndefined()
    return address
  }

  beforeAll(async () => {
    // 10 wei: everything() sends 1 with a call and 1 with a CREATE2.
    const deployed = await send(undefined, traceRootBytecode, 3_000_000n, 10n)
    root = deployed.receipt.contractAddress as Hex
    everything = (await send(root, encodeFunctionData({ abi: traceRootAbi, functionName: 'everything', args: [5n] }))).hash
    // Sealed, so its index in the block is final (dev methods may re-open a pending block).
    await waitForSealed(node, everything)
  })

  it("struct logger: geth's shape, options and default fields", async () => {
    const full = await trace(everything)
    expect(Object.keys(full)).toEqual(['gas', 'failed', 'returnValue', 'structLogs'])
    expect(full.failed).toBe(false)
    const receipt = await node.publicClient.getTransactionReceipt({ hash: everything })
    expect(full.gas).toBe(Number(receipt.gasUsed))
    const first = full.structLogs[0]
    // Key order of geth's structLogLegacy; memory off by default, refund and error left out when empty.
    expect(first).toEqual({ pc: 0, op: 'PUSH1', gas: first.gas, gasCost: 3, depth: 1, stack: [] })
    const sstore = full.structLogs.find((l: Json) => l.op === 'SSTORE')
    expect(Object.keys(sstore)).toEqual(['pc', 'op', 'gas', 'gasCost', 'depth', 'stack', 'storage'])
    expect(sstore.storage[`0x${'0'.repeat(64)}`]).toBe(`0x${'5'.padStart(64, '0')}`)
    const bare = await trace(everything, { disableStack: true, disableStorage: true })
    expect(bare.structLogs.some((l: Json) => 'stack' in l || 'storage' in l)).toBe(false)
    const memory = await trace(everything, { enableMemory: true })
    const mstore = memory.structLogs.find((l: Json) => l.memory)
    expect(mstore.memory.every((w: string) => /^0x[0-9a-f]{64}$/.test(w))).toBe(true)
    // Depth is 1-based; the CALL's gasCost includes the gas it hands on (geth's callGasTemp).
    expect(new Set(full.structLogs.map((l: Json) => l.depth))).toEqual(new Set([1, 2]))
  })

  it('struct logger limit: geth stops once the entries written exceed `limit` bytes', async () => {
    const full = (await trace(everything)).structLogs
    const sizes = full.map((l: Json) => Buffer.byteLength(JSON.stringify(l)))
    for (const limit of [1, 500, 10_000]) {
      let total = 0
      let expected = 0
      while (expected < sizes.length && total <= limit) total += sizes[expected++]
      const limited = await trace(everything, { limit })
      expect(limited.structLogs.length).toBe(expected)
      expect(limited.structLogs).toEqual(full.slice(0, expected))
    }
  })

  it('step errors: out of gas and stack underflow on the failing step; invalid opcode on the frame only', async () => {
    const burn = encodeFunctionData({ abi: traceRootAbi, functionName: 'burn', args: [1000n] })
    const oog = await send(root, burn, 60_000n)
    expect(oog.receipt.status).toBe('reverted')
    const logs = await trace(oog.hash)
    expect(logs.failed).toBe(true)
    expect(logs.returnValue).toBe('0x')
    const last = logs.structLogs.at(-1)
    expect(last.error).toBe('out of gas')
    expect(last.gasCost).toBeGreaterThan(last.gas)
    expect((await trace(oog.hash, { tracer: 'callTracer' })).error).toBe('out of gas')
    // ADD on an empty stack.
    const underflow = await send(await codeAt('0x01', 1), '0x')
    const u = await trace(underflow.hash)
    expect(u.structLogs).toEqual([
      { pc: 0, op: 'ADD', gas: u.structLogs[0].gas, gasCost: 3, depth: 1, error: 'stack underflow (0 <=> 2)', stack: [] },
    ])
    expect((await trace(underflow.hash, { tracer: 'callTracer' })).error).toBe('stack underflow (0 <=> 2)')
    // INVALID runs (geth logs it, then fails the frame).
    const invalid = await send(await codeAt('0x6001fe', 2), '0x')
    const i = await trace(invalid.hash)
    expect(i.structLogs.map((l: Json) => [l.op, l.error])).toEqual([
      ['PUSH1', undefined],
      ['INVALID', undefined],
    ])
    expect((await trace(invalid.hash, { tracer: 'callTracer' })).error).toBe('invalid opcode: INVALID')
    // An undefined opcode, named as geth names it.
    const undefinedOp = await send(await codeAt('0x0c', 3), '0x')
    expect((await trace(undefinedOp.hash, { tracer: 'callTracer' })).error).toBe('invalid opcode: opcode 0xc not defined')
  })

  it("code that runs off its end executes geth's implicit STOP", async () => {
    const { hash } = await send(await codeAt('0x6001600201', 4), '0x')
    const logs = (await trace(hash)).structLogs
    expect(logs.map((l: Json) => [l.pc, l.op, l.gasCost, l.stack])).toEqual([
      [0, 'PUSH1', 3, []],
      [2, 'PUSH1', 3, ['0x1']],
      [4, 'ADD', 3, ['0x1', '0x2']],
      [5, 'STOP', 0, ['0x3']],
    ])
    expect(logs[3].gas).toBe(logs[2].gas - 3)
  })

  it("a CALL that fails fast (insufficient balance) is a frame with geth's error and no gas used", async () => {
    // CALL(gas, 0x1234, value 1, 0, 0, 0, 0) from an account with no balance; then STOP.
    const caller = await codeAt('0x600060006000600060016112345af100', 5)
    const { hash } = await send(caller, '0x')
    const call = await trace(hash, { tracer: 'callTracer' })
    expect(call.error).toBeUndefined()
    expect(call.calls).toHaveLength(1)
    const frame = call.calls[0]
    expect(frame).toMatchObject({
      from: caller,
      to: `0x${'1234'.padStart(40, '0')}`,
      input: '0x',
      error: 'insufficient balance for transfer',
      gasUsed: '0x0',
      value: '0x1',
      type: 'CALL',
    })
    // Its gas: what the CALL forwarded (geth's callGasTemp, in the step's cost past the cold
    // access, value transfer and new-account charges) plus the 2300 stipend.
    const step = (await trace(hash)).structLogs.find((l: Json) => l.op === 'CALL')
    expect(BigInt(frame.gas)).toBe(BigInt(step.gasCost - 2600 - 9000 - 25000 + 2300))
  })

  it("JavaScript tracers: geth's object API, with step, fault, enter, exit, result and db", async () => {
    const tracer = `{
      steps: 0, frames: [], faults: [],
      step: function(log, db) { this.steps++; if (log.op.toString() === 'SSTORE' && !this.sstore) this.sstore = [toHex(log.contract.getAddress()), log.stack.peek(0).toString(16), log.stack.peek(1).toJSNumber(), log.getDepth(), db.getBalance(log.contract.getAddress()).toString()] },
      fault: function(log, db) { this.faults.push(log.op.toString() + ' ' + log.getError()) },
      enter: function(f) { this.frames.push(f.getType() + ' ' + toHex(f.getTo()) + ' ' + (f.getValue() === undefined ? '-' : f.getValue().toString())) },
      exit: function(r) { this.frames.push('exit ' + (r.getError() || 'ok')) },
      result: function(ctx, db) { return { steps: this.steps, frames: this.frames, faults: this.faults, sstore: this.sstore, type: ctx.type, gas: ctx.gas, gasUsed: ctx.gasUsed, from: toHex(ctx.from), to: toHex(ctx.to), value: ctx.value.toString(), txIndex: ctx.txIndex, output: toHex(ctx.output) } }
    }`
    const result = await trace(everything, { tracer })
    const logs = (await trace(everything)).structLogs
    const calls = (await trace(everything, { tracer: 'callTracer' })).calls
    expect(result.steps).toBe(logs.length)
    expect(result.frames.filter((f: string) => !f.startsWith('exit')).map((f: string) => f.split(' ')[0])).toEqual([
      'STATICCALL',
      'CALL',
      'CALL',
      'DELEGATECALL',
      'STATICCALL',
      'CALLCODE',
      'CREATE2',
      'CALL',
      'SELFDESTRUCT',
      'CREATE',
    ])
    expect(result.frames[0]).toBe(`STATICCALL ${'0x'.padEnd(41, '0')}2 -`)
    expect(result.frames).toContain('exit execution reverted')
    expect(result.faults).toEqual(['REVERT execution reverted'])
    expect(result.sstore).toEqual([root.toLowerCase(), '0', 5, 1, '10'])
    const receipt = await node.publicClient.getTransactionReceipt({ hash: everything })
    expect(result).toMatchObject({
      type: 'CALL',
      gas: 3_000_000,
      gasUsed: Number(receipt.gasUsed),
      to: root.toLowerCase(),
      value: '0',
      txIndex: receipt.transactionIndex,
    })
    expect(result.output).toBe(calls && (await trace(everything, { tracer: 'callTracer' })).output)
  })

  it("JavaScript tracers: geth's errors for a bad tracer, a throwing one and one that never returns", async () => {
    const error = async (config: unknown) => (await node.rpc('debug_traceTransaction', [everything, config])).error
    expect(await error({ tracer: 'fooTracer' })).toEqual({ code: -32000, message: 'ReferenceError: fooTracer is not defined' })
    expect(await error({ tracer: '{result: function() {}}' })).toEqual({
      code: -32000,
      message: 'trace object must expose a function fault()',
    })
    expect(await error({ tracer: '{result: function() {}, fault: function() {}, enter: function() {}}' })).toMatchObject({
      message: 'trace object must expose either both or none of enter() and exit()',
    })
    expect(
      await error({
        tracer: "{step: function() { throw new Error('boom') }, fault: function() {}, result: function() { return 1 }}",
      }),
    ).toEqual({
      code: -32000,
      message: "Error: boom    in server-side tracer function 'step'",
    })
    expect(
      await error({
        tracer: '{step: function() { for (;;) {} }, fault: function() {}, result: function() {}}',
        timeout: '100ms',
      }),
    ).toEqual({
      code: -32000,
      message: 'execution timeout',
    })
    // The sandbox's own Function: no way out to the node's process.
    const realm = await trace(everything, {
      tracer:
        "{step: function(log) { this.t = log.constructor.constructor('return typeof process')() }, fault: function() {}, result: function() { return this.t }}",
    })
    expect(realm).toBe('undefined')
    // setup(config) receives tracerConfig as JSON text.
    expect(
      await trace(everything, {
        tracer: '{setup: function(c) { this.c = JSON.parse(c) }, fault: function() {}, result: function() { return this.c }}',
        tracerConfig: { a: 1 },
      }),
    ).toEqual({ a: 1 })
  })

  it("timeouts and errors: geth's texts and codes", async () => {
    const error = async (params: unknown[], method = 'debug_traceTransaction') => (await node.rpc(method, params)).error
    expect(await error([keccak256('0x01'), {}])).toEqual({ code: -32000, message: 'transaction not found' })
    expect(await error([everything, { timeout: 'abc' }])).toEqual({ code: -32000, message: 'time: invalid duration "abc"' })
    expect(await error([everything, { timeout: '5' }])).toEqual({ code: -32000, message: 'time: missing unit in duration "5"' })
    expect(await error([everything, 'callTracer'])).toMatchObject({ code: -32602 })
    expect(await error([everything, { limit: 'x' }])).toMatchObject({ code: -32602 })
    expect(await error([everything, { tracer: 'prestateTracer', tracerConfig: { diffMode: true, includeEmpty: true } }])).toEqual(
      {
        code: -32000,
        message: 'cannot use diffMode with includeEmpty',
      },
    )
    expect(await error([everything, { tracer: 'muxTracer' }])).toMatchObject({ code: -32000 })
    // A loop with no step hook attached (callTracer) still stops at the timeout.
    const burn = await send(root, encodeFunctionData({ abi: traceRootAbi, functionName: 'burn', args: [30_000n] }), 16_000_000n)
    expect(await error([burn.hash, { tracer: 'callTracer', timeout: '1ms' }])).toEqual({
      code: -32000,
      message: 'execution timeout',
    })
    expect(await error(['0x0', {}], 'debug_traceBlockByNumber')).toEqual({ code: -32000, message: 'genesis is not traceable' })
    expect(await error(['0xffff', {}], 'debug_traceBlockByNumber')).toEqual({ code: -32000, message: 'block #65535 not found' })
    const unknown = keccak256('0x02')
    expect(await error([unknown, {}], 'debug_traceBlockByHash')).toEqual({ code: -32000, message: `block ${unknown} not found` })
  })

  it('debug_traceCall: state and block overrides, txIndex, the pending state', async () => {
    const divide = encodeFunctionData({ abi: traceRootAbi, functionName: 'divide', args: [2n] })
    const call = async (block: unknown, config: unknown) =>
      node.rpc('debug_traceCall', [{ to: root, data: divide }, block, config])
    const plain = await call('latest', { tracer: 'callTracer' })
    expect(BigInt(plain.result.output)).toBe(5n / 2n)
    // No gas named: geth's RPC gas cap (50M) is the top frame's gas.
    expect(plain.result.gas).toBe('0x2faf080')
    // count (slot 0) overridden to 100.
    const overridden = await call('latest', {
      tracer: 'callTracer',
      stateOverrides: { [root]: { stateDiff: { [`0x${'0'.repeat(64)}`]: pad(toHex(100)) } } },
    })
    expect(BigInt(overridden.result.output)).toBe(50n)
    // blockOverrides reach the EVM: NUMBER in a struct log's stack.
    const number = await node.rpc('debug_traceCall', [
      { to: await codeAt('0x4300', 6) },
      'latest',
      { blockOverrides: { number: '0x1234' } },
    ])
    expect(number.result.structLogs[1]).toMatchObject({ op: 'STOP', stack: ['0x1234'] })
    // txIndex: the state before everything() ran in its block (count not yet 5).
    const block = await node.publicClient.getTransactionReceipt({ hash: everything })
    await waitForSealed(node, everything)
    const before = await call(toHex(block.blockNumber), { tracer: 'callTracer', txIndex: toHex(block.transactionIndex) })
    expect(BigInt(before.result.output)).toBe(0n)
    const pending = await call('pending', {})
    expect(pending.result.failed).toBe(false)
  })

  it('debug_traceBlockByNumber / ByHash: one {txHash, result} per transaction, JS failures per entry', async () => {
    const receipt = await waitForSealed(node, everything)
    const byNumber = await node.rpc('debug_traceBlockByNumber', [toHex(receipt.blockNumber), { tracer: 'callTracer' }])
    const byHash = await node.rpc('debug_traceBlockByHash', [receipt.blockHash, { tracer: 'callTracer' }])
    expect(byNumber.result).toEqual(byHash.result)
    const entry = byNumber.result.find((e: Json) => e.txHash === everything)
    expect(entry.result).toEqual(await trace(everything, { tracer: 'callTracer' }))
    const js = await node.rpc('debug_traceBlockByHash', [
      receipt.blockHash,
      { tracer: "{step: function() { throw new Error('x') }, fault: function() {}, result: function() { return 1 }}" },
    ])
    expect(js.result.find((e: Json) => e.txHash === everything)).toEqual({
      txHash: everything,
      error: "Error: x    in server-side tracer function 'step'",
    })
  })

  it('a pre-confirmed transaction is traceable before its block seals', async () => {
    const slow = await startTestNode({ blockTime: 60_000, preconfInterval: 50 })
    try {
      const deployed = await slow.wallet(0).sendTransaction({ data: traceRootBytecode, gas: 3_000_000n, value: 10n })
      const receipt = await waitForReceipt(slow, deployed)
      const hash = await slow.wallet(0).sendTransaction({
        to: receipt.contractAddress as Hex,
        data: encodeFunctionData({ abi: traceRootAbi, functionName: 'everything', args: [3n] }),
        gas: 3_000_000n,
      })
      const second = await waitForReceipt(slow, hash)
      expect((await slow.rpc('eth_getBlockByNumber', ['latest', false])).result.number).toBe('0x0')
      const call = (await slow.rpc('debug_traceTransaction', [hash, { tracer: 'callTracer' }])).result
      expect(BigInt(call.gasUsed)).toBe(second.gasUsed)
      expect(call.calls).toHaveLength(9)
      const block = await slow.rpc('debug_traceBlockByNumber', ['pending', { tracer: 'noopTracer' }])
      const [l1Info] = (await slow.rpc('eth_getBlockByNumber', ['pending', false])).result.transactions
      expect(block.result).toEqual([
        { txHash: l1Info, result: {} }, // the block's L1-info deposit (profile base)
        { txHash: deployed, result: {} },
        { txHash: hash, result: {} },
      ])
    } finally {
      await slow.stop()
    }
  })

  it('prestateTracer looks up EIP-7702 authorities before the transaction runs', async () => {
    const authority = node.wallet(5)
    const signed = await authority.signAuthorization({ contractAddress: root, chainId: node.chainId, nonce: 0 })
    const hash = await node.wallet(0).sendTransaction({
      to: root,
      data: encodeFunctionData({ abi: traceRootAbi, functionName: 'divide', args: [1n] }),
      authorizationList: [signed],
      gas: 200_000n,
    })
    await waitForReceipt(node, hash)
    const pre = await trace(hash, { tracer: 'prestateTracer' })
    const key = node.accounts[5].address.toLowerCase()
    expect(pre[key]).toEqual({ balance: pre[key].balance })
    const diff = await trace(hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } })
    // The delegation is code: post has it, with its nonce bump.
    expect(diff.post[key]).toMatchObject({ code: `0xef0100${root.slice(2).toLowerCase()}`, nonce: 1 })
  })

  it("prestateTracer on the OP stack: the fee vaults' credits, looked up as op-geth does", async () => {
    const L1_FEE_VAULT = '0x420000000000000000000000000000000000001a'
    const BASE_FEE_VAULT = '0x4200000000000000000000000000000000000019'
    const { hash } = await send(node.accounts[6].address, '0x', 21_000n, 1n)
    await waitForSealed(node, hash) // its block's header (the base fee) is final
    const receipt = (await node.rpc('eth_getTransactionReceipt', [hash])).result
    const block = (await node.rpc('eth_getBlockByHash', [receipt.blockHash, false])).result
    expect(BigInt(receipt.l1Fee)).toBeGreaterThan(0n)
    const diff = await trace(hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } })
    const credit = (vault: string) => BigInt(diff.post[vault].balance) - BigInt(diff.pre[vault]?.balance ?? 0)
    expect(credit(L1_FEE_VAULT)).toBe(BigInt(receipt.l1Fee))
    expect(credit(BASE_FEE_VAULT)).toBe(BigInt(block.baseFeePerGas) * BigInt(receipt.gasUsed))
    // Without diffMode, a vault is there as it was before, unless it was empty.
    const pre = await trace(hash, { tracer: 'prestateTracer' })
    for (const vault of [L1_FEE_VAULT, BASE_FEE_VAULT]) expect(pre[vault]).toEqual(diff.pre[vault])
  })

  it('tracing leaves nothing attached: the live EVM has no listeners after traces', async () => {
    await trace(everything, { tracer: '{step: function() {}, fault: function() {}, result: function() { return 1 }}' })
    await node.rpc('debug_traceCall', [{ to: root }, 'pending', {}])
    const events = node.node.engine.live.vm.evm.events
    for (const name of ['step', 'beforeMessage', 'afterMessage']) expect(events?.listenerCount(name as never)).toBe(0)
  })

  it('Solidity console.log in a transaction and in eth_call is printed, not in eth_estimateGas', async () => {
    const shout = encodeFunctionData({ abi: traceRootAbi, functionName: 'shout', args: [42n] })
    const expected = `console.log: value 42 seen by ${getAddress(root)}`
    await send(root, shout)
    await until(() => lines.includes(expected), 5000, 'console.log of the transaction')
    const count = () => lines.filter((l) => l === expected).length
    const afterTx = count()
    await node.publicClient.call({ to: root, data: shout })
    expect(count()).toBe(afterTx + 1)
    await node.publicClient.estimateGas({ to: root, data: shout, account: node.accounts[0].address })
    expect(count()).toBe(afterTx + 1)
    // The console address is an empty account, not a precompile: no warm-access discount.
    const { hash } = await send(root, shout)
    const call = await trace(hash, { tracer: 'callTracer' })
    expect(call.calls[0]).toMatchObject({ to: '0x000000000000000000636f6e736f6c652e6c6f67', type: 'STATICCALL', gasUsed: '0x0' })
    // pcnode's consoleTracer: the transaction's lines again, from a re-execution.
    expect(await trace(hash, { tracer: 'consoleTracer' })).toEqual([`value 42 seen by ${getAddress(root)}`])
  })
})
