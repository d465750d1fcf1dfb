// eth_createAccessList and the struct logger's memory beside anvil 1.7.1, on the same contracts
// deployed at the same addresses (same sender and nonces on both). geth's access-list tracer
// (eth/tracers/logger/access_list_tracer.go), which anvil's inspector follows: every SLOAD/SSTORE
// slot of the running contract, the recipient's included; accounts named by BALANCE, EXTCODE* and
// the CALL family unless they are the sender, the recipient or a precompile.
import { concat, createWalletClient, defineChain, getContractAddress, type Hex, http, pad, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { poll, startAnvil, startTestNode, type TestNode, waitForReceipt } from './helpers.js'

type Json = any

/** Init code returning `runtime` (PUSH2 size, PUSH1 14, PUSH1 0, CODECOPY, PUSH2 size, PUSH1 0, RETURN). */
function deployCode(runtime: Hex): Hex {
  const size = toHex((runtime.length - 2) / 2, { size: 2 }).slice(2)
  return concat([`0x61${size}600e60003961${size}6000f3`, runtime])
}

const push20 = (address: Hex): Hex => `0x73${address.slice(2).toLowerCase()}`
/** retSize, retOffset, argsSize, argsOffset = 0, then the address and GAS: a call's arguments. */
const callTo = (address: Hex, op: 'fa' | 'f4'): Hex => concat(['0x6000600060006000', push20(address), `0x5a${op}50`])

const STRANGER: Hex = '0x00000000000000000000000000000000000000aa'
const SLOT = (n: number): Hex => pad(toHex(n), { size: 32 })

async function rpcAt(url: string, method: string, params: unknown[]): Promise<Json> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return res.json()
}

/** An access list in geth's order: accounts by address, each one's keys sorted (anvil's is a hash map's). */
function sorted(list: Json[]): Json[] {
  return list
    .map((e) => ({ address: e.address.toLowerCase(), storageKeys: [...e.storageKeys].sort() }))
    .sort((a, b) => (a.address < b.address ? -1 : 1))
}

