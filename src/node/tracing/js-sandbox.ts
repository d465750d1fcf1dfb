// The realm JavaScript tracers run in: a node:vm context holding the tracer's object, geth's
// globals (toHex, toWord, toAddress, toContract, toContract2, isPrecompiled, slice) and bigInt
// (the big-integer library geth's goja embeds, evaluated inside the context). Every call into it
// has a time limit. The tracer's code sees only objects of its own realm: the host's callbacks are
// captured in closures at setup and removed from the global, and they exchange only strings,
// numbers and booleans, so no host object (and no host Function constructor) is reachable.
// node:vm is no security boundary against a determined attacker on the same machine; it keeps a
// devnet's tracer from touching the node by accident, and runaway loops are cut by the timeout.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import vm from 'node:vm'

let bigIntSource: string | undefined
const loadBigInt = () => {
  bigIntSource ??= readFileSync(createRequire(import.meta.url).resolve('big-integer/BigInteger.js'), 'utf8')
  return bigIntSource
}

/** What the sandbox asks the host: hex strings in, primitives out. */
export interface HostBridge {
  /** db.* and the step's log: (what, ...args) → hex string, number, boolean or undefined. */
  read(what: string, a?: string | number, b?: string | number): string | number | boolean | undefined
  isPrecompiled(hexAddress: string): boolean
}

// Runs inside the context. `__host` is taken into a closure and deleted from the global.
const PRELUDE = `(() => {
  'use strict';
  const bridge = globalThis.__host;
  delete globalThis.__host;
  // The host answers failures as a marked string (a host Error thrown in here would expose its realm).
  const unwrap = (v) => { if (typeof v === 'string' && v.startsWith('\u0000')) throw new Error(v.slice(1)); return v; };
  const host = {
    read: (w, a, b) => unwrap(bridge.read(w, a, b)),
    isPrecompiled: (a) => unwrap(bridge.isPrecompiled(a)),
  };
  const hexOf = (b) => { let s = '0x'; for (let i = 0; i < b.length; i++) s += (b[i] < 16 ? '0' : '') + b[i].toString(16); return s; };
  const bytes = (h) => { h = String(h); if (h.startsWith('0x') || h.startsWith('0X')) h = h.slice(2); if (h.length % 2) h = '0' + h;
    const out = new Uint8Array(h.length / 2); for (let i = 0; i < out.length; i++) out[i] = parseInt(h.substr(i * 2, 2), 16); return out; };
  const big = (h) => bigInt(String(h).replace(/^0x/, '') || '0', 16);
  // geth's fromBuf: an array, a Uint8Array or (where allowed) a hex string.
  const fromBuf = (v, allowString) => {
    if (typeof v === 'string' || v instanceof String) { if (allowString) return bytes(v); throw new Error('invalid buffer type'); }
    if (v instanceof Uint8Array) return v;
    if (Array.isArray(v)) return Uint8Array.from(v);
    throw new Error('invalid buffer type');
  };
  const pad = (b, n) => { const out = new Uint8Array(n); const s = b.length > n ? b.subarray(b.length - n) : b; out.set(s, n - s.length); return out; };
  globalThis.toHex = (v) => hexOf(fromBuf(v, false));
  globalThis.toWord = (v) => pad(fromBuf(v, true), 32);
  globalThis.toAddress = (v) => pad(fromBuf(v, true), 20);
  globalThis.toContract = (from, nonce) => bytes(host.read('create', hexOf(pad(fromBuf(from, true), 20)), Number(nonce)));
  globalThis.toContract2 = (from, salt, code) =>
    bytes(host.read('create2', hexOf(pad(fromBuf(from, true), 20)), String(salt) + ':' + hexOf(fromBuf(code, true))));
  globalThis.isPrecompiled = (v) => host.isPrecompiled(hexOf(pad(fromBuf(v, true), 20)));
  globalThis.slice = (v, start, end) => {
    const b = fromBuf(v, false);
    if (start < 0 || start > end || end > b.length) throw new Error('Tracer accessed out of bound memory: available ' + b.length + ', offset ' + start + ', size ' + (end - start));
    return b.slice(start, end);
  };
  const addr = (v) => hexOf(pad(fromBuf(v, false), 20));
  const db = {
    getBalance: (a) => big(host.read('balance', addr(a))),
    getNonce: (a) => host.read('nonce', addr(a)),
    getCode: (a) => bytes(host.read('code', addr(a))),
    getState: (a, h) => bytes(host.read('state', addr(a), hexOf(pad(fromBuf(h, false), 32)))),
    exists: (a) => host.read('exists', addr(a)),
  };
  const log = {
    getPC: () => host.read('pc'), getGas: () => host.read('gas'), getCost: () => host.read('cost'),
    getDepth: () => host.read('depth'), getRefund: () => host.read('refund'), getError: () => host.read('error'),
    op: { toNumber: () => host.read('op'), toString: () => host.read('opName'), isPush: () => host.read('isPush') },
    stack: { peek: (i) => big(host.read('peek', Number(i))), length: () => host.read('stackLength') },
    memory: {
      slice: (b, e) => bytes(host.read('memSlice', Number(b), Number(e))),
      getUint: (a) => big(host.read('memUint', Number(a))),
      length: () => host.read('memLength'),
    },
    contract: {
      getCaller: () => bytes(host.read('caller')), getAddress: () => bytes(host.read('address')),
      getValue: () => big(host.read('value')), getInput: () => bytes(host.read('input')),
    },
  };
  const frame = {
    getType: () => host.read('frameType'), getFrom: () => bytes(host.read('frameFrom')), getTo: () => bytes(host.read('frameTo')),
    getInput: () => bytes(host.read('frameInput')), getGas: () => host.read('frameGas'),
    getValue: () => { const v = host.read('frameValue'); return v === undefined ? undefined : big(v); },
  };
  const frameResult = {
    getGasUsed: () => host.read('gasUsed'), getOutput: () => bytes(host.read('output')), getError: () => host.read('frameError'),
  };
  let tracer;
  // The context's values for result(): hex strings from the host become buffers and bigInts here.
  const ctxValue = (entries) => {
    const out = {};
    for (const [k, kind, v] of entries) out[k] = kind === 'bytes' ? bytes(v) : kind === 'big' ? big(v) : v;
    return out;
  };
  globalThis.__pcnode = {
    load: (code, cfg) => {
      tracer = (0, eval)('(' + code + ')');
      if (tracer === null || (typeof tracer !== 'object' && typeof tracer !== 'function')) throw new TypeError('tracer is not an object');
      if (typeof tracer.result !== 'function') return 'trace object must expose a function result()';
      if (typeof tracer.fault !== 'function') return 'trace object must expose a function fault()';
      if ((typeof tracer.enter === 'function') !== (typeof tracer.exit === 'function')) return 'trace object must expose either both or none of enter() and exit()';
      if (typeof tracer.setup === 'function') tracer.setup(cfg);
      return (typeof tracer.step === 'function' ? 's' : '') + (typeof tracer.enter === 'function' ? 'f' : '');
    },
    step: () => { tracer.step(log, db); },
    fault: () => { tracer.fault(log, db); },
    enter: () => { tracer.enter(frame); },
    exit: () => { tracer.exit(frameResult); },
    result: (entries) => JSON.stringify(tracer.result(ctxValue(JSON.parse(entries)), db)),
  };
})()`

