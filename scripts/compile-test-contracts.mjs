// Compiles the test contracts in test/fixtures/*.sol into TypeScript artifacts (committed, so tests need no compiler).

import fs from 'node:fs'
import solc from 'solc'

const src = fs.readFileSync('test/fixtures/Counter.sol', 'utf8')
const input = {
  language: 'Solidity',
  sources: { 'Counter.sol': { content: src } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun',
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
}
const out = JSON.parse(solc.compile(JSON.stringify(input)))
if (out.errors?.some((e) => e.severity === 'error')) {
  console.error(out.errors)
  process.exit(1)
}
const c = out.contracts['Counter.sol'].Counter
fs.writeFileSync(
  'test/fixtures/counter.ts',
  `// Compiled from test/fixtures/Counter.sol with solc ${solc.version()} (optimizer 200 runs, cancun).\nexport const counterAbi = ${JSON.stringify(c.abi)} as const\n\nexport const counterBytecode = '0x${c.evm.bytecode.object}' as const\n`,
)
console.log('ok', solc.version())
