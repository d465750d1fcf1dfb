// Hand-assembled contracts (no compiler needed), deployed or called by the call and trace scenarios.

const VIEW_RUNTIME = '60005460005260206000f3'
// Constructor: SSTORE(0, 42), then CODECOPY the 11-byte runtime from offset 0x10 and RETURN it.
export const VIEW_INITCODE = `0x602a600055600b8060106000396000f3${VIEW_RUNTIME}`
export const VIEW_RESULT = `0x${'2a'.padStart(64, '0')}`
// Constructor that spins a counter 7692 times (26 gas per turn, ~200k gas) and then returns the
// runtime (offset 0x18): PUSH2 0x1e0c loop: JUMPDEST PUSH1 1 SWAP1 SUB DUP1 PUSH1 3 JUMPI POP ...
export const HEAVY_INITCODE = `0x611e0c5b600190038060035750600b8060186000396000f3${VIEW_RUNTIME}`
// Runtime hashing a memory word 1,000 times, then returning it (the EVM's own speed): PUSH2 1000
// loop: JUMPDEST PUSH1 32 PUSH1 0 KECCAK256 PUSH1 0 MSTORE PUSH1 1 SWAP1 SUB DUP1 PUSH1 3 JUMPI;
// PUSH1 32 PUSH1 0 RETURN. Run by eth_call with a state override putting it at KECCAK_AT.
export const KECCAK_LOOP = '0x6103e85b6020600020600052600190038060035760206000f3'
export const KECCAK_AT = '0x00000000000000000000000000000000000c0de1'
