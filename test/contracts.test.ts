// The smart-wallet contracts (contracts/*.sol via src/contracts/artifacts.ts), run in a bare @ethereumjs VM:
// factory CREATE2 accounts, ERC-1271 with EOA, nested-contract and passkey (WebAuthn + P256VERIFY) owners,
// and the EIP-7951 precompile itself. Nothing of pcnode's node is involved.
import { createBlock } from '@ethereumjs/block'
import { createCustomCommon, Mainnet } from '@ethereumjs/common'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { Account, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { createVM, runTx, type VM } from '@ethereumjs/vm'
import { p256 } from '@noble/curves/nist.js'
import {
  type Address,
  bytesToHex,
  concat,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeFunctionData,
  erc6492SignatureValidatorByteCode,
  getAddress,
  type Hex,
  hashTypedData,
  keccak256,
  numberToHex,
  serializeErc6492Signature,
  sha256,
  stringToHex,
  toHex,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  ERC1271_INVALID_VALUE,
  ERC1271_MAGIC_VALUE,
  encodeAddressOwner,
  encodePasskeyOwner,
  encodeWebAuthnSignature,
  factoryData,
  P256_N,
  PcnodeWalletFactory,
  predictAccountAddress,
  replaySafeHash,
  smartWalletAbi,
  walletFactoryAbi,
  webAuthnAuthParameters,
  webAuthnIndices,
  wrapSignature,
} from '../src/contracts/index.js'

const CALLER = '0x00000000000000000000000000000000000c0ffe' as const
const P256_VERIFY = '0x0000000000000000000000000000000000000100' as const
const GAS = 30_000_000n

interface CallResult {
  ok: boolean
  returnValue: Hex
  gasUsed: bigint
}

/** A bare Osaka VM with helpers to deploy and call contracts through `evm.runCall`. */
async function makeChain(chainId: number) {
  const common = createCustomCommon({ chainId }, Mainnet, { hardfork: 'osaka' })
  const vm: VM = await createVM({ common })
  const caller = createAddressFromString(CALLER)
  await vm.stateManager.putAccount(caller, new Account(0n, 10n ** 20n))

  const call = async (to: Address | undefined, data: Hex, from: Address = CALLER, value = 0n): Promise<CallResult> => {
    const res = await vm.evm.runCall({
      caller: createAddressFromString(from),
      to: to ? createAddressFromString(to) : undefined,
      data: hexToBytes(data),
      value,
      gasLimit: GAS,
    })
    const r = res.execResult
    return { ok: r.exceptionError === undefined, returnValue: bytesToHex(r.returnValue), gasUsed: r.executionGasUsed }
  }
  const deploy = async (bytecode: Hex): Promise<Address> => {
    const res = await vm.evm.runCall({ caller, data: hexToBytes(bytecode), gasLimit: GAS })
    if (res.execResult.exceptionError || !res.createdAddress)
      throw new Error(`deploy failed: ${res.execResult.exceptionError?.error}`)
    return getAddress(res.createdAddress.toString())
  }
  const code = async (address: Address) => bytesToHex(await vm.stateManager.getCode(createAddressFromString(address)))
  return { vm, common, call, deploy, code }
}
type Chain = Awaited<ReturnType<typeof makeChain>>

async function deployFactory(chain: Chain) {
  return chain.deploy(PcnodeWalletFactory.bytecode)
}

async function getAccountAddress(chain: Chain, factory: Address, owners: Hex[], nonce: bigint): Promise<Address> {
  const res = await chain.call(
    factory,
    encodeFunctionData({ abi: walletFactoryAbi, functionName: 'getAddress', args: [owners, nonce] }),
  )
  expect(res.ok).toBe(true)
  return decodeFunctionResult({ abi: walletFactoryAbi, functionName: 'getAddress', data: res.returnValue })
}

async function createAccount(chain: Chain, factory: Address, owners: Hex[], nonce: bigint) {
  const res = await chain.call(factory, factoryData(owners, nonce))
  if (!res.ok) return { ...res, address: undefined }
  const address = decodeFunctionResult({ abi: walletFactoryAbi, functionName: 'createAccount', data: res.returnValue })
  return { ...res, address }
}

async function isValidSignature(chain: Chain, wallet: Address, hash: Hex, signature: Hex) {
  const data = encodeFunctionData({ abi: smartWalletAbi, functionName: 'isValidSignature', args: [hash, signature] })
  const res = await chain.call(wallet, data)
  expect(res.ok, 'isValidSignature must not revert').toBe(true)
  return {
    result: decodeFunctionResult({ abi: smartWalletAbi, functionName: 'isValidSignature', data: res.returnValue }),
    gasUsed: res.gasUsed,
    data,
  }
}

// ---------------------------------------------------------------- WebAuthn helpers (what a browser produces)

const base64Url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url')

function passkey() {
  const secretKey = p256.utils.randomSecretKey()
  const pub = p256.getPublicKey(secretKey, false) // 0x04 ‖ x ‖ y
  const x = BigInt(bytesToHex(pub.slice(1, 33)))
  const y = BigInt(bytesToHex(pub.slice(33, 65)))
  return { secretKey, x, y, owner: encodePasskeyOwner(x, y) }
}

/** A WebAuthn assertion over `challenge` as navigator.credentials.get() returns it, split into its parts. */
function webAuthnAssert(secretKey: Uint8Array, challenge: Hex, flags = 0x05) {
  const rpIdHash = sha256(stringToHex('localhost'))
  const authenticatorData = concat([rpIdHash, toHex(flags, { size: 1 }), '0x00000000'])
  const clientDataJSON = JSON.stringify({
    type: 'webauthn.get',
    challenge: base64Url(hexToBytes(challenge)),
    origin: 'http://localhost:3001',
    crossOrigin: false,
  })
  const message = sha256(concat([authenticatorData, sha256(stringToHex(clientDataJSON))]))
  const sig = p256.Signature.fromBytes(p256.sign(hexToBytes(message), secretKey, { prehash: false, lowS: true }))
  return { authenticatorData, clientDataJSON, ...webAuthnIndices(clientDataJSON), r: sig.r, s: sig.s, message }
}

// ---------------------------------------------------------------- tests

describe('PcnodeWalletFactory', () => {
  let chain: Chain
  let factory: Address
  const eoa = privateKeyToAccount(generatePrivateKey())
  const owners = [encodeAddressOwner(eoa.address)]

  beforeAll(async () => {
    chain = await makeChain(31337)
    factory = await deployFactory(chain)
  })

  it('getAddress equals the address createAccount deploys, and the off-chain prediction', async () => {
    const predicted = await getAccountAddress(chain, factory, owners, 0n)
    expect(predictAccountAddress({ factory, owners, nonce: 0n })).toBe(predicted)
    expect(await chain.code(predicted)).toBe('0x')
    const created = await createAccount(chain, factory, owners, 0n)
    expect(created.ok).toBe(true)
    expect(created.address).toBe(predicted)
    // ERC-1167 minimal proxy of the implementation.
    const code = await chain.code(predicted)
    expect(code.length).toBe(2 + 45 * 2)
    expect(code.startsWith('0x363d3d373d3d3d363d73')).toBe(true)
  })

  it('createAccount is idempotent: a second call returns the same address without reverting', async () => {
    const first = await createAccount(chain, factory, owners, 7n)
    const second = await createAccount(chain, factory, owners, 7n)
    expect(first.ok && second.ok).toBe(true)
    expect(second.address).toBe(first.address)
    expect(second.gasUsed).toBeLessThan(first.gasUsed)
  })

  it('a different nonce or owner list gives a different account; no owners reverts', async () => {
    const a = await getAccountAddress(chain, factory, owners, 0n)
    const b = await getAccountAddress(chain, factory, owners, 1n)
    const c = await getAccountAddress(chain, factory, [encodeAddressOwner(CALLER)], 0n)
    expect(new Set([a, b, c]).size).toBe(3)
    expect((await createAccount(chain, factory, [], 0n)).ok).toBe(false)
  })

  it('rejects malformed owners', async () => {
    expect((await createAccount(chain, factory, ['0x1234'], 0n)).ok).toBe(false)
    expect((await createAccount(chain, factory, [`0x${'ff'.repeat(32)}`], 0n)).ok).toBe(false) // not an address
    expect((await createAccount(chain, factory, [owners[0], owners[0]], 0n)).ok).toBe(false) // duplicate
  })

  it('initializes owners once, only through the factory', async () => {
    const wallet = (await createAccount(chain, factory, owners, 3n)).address as Address
    const count = await chain.call(wallet, encodeFunctionData({ abi: smartWalletAbi, functionName: 'ownerCount' }))
    expect(BigInt(count.returnValue)).toBe(1n)
    const at0 = await chain.call(wallet, encodeFunctionData({ abi: smartWalletAbi, functionName: 'ownerAtIndex', args: [0n] }))
    expect(decodeFunctionResult({ abi: smartWalletAbi, functionName: 'ownerAtIndex', data: at0.returnValue })).toBe(owners[0])
    const init = encodeFunctionData({ abi: smartWalletAbi, functionName: 'initialize', args: [[encodeAddressOwner(CALLER)]] })
    expect((await chain.call(wallet, init)).ok).toBe(false)
    expect((await chain.call(wallet, init, factory)).ok).toBe(false) // already initialized
  })

  it('execute: an address owner may call out, a stranger may not; ETH is received', async () => {
    const wallet = (await createAccount(chain, factory, owners, 4n)).address as Address
    expect((await chain.call(wallet, '0x', CALLER, 10n ** 18n)).ok).toBe(true)
    const to = '0x000000000000000000000000000000000000beef' as const
    const data = encodeFunctionData({ abi: smartWalletAbi, functionName: 'execute', args: [to, 10n ** 17n, '0x'] })
    expect((await chain.call(wallet, data, CALLER)).ok).toBe(false)
    expect((await chain.call(wallet, data, eoa.address)).ok).toBe(true)
    expect((await chain.vm.stateManager.getAccount(createAddressFromString(to)))?.balance).toBe(10n ** 17n)
  })
})

describe('PcnodeSmartWallet.isValidSignature', () => {
  let chain: Chain
  let factory: Address
  let wallet: Address
  const eoa = privateKeyToAccount(generatePrivateKey())
  const stranger = privateKeyToAccount(generatePrivateKey())
  const key = passkey()
  const owners = [encodeAddressOwner(eoa.address), key.owner]
  const hash = keccak256(stringToHex('pcnode typed data'))

  beforeAll(async () => {
    chain = await makeChain(31337)
    factory = await deployFactory(chain)
    wallet = (await createAccount(chain, factory, owners, 0n)).address as Address
  })

  it('replaySafeHash on-chain equals the viem EIP-712 computation', async () => {
    const res = await chain.call(
      wallet,
      encodeFunctionData({ abi: smartWalletAbi, functionName: 'replaySafeHash', args: [hash] }),
    )
    expect(res.returnValue).toBe(replaySafeHash({ address: wallet, chainId: 31337, hash }))
    // Same typed data as viem's Coinbase Smart Wallet replay-safe message.
    expect(res.returnValue).toBe(
      hashTypedData({
        domain: { chainId: 31337, name: 'Coinbase Smart Wallet', verifyingContract: wallet, version: '1' },
        types: { CoinbaseSmartWalletMessage: [{ name: 'hash', type: 'bytes32' }] },
        primaryType: 'CoinbaseSmartWalletMessage',
        message: { hash },
      }),
    )
  })

  it('EOA owner: valid over the replay-safe hash; wrong owner, tampered hash, wrong chain are invalid', async () => {
    const safe = replaySafeHash({ address: wallet, chainId: 31337, hash })
    const good = wrapSignature({ ownerIndex: 0, signatureData: await eoa.sign({ hash: safe }) })
    expect((await isValidSignature(chain, wallet, hash, good)).result).toBe(ERC1271_MAGIC_VALUE)

    const wrongOwner = wrapSignature({ ownerIndex: 0, signatureData: await stranger.sign({ hash: safe }) })
    expect((await isValidSignature(chain, wallet, hash, wrongOwner)).result).toBe(ERC1271_INVALID_VALUE)

    const tampered = keccak256(stringToHex('pcnode typed data!'))
    expect((await isValidSignature(chain, wallet, tampered, good)).result).toBe(ERC1271_INVALID_VALUE)

    // Signed for the same wallet address on another chain.
    const otherChain = replaySafeHash({ address: wallet, chainId: 1, hash })
    const replayed = wrapSignature({ ownerIndex: 0, signatureData: await eoa.sign({ hash: otherChain }) })
    expect((await isValidSignature(chain, wallet, hash, replayed)).result).toBe(ERC1271_INVALID_VALUE)

    // Signing the raw hash (no replay protection) is not accepted either.
    const raw = wrapSignature({ ownerIndex: 0, signatureData: await eoa.sign({ hash }) })
    expect((await isValidSignature(chain, wallet, hash, raw)).result).toBe(ERC1271_INVALID_VALUE)

    // An ECDSA signature presented for the passkey owner index is invalid.
    const wrongIndex = wrapSignature({ ownerIndex: 1, signatureData: await eoa.sign({ hash: safe }) })
    expect((await isValidSignature(chain, wallet, hash, wrongIndex)).result).toBe(ERC1271_INVALID_VALUE)
  })

  it('the same wallet deployed on chain id 1 rejects a signature made for chain 31337', async () => {
    const chain1 = await makeChain(1)
    const factory1 = await deployFactory(chain1)
    expect(factory1).toBe(factory) // same deployer and nonce: same factory and wallet addresses
    const wallet1 = (await createAccount(chain1, factory1, owners, 0n)).address as Address
    expect(wallet1).toBe(wallet)
    const safe = replaySafeHash({ address: wallet, chainId: 31337, hash })
    const sig = wrapSignature({ ownerIndex: 0, signatureData: await eoa.sign({ hash: safe }) })
    expect((await isValidSignature(chain, wallet, hash, sig)).result).toBe(ERC1271_MAGIC_VALUE)
    expect((await isValidSignature(chain1, wallet1, hash, sig)).result).toBe(ERC1271_INVALID_VALUE)
    const safe1 = replaySafeHash({ address: wallet, chainId: 1, hash })
    const sig1 = wrapSignature({ ownerIndex: 0, signatureData: await eoa.sign({ hash: safe1 }) })
    expect((await isValidSignature(chain1, wallet1, hash, sig1)).result).toBe(ERC1271_MAGIC_VALUE)
  })

  it('malformed signatures return 0xffffffff instead of reverting', async () => {
    const safe = replaySafeHash({ address: wallet, chainId: 31337, hash })
    const good = wrapSignature({ ownerIndex: 0, signatureData: await eoa.sign({ hash: safe }) })
    const cases: Hex[] = [
      '0x',
      '0x1234',
      good.slice(0, good.length - 64) as Hex, // truncated
      wrapSignature({ ownerIndex: 5, signatureData: await eoa.sign({ hash: safe }) }), // no such owner
      wrapSignature({ ownerIndex: 0, signatureData: '0x' }),
      wrapSignature({ ownerIndex: 1, signatureData: '0xdeadbeef' }), // garbage WebAuthnAuth
      `0x${'ff'.repeat(96)}`, // huge offsets
      encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [2n ** 255n, 0n]),
    ]
    for (const sig of cases) {
      expect((await isValidSignature(chain, wallet, hash, sig)).result).toBe(ERC1271_INVALID_VALUE)
    }
  })

  it('nested ERC-1271 owner: a wallet owned by another wallet', async () => {
    const outer = (await createAccount(chain, factory, [encodeAddressOwner(wallet)], 0n)).address as Address
    // The inner wallet signs the outer wallet's replay-safe hash with its own scheme.
    const outerSafe = replaySafeHash({ address: outer, chainId: 31337, hash })
    const innerSafe = replaySafeHash({ address: wallet, chainId: 31337, hash: outerSafe })
    const inner = wrapSignature({ ownerIndex: 0, signatureData: await eoa.sign({ hash: innerSafe }) })
    const sig = wrapSignature({ ownerIndex: 0, signatureData: inner })
    expect((await isValidSignature(chain, outer, hash, sig)).result).toBe(ERC1271_MAGIC_VALUE)
    const bad = wrapSignature({ ownerIndex: 0, signatureData: await stranger.sign({ hash: innerSafe }) })
    expect((await isValidSignature(chain, outer, hash, wrapSignature({ ownerIndex: 0, signatureData: bad }))).result).toBe(
      ERC1271_INVALID_VALUE,
    )
  })

  it('passkey owner: a browser-shaped WebAuthn assertion verifies through P256VERIFY', async () => {
    const safe = replaySafeHash({ address: wallet, chainId: 31337, hash })
    const a = webAuthnAssert(key.secretKey, safe)
    expect(a.typeIndex).toBe(1)
    expect(a.challengeIndex).toBe(23)
    expect(hexToBytes(a.authenticatorData).length).toBe(37)
    const signature = wrapSignature({ ownerIndex: 1, signatureData: encodeWebAuthnSignature(a) })
    const ok = await isValidSignature(chain, wallet, hash, signature)
    expect(ok.result).toBe(ERC1271_MAGIC_VALUE)

    // Gas: the call frame alone (what an eth_call / ERC-6492 validator pays), and as a whole transaction.
    const common = chain.common
    const sender = generatePrivateKey()
    const senderAddress = createAddressFromString(privateKeyToAccount(sender).address)
    await chain.vm.stateManager.putAccount(senderAddress, new Account(0n, 10n ** 20n))
    const tx = createFeeMarket1559Tx(
      { to: wallet, data: ok.data, gasLimit: 1_000_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 0n, chainId: 31337n },
      { common },
    ).sign(hexToBytes(sender))
    const block = createBlock({ header: { baseFeePerGas: 7n, gasLimit: 30_000_000n } }, { common })
    const txResult = await runTx(chain.vm, { tx, block })
    expect(txResult.execResult.exceptionError).toBeUndefined()
    console.log(
      `passkey isValidSignature gas: ${ok.gasUsed} execution (incl. 6900 for P256VERIFY), ` +
        `${txResult.totalGasSpent} as a transaction (${hexToBytes(ok.data).length} bytes of calldata)`,
    )
    expect(ok.gasUsed).toBeLessThan(60_000n)

    // viem's Coinbase encoding (clientDataJSON as `bytes`, ownerIndex as uint8) is ABI-identical.
    const viemStyle = encodeAbiParameters(
      [
        {
          type: 'tuple',
          components: [
            { name: 'ownerIndex', type: 'uint8' },
            { name: 'signatureData', type: 'bytes' },
          ],
        },
      ],
      [
        {
          ownerIndex: 1,
          signatureData: encodeAbiParameters(
            [
              {
                type: 'tuple',
                components: [
                  { name: 'authenticatorData', type: 'bytes' },
                  { name: 'clientDataJSON', type: 'bytes' },
                  { name: 'challengeIndex', type: 'uint256' },
                  { name: 'typeIndex', type: 'uint256' },
                  { name: 'r', type: 'uint256' },
                  { name: 's', type: 'uint256' },
                ],
              },
            ],
            [{ ...a, clientDataJSON: stringToHex(a.clientDataJSON), challengeIndex: 23n, typeIndex: 1n }],
          ),
        },
      ],
    )
    expect(viemStyle).toBe(signature)
  })

  it('passkey owner: tampering of any part is rejected', async () => {
    const safe = replaySafeHash({ address: wallet, chainId: 31337, hash })
    const a = webAuthnAssert(key.secretKey, safe)
    const check = async (signatureData: Hex) =>
      (await isValidSignature(chain, wallet, hash, wrapSignature({ ownerIndex: 1, signatureData }))).result

    // A flipped byte in the signature (r, then s).
    expect(await check(encodeWebAuthnSignature({ ...a, r: a.r ^ 1n }))).toBe(ERC1271_INVALID_VALUE)
    expect(await check(encodeWebAuthnSignature({ ...a, s: a.s ^ (0xffn << 8n) }))).toBe(ERC1271_INVALID_VALUE)
    // A flipped byte anywhere in the encoded WebAuthnAuth.
    const encoded = hexToBytes(encodeWebAuthnSignature(a))
    for (const at of [32 + 4 * 32 + 31, 32 + 5 * 32 + 31, encoded.length - 40]) {
      const copy = encoded.slice()
      copy[at] ^= 0x01
      expect(await check(bytesToHex(copy))).toBe(ERC1271_INVALID_VALUE)
    }
    // High s (the malleable twin of a valid signature) is rejected.
    const highS = encodeAbiParameters(webAuthnAuthParameters, [
      { ...a, challengeIndex: BigInt(a.challengeIndex), typeIndex: BigInt(a.typeIndex), s: P256_N - a.s },
    ])
    expect(await check(highS)).toBe(ERC1271_INVALID_VALUE)
    // ...while the helper normalises it back to low s.
    expect(await check(encodeWebAuthnSignature({ ...a, s: P256_N - a.s }))).toBe(ERC1271_MAGIC_VALUE)
    // Wrong indices.
    expect(await check(encodeWebAuthnSignature({ ...a, typeIndex: 0 }))).toBe(ERC1271_INVALID_VALUE)
    expect(await check(encodeWebAuthnSignature({ ...a, challengeIndex: 22 }))).toBe(ERC1271_INVALID_VALUE)
    expect(await check(encodeWebAuthnSignature({ ...a, challengeIndex: 10_000 }))).toBe(ERC1271_INVALID_VALUE)
    // A challenge for another hash, correctly signed by the passkey.
    const other = webAuthnAssert(key.secretKey, replaySafeHash({ address: wallet, chainId: 1, hash }))
    expect(await check(encodeWebAuthnSignature(other))).toBe(ERC1271_INVALID_VALUE)
    // User-presence flag cleared (correctly signed), and "webauthn.create" instead of "webauthn.get".
    const noUp = webAuthnAssert(key.secretKey, safe, 0x04)
    expect(await check(encodeWebAuthnSignature(noUp))).toBe(ERC1271_INVALID_VALUE)
    const uvOnly = webAuthnAssert(key.secretKey, safe, 0x01)
    expect(await check(encodeWebAuthnSignature(uvOnly))).toBe(ERC1271_MAGIC_VALUE)
    const createJSON = a.clientDataJSON.replace('webauthn.get', 'webauthn.create')
    const createMsg = sha256(concat([a.authenticatorData, sha256(stringToHex(createJSON))]))
    const createSig = p256.Signature.fromBytes(p256.sign(hexToBytes(createMsg), key.secretKey, { prehash: false }))
    expect(
      await check(
        encodeWebAuthnSignature({
          ...a,
          ...webAuthnIndices(createJSON),
          clientDataJSON: createJSON,
          r: createSig.r,
          s: createSig.s,
        }),
      ),
    ).toBe(ERC1271_INVALID_VALUE)
    // Another passkey's signature.
    const otherKey = passkey()
    expect(await check(encodeWebAuthnSignature(webAuthnAssert(otherKey.secretKey, safe)))).toBe(ERC1271_INVALID_VALUE)
    // Truncated authenticatorData (fewer than 37 bytes).
    expect(
      await check(encodeWebAuthnSignature({ ...a, authenticatorData: a.authenticatorData.slice(0, 2 + 33 * 2) as Hex })),
    ).toBe(ERC1271_INVALID_VALUE)
  })
})

