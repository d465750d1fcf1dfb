// Writes test/fixtures/forge-out/, a Foundry-style artifact directory for the explorer's --artifacts
// tests: test/fixtures/Counter.sol compiled with the settings of compile-test-contracts.mjs (solc from
// npm, optimizer 200 runs, cancun, the metadata trailer kept), in the shape `forge build` writes
// (out/<File>.sol/<Contract>.json: abi, bytecode and deployedBytecode with their references).
import fs from 'node:fs'
import solc from 'solc'

const FILE = 'Counter.sol'
const input = {
  language: 'Solidity',
  sources: { [FILE]: { content: fs.readFileSync(`test/fixtures/${FILE}`, 'utf8') } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun',
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode', 'evm.deployedBytecode'] } },
  },
}
const out = JSON.parse(solc.compile(JSON.stringify(input)))
if (out.errors?.some((e) => e.severity === 'error')) {
  console.error(out.errors)
  process.exit(1)
}
const c = out.contracts[FILE].Counter
const code = (b) => ({ object: `0x${b.object}`, linkReferences: b.linkReferences ?? {} })
const artifact = {
  abi: c.abi,
  bytecode: code(c.evm.bytecode),
  deployedBytecode: { ...code(c.evm.deployedBytecode), immutableReferences: c.evm.deployedBytecode.immutableReferences ?? {} },
}
fs.mkdirSync(`test/fixtures/forge-out/${FILE}`, { recursive: true })
fs.writeFileSync(`test/fixtures/forge-out/${FILE}/Counter.json`, `${JSON.stringify(artifact, null, 2)}\n`)
console.log('ok', solc.version())
