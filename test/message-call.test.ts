// eth_call runs a fee-less, value-less call as a bare message (engine/vm/message-call.ts), not
// through runTx. Each call here runs both ways on one state, and the outputs must be the same:
// what the EVM sees of the transaction (intrinsic gas, warm addresses, the sender's nonce bump,
// original storage values, transient storage), reverts, halts, nested calls and refusals.
import { bytesToHex, type Hex, hexToBytes } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StartedNode, startNode } from '../src/index.js'
import { callEnv, callGasCap, outputReverted, runReverted } from '../src/node/execution/call.js'
import { parseStateOverrides } from '../src/rpc/params.js'

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`

const T = addr(0xca11) // the called contract
const R = addr(0xbad) // reverts with data
const D = addr(0xde1e) // delegates (EIP-7702) to T
const C = addr(0xc0de) // a contract as the sender
const FRESH = addr(0xf2e5) // an account no one has touched
const RANDOM = 'dead00000000000000000000000000000000beef'

// Word i of the return data: `op PUSH2 32i MSTORE`; then RETURN the words.
const push2 = (n: number) => `61${n.toString(16).padStart(4, '0')}`
const words = (...ops: string[]) => `${ops.map((op, i) => `${op}${push2(i * 32)}52`).join('')}${push2(ops.length * 32)}5ff3`
// The gas `access` costs: GAS, access, (POP what it left), GAS, SWAP1, SUB.
const cost = (access: string, leaves = true) => `5a${access}${leaves ? '50' : ''}5a9003`

const CODES: Record<string, string> = {
  // ORIGIN CALLER GASPRICE BASEFEE COINBASE NUMBER TIMESTAMP CHAINID CALLVALUE ADDRESS GAS
  env: words('32', '33', '3a', '48', '41', '43', '42', '46', '34', '30', '5a'),
  // BALANCE's cost on the caller, itself, the coinbase, a precompile, the origin, an untouched
  // address (warm or cold, EIP-2929/3651); EXTCODEHASH and BALANCE of the caller.
  warm: words(cost('3331'), cost('3031'), cost('4131'), cost('600131'), cost('3231'), cost(`73${RANDOM}31`), '333f', '3331'),
  // Slot 0 holds 1: SSTORE 2 then 1 (gas by the original value, EIP-2200/3529), then SLOAD.
  sstore: words(cost('60025f55', false), cost('60015f55', false), '5f54'),
  // TSTORE 7, TLOAD: 7 within the call; the next call must see 0 (EIP-1153 cleared).
  tstore: '60075f5d' + words('5f5c'),
  tload: words('5f5c'),
  // A call to R (which reverts with data): its status and return data size.
  nested: `5f5f5f5f5f73${R.slice(2)}5af1${words('', '3d')}`,
  // CREATE of empty code: the new address (from T's nonce).
  create: words('5f5f5ff0'),
  revert: '602a5f5260205ffd',
  invalid: 'fe',
  loop: '5b5f56',
  echo: '365f5f37365ff3',
  destruct: `73${RANDOM}ff`,
}

let node: StartedNode

beforeAll(async () => {
  node = await startNode({ port: 0, silent: true })
})
afterAll(async () => {
  await node?.stop()
})

interface Case {
  name: string
  to: string
  from?: string
  data?: string
  gas?: bigint
  /** T's slot 0 (1 unless given) */
  slot?: number
}

/** One call both ways on the pending state: [runTx's output, the message's output] and whether runTx ran. */
async function both(c: Case) {
  const { engine, chain } = node.node
  const header = (chain.pending ?? chain.head).header
  const overrides = parseStateOverrides({
    [T]: {
      code: `0x${CODES[c.to] ?? '00'}`,
      state: { [`0x${'0'.repeat(64)}`]: `0x${(c.slot ?? 1).toString(16).padStart(64, '0')}` },
    },
    [R]: { code: `0x${CODES.revert}` },
    [D]: { code: `0xef0100${T.slice(2)}` },
    [C]: { code: '0x00' },
  })
  const to = c.to in CODES ? T : c.to
  const req = {
    from: c.from ? hexToBytes(c.from as Hex) : undefined,
    to: hexToBytes(to as Hex),
    data: c.data ? hexToBytes(c.data as Hex) : undefined,
  }
  return engine.queue.run(async () => {
    const view = engine.live
    const env = callEnv(engine, header, undefined, false)
    const gas = c.gas ?? callGasCap(engine, env.header.gasLimit)
    const nonce = await view.nonce(req.from ?? new Uint8Array(20))
    const options = { validateBalance: true, overrides, console: true }
    let txs = 0
    const count = () => txs++
    view.vm.events.on('beforeTx', count)
    const settle = <T>(p: Promise<T>) =>
      p.then(
        (v) => ({ v }),
        (e: Error) => ({ e: e.message }),
      )
    try {
      const full = await settle(runReverted(view, env, req, gas, nonce, options))
      const viaTx = txs
      const message = await settle(outputReverted(view, env, req, gas, nonce, options))
      const shown = (o: typeof full | typeof message) =>
        'e' in o
          ? { thrown: o.e }
          : { output: bytesToHex('result' in o.v ? o.v.result.returnValue : o.v.output), failure: o.v.failure }
      return { full: shown(full), message: shown(message), runTxRuns: [viaTx, txs - viaTx] }
    } finally {
      view.vm.events.off('beforeTx', count)
    }
  })
}

const DEV = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const SENDERS = [DEV, FRESH, C, undefined]

describe('eth_call as a bare message', () => {
  it('answers as runTx does, from every kind of sender', async () => {
    const cases: Case[] = []
    for (const from of SENDERS) {
      for (const to of Object.keys(CODES)) cases.push({ name: `${to} from ${from}`, to, from })
      cases.push({ name: `delegated from ${from}`, to: D, from })
    }
    // Calldata changes intrinsic gas (zero and non-zero bytes, the EIP-7623 floor), so GAS shows it.
    const calldata = `0x${'00'.repeat(40)}${'7f'.repeat(300)}`
    cases.push({ name: 'env with calldata', to: 'env', from: DEV, data: calldata })
    cases.push({ name: 'echo with calldata', to: 'echo', from: FRESH, data: calldata })
    cases.push({ name: 'env at a set gas', to: 'env', gas: 100_000n })
    cases.push({ name: 'loop out of gas', to: 'loop', gas: 60_000n })
    cases.push({ name: 'sha256 precompile', to: addr(2), data: '0x616263' })
    cases.push({ name: 'no code', to: addr(0xe0a), from: DEV })
    for (const c of cases) {
      const { full, message, runTxRuns } = await both(c)
      expect(message, c.name).toEqual(full)
      expect(runTxRuns, `${c.name}: runTx ran for the full path only`).toEqual([1, 0])
    }
  })

  it("prices SSTORE by the slot's value before each call, not a past call's (original storage)", async () => {
    await both({ name: 'sstore at 1', to: 'sstore', slot: 1 })
    const { full, message } = await both({ name: 'sstore at 5', to: 'sstore', slot: 5 })
    expect(message).toEqual(full)
    // 5 -> 2 on a cold slot whose value before the call is 5: 2,100 + 2,900 (+ PUSH1, PUSH0, GAS).
    // Read against a stale original of 1, it would cost 2,100 + 100.
    expect(message.output?.slice(0, 66)).toBe(`0x${(5007).toString(16).padStart(64, '0')}`)
  })

  it('clears transient storage between calls, as between transactions', async () => {
    await both({ name: 'tstore', to: 'tstore' })
    const { full, message } = await both({ name: 'tload', to: 'tload' })
    expect(message).toEqual(full)
    expect(message).toEqual({ output: `0x${'0'.repeat(64)}`, failure: undefined })
  })

  it('leaves a call below its intrinsic gas to runTx, which refuses it in its own words', async () => {
    const { full, message, runTxRuns } = await both({ name: 'short', to: 'env', data: `0x${'7f'.repeat(64)}`, gas: 21_100n })
    expect(message).toEqual(full)
    expect(message).toMatchObject({ thrown: expect.stringMatching(/intrinsic|minimum gas limit/i) })
    expect(runTxRuns).toEqual([1, 1])
  })
})