describe("ERC-6492 through viem's universal validator bytecode (deployless call)", () => {
  /** What viem's verifyHash sends as a deployless eth_call: validator creation code ++ abi.encode(signer, hash, sig). */
  async function validate(chain: Chain, signer: Address, hash: Hex, signature: Hex) {
    const args = encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }, { type: 'bytes' }], [signer, hash, signature])
    const res = await chain.call(undefined, concat([erc6492SignatureValidatorByteCode, args]))
    return res.ok && res.returnValue === '0x01'
  }

  it('a passkey signature for an undeployed wallet verifies, and the same wrapped signature after deployment', async () => {
    const chain = await makeChain(31337)
    const factory = await deployFactory(chain)
    const key = passkey()
    const owners = [key.owner]
    const wallet = predictAccountAddress({ factory, owners, nonce: 0n })
    const hash = keccak256(stringToHex('counterfactual'))
    const a = webAuthnAssert(key.secretKey, replaySafeHash({ address: wallet, chainId: 31337, hash }))
    const inner = wrapSignature({ ownerIndex: 0, signatureData: encodeWebAuthnSignature(a) })
    const wrapped = serializeErc6492Signature({ address: factory, data: factoryData(owners, 0n), signature: inner })

    expect(await chain.code(wallet)).toBe('0x')
    expect(await validate(chain, wallet, hash, wrapped)).toBe(true)
    expect(await validate(chain, wallet, keccak256(stringToHex('other')), wrapped)).toBe(false)
    // runCall commits, so the validator's factory call has now deployed the wallet; the 6492 wrapper still works
    // (createAccount is idempotent) and so does the bare ERC-1271 signature.
    expect(await chain.code(wallet)).not.toBe('0x')
    expect(await validate(chain, wallet, hash, wrapped)).toBe(true)
    expect(await validate(chain, wallet, hash, inner)).toBe(true)
  })
})

