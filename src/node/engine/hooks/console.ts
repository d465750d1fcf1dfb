// Solidity console.log (Hardhat's console.sol, forge-std's console/console2): a call to the address
// 0x000000000000000000636F6e736F6c652e6c6f67 carrying an ABI-encoded log(...) call. Watched through
// the message event for one execution that asks (a transaction being pre-confirmed, an eth_call),
// so untraced execution is untouched. Not a precompile: a precompile is warm from the start of a
// transaction (EIP-2929), which would make the first console.log 2,500 gas cheaper than on geth,
// anvil and Hardhat, where it is a call to an empty account.
import type { Message } from '@ethereumjs/evm'
import type { VM } from '@ethereumjs/vm'

const CONSOLE = '000000000000000000636f6e736f6c652e6c6f67'

/** Calls `sink` with the calldata of every call to the console address; returns the detach. */
export function watchConsole(vm: VM, sink: (data: Uint8Array) => void): () => void {
  const events = vm.evm.events
  const listener = (msg: Message) => {
    const to = msg.to?.bytes
    if (to && to[9] === 0x63 && Buffer.from(to).toString('hex') === CONSOLE) sink(msg.data)
  }
  events?.on('beforeMessage', listener)
  return () => events?.off('beforeMessage', listener)
}
