import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { p256 } from '@noble/curves/nist.js'
import { type Address, type Hex, isErc6492Signature, parseErc6492Signature, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseTypedData } from '../src/cli/typed-data.js'
import {
  encodeAddressOwner,
  encodePasskeyOwner,
  factoryData,
  predictAccountAddress,
  WALLET_FACTORY_ADDRESS,
} from '../src/contracts/index.js'
import { importGraph, pcnode, ROOT } from './cli.js'
import { startTestNode, type TestNode } from './helpers.js'

const FIXTURE = join(ROOT, 'fixtures', 'spend-permission.json')
const payload = parseTypedData(JSON.parse(readFileSync(FIXTURE, 'utf8')))

/** Runs and parses the one JSON line a --json command prints; fails with the command's stderr otherwise. */
async function pcnodeJson(args: string[]): Promise<any> {
  const run = await pcnode([...args, '--json'])
  expect(run.code, `pcnode ${args.join(' ')}\n${run.stderr}`).toBe(0)
  return JSON.parse(run.stdout)
}

describe('pcnode wallet / typed-data (built CLI)', () => {
  let node: TestNode
  let rpc: string[]
  let dir: string

  beforeAll(async () => {
    node = await startTestNode({ preconfInterval: 0, blockTime: 500 })
    rpc = ['--rpc-url', node.rpcUrl]
    dir = mkdtempSync(join(tmpdir(), 'pcnode-cli-wallet-'))
  }, 240_000)
  afterAll(() => node?.stop())

  const verify = (address: Address, signature: Hex, p = payload) =>
    node.publicClient.verifyTypedData({ address, ...(p as any), signature })
  const code = async (address: Address) => (await node.rpc('eth_getCode', [address, 'pending'])).result

  describe('wallet create', () => {
    it('prints the counterfactual address of an address-owned wallet, as JSON and as text', async () => {
      const owner = privateKeyToAccount(generatePrivateKey()).address
      const owners = [encodeAddressOwner(owner)]
      const out = await pcnodeJson(['wallet', 'create', '--owner', owner, ...rpc])
      expect(out).toEqual({
        address: predictAccountAddress({ factory: WALLET_FACTORY_ADDRESS, owners }),
        factory: WALLET_FACTORY_ADDRESS,
        factoryData: factoryData(owners, 0n),
        deployed: false,
      })
      const text = await pcnode(['wallet', 'create', '--owner', owner, ...rpc])
      expect(text.code).toBe(0)
      expect(text.stdout).toContain(out.address)
      expect(text.stdout).toMatch(/Deployed\s+no/)
      expect(await code(out.address)).toBe('0x')
    })

    it('a passkey owner and a nonce give their own address', async () => {
      const pub = p256.getPublicKey(p256.utils.randomSecretKey(), false)
      const [x, y] = [toHex(pub.slice(1, 33)), toHex(pub.slice(33, 65))]
      const out = await pcnodeJson(['wallet', 'create', '--passkey-pubkey', `${x},${y}`, '--nonce', '3', ...rpc])
      const owners = [encodePasskeyOwner(x, y)]
      expect(out.address).toBe(predictAccountAddress({ factory: WALLET_FACTORY_ADDRESS, owners, nonce: 3n }))
      expect(out.factoryData).toBe(factoryData(owners, 3n))
      // Decimal coordinates name the same key.
      const decimal = await pcnodeJson([
        'wallet',
        'create',
        '--passkey-pubkey',
        `${BigInt(x)},${BigInt(y)}`,
        '--nonce',
        '3',
        ...rpc,
      ])
      expect(decimal.address).toBe(out.address)
    })

    it('--deploy deploys it from a dev account; a second --deploy finds it deployed', async () => {
      const owner = privateKeyToAccount(generatePrivateKey()).address
      const before = await node.publicClient.getTransactionCount({ address: node.accounts[2].address, blockTag: 'pending' })
      const out = await pcnodeJson(['wallet', 'create', '--owner', owner, '--deploy', '--from', '2', ...rpc])
      expect(out.deployed).toBe(true)
      expect(out.transactionHash).toMatch(/^0x[0-9a-f]{64}$/)
      expect(await code(out.address)).not.toBe('0x')
      const receipt = await node.publicClient.getTransactionReceipt({ hash: out.transactionHash })
      expect(receipt.from).toBe(node.accounts[2].address.toLowerCase())
      expect(await node.publicClient.getTransactionCount({ address: node.accounts[2].address, blockTag: 'pending' })).toBe(
        before + 1,
      )
      const again = await pcnodeJson(['wallet', 'create', '--owner', owner, '--deploy', '--from', '2', ...rpc])
      expect(again).toEqual({
        address: out.address,
        factory: WALLET_FACTORY_ADDRESS,
        factoryData: out.factoryData,
        deployed: true,
      })
    })

    it('usage errors exit 2, an unreachable node exits 2, a node without the factory exits 1', async () => {
      const owner = node.accounts[1].address
      for (const args of [
        ['wallet', 'create', ...rpc], // no owner
        ['wallet', 'create', '--owner', owner, '--passkey-pubkey', '1,2', ...rpc], // both
        ['wallet', 'create', '--owner', '0x1234', ...rpc],
        ['wallet', 'create', '--passkey-pubkey', '1,2', ...rpc], // not on the curve
        ['wallet', 'create', '--owner', owner, '--nonce', '-1', ...rpc],
        ['wallet', 'create', '--owner', owner, '--bogus', ...rpc],
        ['wallet', 'create', '--owner', owner, '--rpc-url', 'not a url'],
      ]) {
        const run = await pcnode(args)
        expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2)
        expect(run.stderr).not.toBe('')
        expect(run.stdout).toBe('')
      }
      for (const args of [
        ['wallet', 'create', '--help'],
        ['typed-data', 'sign', '--help'],
        ['wallet', '--help'],
      ]) {
        const run = await pcnode(args)
        expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0)
        expect(run.stdout).toMatch(/^Usage: pcnode/)
      }
      const refused = await pcnode(['wallet', 'create', '--owner', owner, '--rpc-url', 'http://127.0.0.1:1', '--json'])
      expect(refused.code).toBe(2)
      expect(refused.stderr).toMatch(/cannot reach the node/)
      expect(refused.stdout).toBe('')

      const other = await fakeNode()
      try {
        const run = await pcnode(['wallet', 'create', '--owner', owner, '--rpc-url', other.url])
        expect(run.code).toBe(1)
        expect(run.stderr).toMatch(/no wallet factory/)
      } finally {
        other.server.close()
      }
    }, 90_000)
  })

  describe('typed-data sign', () => {
    it('as an EOA (--account, --private-key): the signature verifies through the node', async () => {
      const dev = node.accounts[0]
      const out = await pcnodeJson(['typed-data', 'sign', FIXTURE, '--account', '0', ...rpc])
      expect(out.address).toBe(dev.address)
      expect(isErc6492Signature(out.signature)).toBe(false)
      expect(await verify(dev.address, out.signature)).toBe(true)
      const byKey = await pcnodeJson(['typed-data', 'sign', FIXTURE, '--private-key', dev.privateKey])
      expect(byKey).toEqual(out)
      // A tampered payload or another signer does not verify.
      expect(await verify(node.accounts[1].address, out.signature)).toBe(false)
      const tampered = { ...payload, message: { ...payload.message, period: 1n } }
      expect(await verify(dev.address, out.signature, tampered)).toBe(false)
      const text = await pcnode(['typed-data', 'sign', FIXTURE, '--account', '0'])
      expect(text.code).toBe(0)
      expect(text.stdout).toContain(out.signature)
    })

    it('as a smart wallet: ERC-6492-wrapped while undeployed, plain EIP-1271 once deployed', async () => {
      const key = generatePrivateKey()
      const owner = privateKeyToAccount(key)
      const undeployed = await pcnodeJson(['typed-data', 'sign', FIXTURE, '--private-key', key, '--smart-wallet', ...rpc])
      const owners = [encodeAddressOwner(owner.address)]
      expect(undeployed.address).toBe(predictAccountAddress({ factory: WALLET_FACTORY_ADDRESS, owners }))
      expect(isErc6492Signature(undeployed.signature)).toBe(true)
      const parsed = parseErc6492Signature(undeployed.signature)
      expect(parsed.address).toBe(WALLET_FACTORY_ADDRESS)
      expect(parsed.data).toBe(factoryData(owners, 0n))
      expect(await verify(undeployed.address, undeployed.signature)).toBe(true)
      expect(await code(undeployed.address)).toBe('0x') // the verifying call deployed it only inside itself
      expect(
        await verify(undeployed.address, undeployed.signature, { ...payload, domain: { ...payload.domain, chainId: 1n } }),
      ).toBe(false)

      // Deploy it with the CLI, then sign again: no wrapper needed.
      await pcnodeJson(['wallet', 'create', '--owner', owner.address, '--deploy', ...rpc])
      const deployed = await pcnodeJson(['typed-data', 'sign', FIXTURE, '--private-key', key, '--smart-wallet', ...rpc])
      expect(deployed.address).toBe(undeployed.address)
      expect(isErc6492Signature(deployed.signature)).toBe(false)
      expect(await verify(deployed.address, deployed.signature)).toBe(true)
      expect(deployed.signature).toBe(parsed.signature) // the same SignatureWrapper, unwrapped
      // The ERC-6492 signature made before deployment still verifies (the factory call is idempotent).
      expect(await verify(undeployed.address, undeployed.signature)).toBe(true)
      // A stranger's wallet signature for this wallet's address does not.
      const stranger = await pcnodeJson(['typed-data', 'sign', FIXTURE, '--account', '5', '--smart-wallet', ...rpc])
      expect(await verify(deployed.address, stranger.signature)).toBe(false)
    })

    it('--account 0 --smart-wallet signs as the fixture’s account; --wallet-nonce picks another wallet', async () => {
      const out = await pcnodeJson(['typed-data', 'sign', FIXTURE, '--account', '0', '--smart-wallet', ...rpc])
      expect(out.address).toBe(payload.message.account)
      expect(await verify(out.address, out.signature)).toBe(true)
      const text = await pcnode(['typed-data', 'sign', FIXTURE, '--account', '0', '--smart-wallet', ...rpc])
      expect(text.code).toBe(0)
      expect(text.stdout).toMatch(/Deployed\s+no/)
      const n7 = await pcnodeJson([
        'typed-data',
        'sign',
        FIXTURE,
        '--account',
        '0',
        '--smart-wallet',
        '--wallet-nonce',
        '7',
        ...rpc,
      ])
      const owners = [encodeAddressOwner(node.accounts[0].address)]
      expect(n7.address).toBe(predictAccountAddress({ factory: WALLET_FACTORY_ADDRESS, owners, nonce: 7n }))
      expect(await verify(n7.address, n7.signature)).toBe(true)
      expect(await verify(out.address, n7.signature)).toBe(false)
    })

    it('accepts uint fields as numbers, decimal and hex strings alike', async () => {
      const raw = JSON.parse(readFileSync(FIXTURE, 'utf8'))
      const variant = {
        ...raw,
        domain: { ...raw.domain, chainId: '0x7a69' },
        message: { ...raw.message, allowance: 10n ** 18n, period: '86400', start: '0x6955b900', salt: 1 },
      }
      const file = join(dir, 'variant.json')
      writeFileSync(
        file,
        JSON.stringify(variant, (_k, v) => (typeof v === 'bigint' ? `0x${v.toString(16)}` : v)),
      )
      const a = await pcnodeJson(['typed-data', 'sign', FIXTURE, '--account', '1'])
      const b = await pcnodeJson(['typed-data', 'sign', file, '--account', '1'])
      expect(b.signature).toBe(a.signature)
    })

    it('exit codes: missing file or key, unknown option, unreachable node 2; invalid payload 1', async () => {
      const bad = join(dir, 'bad.json')
      writeFileSync(
        bad,
        '{"domain": {}, "types": {"T": [{"name": "n", "type": "uint8"}]}, "primaryType": "T", "message": {"n": 1.5}}',
      )
      const notJson = join(dir, 'not.json')
      writeFileSync(notJson, '{ nope')
      const badAddress = join(dir, 'bad-address.json')
      const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8'))
      writeFileSync(badAddress, JSON.stringify({ ...fixture, message: { ...fixture.message, account: '0x12' } }))
      const cases: Array<[string[], number]> = [
        [['typed-data', 'sign', join(dir, 'missing.json'), '--account', '0'], 2],
        [['typed-data', 'sign', FIXTURE], 2], // no key
        [['typed-data', 'sign', FIXTURE, '--account', '0', '--private-key', `0x${'11'.repeat(32)}`], 2],
        [['typed-data', 'sign', FIXTURE, '--private-key', '0x1234'], 2],
        [['typed-data', 'sign', FIXTURE, '--account', '0', '--wallet-nonce', '1'], 2], // needs --smart-wallet
        [['typed-data', 'sign', FIXTURE, '--account', '0', '--nope'], 2],
        [['typed-data', 'sign', '--account', '0'], 2], // no file
        [['typed-data', 'sign', FIXTURE, '--account', '0', '--smart-wallet', '--rpc-url', 'http://127.0.0.1:1'], 2],
        [['typed-data', 'sign', bad, '--account', '0'], 1],
        [['typed-data', 'sign', notJson, '--account', '0'], 1],
        [['typed-data', 'sign', badAddress, '--account', '0'], 1],
      ]
      for (const [args, expected] of cases) {
        const run = await pcnode([...args, '--json'])
        expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(expected)
        expect(run.stdout).toBe('')
        expect(run.stderr).not.toBe('')
      }
    }, 90_000)
  })

  it('neither command loads the engine: no @ethereumjs in their import graphs, viem only when they run', () => {
    for (const file of ['wallet.js', 'typed-data.js']) {
      const entry = join(ROOT, 'dist', 'cli', file)
      const all = importGraph(entry, false)
      expect([...all.packages].filter((p) => p.startsWith('@ethereumjs/'))).toEqual([])
      expect([...all.files].some((f) => f.endsWith(join('dist', 'index.js')) || f.includes(join('dist', 'node', 'engine')))).toBe(
        false,
      )
      // Statically only commander: `pcnode start` imports these files and must not load viem for them.
      expect([...importGraph(entry, true).packages].filter((p) => !p.startsWith('node:'))).toEqual(['commander'])
    }
  })
})

/** A JSON-RPC endpoint that is some other chain: no code anywhere. */
async function fakeNode(): Promise<{ server: Server; url: string }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const { id, method } = JSON.parse(Buffer.concat(chunks).toString())
    const result = method === 'eth_chainId' ? '0x1' : method === 'eth_getCode' ? '0x' : null
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }))
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}
