// The code that runs inside a JS tracer's QuickJS context before the tracer's own: geth's globals
// (toHex, toWord, toAddress, toContract, toContract2, isPrecompiled, slice, bigInt) and the
// `log`, `db`, `frame`, `frameResult` and `ctx` objects of eth/tracers/js/goja.go, built on two
// host functions that take and return only strings, numbers and booleans. It evaluates to a
// function the host calls once with those host functions; it returns the entry points the host
// calls, which also answer only strings: what the tracer threw is turned into its text here, so
// its getters and toString run inside the sandbox, under the tracer's time limit.
//
// Entry points answer: '' (done), a shape ('s', 'f', 'sf', '' from load), '\u0002' + geth's text
// for a malformed tracer, '\u0003' + JSON (result), '\u0004' (result is undefined), or '\u0001' +
// the text of what the tracer threw. (Not NUL: strings cross as C strings.)
export const PRELUDE = `(function (hostRead, hostIsPrecompiled, opNamesJson, bigIntSource) {
  'use strict';
  const G = globalThis;
  const FunctionCtor = Function;
  const define = Object.defineProperty;
  const stringify = JSON.stringify;
  const parseJson = JSON.parse;
  const Bytes = Uint8Array;
  const Native = BigInt;
  const opNames = parseJson(opNamesJson);

  // What the tracer threw, as geth prints a JS exception ("Error: boom"); a value whose text
  // cannot be had (its getters or toString throw) gets the text of that second throw.
  const text = (e) => {
    if (e instanceof Error) {
      const name = String(e.name);
      let message = String(e.message);
      // goja's wording for an undefined name (QuickJS quotes it).
      if (name === 'ReferenceError') message = message.replace(/^'(.*)' is not defined$/, '$1 is not defined');
      return name + ': ' + message;
    }
    return String(e);
  };
  const fail = (e) => {
    try { return '\\u0001' + text(e); } catch (again) {
      try { return '\\u0001' + text(again); } catch (_) { return '\\u0001InternalError: the tracer threw a value with no text'; }
    }
  };
  // The host answers a failed read as a marked string.
  const unwrap = (v) => { if (typeof v === 'string' && v.charCodeAt(0) === 1) throw new Error(v.slice(1)); return v; };
  const read = (w, a, b) => unwrap(hostRead(w, a, b));

  // geth's bigInt: the big-integer library goja embeds, compiled on first use (most result()-only
  // tracers never need it).
  let bigLib;
  const bigInt = () => bigLib || (bigLib = new FunctionCtor(bigIntSource + '\\n;return bigInt;')());
  const setGlobal = (name, value) => define(G, name, { value, writable: true, configurable: true, enumerable: true });
  define(G, 'bigInt', {
    configurable: true, enumerable: true,
    get: () => { const v = bigInt(); setGlobal('bigInt', v); return v; },
    set: (v) => setGlobal('bigInt', v),
  });
  // The host's hex as the library's value for a native BigInt: what parsing it in base 16 builds,
  // without the library's digit-by-digit loop (slow in an interpreter).
  const big = (h) => bigInt()(Native(h.length > 2 ? h : 0));

  const hexOf = (b) => { let s = '0x'; for (let i = 0; i < b.length; i++) s += (b[i] < 16 ? '0' : '') + b[i].toString(16); return s; };
  const bytes = (h) => { h = String(h); if (h.startsWith('0x') || h.startsWith('0X')) h = h.slice(2); if (h.length % 2) h = '0' + h;
    const out = new Bytes(h.length / 2); for (let i = 0; i < out.length; i++) out[i] = parseInt(h.substr(i * 2, 2), 16); return out; };
  // geth's fromBuf: an array, a Uint8Array or (where allowed) a hex string.
  const fromBuf = (v, allowString) => {
    if (typeof v === 'string' || v instanceof String) { if (allowString) return bytes(v); throw new Error('invalid buffer type'); }
    if (v instanceof Bytes) return v;
    if (Array.isArray(v)) return Bytes.from(v);
    throw new Error('invalid buffer type');
  };
  const pad = (b, n) => { const out = new Bytes(n); const s = b.length > n ? b.subarray(b.length - n) : b; out.set(s, n - s.length); return out; };
  setGlobal('toHex', (v) => hexOf(fromBuf(v, false)));
  setGlobal('toWord', (v) => pad(fromBuf(v, true), 32));
  setGlobal('toAddress', (v) => pad(fromBuf(v, true), 20));
  setGlobal('toContract', (from, nonce) => bytes(read('create', hexOf(pad(fromBuf(from, true), 20)), Number(nonce))));
  setGlobal('toContract2', (from, salt, code) =>
    bytes(read('create2', hexOf(pad(fromBuf(from, true), 20)), String(salt) + ':' + hexOf(fromBuf(code, true)))));
  setGlobal('isPrecompiled', (v) => hostIsPrecompiled(hexOf(pad(fromBuf(v, true), 20))));
  setGlobal('slice', (v, start, end) => {
    const b = fromBuf(v, false);
    if (start < 0 || start > end || end > b.length) throw new Error('Tracer accessed out of bound memory: available ' + b.length + ', offset ' + start + ', size ' + (end - start));
    return b.slice(start, end);
  });

  const addr = (v) => hexOf(pad(fromBuf(v, false), 20));
  const db = {
    getBalance: (a) => big(read('balance', addr(a))),
    getNonce: (a) => read('nonce', addr(a)),
    getCode: (a) => bytes(read('code', addr(a))),
    getState: (a, h) => bytes(read('state', addr(a), hexOf(pad(fromBuf(h, false), 32)))),
    exists: (a) => read('exists', addr(a)),
  };
  // The step's scalars come with the call; the stack, memory and contract are read on demand, the
  // stack's top items in one read (tracers peek at a few of them).
  let pc = 0, gas = 0, cost = 0, depth = 0, refund = 0, op = 0, error, stackLength = 0, top;
  const peek = (i) => {
    i = Number(i);
    if (!(i >= 0 && i < 8 && i < stackLength)) return big(read('peek', i));
    if (!top) top = read('stackTop').split(',');
    return big(top[i]);
  };
  const log = {
    getPC: () => pc, getGas: () => gas, getCost: () => cost, getDepth: () => depth, getRefund: () => refund, getError: () => error,
    op: { toNumber: () => op, toString: () => opNames[op], isPush: () => op >= 0x5f && op <= 0x7f },
    stack: { peek, length: () => stackLength },
    memory: {
      slice: (b, e) => bytes(read('memSlice', Number(b), Number(e))),
      getUint: (a) => big(read('memUint', Number(a))),
      length: () => read('memLength'),
    },
    contract: {
      getCaller: () => bytes(read('caller')), getAddress: () => bytes(read('address')),
      getValue: () => big(read('value')), getInput: () => bytes(read('input')),
    },
  };
  const frame = {
    getType: () => read('frameType'), getFrom: () => bytes(read('frameFrom')), getTo: () => bytes(read('frameTo')),
    getInput: () => bytes(read('frameInput')), getGas: () => read('frameGas'),
    getValue: () => { const v = read('frameValue'); return v === undefined ? undefined : big(v); },
  };
  const frameResult = {
    getGasUsed: () => read('gasUsed'), getOutput: () => bytes(read('output')), getError: () => read('frameError'),
  };
  // result()'s ctx: hex strings become buffers, and bigInts on first read.
  const ctxValue = (entries) => {
    const out = {};
    for (const [k, kind, v] of entries) {
      if (kind === 'big') {
        define(out, k, {
          configurable: true, enumerable: true,
          get: () => { const b = big(v); define(out, k, { value: b, writable: true, configurable: true, enumerable: true }); return b; },
          set: (x) => define(out, k, { value: x, writable: true, configurable: true, enumerable: true }),
        });
      } else out[k] = kind === 'bytes' ? bytes(v) : v;
    }
    return out;
  };
  const setStep = (a, b, c, d, e, f, g, h) => { pc = a; gas = b; cost = c; depth = d; refund = e; op = f; error = g; stackLength = h; top = undefined; };

  let tracer;
  return {
    load: (code, cfg) => {
      try {
        tracer = (0, eval)('(' + code + ')');
        if (tracer === null || (typeof tracer !== 'object' && typeof tracer !== 'function')) throw new TypeError('tracer is not an object');
        if (typeof tracer.result !== 'function') return '\\u0002trace object must expose a function result()';
        if (typeof tracer.fault !== 'function') return '\\u0002trace object must expose a function fault()';
        if ((typeof tracer.enter === 'function') !== (typeof tracer.exit === 'function')) return '\\u0002trace object must expose either both or none of enter() and exit()';
        if (typeof tracer.setup === 'function') tracer.setup(cfg);
        return (typeof tracer.step === 'function' ? 's' : '') + (typeof tracer.enter === 'function' ? 'f' : '');
      } catch (e) { return fail(e); }
    },
    step: (a, b, c, d, e, f, g, h) => { try { setStep(a, b, c, d, e, f, g, h); tracer.step(log, db); return ''; } catch (x) { return fail(x); } },
    fault: (a, b, c, d, e, f, g, h) => { try { setStep(a, b, c, d, e, f, g, h); tracer.fault(log, db); return ''; } catch (x) { return fail(x); } },
    enter: () => { try { tracer.enter(frame); return ''; } catch (x) { return fail(x); } },
    exit: () => { try { tracer.exit(frameResult); return ''; } catch (x) { return fail(x); } },
    result: (entries) => {
      try {
        const json = stringify(tracer.result(ctxValue(parseJson(entries)), db));
        return json === undefined ? '\\u0004' : '\\u0003' + json;
      } catch (x) { return fail(x); }
    },
  };
})`
