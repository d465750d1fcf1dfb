// Opcode names and stack arity as geth prints them (core/vm/opcodes.go, jump_table.go): the struct
// logger's `op`, the texts of "invalid opcode" and stack errors, and the JS tracers' op.toString().
// Plain data, shared by the engine's trace hooks and the tracers.

const NAMES: Record<number, string> = {}
const POPS = new Uint8Array(256)
const PUSHES = new Uint8Array(256)

function def(code: number, name: string, pops: number, pushes: number): void {
  NAMES[code] = name
  POPS[code] = pops
  PUSHES[code] = pushes
}

// [code, name, pops, pushes]: the opcodes geth's table names (arity from its jump table).
const TABLE: Array<[number, string, number, number]> = [
  [0x00, 'STOP', 0, 0],
  [0x01, 'ADD', 2, 1],
  [0x02, 'MUL', 2, 1],
  [0x03, 'SUB', 2, 1],
  [0x04, 'DIV', 2, 1],
  [0x05, 'SDIV', 2, 1],
  [0x06, 'MOD', 2, 1],
  [0x07, 'SMOD', 2, 1],
  [0x08, 'ADDMOD', 3, 1],
  [0x09, 'MULMOD', 3, 1],
  [0x0a, 'EXP', 2, 1],
  [0x0b, 'SIGNEXTEND', 2, 1],
  [0x10, 'LT', 2, 1],
  [0x11, 'GT', 2, 1],
  [0x12, 'SLT', 2, 1],
  [0x13, 'SGT', 2, 1],
  [0x14, 'EQ', 2, 1],
  [0x15, 'ISZERO', 1, 1],
  [0x16, 'AND', 2, 1],
  [0x17, 'OR', 2, 1],
  [0x18, 'XOR', 2, 1],
  [0x19, 'NOT', 1, 1],
  [0x1a, 'BYTE', 2, 1],
  [0x1b, 'SHL', 2, 1],
  [0x1c, 'SHR', 2, 1],
  [0x1d, 'SAR', 2, 1],
  [0x1e, 'CLZ', 1, 1],
  [0x20, 'KECCAK256', 2, 1],
  [0x30, 'ADDRESS', 0, 1],
  [0x31, 'BALANCE', 1, 1],
  [0x32, 'ORIGIN', 0, 1],
  [0x33, 'CALLER', 0, 1],
  [0x34, 'CALLVALUE', 0, 1],
  [0x35, 'CALLDATALOAD', 1, 1],
  [0x36, 'CALLDATASIZE', 0, 1],
  [0x37, 'CALLDATACOPY', 3, 0],
  [0x38, 'CODESIZE', 0, 1],
  [0x39, 'CODECOPY', 3, 0],
  [0x3a, 'GASPRICE', 0, 1],
  [0x3b, 'EXTCODESIZE', 1, 1],
  [0x3c, 'EXTCODECOPY', 4, 0],
  [0x3d, 'RETURNDATASIZE', 0, 1],
  [0x3e, 'RETURNDATACOPY', 3, 0],
  [0x3f, 'EXTCODEHASH', 1, 1],
  [0x40, 'BLOCKHASH', 1, 1],
  [0x41, 'COINBASE', 0, 1],
  [0x42, 'TIMESTAMP', 0, 1],
  [0x43, 'NUMBER', 0, 1],
  [0x44, 'DIFFICULTY', 0, 1],
  [0x45, 'GASLIMIT', 0, 1],
  [0x46, 'CHAINID', 0, 1],
  [0x47, 'SELFBALANCE', 0, 1],
  [0x48, 'BASEFEE', 0, 1],
  [0x49, 'BLOBHASH', 1, 1],
  [0x4a, 'BLOBBASEFEE', 0, 1],
  [0x4b, 'SLOTNUM', 0, 1],
  [0x50, 'POP', 1, 0],
  [0x51, 'MLOAD', 1, 1],
  [0x52, 'MSTORE', 2, 0],
  [0x53, 'MSTORE8', 2, 0],
  [0x54, 'SLOAD', 1, 1],
  [0x55, 'SSTORE', 2, 0],
  [0x56, 'JUMP', 1, 0],
  [0x57, 'JUMPI', 2, 0],
  [0x58, 'PC', 0, 1],
  [0x59, 'MSIZE', 0, 1],
  [0x5a, 'GAS', 0, 1],
  [0x5b, 'JUMPDEST', 0, 0],
  [0x5c, 'TLOAD', 1, 1],
  [0x5d, 'TSTORE', 2, 0],
  [0x5e, 'MCOPY', 3, 0],
  [0x5f, 'PUSH0', 0, 1],
  [0xd0, 'DATALOAD', 0, 0],
  [0xd1, 'DATALOADN', 0, 0],
  [0xd2, 'DATASIZE', 0, 0],
  [0xd3, 'DATACOPY', 0, 0],
  [0xe0, 'RJUMP', 0, 0],
  [0xe1, 'RJUMPI', 0, 0],
  [0xe2, 'RJUMPV', 0, 0],
  [0xe3, 'CALLF', 0, 0],
  [0xe4, 'RETF', 0, 0],
  [0xe5, 'JUMPF', 0, 0],
  [0xe6, 'DUPN', 0, 0],
  [0xe7, 'SWAPN', 0, 0],
  [0xe8, 'EXCHANGE', 0, 0],
  [0xec, 'EOFCREATE', 0, 0],
  [0xee, 'RETURNCONTRACT', 0, 0],
  [0xf0, 'CREATE', 3, 1],
  [0xf1, 'CALL', 7, 1],
  [0xf2, 'CALLCODE', 7, 1],
  [0xf3, 'RETURN', 2, 0],
  [0xf4, 'DELEGATECALL', 6, 1],
  [0xf5, 'CREATE2', 4, 1],
  [0xf7, 'RETURNDATALOAD', 0, 0],
  [0xf8, 'EXTCALL', 0, 0],
  [0xf9, 'EXTDELEGATECALL', 0, 0],
  [0xfa, 'STATICCALL', 6, 1],
  [0xfb, 'EXTSTATICCALL', 0, 0],
  [0xfd, 'REVERT', 2, 0],
  [0xfe, 'INVALID', 0, 0],
  [0xff, 'SELFDESTRUCT', 1, 0],
]
for (const [code, name, pops, pushes] of TABLE) def(code, name, pops, pushes)
for (let i = 1; i <= 32; i++) def(0x5f + i, `PUSH${i}`, 0, 1)
for (let i = 1; i <= 16; i++) def(0x7f + i, `DUP${i}`, i, i + 1)
for (let i = 1; i <= 16; i++) def(0x8f + i, `SWAP${i}`, i + 1, i + 1)
for (let i = 0; i <= 4; i++) def(0xa0 + i, `LOG${i}`, i + 2, 0)

