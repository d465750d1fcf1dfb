#!/usr/bin/env node
// Writes src/contracts/preinstalls.ts: the runtime bytecode of the OP-stack preinstalls and of the
// predeploys pcnode runs with their official code, each from where the OP stack takes it. The
// generated file is committed; this is run only to change what it holds.
//
//   node scripts/gen-preinstalls.mjs <Preinstalls.sol>
//
// <Preinstalls.sol>: packages/contracts-bedrock/src/libraries/Preinstalls.sol of a checkout of
// ethereum-optimism/optimism (the file holds every preinstall's canonical runtime code; pcnode's
// was generated from commit d317e96c2add4a4e7fae72d6637ad241457f16c7). The script also packs, from
// the npm registry, @account-abstraction/contracts@0.8.0 (EntryPoint v0.8 and Simple7702Account, the
// EIP-7702 implementation viem's toSimple7702SmartAccount uses by default, each deployed here through
// the Arachnid CREATE2 proxy with its canonical salt, which checks the address; EntryPoint v0.8's code is per chain
// and is written as a template genesis fills in, checked against deployments on several chain ids) and
// @eth-optimism/contracts-bedrock@0.17.3 (the WETH9 and L2ToL1MessagePasser predeploys' code, and
// the OP predeploy Proxy's, which Base's Denim places in front of BaseTime).
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createCustomCommon, Mainnet } from '@ethereumjs/common'
import { Address } from '@ethereumjs/util'
import { createVM } from '@ethereumjs/vm'
import { domainSeparator, getContractAddress, keccak256, toHex } from 'viem'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const outFile = join(root, 'src', 'contracts', 'preinstalls.ts')
const source = process.argv[2]
if (!source) {
  console.error(
    'usage: node scripts/gen-preinstalls.mjs <optimism checkout>/packages/contracts-bedrock/src/libraries/Preinstalls.sol',
  )
  process.exit(2)
}

// --- Preinstalls.sol: `address internal constant X = 0x…;` and `bytes internal constant XCode = hex"…";`
const sol = readFileSync(source, 'utf8')
const constant = (name, kind) => {
  const re =
    kind === 'address'
      ? new RegExp(`address internal constant ${name} = (0x[0-9a-fA-F]{40});`)
      : new RegExp(`bytes internal constant ${name}Code =\\s*hex"([0-9a-fA-F]*)";`)
  const m = re.exec(sol)
  if (!m) throw new Error(`${name} not found in ${source}`)
  return kind === 'address' ? m[1] : `0x${m[1].toLowerCase()}`
}
const FROM_PREINSTALLS = [
  'MultiCall3',
  'Create2Deployer',
  'Safe_v130',
  'SafeL2_v130',
  'MultiSendCallOnly_v130',
  'MultiSend_v130',
  'SafeSingletonFactory',
  'DeterministicDeploymentProxy',
  'SenderCreator_v060',
  'EntryPoint_v060',
  'SenderCreator_v070',
  'EntryPoint_v070',
  'CreateX',
]
const preinstalls = FROM_PREINSTALLS.map((name) => ({
  name,
  address: constant(name, 'address'),
  code: constant(name, 'bytes'),
  from: 'Preinstalls.sol',
}))
const permit2Template = constant('Permit2Template', 'bytes')