/** One tracer's realm. Calls throw what the tracer threw, or a timeout error. */
export class JsSandbox {
  private readonly context: vm.Context
  private readonly calls = new Map<string, vm.Script>()

  constructor(
    bridge: HostBridge,
    private readonly deadline: () => number,
  ) {
    this.context = vm.createContext({ __host: bridge }, { codeGeneration: { strings: true, wasm: false } })
    vm.runInContext(loadBigInt(), this.context, { filename: 'bigInteger.js' })
    vm.runInContext(PRELUDE, this.context, { filename: 'pcnode-tracer-prelude.js' })
  }

  /** Evaluates the tracer's source; a problem with its shape comes back as geth's text. */
  load(code: string, config: string): { step: boolean; frames: boolean } {
    this.context.__code = code
    this.context.__config = config
    const shape = this.run('load', '__pcnode.load(globalThis.__code, globalThis.__config)') as string
    delete this.context.__code
    delete this.context.__config
    if (shape !== '' && shape !== 's' && shape !== 'f' && shape !== 'sf') throw new Error(shape)
    return { step: shape.includes('s'), frames: shape.includes('f') }
  }

  call(name: 'step' | 'fault' | 'enter' | 'exit'): void {
    this.run(name, `__pcnode.${name}()`)
  }

  result(entries: Array<[string, 'bytes' | 'big' | 'plain', string | number | undefined]>): string {
    // As a string: a host array in the context would hand the tracer the host's constructors.
    this.context.__entries = JSON.stringify(entries)
    try {
      return this.run('result', '__pcnode.result(globalThis.__entries)') as string
    } finally {
      delete this.context.__entries
    }
  }

  private run(name: string, source: string): unknown {
    let script = this.calls.get(name)
    if (!script) this.calls.set(name, (script = new vm.Script(source, { filename: `tracer-${name}.js` })))
    const timeout = Math.max(1, Math.floor(this.deadline() - performance.now()))
    return script.runInContext(this.context, { timeout })
  }
}