describe('beside anvil: eth_createAccessList and struct-logger memory', () => {
  let node: TestNode
  let anvil: { url: string; stop: () => void }
  let reader: Hex
  let caller: Hex
  let traced: { pc: Hex; anvil: Hex }
  const key = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6' as Hex // anvil's account 9
  const account = privateKeyToAccount(key)

  beforeAll(async () => {
    ;[node, anvil] = await Promise.all([startTestNode({ preconfInterval: 50 }), startAnvil(['--steps-tracing'])])
    reader = getContractAddress({ from: account.address, nonce: 0n })
    caller = getContractAddress({ from: account.address, nonce: 1n })
    // reader: SLOAD slot 5 of whoever's storage it runs on.
    const readerCode: Hex = '0x6005545000'
    // caller: SLOAD 1, SSTORE 2 := 1, BALANCE(stranger), EXTCODESIZE(precompile 1), STATICCALL reader,
    // DELEGATECALL reader (its SLOAD 5 on the caller's storage), STATICCALL precompile 2, MSTORE 42.
    const callerCode = concat([
      '0x60015450',
      '0x6001600255',
      push20(STRANGER),
      '0x3150',
      '0x60013b50',
      callTo(reader, 'fa'),
      callTo(reader, 'f4'),
      callTo('0x0000000000000000000000000000000000000002', 'fa'),
      '0x602a600052',
      '0x00',
    ])
    const anvilChain = defineChain({
      id: 31337,
      name: 'anvil',
      nativeCurrency: { name: 'E', symbol: 'E', decimals: 18 },
      rpcUrls: { default: { http: [anvil.url] } },
    })
    const onAnvil = createWalletClient({ chain: anvilChain, transport: http(anvil.url), account })
    const onPc = createWalletClient({ chain: node.chain, transport: http(node.rpcUrl), account })
    await node.rpc('anvil_setBalance', [account.address, toHex(10n ** 20n)])
    const fee = { maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, gas: 500_000n }
    for (const [nonce, runtime] of [readerCode, callerCode].entries()) {
      const data = deployCode(runtime)
      const pcHash = await onPc.sendTransaction({ data, nonce, ...fee })
      const anvilHash = await onAnvil.sendTransaction({ data, nonce, ...fee })
      expect((await waitForReceipt(node, pcHash)).contractAddress).toBe(nonce === 0 ? reader.toLowerCase() : caller.toLowerCase())
      await poll(async () => (await rpcAt(anvil.url, 'eth_getTransactionReceipt', [anvilHash])).result)
    }
    // A transaction whose first steps have no memory yet, traced on both.
    const pcHash = await onPc.sendTransaction({ to: caller, nonce: 2, ...fee })
    const anvilHash = await onAnvil.sendTransaction({ to: caller, nonce: 2, ...fee })
    await waitForReceipt(node, pcHash)
    await poll(async () => (await rpcAt(anvil.url, 'eth_getTransactionReceipt', [anvilHash])).result)
    traced = { pc: pcHash, anvil: anvilHash }
  }, 60_000)
  afterAll(async () => {
    anvil?.stop()
    await node?.stop()
  })

  it("eth_createAccessList: the recipient's slots listed, the stranger address-only, precompiles left out (as anvil)", async () => {
    const request = { from: account.address, to: caller }
    // pcnode's deployment is pre-confirmed: in "pending", not yet in "latest".
    const pc = await node.rpc('eth_createAccessList', [request, 'pending'])
    const theirs = await rpcAt(anvil.url, 'eth_createAccessList', [request, 'latest'])
    expect(pc.error).toBeUndefined()
    expect(theirs.error).toBeUndefined()
    expect(pc.result.accessList).toEqual(sorted(theirs.result.accessList))
    // What geth's tracer makes of it, in geth's order (by address; keys sorted).
    expect(pc.result.accessList).toEqual(
      sorted([
        { address: caller, storageKeys: [SLOT(1), SLOT(2), SLOT(5)] },
        { address: reader, storageKeys: [SLOT(5)] },
        { address: STRANGER, storageKeys: [] },
      ]),
    )
    expect(pc.result.error).toBeUndefined()
    // With the list, the call costs what anvil says it costs with it (both run it again with it).
    expect(BigInt(pc.result.gasUsed)).toBe(BigInt(theirs.result.gasUsed))
  })

  it('eth_createAccessList: a list given in the request is kept, less the sender and recipient accounts', async () => {
    const given = [
      { address: '0x00000000000000000000000000000000000000cc', storageKeys: [SLOT(7)] },
      { address: account.address.toLowerCase(), storageKeys: [SLOT(9)] },
    ]
    const request = { from: account.address, to: reader, accessList: given }
    const pc = await node.rpc('eth_createAccessList', [request, 'pending'])
    expect(pc.result.accessList).toEqual(
      sorted([
        { address: '0x00000000000000000000000000000000000000cc', storageKeys: [SLOT(7)] },
        { address: reader, storageKeys: [SLOT(5)] },
      ]),
    )
  })

  it('struct logger with enableMemory: memory [] at steps before any is used, word for word as anvil', async () => {
    const config = { enableMemory: true }
    const pc = (await node.rpc('debug_traceTransaction', [traced.pc, config])).result
    const theirs = (await rpcAt(anvil.url, 'debug_traceTransaction', [traced.anvil, config])).result
    expect(pc.structLogs.length).toBe(theirs.structLogs.length)
    expect(pc.structLogs[0].memory).toEqual([])
    expect(pc.structLogs.at(-1).memory).toEqual([SLOT(42)])
    expect(pc.structLogs.map((l: Json) => l.memory)).toEqual(theirs.structLogs.map((l: Json) => l.memory))
    // Without enableMemory there is no memory field at all (geth's default, and anvil's).
    const off = (await node.rpc('debug_traceTransaction', [traced.pc, {}])).result
    expect(off.structLogs.some((l: Json) => 'memory' in l)).toBe(false)
  })
})
