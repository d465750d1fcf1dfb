// Start-up checks of every place the engine reaches into ethereumjs beyond its public API. Each
// patch relies on a shape (a protected field, an internal order of calls); if an upgrade of
// ethereumjs changes that shape, the node refuses to start with a message naming the patch,
// instead of answering wrongly. Runs once on the fresh engine, before genesis, in a few ms.

import { createBlockHeader } from '@ethereumjs/block'
import { Common } from '@ethereumjs/common'
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager'
import { createLegacyTx, createTxFromRLP } from '@ethereumjs/tx'
import { Account, Address, MapDB } from '@ethereumjs/util'
import { emptyHeader } from '../header-fields.js'
import type { HeaderFields } from '../types.js'
import type { BlockEnv } from './header.js'
import { checkB20Gas } from './hooks/b20-gas.js'
import { OP, opcodeMap } from './hooks/opcode-wrappers.js'
import { precompileMap } from './hooks/precompiles.js'
import type { StepInfo } from './hooks/trace.js'
import { MemoTrie } from './store/read-memo.js'
import { FastStateManager, NodeStore } from './store/state.js'
import type { ExecView } from './view.js'
import { blockCommon, txCommon } from './vm/commons.js'

export class EngineSelfCheckError extends Error {
  constructor(patch: string, expected: string) {
    super(
      `pcnode cannot run on this @ethereumjs version: ${patch} expects ${expected}. ` +
        'Install the versions package-lock.json pins (npm ci).',
    )
    this.name = 'EngineSelfCheckError'
  }
}

function check(ok: boolean, patch: string, expected: string): void {
  if (!ok) throw new EngineSelfCheckError(patch, expected)
}

/** The parts of a fresh engine the checks look at. */
export interface CheckedEngine {
  common: Common
  state: MerkleStateManager
  live: ExecView
  blockEnv(fields: HeaderFields): BlockEnv
}