describe('P256VERIFY precompile (EIP-7951) at 0x100', () => {
  let chain: Chain
  // From ethereum/EIPs assets/eip-7951/test-vectors.json (Wycheproof ecdsa_secp256r1_sha256_p1363 #1, #3, #9, #25).
  const H = 'bb5a52f42f9c9261ed4361f59422a1e30036e7c32b270c8807a419feca605023'
  const X = '2927b10512bae3eddcfe467828128bad2903269919f7086069c8c4df6c732838'
  const Y = 'c7787964eaac00e5921fb1498a60f4606766b3d9685001558d1a974e7341513e'
  const R1 = '2ba3a8be6b94d5ec80a6d9d1190a436effe50d85a1eee859b8cc6af9bd5c2e18'
  const S1 = '4cd60b855d442f5b3c7b11eb6c4e0ae7525fe710fab9aa7c77a67f79e6fadd76'
  const N = 'ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551'
  const ONE = `0x${'00'.repeat(31)}01`
  const vectors: Array<{ name: string; input: string; expected: string }> = [
    { name: '#1 signature malleability (high s is valid)', input: H + R1 + S1 + X + Y, expected: ONE },
    {
      name: '#3 r modified by the group order',
      input: `${H}d45c5740946b2a147f59262ee6f5bc90bd01ed280528b62b3aed5fc93f06f739b329f479a2bbd0a5c384ee1493b1f5186a87139cac5df4087c134b49156847db${X}${Y}`,
      expected: '0x',
    },
    { name: '#9 r = 0, s = 0', input: H + '00'.repeat(64) + X + Y, expected: '0x' },
    { name: 'r = 0', input: H + '00'.repeat(32) + S1 + X + Y, expected: '0x' },
    { name: '#25 r = n, s = n', input: H + N + N + X + Y, expected: '0x' },
    { name: 's = n', input: H + R1 + N + X + Y, expected: '0x' },
    { name: 'point not on the curve', input: H + R1 + S1 + X + `${Y.slice(0, 63)}f`, expected: '0x' },
    { name: 'point at infinity (0, 0)', input: H + R1 + S1 + '00'.repeat(64), expected: '0x' },
    { name: 'x ≥ p', input: H + R1 + S1 + 'ff'.repeat(32) + Y, expected: '0x' },
    { name: 'wrong hash', input: `${H.slice(0, 63)}4${R1}${S1}${X}${Y}`, expected: '0x' },
    { name: '159 bytes', input: (H + R1 + S1 + X + Y).slice(0, 318), expected: '0x' },
    { name: '161 bytes', input: `${H + R1 + S1 + X + Y}00`, expected: '0x' },
    { name: 'empty input', input: '', expected: '0x' },
  ]

  beforeAll(async () => {
    chain = await makeChain(31337)
  })

  for (const v of vectors) {
    it(`${v.name} → ${v.expected === '0x' ? 'empty output' : '1'}, no revert, 6900 gas`, async () => {
      const res = await chain.call(P256_VERIFY, `0x${v.input}`)
      expect(res.ok).toBe(true)
      expect(res.returnValue).toBe(v.expected)
      expect(res.gasUsed).toBe(6900n)
    })
  }

  it('a fresh @noble/curves P-256 signature verifies, high and low s alike', async () => {
    const key = passkey()
    const msg = keccak256(stringToHex('hello p256'))
    const sig = p256.Signature.fromBytes(p256.sign(hexToBytes(msg), key.secretKey, { prehash: false, lowS: true }))
    const word = (n: bigint) => numberToHex(n, { size: 32 })
    const input = (s: bigint) => concat([msg, word(sig.r), word(s), word(key.x), word(key.y)])
    expect((await chain.call(P256_VERIFY, input(sig.s))).returnValue).toBe(ONE)
    expect((await chain.call(P256_VERIFY, input(P256_N - sig.s))).returnValue).toBe(ONE)
    expect((await chain.call(P256_VERIFY, input(sig.s ^ 1n))).returnValue).toBe('0x')
  })
})
