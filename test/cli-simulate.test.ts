import { readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, ROOT, runNode } from './cli.js'
import { startTestNode, type TestNode } from './helpers.js'

/**
 * The built CLI (this is a slow-project file: dist/ is built before it runs), as a user runs it.
 * Runs of several at once share two loaded cores: each gets two minutes, which bounds a hang, not
 * a speed.
 */
const pcnode = (args: string[]) => runNode([BIN], args, 120_000)
const FIXTURES = join(ROOT, 'fixtures')

/** Packages a source module reaches through static imports, following relative ones. */
function importedPackages(entry: string): Set<string> {
  const seen = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    const source = readFileSync(file, 'utf8')
    for (const m of source.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/gm)) {
      const spec = m[1]
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
      else packages.add(spec)
    }
  }
  visit(entry)
  return packages
}

describe('pcnode simulate / estimate', { timeout: 300_000 }, () => {
  let node: TestNode
  let url: string

  beforeAll(async () => {
    node = await startTestNode({ blockTime: 60_000, preconfInterval: 50 })
    url = node.rpcUrl
  })
  afterAll(() => node?.stop())

  it('keeps @ethereumjs out of both commands', () => {
    for (const file of ['simulate.ts', 'estimate.ts']) {
      const packages = [...importedPackages(join(ROOT, 'src', 'cli', file))]
      expect(packages.filter((p) => p.startsWith('@ethereumjs'))).toEqual([])
    }
  })

  it('prints a transfer batch with its ETH transfers, exit 0', async () => {
    const run = await pcnode(['simulate', join(FIXTURES, 'simulate-transfers.json'), '--rpc-url', url])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const out = run.stdout
    expect(out).toMatch(/Block \d+ .* 73,059 \/ 60,000,000 gas/)
    expect(out).toContain('ETH  0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266 → 0x70997970c51812dc3a010c7d01b50e0d17dc79c8  1 ETH')
    // The forwarder: value in, its own log, value out, in execution order.
    expect(out).toMatch(
      /ETH {2}0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266 → 0x000000000000000000000000000000000000f0d0 {2}0\.5 ETH\n\s+log .*\n\s+ETH {2}0x000000000000000000000000000000000000f0d0 → 0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc {2}0\.5 ETH/,
    )
    expect(out).toContain('0.25 ETH')
    expect(out).toContain('all 3 call(s) succeeded')
  })

  it('prints a multi-block run with overrides', async () => {
    const run = await pcnode(['simulate', join(FIXTURES, 'simulate-multiblock.json'), '--rpc-url', url, '--block', 'pending'])
    expect(run.code).toBe(0)
    const blocks = run.stdout.match(/^Block \d+/gm) ?? []
    expect(blocks).toHaveLength(3)
    expect(run.stdout).toContain('base fee 1000000000 wei')
    expect(run.stdout).toContain('/ 30,000,000 gas')
    // The vault's slot 0, set by a `state` override, read back as one word.
    expect(run.stdout).toContain('(42)')
    expect(run.stdout).toContain('all 5 call(s) succeeded')
  })

  it('decodes a revert reason and exits 1 (a full JSON-RPC request as the file)', async () => {
    const run = await pcnode(['simulate', join(FIXTURES, 'simulate-revert.json'), '--rpc-url', url])
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/1 +failed +21,\d{3} .*reverted: insufficient allowance/)
    expect(run.stdout).toContain('1 of 2 call(s) failed')
  })

  it('--json prints the raw result with the same exit codes', async () => {
    const [ok, reverted] = await Promise.all([
      pcnode(['simulate', join(FIXTURES, 'simulate-transfers.json'), '--rpc-url', url, '--json']),
      pcnode(['simulate', join(FIXTURES, 'simulate-revert.json'), '--rpc-url', url, '--json']),
    ])
    expect(ok.code).toBe(0)
    const result = JSON.parse(ok.stdout)
    expect(result).toHaveLength(1)
    expect(result[0].calls.map((c: { status: string }) => c.status)).toEqual(['0x1', '0x1', '0x1'])
    expect(result[0].calls[1].logs).toHaveLength(3)
    expect(reverted.code).toBe(1)
    expect(JSON.parse(reverted.stdout)[0].calls[1].error).toMatchObject({
      code: 3,
      message: 'execution reverted: insufficient allowance',
    })
  })

  it('exits 2 on a bad file, a JSON-RPC error and an unreachable node', async () => {
    const empty = join(tmpdir(), `pcnode-empty-${process.pid}.json`)
    writeFileSync(empty, JSON.stringify({ blockStateCalls: [] }))
    const [missing, rejected, unreachable] = await Promise.all([
      pcnode(['simulate', join(FIXTURES, 'no-such-file.json'), '--rpc-url', url]),
      pcnode(['simulate', empty, '--rpc-url', url]),
      pcnode(['simulate', join(FIXTURES, 'simulate-transfers.json'), '--rpc-url', 'http://127.0.0.1:9']),
    ])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/no-such-file\.json/)
    expect(rejected.code).toBe(2)
    expect(rejected.stderr).toContain('empty input (code -32602)')
    expect(unreachable.code).toBe(2)
    expect(unreachable.stderr).toMatch(/cannot reach the node at http:\/\/127\.0\.0\.1:9: fetch refuses that port/)
  })

  it('estimate: prints the gas, --json, a revert with its reason (exit 1), errors (exit 2)', async () => {
    const [from, to] = node.accounts.map((a) => a.address)
    // Deploying the revert example's code as init code reverts with its reason.
    const request = JSON.parse(readFileSync(join(FIXTURES, 'simulate-revert.json'), 'utf8'))
    const code = Object.values(request.params[0].blockStateCalls[0].stateOverrides as Record<string, { code: string }>)[0].code
    const [transfer, json, reverted, revertedJson, usage, unreachable] = await Promise.all([
      pcnode(['estimate', '--from', from, '--to', to, '--value', '1eth', '--rpc-url', url]),
      pcnode(['estimate', '--from', from, '--to', to, '--rpc-url', url, '--json', '--block', 'latest']),
      pcnode(['estimate', '--from', from, '--data', code, '--rpc-url', url]),
      pcnode(['estimate', '--from', from, '--data', code, '--rpc-url', url, '--json']),
      pcnode(['estimate', '--to', '0x12']),
      pcnode(['estimate', '--to', to, '--rpc-url', 'http://127.0.0.1:9']),
    ])
    expect(transfer.code).toBe(0)
    expect(transfer.stdout).toContain('21,000 gas (0x5208, on pending)')
    expect(JSON.parse(json.stdout)).toEqual({ gas: '21000', hex: '0x5208', block: 'latest' })
    expect(reverted.code).toBe(1)
    expect(reverted.stderr).toContain('reverted insufficient allowance')
    expect(revertedJson.code).toBe(1)
    expect(JSON.parse(revertedJson.stdout)).toMatchObject({ reverted: true, reason: 'insufficient allowance' })
    expect(usage.code).toBe(2)
    expect(unreachable.code).toBe(2)
  })
})
