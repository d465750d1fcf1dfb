// The JavaScript engine JS tracers run in: QuickJS compiled to WebAssembly (quickjs-emscripten),
// loaded on the first JS tracer. Its objects live in the WebAssembly memory, so nothing the
// tracer builds is a host object, and no host value reaches it except the primitives the host
// functions return. Each tracer gets its own QuickJS runtime (a separate heap with its own
// memory and stack limits); the WebAssembly instance underneath is shared, replaced when it grew
// large (its memory never shrinks) or when a call into it ended in a host exception (a trap or
// V8's own stack limit inside the interpreter), after which its state is not trusted.
import variant from '@jitl/quickjs-singlefile-mjs-release-sync'
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core'

const MIB = 1024 * 1024
/** A tracer's heap (QuickJS's malloc limit). Far above what a collecting tracer such as an
 * ERC-4337 bundler's needs (kilobytes to a few megabytes), far below the host's V8 heap, so filling
 * it fails that tracer only. Kept at 128 MiB because the engine's C built-ins (sort, split, join,
 * JSON on a whole heap of data) run without the interrupt check: the heap bounds how long one of
 * them can hold the thread (a sort over the whole heap: seconds, where 512 MiB would be half a minute). */
export const TRACER_MEMORY_LIMIT = 128 * MIB
/** QuickJS's stack limit for a tracer (~680 nested JS calls). QuickJS measures its own stack in
 * the WebAssembly memory, while each nested call also takes ~4 times as much of V8's native
 * stack, which the host shares: kept small so that JS recursion ends as QuickJS's own error.
 * (Recursion inside its C code, the parser or JSON on deep nesting, can still reach V8's limit
 * first: js-sandbox.ts then discards the instance.) */
export const TRACER_STACK_LIMIT = 128 * 1024
/** The WebAssembly memory's ceiling: the heap limit, room for the allocator's slack, the engine's
 * own stack (5 MiB) and data. */
const WASM_MEMORY_MAX = 2 * TRACER_MEMORY_LIMIT
/** An instance whose memory grew past this is replaced after the tracer, to give it back. */
const WASM_MEMORY_KEEP = 64 * MIB
const PAGE = 64 * 1024

/** The global WebAssembly's Memory (the compiler's lib has no types for it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer
}
const WasmMemory = (
  globalThis as unknown as { WebAssembly: { Memory: new (size: { initial: number; maximum: number }) => WasmMemory } }
).WebAssembly.Memory

interface Instance {
  module: QuickJSWASMModule
  memory: WasmMemory
}

let current: Promise<Instance> | undefined
let loaded: Instance | undefined

async function instantiate(): Promise<Instance> {
  // Our own memory object: its maximum caps the instance whatever QuickJS's accounting says.
  const memory = new WasmMemory({ initial: (16 * MIB) / PAGE, maximum: WASM_MEMORY_MAX / PAGE })
  const module = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory: memory }))
  return { module, memory }
}

/** The shared engine instance (loaded on first use). */
export function quickjs(): Promise<Instance> {
  if (!current) {
    const loading = instantiate()
    current = loading
    loading.then(
      (instance) => {
        if (current === loading) loaded = instance
      },
      // A failed load is retried by the next tracer.
      () => {
        if (current === loading) current = undefined
      },
    )
  }
  return current
}

/** Drops the instance: the next tracer gets a fresh one. */
export function discard(instance: Instance): void {
  if (loaded !== instance) return
  loaded = undefined
  current = undefined
}

/** After a tracer: an instance that grew large is replaced, so its memory is freed. */
export function release(instance: Instance): void {
  if (instance.memory.buffer.byteLength > WASM_MEMORY_KEEP) discard(instance)
}

export type { Instance as QuickJsInstance }