/** geth's OpCode.String(): the name, or "opcode 0x.. not defined". */
export function opName(op: number): string {
  return NAMES[op] ?? `opcode 0x${op.toString(16)} not defined`
}

/** Stack items the opcode needs (geth's minStack). */
export function opPops(op: number): number {
  return POPS[op]
}

/** geth's maxStack: the stack height above which the opcode overflows the 1024 limit. */
export function opMaxStack(op: number): number {
  return 1024 + POPS[op] - PUSHES[op]
}

export const isPush = (op: number) => op >= 0x5f && op <= 0x7f

export const OPS = {
  STOP: 0x00,
  SLOAD: 0x54,
  SSTORE: 0x55,
  JUMP: 0x56,
  JUMPI: 0x57,
  BALANCE: 0x31,
  EXTCODESIZE: 0x3b,
  EXTCODECOPY: 0x3c,
  EXTCODEHASH: 0x3f,
  CREATE: 0xf0,
  CALL: 0xf1,
  CALLCODE: 0xf2,
  RETURN: 0xf3,
  DELEGATECALL: 0xf4,
  CREATE2: 0xf5,
  STATICCALL: 0xfa,
  REVERT: 0xfd,
  INVALID: 0xfe,
  SELFDESTRUCT: 0xff,
} as const
