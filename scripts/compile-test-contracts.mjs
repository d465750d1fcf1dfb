// Compiles the test contracts in test/fixtures/*.sol into TypeScript artifacts (committed, so tests need no compiler).

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import solc from 'solc'

/** [source file, artifact file, [contract, export prefix]...] */
const UNITS = [
  ['Counter.sol', 'counter.ts', [['Counter', 'counter']]],
  ['Token.sol', 'token.ts', [['Token', 'token']]],
  ['Erc20.sol', 'erc20.ts', [['Erc20', 'erc20']]],
  [
    'Tracing.sol',
    'tracing.ts',
    [
      ['TraceRoot', 'traceRoot'],
      ['TraceChild', 'traceChild'],
    ],
  ],
  ['SoladyAccount.sol', 'solady-account.ts', [['SoladyAccountFactory', 'soladyAccountFactory']]],
  ['RuleBreaker.sol', 'rule-breaker.ts', [['RuleBreakerAccount', 'ruleBreakerAccount']]],
  ['Account06.sol', 'account06.ts', [['Account06', 'account06']]],
  ['Account09.sol', 'account09.ts', [['Account09Factory', 'account09Factory']]],
  [
    'Reputation.sol',
    'reputation.ts',
    [
      ['ReputationAccount', 'reputationAccount'],
      ['ReputationFactory', 'reputationFactory'],
      ['ReputationPaymaster', 'reputationPaymaster'],
      ['ReputationContextPaymaster', 'reputationContextPaymaster'],
      ['ReputationTokenAccount', 'reputationTokenAccount'],
    ],
  ],
  ['Aggregating06.sol', 'aggregating06.ts', [['Aggregating06', 'aggregating06']]],
  ['CoinbaseStandIn.sol', 'coinbase-stand-in.ts', [['CoinbaseStandInFactory', 'coinbaseStandInFactory']]],
]

// `solady/…` imports resolve in the solady package (the bundler tests' v0.7 account).
const findImports = (path) =>
  path.startsWith('solady/')
    ? { contents: fs.readFileSync(`node_modules/solady/src/${path.slice(7)}`, 'utf8') }
    : { error: `import not found: ${path}` }

for (const [file, artifact, contracts] of UNITS) {
  const src = fs.readFileSync(`test/fixtures/${file}`, 'utf8')
  const input = {
    language: 'Solidity',
    sources: { [file]: { content: src } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }))
  if (out.errors?.some((e) => e.severity === 'error')) {
    console.error(out.errors)
    process.exit(1)
  }
  let body = `// Compiled from test/fixtures/${file} with solc ${solc.version()} (optimizer 200 runs, cancun).\n`
  for (const [name, prefix] of contracts) {
    const c = out.contracts[file][name]
    body += `export const ${prefix}Abi = ${JSON.stringify(c.abi)} as const\n\nexport const ${prefix}Bytecode = '0x${c.evm.bytecode.object}' as const\n\n`
  }
  fs.writeFileSync(`test/fixtures/${artifact}`, body.trimEnd() + '\n')
}
// Formatted as committed, so a rerun changes only what the sources changed.
execFileSync('npx', ['biome', 'format', '--write', ...UNITS.map(([, artifact]) => `test/fixtures/${artifact}`)], {
  stdio: 'ignore',
})
console.log('ok', solc.version())