export async function selfCheck(engine: CheckedEngine): Promise<void> {
  const { common, state } = engine
  const vm = engine.live.vm

  // vm/commons.ts indexActivatedEips: reads the protected, replaced-not-mutated `_activatedEIPsCache`.
  const cache = (common as unknown as { _activatedEIPsCache?: unknown })._activatedEIPsCache
  check(Array.isArray(cache), 'vm/commons.ts indexActivatedEips', 'Common._activatedEIPsCache to be an array')
  for (const eip of [1559, 2930, 3855, 4844, 6800, 7702, 7825, 7864, 7951]) {
    check(
      common.isActivatedEIP(eip) === Common.prototype.isActivatedEIP.call(common, eip),
      'vm/commons.ts indexActivatedEips',
      `isActivatedEIP(${eip}) to answer as upstream`,
    )
  }
  // vm/commons.ts withParams: header and transaction constructors call common.copy() and keep the copy.
  const header = createBlockHeader({ number: 1n }, { common: blockCommon(common), setHardfork: false })
  check(header.common === blockCommon(common), 'vm/commons.ts blockCommon', 'BlockHeader to keep the Common copy() returns')
  const tx = createLegacyTx({ gasLimit: 21000n, gasPrice: 1n }, { common: txCommon(common) })
  check(tx.common === txCommon(common), 'vm/commons.ts txCommon', 'transactions to keep the Common copy() returns')
  // tx/record.ts keepEncoding: the public `cache` a decoded transaction reads its hash from.
  const decoded = createTxFromRLP(tx.serialize(), { common: txCommon(common), freeze: false })
  check(typeof decoded.cache === 'object' && decoded.cache !== null, 'tx/record.ts keepEncoding', 'a transaction `cache` object')

  // store/state.ts FastStateManager: the protected caches (storage writes, synchronous account reads).
  const caches = (state as unknown as { _caches?: { storage?: { put?: unknown }; account?: { get?: unknown } } })._caches
  check(typeof caches?.storage?.put === 'function', 'store/state.ts putStorage', 'MerkleStateManager._caches.storage.put()')
  check(typeof caches?.account?.get === 'function', 'store/state.ts peekAccount', 'MerkleStateManager._caches.account.get()')
  // view.ts StateView.peek(): the code and storage caches, read synchronously for JS tracers.
  const peekCaches = caches as { code?: { get?: unknown }; storage?: { get?: unknown } } | undefined
  check(
    typeof peekCaches?.code?.get === 'function' && typeof peekCaches?.storage?.get === 'function',
    'view.ts StateView.peek',
    'MerkleStateManager._caches.code.get() and _caches.storage.get()',
  )
  // engine.ts views and store/state-io.ts: the protected trie, its shallow copies and its database.
  const trie = (state as unknown as { _trie?: MerklePatriciaTrie })._trie
  check(typeof trie?.shallowCopy === 'function', 'engine.ts viewAt', 'MerkleStateManager._trie.shallowCopy()')
  check(typeof trie?.database().batch === 'function', 'store/state-io.ts writeAccounts', "the trie's database().batch()")
  // store/read-memo.ts: views and storage tries are the state trie's shallow copies, which keep its memo.
  check(
    trie?.shallowCopy(false) instanceof MemoTrie,
    'store/read-memo.ts MemoTrie',
    'MerklePatriciaTrie.shallowCopy() to return a trie',
  )
  // view.ts: the checkpoint count errors from inside the EVM are unwound to (store/state.ts checkpointDepth).
  check(
    typeof (state as unknown as { _checkpointCount?: unknown })._checkpointCount === 'number',
    'store/state.ts checkpointDepth',
    'MerkleStateManager._checkpointCount to be a number',
  )
  // store/read-memo.ts MemoTrie.get: reads the store directly unless writes wait in CheckpointDB's layers.
  let layers: unknown
  try {
    layers = (trie as MemoTrie).writesInCheckpoints()
  } catch {}
  check(typeof layers === 'boolean', 'store/read-memo.ts writesInCheckpoints', "the trie's _db.checkpoints[].keyValueMap")
  await checkBatchedFlush(common)
  // store/proof.ts: storage tries come from the protected _getStorageTrie, after flush().
  const access = state as unknown as { _getStorageTrie?: unknown; flush?: unknown }
  check(
    typeof access._getStorageTrie === 'function' && typeof access.flush === 'function',
    'store/proof.ts proveAccount',
    'MerkleStateManager._getStorageTrie() and flush()',
  )
  // store/state.ts FlatKeyDB: MapDB keeps its entries in the public-but-underscored `_database` map.
  check(
    (new MapDB() as unknown as { _database?: unknown })._database instanceof Map,
    'store/state.ts FlatKeyDB',
    'MapDB._database to be a Map',
  )

  // hooks/precompiles.ts: the EVM's protected precompile map, keyed by unprefixed lowercase address.
  const precompiles = precompileMap(vm)
  check(
    precompiles instanceof Map && precompiles.has('0000000000000000000000000000000000000001'),
    'hooks/precompiles.ts',
    "EVM._precompiles to be a Map keyed by unprefixed address ('00…01' for ecrecover)",
  )
  // hooks/opcode-wrappers.ts: the EVM's protected opcode map of { opHandler } entries.
  const ops = opcodeMap(vm)
  // (Opcodes of every hardfork: a genesis file starts at chainstart, before BASEFEE.)
  for (const op of [OP.BLOCKHASH, OP.LOG0, OP.SELFDESTRUCT]) {
    check(
      typeof ops?.[op]?.opHandler === 'function',
      'hooks/opcode-wrappers.ts',
      `EVM._opcodeMap[0x${op.toString(16)}].opHandler`,
    )
  }

  // hooks/b20-gas.ts: B20 frames metered as Base's native code through _opcodeMap and runInterpreter.
  check(await checkB20Gas(vm), 'hooks/b20-gas.ts', 'a metered frame (per-frame _opcodeMap, runInterpreter) to charge as Base')

  // hooks/call-sender.ts: a call from an account with code runs (the EIP-3607 check skipped) and
  // sees the sender's real code; hooks/opcode-wrappers.ts logWrappers: a LOG0 reaches a trace's log
  // hook with the interpreter's private `_result.logs`. Run once on the empty live state, then reverted.
  await functionalCheck(engine)
}

/**
 * hooks/trace.ts: the `step` event's fields, two-argument listeners awaited, and the interpreter
 * state afterMessage carries (the implicit STOP reads it). Code: PUSH1 1 PUSH1 2 ADD, which runs
 * off its end, so geth's trace ends with a STOP at pc 5.
 */
