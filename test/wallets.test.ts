// Signature verification through viem against a real node, for the three signer kinds of issue #5: an EOA,
// a deployed smart wallet (EIP-1271) and an undeployed one (ERC-6492, verified by a deployless eth_call that
// deploys the wallet inside the call and keeps nothing), with address and passkey (WebAuthn) owners.
// The payload is fixtures/spend-permission.json; the wallets are the genesis predeploys'.
import { readFileSync } from 'node:fs'
import { p256 } from '@noble/curves/nist.js'
import {
  type Address,
  concat,
  encodeAbiParameters,
  encodeDeployData,
  encodeFunctionData,
  erc6492SignatureValidatorAbi,
  erc6492SignatureValidatorByteCode,
  getContractAddress,
  type Hex,
  hashTypedData,
  hexToBytes,
  isErc6492Signature,
  serializeErc6492Signature,
  sha256,
  stringToHex,
  toHex,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { parseTypedData, type TypedDataPayload } from '../src/cli/typed-data.js'
import {
  encodeAddressOwner,
  encodePasskeyOwner,
  encodeWebAuthnSignature,
  factoryData,
  PcnodeSmartWallet,
  PcnodeWalletFactory,
  PREDEPLOY_DEPLOYER_ADDRESS,
  predictAccountAddress,
  replaySafeHash,
  smartWalletAbi,
  WALLET_FACTORY_ADDRESS,
  WALLET_IMPLEMENTATION_ADDRESS,
  walletFactoryAbi,
  webAuthnIndices,
  wrapSignature,
} from '../src/contracts/index.js'
import { useTestNode, waitForReceipt } from './helpers.js'

const payload = parseTypedData(JSON.parse(readFileSync(new URL('../fixtures/spend-permission.json', import.meta.url), 'utf8')))
const CHAIN_ID = 31337

/** The same payload with one field of the message changed. */
const tampered = (p: TypedDataPayload): TypedDataPayload => ({
  ...p,
  message: { ...p.message, allowance: (p.message.allowance as bigint) + 1n },
})
/** The same payload for another chain (its EIP-712 domain names chain 1). */
const onChain = (p: TypedDataPayload, chainId: number): TypedDataPayload => ({ ...p, domain: { ...p.domain, chainId } })

// ---------------------------------------------------------------- signers

/** A passkey: a P-256 key pair, as an authenticator holds it. */
function passkey() {
  const secretKey = p256.utils.randomSecretKey()
  const pub = p256.getPublicKey(secretKey, false) // 0x04 ‖ x ‖ y
  const x = BigInt(toHex(pub.slice(1, 33)))
  const y = BigInt(toHex(pub.slice(33, 65)))
  return { secretKey, x, y, owner: encodePasskeyOwner(x, y) }
}

/** What navigator.credentials.get() returns for `challenge`: authenticatorData, clientDataJSON, a P-256 signature. */
function webAuthnSign(secretKey: Uint8Array, challenge: Hex): Hex {
  const rpIdHash = sha256(stringToHex('localhost'))
  const authenticatorData = concat([rpIdHash, toHex(0x05, { size: 1 }), '0x00000001']) // UP | UV, signCount 1
  const clientDataJSON = JSON.stringify({
    type: 'webauthn.get',
    challenge: Buffer.from(hexToBytes(challenge)).toString('base64url'),
    origin: 'http://localhost:3001',
    crossOrigin: false,
  })
  const message = sha256(concat([authenticatorData, sha256(stringToHex(clientDataJSON))]))
  const sig = p256.Signature.fromBytes(p256.sign(hexToBytes(message), secretKey, { prehash: false }))
  return encodeWebAuthnSignature({ authenticatorData, clientDataJSON, ...webAuthnIndices(clientDataJSON), r: sig.r, s: sig.s })
}

type OwnerSign = (hash: Hex) => Promise<Hex> | Hex

interface Signer {
  name: string
  address: Address
  /** Signs the EIP-712 hash of `p`; a wallet's owner signs its replay-safe hash for `chainId`. */
  sign: (p: TypedDataPayload, chainId?: number) => Promise<Hex>
  /** Same wallet or address, but signed with a key that does not own it. */
  signAsStranger: (p: TypedDataPayload) => Promise<Hex>
  deployed: boolean
  owners?: Hex[]
}

function eoaSigner(): Signer {
  const account = privateKeyToAccount(generatePrivateKey())
  const stranger = privateKeyToAccount(generatePrivateKey())
  return {
    name: 'EOA',
    address: account.address,
    sign: (p) => account.signTypedData(p as never),
    signAsStranger: (p) => stranger.signTypedData(p as never),
    deployed: false,
  }
}

function walletSigner(name: string, owners: Hex[], ownerSign: OwnerSign, strangerSign: OwnerSign, deployed: boolean): Signer {
  const address = predictAccountAddress({ factory: WALLET_FACTORY_ADDRESS, owners, nonce: 0n })
  const build = async (p: TypedDataPayload, chainId: number, sign: OwnerSign) => {
    const safe = replaySafeHash({ address, chainId, hash: hashTypedData(p as never) })
    const inner = wrapSignature({ ownerIndex: 0, signatureData: await sign(safe) })
    if (deployed) return inner
    return serializeErc6492Signature({ address: WALLET_FACTORY_ADDRESS, data: factoryData(owners, 0n), signature: inner })
  }
  return {
    name,
    address,
    owners,
    deployed,
    sign: (p, chainId = CHAIN_ID) => build(p, chainId, ownerSign),
    signAsStranger: (p) => build(p, CHAIN_ID, strangerSign),
  }
}

function addressWallet(deployed: boolean): Signer {
  const owner = privateKeyToAccount(generatePrivateKey())
  const stranger = privateKeyToAccount(generatePrivateKey())
  return walletSigner(
    `address-owned wallet, ${deployed ? 'deployed' : 'undeployed'}`,
    [encodeAddressOwner(owner.address)],
    (hash) => owner.sign({ hash }),
    (hash) => stranger.sign({ hash }),
    deployed,
  )
}

function passkeyWallet(deployed: boolean): Signer {
  const key = passkey()
  const stranger = passkey()
  return walletSigner(
    `passkey-owned wallet, ${deployed ? 'deployed' : 'undeployed'}`,
    [key.owner],
    (hash) => webAuthnSign(key.secretKey, hash),
    (hash) => webAuthnSign(stranger.secretKey, hash),
    deployed,
  )
}

// ---------------------------------------------------------------- tests

describe('genesis predeploys', () => {
  const node = useTestNode({ chainId: 8453 })

  it('the factory and its implementation are at the documented addresses in block 0, on any chain id', async () => {
    const at0 = { blockNumber: 0n }
    expect(getContractAddress({ from: PREDEPLOY_DEPLOYER_ADDRESS, nonce: 0n })).toBe(WALLET_FACTORY_ADDRESS)
    expect(getContractAddress({ from: WALLET_FACTORY_ADDRESS, nonce: 1n })).toBe(WALLET_IMPLEMENTATION_ADDRESS)
    const factoryCode = await node.publicClient.getCode({ address: WALLET_FACTORY_ADDRESS, ...at0 })
    expect(factoryCode?.length).toBe(PcnodeWalletFactory.deployedBytecode.length)
    const implementationCode = await node.publicClient.getCode({ address: WALLET_IMPLEMENTATION_ADDRESS, ...at0 })
    expect(implementationCode?.length).toBe(PcnodeSmartWallet.deployedBytecode.length)
    const read = (address: Address, abi: any, functionName: string) =>
      node.publicClient.readContract({ address, abi, functionName, ...at0 }) as Promise<unknown>
    expect(await read(WALLET_FACTORY_ADDRESS, walletFactoryAbi, 'implementation')).toBe(WALLET_IMPLEMENTATION_ADDRESS)
    expect(await read(WALLET_IMPLEMENTATION_ADDRESS, smartWalletAbi, 'factory')).toBe(WALLET_FACTORY_ADDRESS)
    expect(await node.publicClient.getTransactionCount({ address: WALLET_FACTORY_ADDRESS, ...at0 })).toBe(2)
    expect(await node.publicClient.getTransactionCount({ address: PREDEPLOY_DEPLOYER_ADDRESS, ...at0 })).toBe(1)
    // The factory's prediction equals the off-chain helper's.
    const owners = [encodeAddressOwner(node.accounts[0].address)]
    const onChain = await node.publicClient.readContract({
      address: WALLET_FACTORY_ADDRESS,
      abi: walletFactoryAbi,
      functionName: 'getAddress',
      args: [owners, 0n],
    })
    expect(onChain).toBe(predictAccountAddress({ factory: WALLET_FACTORY_ADDRESS, owners }))
    // The fixture's `account` is that wallet (dev account 0's, nonce 0).
    expect(payload.message.account).toBe(onChain)
  })
})

describe('verifyTypedData against pcnode: EOA, EIP-1271 and ERC-6492 signers', () => {
  const node = useTestNode({ preconfInterval: 0, blockTime: 500 })
  const signers = [eoaSigner(), addressWallet(true), addressWallet(false), passkeyWallet(true), passkeyWallet(false)]

  beforeAll(async () => {
    for (const s of signers.filter((s) => s.deployed)) {
      const hash = await node.wallet(0).writeContract({
        address: WALLET_FACTORY_ADDRESS,
        abi: walletFactoryAbi,
        functionName: 'createAccount',
        args: [s.owners!, 0n],
      })
      expect((await waitForReceipt(node, hash)).status).toBe('success')
      expect(await node.publicClient.getCode({ address: s.address, blockTag: 'pending' })).not.toBeUndefined()
    }
  })

  const verify = (address: Address, p: TypedDataPayload, signature: Hex) =>
    node.publicClient.verifyTypedData({ address, ...(p as any), signature })

  /** An undeployed wallet stays undeployed, and the factory's nonce unchanged, whatever was verified. */
  async function expectNothingPersisted(s: Signer) {
    if (s.owners && !s.deployed) {
      expect(await node.publicClient.getCode({ address: s.address, blockTag: 'pending' })).toBeUndefined()
      expect((await node.rpc('eth_getCode', [s.address, 'pending'])).result).toBe('0x')
      expect((await node.rpc('eth_getCode', [s.address, 'latest'])).result).toBe('0x')
    }
    expect(await node.publicClient.getTransactionCount({ address: WALLET_FACTORY_ADDRESS, blockTag: 'pending' })).toBe(
      2 + signers.filter((x) => x.deployed).length,
    )
  }

  for (const s of signers) {
    describe(s.name, () => {
      it('a valid signature verifies', async () => {
        const signature = await s.sign(payload)
        expect(isErc6492Signature(signature)).toBe(s.owners !== undefined && !s.deployed)
        expect(await verify(s.address, payload, signature)).toBe(true)
        await expectNothingPersisted(s)
      })

      it('a tampered message does not', async () => {
        expect(await verify(s.address, tampered(payload), await s.sign(payload))).toBe(false)
        await expectNothingPersisted(s)
      })

      it('a wrong owner does not', async () => {
        expect(await verify(s.address, payload, await s.signAsStranger(payload))).toBe(false)
        // ...nor a valid signature presented for another address.
        const other = s === signers[0] ? signers[2] : signers[0]
        expect(await verify(other.address, payload, await s.sign(payload))).toBe(false)
        await expectNothingPersisted(s)
      })

      it('a payload signed for another chain does not', async () => {
        const foreign = onChain(payload, 1)
        // Signed on chain 1 (domain chainId 1; a wallet's owner signs the replay-safe hash for chain 1)...
        const signature = await s.sign(foreign, 1)
        // ...it does not verify for this chain's payload,
        expect(await verify(s.address, payload, signature)).toBe(false)
        // and a wallet on this chain rejects it even for the chain-1 payload: the replay-safe hash binds the chain.
        if (s.owners) expect(await verify(s.address, foreign, signature)).toBe(false)
        // A wallet signature made for this chain over the chain-1 payload is the owner's choice and verifies.
        expect(await verify(s.address, foreign, await s.sign(foreign))).toBe(true)
        await expectNothingPersisted(s)
      })
    })
  }

  it('viem wraps an undeployed wallet signature itself when given factory and factoryData', async () => {
    const s = signers[4]
    const wrapped = await s.sign(payload)
    // Unwrap: ERC-6492 = abi.encode(factory, factoryData, signature) ‖ magic.
    const { parseErc6492Signature } = await import('viem')
    const { signature: inner } = parseErc6492Signature(wrapped)
    expect(
      await node.publicClient.verifyTypedData({
        address: s.address,
        ...(payload as any),
        signature: inner,
        factory: WALLET_FACTORY_ADDRESS,
        factoryData: factoryData(s.owners!, 0n),
      }),
    ).toBe(true)
    // Without the factory data an undeployed wallet cannot be checked.
    expect(await verify(s.address, payload, inner)).toBe(false)
    await expectNothingPersisted(s)
  })

  it('gas of one passkey verification, through the node', async () => {
    const s = signers[3]
    const hash = hashTypedData(payload as never)
    const signature = await s.sign(payload)
    const data = encodeFunctionData({ abi: smartWalletAbi, functionName: 'isValidSignature', args: [hash, signature] })
    const result = await node.rpc('eth_call', [{ to: s.address, data }, 'pending'])
    expect(result.result.slice(0, 10)).toBe('0x1626ba7e')
    const isValidSignatureGas = await node.publicClient.estimateGas({ to: s.address, data })
    // The whole ERC-6492 check of an undeployed passkey wallet (deploy inside the call + isValidSignature).
    const u = signers[4]
    const deployless = encodeDeployData({
      abi: erc6492SignatureValidatorAbi,
      bytecode: erc6492SignatureValidatorByteCode,
      args: [u.address, hash, await u.sign(payload)],
    })
    expect((await node.rpc('eth_call', [{ data: deployless }, 'pending'])).result).toBe('0x01')
    const deploylessGas = await node.publicClient.estimateGas({ data: deployless } as never)
    console.log(
      `passkey verification gas via eth_estimateGas: isValidSignature on a deployed wallet ${isValidSignatureGas} ` +
        `(21000 intrinsic + calldata + execution, incl. 6900 for P256VERIFY); ` +
        `ERC-6492 deployless check of an undeployed wallet ${deploylessGas}`,
    )
    expect(isValidSignatureGas).toBeLessThan(100_000n)
    expect(deploylessGas).toBeLessThan(1_000_000n)
    await expectNothingPersisted(u)
  })

  it('a deployless eth_call may CREATE2 and write storage, with any gas; eth_estimateGas of it persists nothing either', async () => {
    // The factory call alone, as the ERC-6492 validator makes it, run as a plain eth_call and estimate.
    const s = signers[2]
    const call = { to: WALLET_FACTORY_ADDRESS, data: factoryData(s.owners!, 0n) }
    const res = await node.rpc('eth_call', [call, 'pending'])
    expect(res.error).toBeUndefined()
    expect(BigInt(res.result)).toBe(BigInt(s.address))
    expect(await node.publicClient.estimateGas(call)).toBeGreaterThan(100_000n)
    await expectNothingPersisted(s)
    // The gas a caller names: up to the 16.7M EIP-7825 cap, and above it (tools send the block gas limit; geth
    // and reth lift the cap for eth_call, pcnode runs such a call at the cap) the check still answers.
    const args = encodeAbiParameters(
      [{ type: 'address' }, { type: 'bytes32' }, { type: 'bytes' }],
      [s.address, hashTypedData(payload as never), await s.sign(payload)],
    )
    const data = concat([erc6492SignatureValidatorByteCode, args])
    for (const gas of ['0x1000000', '0x1000001', '0x3938700', '0xffffffffffff']) {
      for (const tag of ['latest', 'pending']) {
        const res = await node.rpc('eth_call', [{ data, gas }, tag])
        expect(res, `gas ${gas} at ${tag}`).toEqual({ jsonrpc: '2.0', id: expect.any(Number), result: '0x01' })
      }
    }
    expect((await node.publicClient.call({ data, gas: 60_000_000n })).data).toBe('0x01')
    // eth_estimateGas searches from the cap down, as geth does under Osaka.
    const estimates = await Promise.all(
      ['0x1000000', '0x3938700'].map(async (gas) => (await node.rpc('eth_estimateGas', [{ data, gas }, 'pending'])).result),
    )
    expect(BigInt(estimates[0])).toBeGreaterThan(100_000n)
    expect(estimates[1]).toBe(estimates[0])
    await expectNothingPersisted(s)
  })
})