// --- npm packages
const work = mkdtempSync(join(tmpdir(), 'pcnode-preinstalls-'))
const unpack = (spec) => {
  const file = execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', work], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop()
  const dir = join(work, file.replace(/\.tgz$/, ''))
  execFileSync('mkdir', ['-p', dir])
  execFileSync('tar', ['xzf', join(work, file), '-C', dir])
  return join(dir, 'package')
}
try {
  const bedrock = unpack('@eth-optimism/contracts-bedrock@0.17.3')
  const artifact = (name) => JSON.parse(readFileSync(join(bedrock, 'forge-artifacts', `${name}.sol`, `${name}.json`), 'utf8'))
  const predeploys = [
    {
      name: 'WETH9',
      address: '0x4200000000000000000000000000000000000006',
      code: artifact('WETH98').deployedBytecode.object,
      from: 'contracts-bedrock@0.17.3 WETH98',
    },
    {
      name: 'L2ToL1MessagePasser',
      address: '0x4200000000000000000000000000000000000016',
      code: artifact('L2ToL1MessagePasser').deployedBytecode.object,
      from: 'contracts-bedrock@0.17.3 L2ToL1MessagePasser',
    },
  ]
  // Placed by the node behind a predeploy address, not by itself: kept out of PREINSTALLS.
  const opProxy = { code: artifact('Proxy').deployedBytecode.object, from: 'contracts-bedrock@0.17.3 Proxy (solc 0.8.15)' }

  // EntryPoint v0.8 and its SenderCreator, and Simple7702Account v0.8: CREATE2 through the Arachnid proxy, as
  // deployed everywhere, in a VM with the given chain id.
  const aa = unpack('@account-abstraction/contracts@0.8.0')
  const entryPoint = JSON.parse(readFileSync(join(aa, 'artifacts', 'EntryPoint.json'), 'utf8'))
  const simple7702 = JSON.parse(readFileSync(join(aa, 'artifacts', 'Simple7702Account.json'), 'utf8'))
  const SALT_V08 = '0x0a59dbff790c23c976a548690c27297883cc66b4c67024f9117b0238995e35e9'
  const ENTRYPOINT_V08 = '0x4337084d9e255ff0702461cf8895ce9e3b5ff108'
  // Simple7702Account v0.8 with salt 0: the implementation viem's toSimple7702SmartAccount delegates to by default.
  const SIMPLE7702_V08 = '0xe6cae83bde06e4c305530e199d7217f42808555b'
  // The SenderCreator is the EntryPoint's first CREATE (nonce 1).
  const SENDER_CREATOR_V08 = getContractAddress({ from: ENTRYPOINT_V08, nonce: 1n }).toLowerCase()
  const arachnid = preinstalls.find((p) => p.name === 'DeterministicDeploymentProxy')
  const proxy = new Address(Buffer.from(arachnid.address.slice(2), 'hex'))
  const deployAaV08 = async (chainId) => {
    const common = createCustomCommon({ chainId }, Mainnet, { hardfork: 'cancun' })
    const vm = await createVM({ common })
    await vm.stateManager.putCode(proxy, Buffer.from(arachnid.code.slice(2), 'hex'))
    // The proxy takes salt ‖ creation code and returns the 20-byte address it created.
    const create2 = async (name, salt, bytecode, expected) => {
      const data = Buffer.from(salt.slice(2) + bytecode.replace(/^0x/, ''), 'hex')
      const result = await vm.evm.runCall({ to: proxy, data, gasLimit: 30_000_000n })
      const deployed = `0x${Buffer.from(result.execResult.returnValue).toString('hex')}`
      if (deployed !== expected) throw new Error(`${name} deployed at ${deployed}, expected ${expected}`)
    }
    await create2('EntryPoint v0.8', SALT_V08, entryPoint.bytecode, ENTRYPOINT_V08)
    await create2('Simple7702Account v0.8', `0x${'00'.repeat(32)}`, simple7702.bytecode, SIMPLE7702_V08)
    const code = async (address) =>
      `0x${Buffer.from(await vm.stateManager.getCode(new Address(Buffer.from(address.slice(2), 'hex')))).toString('hex')}`
    const codes = {
      senderCreator: await code(SENDER_CREATOR_V08),
      entryPoint: await code(ENTRYPOINT_V08),
      simple7702: await code(SIMPLE7702_V08),
    }
    for (const [name, c] of Object.entries(codes)) if (c.length <= 2) throw new Error(`no code at ${name} on chain ${chainId}`)
    return codes
  }
  // EntryPoint v0.8 is OpenZeppelin's EIP712("ERC4337", "1"), which caches the chain id and the domain separator in
  // immutables at construction: its runtime code is per chain. Deployed on each of these chains, the codes must differ
  // in those words only: they are zeroed into a template, and genesis writes the chain's values at the offsets found.
  // The code hashes printed at the end are the ones test/entrypoint-code.test.ts expects of pcnode.
  const CHAINS = [1, 8453, 84532, 31337]
  const deployed = new Map()
  for (const chainId of CHAINS) deployed.set(chainId, await deployAaV08(chainId))
  const first = deployed.get(CHAINS[0])
  for (const [chainId, codes] of deployed) {
    // SenderCreator keeps only its EntryPoint's address and Simple7702Account its EntryPoint's (a constant): no chain in either.
    if (codes.senderCreator !== first.senderCreator) throw new Error(`SenderCreator v0.8 differs on chain ${chainId}`)
    if (codes.simple7702 !== first.simple7702) throw new Error(`Simple7702Account v0.8 differs on chain ${chainId}`)
  }
  const word = (hex) => hex.slice(2).padStart(64, '0')
  const offsetsOf = (code, value) => {
    const at = []
    // Hex digits: an offset is a byte one only when even.
    for (let i = code.indexOf(value, 2); i !== -1; i = code.indexOf(value, i + 1)) if (i % 2 === 0) at.push((i - 2) / 2)
    return at
  }
  const separatorOf = (chainId) =>
    domainSeparator({ domain: { name: 'ERC4337', version: '1', chainId, verifyingContract: ENTRYPOINT_V08 } })
  const fill = (template, at, value) => {
    let code = template
    for (const o of at) code = code.slice(0, 2 + o * 2) + word(value) + code.slice(2 + (o + 32) * 2)
    return code
  }
  // The offsets from a chain id no other word of the code could hold by chance (31337), checked against every chain.
  const sample = deployed.get(31337).entryPoint
  const chainIdAt = offsetsOf(sample, word(toHex(31337)))
  const domainSeparatorAt = offsetsOf(sample, word(separatorOf(31337)))
  if (chainIdAt.length === 0 || domainSeparatorAt.length === 0) throw new Error('EntryPoint v0.8: EIP-712 immutables not found')
  const zero = `0x${'00'.repeat(32)}`
  const entryPointTemplate = fill(fill(sample, chainIdAt, zero), domainSeparatorAt, zero)
  const entryPointHashes = []
  for (const [chainId, codes] of deployed) {
    const filled = fill(fill(entryPointTemplate, chainIdAt, toHex(chainId)), domainSeparatorAt, separatorOf(chainId))
    if (filled !== codes.entryPoint) throw new Error(`EntryPoint v0.8 on chain ${chainId} differs from its template filled in`)
    entryPointHashes.push(`${chainId}: ${keccak256(codes.entryPoint)}`)
  }
  const aaV08 = [
    {
      name: 'SenderCreator_v080',
      address: SENDER_CREATOR_V08,
      code: first.senderCreator,
      from: '@account-abstraction/contracts@0.8.0',
    },
    {
      name: 'Simple7702Account_v080',
      address: SIMPLE7702_V08,
      code: first.simple7702,
      from: '@account-abstraction/contracts@0.8.0 Simple7702Account, CREATE2 salt 0',
    },
  ]

  const all = [...preinstalls, ...aaV08, ...predeploys]
  const lines = [
    '// Generated by scripts/gen-preinstalls.mjs: do not edit. Runtime bytecode of the OP-stack preinstalls',
    '// (OP specs, preinstalls.md) and of the predeploys pcnode runs with their official code, with where each',
    "// comes from and its code hash. Permit2's and EntryPoint v0.8's code is chain-specific: genesis fills",
    '// PERMIT2_TEMPLATE and ENTRYPOINT_V08 in.',
    '',
    "import type { Hex } from 'viem'",
    '',
    'export interface Preinstall {',
    '  name: string',
    '  address: Hex',
    '  code: Hex',
    '}',
    '',
    'export const PREINSTALLS: readonly Preinstall[] = [',
  ]
  for (const c of all) {
    lines.push(`  // ${c.from}; code hash ${keccak256(c.code)}`)
    lines.push(`  { name: '${c.name}', address: '${c.address}', code: '${c.code.toLowerCase()}' },`)
  }
  lines.push(']', '')
  lines.push(
    '/** Permit2 (0x000000000022D473030F116dDEE9F6B43aC78BA3) before its chain id and domain separator are filled in. */',
  )
  lines.push(`export const PERMIT2_TEMPLATE: Hex = '${permit2Template}'`, '')
  lines.push(
    '/** Runtime code with the words a contract caches from its chain at construction zeroed, and where they go. */',
    'export interface PreinstallTemplate {',
    '  name: string',
    '  address: Hex',
    '  template: Hex',
    '  /** Byte offsets of the 32-byte words that take the chain id. */',
    '  chainIdAt: readonly number[]',
    '  /** Byte offsets of the 32-byte words that take the EIP-712 domain separator. */',
    '  domainSeparatorAt: readonly number[]',
    '}',
    '',
    `// @account-abstraction/contracts@0.8.0 EntryPoint, CREATE2 salt ${SALT_V08}; code hash by chain id, ${entryPointHashes.join(', ')}`,
    '/** EntryPoint v0.8 before its chain id and EIP-712 domain separator (OpenZeppelin EIP712 "ERC4337", "1") are filled in. */',
    'export const ENTRYPOINT_V08: PreinstallTemplate = {',
    "  name: 'EntryPoint_v080',",
    `  address: '${ENTRYPOINT_V08}',`,
    `  template: '${entryPointTemplate}',`,
    `  chainIdAt: [${chainIdAt.join(', ')}],`,
    `  domainSeparatorAt: [${domainSeparatorAt.join(', ')}],`,
    '}',
    '',
  )
  lines.push(`// ${opProxy.from}; code hash ${keccak256(opProxy.code)}`)
  lines.push('/** The OP predeploy Proxy (EIP-1967 slots; its admin is ProxyAdmin): runtime code, for the node to place. */')
  lines.push(`export const OP_PROXY_CODE: Hex = '${opProxy.code.toLowerCase()}'`, '')
  writeFileSync(outFile, lines.join('\n'))
  console.log(`wrote ${outFile}: ${all.map((c) => c.name).join(', ')}, ENTRYPOINT_V08, OP_PROXY_CODE`)
  console.log(`EntryPoint v0.8 code hash by chain id: ${entryPointHashes.join(', ')}`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