async function traceCheck(engine: CheckedEngine, sender: Uint8Array, env: BlockEnv): Promise<void> {
  const live = engine.live
  await live.putCode(sender, Uint8Array.from([0x60, 0x01, 0x60, 0x02, 0x01]))
  const steps: StepInfo[] = []
  const frames: string[] = []
  await live.call({ from: sender, to: sender, gasPrice: 0n }, 100_000n, 1n, env, {
    skipBalance: true,
    skipNonce: true,
    trace: {
      enter: (f) => {
        frames.push(`enter ${f.type} ${f.depth}`)
      },
      exit: (f) => {
        frames.push(`exit ${f.depth} ${f.error ?? 'ok'}`)
      },
      step: async (s) => {
        await Promise.resolve()
        steps.push(s)
      },
    },
  })
  const shape = steps.map((s) => `${s.pc}:${s.op}:${s.cost}:${s.depth}:${s.stack.join(',')}`).join(' ')
  check(
    shape === '0:96:3:1: 2:96:3:1:1 4:1:3:1:1,2 5:0:0:1:3',
    'hooks/trace.ts',
    `the step event (pc, opcode.code, opcode.dynamicFee, depth, stack) and afterMessage's runState (got ${shape})`,
  )
  check(frames.join(',') === 'enter CALL 0,exit 0 ok', 'hooks/trace.ts', `beforeMessage/afterMessage frames (got ${frames})`)
}

/**
 * vm/interpreter.ts: the inline step loop answers as ethereumjs' own (which a `step` listener
 * selects): output, gas and error of programs with jumps, memory, keccak, a revert, an invalid
 * opcode and running out of gas. Runs with runCode: no state is touched.
 */
async function interpreterCheck(engine: CheckedEngine): Promise<void> {
  const evm = engine.live.vm.evm
  const events = evm.events
  check(events !== undefined, 'vm/interpreter.ts', 'the EVM to have an event emitter')
  const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'))
  // 40 rounds of h = keccak256(h) from calldata, then RETURN (rpcbench's KECCAK_RUNTIME, 40 rounds).
  const keccakLoop = hex('60043560005260285b602060002060005260019003806008575060206000f3')
  const programs: Array<[code: Uint8Array, gasLimit: bigint]> = [
    [keccakLoop, 1_000_000n],
    [keccakLoop, 2_000n], // out of gas mid-loop
    [hex('6001600201600052600160005260206000fd'), 100_000n], // MSTOREs, then REVERT
    // NOT of a calldata word stored unaligned, loaded across it, stored past the first 8 KiB
    // (memory grows), loaded back and returned: MSTORE and MLOAD on words with every limb set.
    [hex('60043519600552600351612010526120005160405260606000f3'), 100_000n],
    [hex('60016002fe'), 100_000n], // INVALID
    [hex('600456005b60ff'), 100_000n], // JUMP over STOP to a JUMPDEST, then off the end
    // The opcodes vm/inline-ops.ts runs, after a first JUMP (PUSH1 3 JUMP JUMPDEST: jump analysis
    // done). ADD and SUB wrapping, LT GT (of equal words too) EQ ISZERO AND OR XOR PUSH0 PUSH2 PUSH32, DUP16 SWAP16
    // SWAP8 DUP9 POP, MSTORE MLOAD KECCAK256 within paid memory, results returned.
    [
      hex(
        `6003565b7f${'ff'.repeat(32)}6002016005036007900380600052806001106020528060011160018211018182110181821001604052` +
          '80801415156060528061f0f01660805280610f0f1760a052805f1860331860c052600160026003600460056006600760086009600a' +
          '600b600c600d600e600f8f9f97880101505060e05260e05161010052602060c020610120526101406000f3',
      ),
      100_000n,
    ],
    // Each fails in an inline opcode, which leaves it to runStep: underflow of ADD, SWAP1, DUP2,
    // POP, JUMPI; overflow of PUSH1 (1,025 of them: straight code, a quarter of a loop's steps
    // through the original loop at each start) and of DUP1 in a loop; JUMP to a PUSH, into push
    // data, past the code; JUMPI taken to a PUSH; out of gas in a loop.
    ...['600101', '600190', '600181', '50', '600157', '6001'.repeat(1025), '600056', '605b600556', '61ffff56', '6001600057'].map(
      (tail): [Uint8Array, bigint] => [hex(`6003565b${tail}`), 100_000n],
    ),
    [hex('6001600656005b80600656'), 100_000n], // DUP1 overflow
    [hex('6003565b600356'), 1_000n], // JUMPDEST PUSH1 JUMP until out of gas
    [hex('6003565b5f600057602a60005260206000f3'), 100_000n], // JUMPI not taken to an invalid destination
    [hex('6003565b7f1234'), 100_000n], // PUSH32 cut by the code's end
  ]
  const data = hex(`12345678${'11'.repeat(32)}`)
  // A throw (a changed internal, such as Memory._store, the inline memory opcodes write) is an outcome too.
  const outcome = async (code: Uint8Array, gasLimit: bigint) => {
    try {
      const r = await evm.runCode({ code, data, gasLimit } as never)
      return `${Buffer.from(r.returnValue).toString('hex')}:${r.executionGasUsed}:${r.exceptionError?.error ?? 'ok'}`
    } catch (error) {
      return `threw ${(error as Error).message}`
    }
  }
  for (const [code, gasLimit] of programs) {
    const inline = await outcome(code, gasLimit)
    const listener = () => {}
    events?.on('step', listener)
    let original: string
    try {
      original = await outcome(code, gasLimit)
    } finally {
      events?.off('step', listener)
    }
    check(inline === original, 'vm/interpreter.ts', `the inline loop to answer as Interpreter.run (${inline} vs ${original})`)
  }
}

