// eth_call / eth_simulateV1 `movePrecompileToAddress`: the precompile keeps working at its new
// address and its old one becomes an ordinary account. ethereumjs fixes its precompiles when the
// EVM is built (`customPrecompiles`), so this swaps the EVM's protected `_precompiles` map (keyed by
// unprefixed lowercase address) for the call and puts it back after; selfcheck.ts checks its shape.
import type { VM } from '@ethereumjs/vm'

export type PrecompileMap = Map<string, unknown>

/** The EVM's precompile map (protected in ethereumjs 10). */
export function precompileMap(vm: VM): PrecompileMap {
  return (vm.evm as unknown as { _precompiles: PrecompileMap })._precompiles
}

function setPrecompileMap(vm: VM, map: PrecompileMap): void {
  ;(vm.evm as unknown as { _precompiles: PrecompileMap })._precompiles = map
}

/** While overrides have moved precompiles: the VM's original map, which geth still warms per tx. */
const moved = new WeakMap<VM, { base: PrecompileMap; moved: PrecompileMap }>()

/** Installs `next` as the VM's precompiles; the returned function puts the original back. */
export function installPrecompiles(vm: VM, next: PrecompileMap): () => void {
  const original = precompileMap(vm)
  setPrecompileMap(vm, next)
  moved.set(vm, { base: original, moved: next })
  return () => {
    setPrecompileMap(vm, original)
    moved.delete(vm)
  }
}

/**
 * Runs `run` (a runTx) with the original precompile set warmed, as geth warms it: runTx warms the
 * map's addresses before the first message, so the original map is in place until that message
 * starts, then the moved one.
 */
export async function withMovedPrecompiles<T>(vm: VM, run: () => Promise<T>): Promise<T> {
  const m = moved.get(vm)
  if (!m) return run()
  const events = vm.evm.events
  const toMoved = () => {
    setPrecompileMap(vm, m.moved)
    events?.off('beforeMessage', toMoved)
  }
  setPrecompileMap(vm, m.base)
  events?.on('beforeMessage', toMoved)
  try {
    return await run()
  } finally {
    toMoved()
  }
}