async function functionalCheck(engine: CheckedEngine): Promise<void> {
  const live = engine.live
  const sender = Uint8Array.from(Buffer.from('00000000000000000000000000000000005e1fc0', 'hex'))
  // Runtime code: LOG0(0, 0); EXTCODESIZE(CALLER) stored in memory and returned.
  const code = Uint8Array.from(Buffer.from('60006000a0333b60005260206000f3', 'hex'))
  await live.checkpoint()
  try {
    await live.sm.putAccount(new Address(sender), new Account(0n, 0n))
    await live.putCode(sender, code)
    let logged = 0
    const env = engine.blockEnv(emptyHeader({ number: 1n, gasLimit: 30_000_000n }))
    const result = await live.call({ from: sender, to: sender, gasPrice: 0n }, 100_000n, 0n, env, {
      skipBalance: true,
      trace: { log: () => logged++ },
    })
    check(result.error === undefined, 'hooks/call-sender.ts', `a call from a contract account to run (got ${result.error})`)
    check(
      BigInt(`0x${Buffer.from(result.returnValue).toString('hex') || '0'}`) === BigInt(code.length),
      'hooks/call-sender.ts',
      'the sender to keep its real code after the EIP-3607 check',
    )
    check(logged === 1, 'hooks/opcode-wrappers.ts logWrappers', 'LOG opcodes to append to interpreter._result.logs')
    await traceCheck(engine, sender, env)
    await interpreterCheck(engine)
  } finally {
    await live.revert()
    await live.vm.evm.journal.cleanup()
  }
}

/**
 * store/state.ts FastStateManager.flush: replaces upstream's flush, reading its caches' flush() items and
 * the storage tries it keeps. The same writes through both must give the same state root.
 */
async function checkBatchedFlush(common: Common): Promise<void> {
  const ours = FastStateManager.create(common, new NodeStore())
  const upstream = new MerkleStateManager({ common, caches: new Caches() })
  const a = new Address(new Uint8Array(20).fill(0xaa))
  const b = new Address(new Uint8Array(20).fill(0xbb))
  const slot = (n: number) => new Uint8Array(32).fill(n)
  for (const sm of [ours, upstream] as MerkleStateManager[]) {
    await sm.checkpoint()
    await sm.putAccount(a, new Account(1n, 10n))
    await sm.putAccount(b, new Account(0n, 1n))
    await sm.putCode(b, Uint8Array.of(0x60, 0x00))
    await sm.putStorage(b, slot(1), Uint8Array.of(7))
    await sm.putStorage(b, slot(2), Uint8Array.of(8))
    await sm.commit()
    await sm.getStateRoot()
    await sm.checkpoint()
    await sm.putStorage(b, slot(1), new Uint8Array())
    await sm.putAccount(a, undefined)
    await sm.commit()
  }
  const [mine, theirs] = await Promise.all([ours.getStateRoot(), upstream.getStateRoot()])
  check(
    Buffer.compare(mine, theirs) === 0 && (await ours.getStorage(b, slot(2)))[0] === 8,
    'store/state.ts FastStateManager.flush',
    "MerkleStateManager's caches to flush as [address, elem] / [address, key, value] items",
  )
}
