// B20 tokens under --profile base: ERC-20 moves, memos, policies (allow/block lists, inverted ids,
// Denim's executor rule), pause, supply cap, permits, roles and burns, compared with Base's logs,
// storage and revert data (base/base common/abi/v1.rs, common/ops, policy/abi/v1.rs), and the
// token reached by eth_estimateGas, eth_simulateV1 and the tracers.
import {
  type Address,
  type BaseError,
  ContractFunctionRevertedError,
  decodeEventLog,
  encodeErrorResult,
  encodeFunctionData,
  type Hex,
  hexToBigInt,
  keccak256,
  pad,
  parseSignature,
  toHex,
  zeroAddress,
} from 'viem'
import { describe, expect, it } from 'vitest'
import { B20_FACTORY_ADDRESS, b20Abi, b20Address, POLICY_REGISTRY_ADDRESS, policyRegistryAbi } from '../src/index.js'
import {
  ASSET,
  assetParams,
  B20_ROOT,
  b20Actions,
  balanceSlot,
  DEFAULT_ADMIN_ROLE,
  MINT_ROLE,
  revertData,
  STABLECOIN,
  salt,
  stablecoinParams,
  TRANSFER_RECEIVER_POLICY,
  TRANSFER_SENDER_POLICY,
} from './b20-helpers.js'
import { useTestNode } from './helpers.js'

describe('B20 tokens (profile base)', () => {
  const node = useTestNode({ profile: 'base' })
  const { send, createToken } = b20Actions(node)

  it('moves tokens: Transfer and Approval logs, transferFrom without Approval, balance errors', async () => {
    const [a, b, c] = [0, 1, 2].map((i) => node.accounts[i].address as Address)
    const { token } = await createToken(0, ASSET, assetParams('Coin', 'CN', a, 18), 3, [
      encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [a, 1000n] }),
    ])
    const tx = async (index: number, data: Hex) => send(index, token, data)
    const moved = await tx(0, encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [b, 100n] }))
    expect(moved.logs.map((l) => decodeEventLog({ abi: b20Abi, ...l }))).toEqual([
      { eventName: 'Transfer', args: { from: a, to: b, amount: 100n } },
    ])
    const approved = await tx(0, encodeFunctionData({ abi: b20Abi, functionName: 'approve', args: [c, 50n] }))
    expect(decodeEventLog({ abi: b20Abi, ...approved.logs[0] })).toEqual({
      eventName: 'Approval',
      args: { owner: a, spender: c, amount: 50n },
    })
    const pulled = await tx(2, encodeFunctionData({ abi: b20Abi, functionName: 'transferFrom', args: [a, c, 30n] }))
    expect(pulled.logs.map((l) => decodeEventLog({ abi: b20Abi, ...l }).eventName)).toEqual(['Transfer'])
    const read = (functionName: 'balanceOf', holder: Address) =>
      node.publicClient.readContract({ address: token, abi: b20Abi, functionName, args: [holder] })
    expect([await read('balanceOf', a), await read('balanceOf', b), await read('balanceOf', c)]).toEqual([870n, 100n, 30n])
    expect(await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'allowance', args: [a, c] })).toBe(
      20n,
    )
    const memo = pad('0x1234')
    const withMemo = await tx(1, encodeFunctionData({ abi: b20Abi, functionName: 'transferWithMemo', args: [c, 1n, memo] }))
    expect(withMemo.logs.map((l) => decodeEventLog({ abi: b20Abi, ...l }))).toEqual([
      { eventName: 'Transfer', args: { from: b, to: c, amount: 1n } },
      { eventName: 'Memo', args: { caller: b, memo } },
    ])
    expect(
      await revertData(node, b, token, encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [c, 1000n] })),
    ).toBe(encodeErrorResult({ abi: b20Abi, errorName: 'InsufficientBalance', args: [b, 99n, 1000n] }))
    expect(
      await revertData(node, c, token, encodeFunctionData({ abi: b20Abi, functionName: 'transferFrom', args: [a, c, 21n] })),
    ).toBe(encodeErrorResult({ abi: b20Abi, errorName: 'InsufficientAllowance', args: [c, 20n, 21n] }))
    // Denim: a credit to any B20 address is refused.
    expect(
      await revertData(node, a, token, encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [token, 1n] })),
    ).toBe(encodeErrorResult({ abi: b20Abi, errorName: 'InvalidReceiver', args: [token] }))
    // eth_getStorageAt at the ERC-7201 balance slot equals balanceOf.
    expect(hexToBigInt((await node.publicClient.getStorageAt({ address: token, slot: balanceSlot(a) })) as Hex)).toBe(870n)
  })

  it('refuses a blocklisted transfer (the docs example: Stablecoin, mint, blocklist, transfer refused)', async () => {
    const [issuer, alice, bob] = [0, 1, 2].map((i) => node.accounts[i].address as Address)
    const { token } = await createToken(0, STABLECOIN, stablecoinParams('Test USD', 'TUSD', issuer, 'USD'), 4, [
      encodeFunctionData({ abi: b20Abi, functionName: 'grantRole', args: [MINT_ROLE, issuer] }),
    ])
    await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [alice, 1_000_000n] }))
    const created = await send(
      0,
      POLICY_REGISTRY_ADDRESS,
      encodeFunctionData({ abi: policyRegistryAbi, functionName: 'createPolicyWithAccounts', args: [issuer, 0, [alice]] }),
    )
    const policyEvents = created.logs.map((l) => decodeEventLog({ abi: policyRegistryAbi, ...l }))
    expect(policyEvents.map((e) => e.eventName)).toEqual(['PolicyCreated', 'PolicyAdminUpdated', 'BlocklistUpdated'])
    expect(created.logs[0].topics[0]).toBe(keccak256(toHex('PolicyCreated(uint64,address,uint8)')))
    const policyId = (policyEvents[0].args as { policyId: bigint }).policyId
    expect(policyId).toBe(2n) // the first custom policy of a fresh chain
    const updated = await send(
      0,
      token,
      encodeFunctionData({ abi: b20Abi, functionName: 'updatePolicy', args: [TRANSFER_SENDER_POLICY, policyId] }),
    )
    expect(decodeEventLog({ abi: b20Abi, ...updated.logs[0] })).toEqual({
      eventName: 'PolicyUpdated',
      args: { policyScope: TRANSFER_SENDER_POLICY, oldPolicyId: 0n, newPolicyId: policyId },
    })
    const transfer = encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [bob, 10n] })
    expect(await revertData(node, alice, token, transfer)).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'PolicyForbids', args: [TRANSFER_SENDER_POLICY, policyId] }),
    )
    // viem decodes it from the simulated write.
    const refused = await node.publicClient
      .simulateContract({ account: alice, address: token, abi: b20Abi, functionName: 'transfer', args: [bob, 10n] })
      .catch((e: BaseError) => e)
    const reverted = (refused as BaseError).walk((e) => e instanceof ContractFunctionRevertedError)
    expect((reverted as ContractFunctionRevertedError).data?.errorName).toBe('PolicyForbids')
    // Unblocked, the same transfer goes through.
    await send(
      0,
      POLICY_REGISTRY_ADDRESS,
      encodeFunctionData({ abi: policyRegistryAbi, functionName: 'updateBlocklist', args: [policyId, false, [alice]] }),
    )
    expect((await send(1, token, transfer)).status).toBe('success')
    // Unknown policy ids and scopes: PolicyNotFound(id), UnsupportedPolicyType(scope).
    const update = (scope: Hex, id: bigint) =>
      encodeFunctionData({ abi: b20Abi, functionName: 'updatePolicy', args: [scope, id] })
    expect(await revertData(node, issuer, token, update(TRANSFER_RECEIVER_POLICY, 77n))).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'PolicyNotFound', args: [77n] }),
    )
    expect(await revertData(node, issuer, token, update(MINT_ROLE, 0n))).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'UnsupportedPolicyType', args: [MINT_ROLE] }),
    )
  })

  it('pauses, caps supply and takes EIP-2612 permits', async () => {
    const owner = node.wallet(0)
    const [a, b] = [0, 1].map((i) => node.accounts[i].address as Address)
    const PAUSE_ROLE = keccak256(toHex('PAUSE_ROLE'))
    const { token } = await createToken(0, ASSET, assetParams('Capped', 'CAP', a, 6), 5, [
      encodeFunctionData({ abi: b20Abi, functionName: 'grantRole', args: [MINT_ROLE, a] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'grantRole', args: [PAUSE_ROLE, a] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'updateSupplyCap', args: [100n] }),
    ])
    expect(await revertData(node, a, token, encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [a, 101n] }))).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'SupplyCapExceeded', args: [100n, 101n] }),
    )
    await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [a, 100n] }))
    await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'pause', args: [[0]] }))
    expect(await revertData(node, a, token, encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [b, 1n] }))).toBe(
      '0xfd8c42450000000000000000000000000000000000000000000000000000000000000000', // ContractPaused(TRANSFER)
    )
    // Permit works while transfers are paused (approvals are not gated).
    const deadline = 2n ** 40n
    const signature = await owner.signTypedData({
      domain: { name: 'Capped', version: '1', chainId: node.chainId, verifyingContract: token },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: a, spender: b, value: 42n, nonce: 0n, deadline },
    })
    const { v, r, s } = parseSignature(signature)
    const permitted = await send(
      1,
      token,
      encodeFunctionData({ abi: b20Abi, functionName: 'permit', args: [a, b, 42n, deadline, Number(v), r, s] }),
    )
    expect(decodeEventLog({ abi: b20Abi, ...permitted.logs[0] })).toEqual({
      eventName: 'Approval',
      args: { owner: a, spender: b, amount: 42n },
    })
    expect(await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'nonces', args: [a] })).toBe(1n)
  })

  it('is reached by eth_estimateGas and debug_traceCall, and a static call cannot write', async () => {
    const a = node.accounts[0].address as Address
    const token = b20Address(ASSET, a, salt(3))
    const transfer = encodeFunctionData({
      abi: b20Abi,
      functionName: 'transfer',
      args: [node.accounts[1].address as Address, 1n],
    })
    const gas = await node.publicClient.estimateGas({ account: a, to: token, data: transfer })
    expect(gas).toBeGreaterThan(21_000n + 5_000n) // intrinsic plus at least one warm storage write
    const trace = await node.rpc('debug_traceCall', [{ from: a, to: token, data: transfer }, 'latest', { tracer: 'callTracer' }])
    expect(trace.result).toMatchObject({ type: 'CALL', to: token.toLowerCase(), input: transfer })
    expect(trace.result.output).toBe(pad('0x01'))
    // eth_simulateV1 runs it too: the Transfer log of the simulated call.
    const simulated = await node.rpc('eth_simulateV1', [
      { blockStateCalls: [{ calls: [{ from: a, to: token, data: transfer }] }] },
      'latest',
    ])
    const simulatedCall = simulated.result[0].calls[0]
    expect(simulatedCall.status).toBe('0x1')
    expect(simulatedCall.logs.map((l: { address: string; topics: Hex[] }) => [l.address, l.topics[0]])).toEqual([
      [token.toLowerCase(), keccak256(toHex('Transfer(address,address,uint256)'))],
    ])
    // prestateTracer shows the token's storage the transfer touched (its balance slot among them).
    const pre = await node.rpc('debug_traceCall', [
      { from: a, to: token, data: transfer },
      'latest',
      { tracer: 'prestateTracer' },
    ])
    expect(Object.keys(pre.result[token.toLowerCase()].storage)).toContain(balanceSlot(a))
    expect(pre.result[token.toLowerCase()].code).toBe('0xef')
    // Value sent to a nonpayable function: NonPayable().
    const paid = await node.rpc('eth_call', [{ from: a, to: token, data: transfer, value: '0x1' }, 'latest'])
    expect(paid.error.data).toBe('0x6fb1b0e9')
    // A STATICCALL into the token's transfer from a contract fails (the EVM's static rule).
    // Runtime: STATICCALL(gas, token, 0, len, 0, 32) over the calldata copied to memory; return success.
    const len = (transfer.length - 2) / 2
    const code =
      `0x36600060003760206000${toHex(len).slice(2).padStart(4, '0').replace(/^/, '61')}600073${token.slice(2)}5afa60005260206000f3` as Hex
    const probe = '0x00000000000000000000000000000000000b2077'
    const answer = await node.rpc('eth_call', [{ from: a, to: probe, data: transfer }, 'latest', { [probe]: { code } }])
    expect(BigInt(answer.result)).toBe(0n)
    // The same probe calling balanceOf succeeds (reads are fine in a static call).
    const balanceOf = encodeFunctionData({ abi: b20Abi, functionName: 'balanceOf', args: [a] })
    const lenB = (balanceOf.length - 2) / 2
    const codeB =
      `0x36600060003760206000${toHex(lenB).slice(2).padStart(4, '0').replace(/^/, '61')}600073${token.slice(2)}5afa60005260206000f3` as Hex
    const ok = await node.rpc('eth_call', [{ from: a, to: probe, data: balanceOf }, 'latest', { [probe]: { code: codeB } }])
    expect(BigInt(ok.result)).toBe(1n)
  })

  it("checks the executor policy first on a holder's own transfer (Denim), and initCalls bypass it", async () => {
    const a = node.accounts[0].address as Address
    const b = node.accounts[1].address as Address
    const ALWAYS_BLOCK = (1n << 56n) | 1n
    const TRANSFER_EXECUTOR_POLICY = keccak256(toHex('TRANSFER_EXECUTOR_POLICY'))
    const { token } = await createToken(0, ASSET, assetParams('Agent', 'AGT', a, 6), 6, [
      encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [B20_FACTORY_ADDRESS, 10n] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'updatePolicy', args: [TRANSFER_EXECUTOR_POLICY, ALWAYS_BLOCK] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'updatePolicy', args: [TRANSFER_SENDER_POLICY, ALWAYS_BLOCK] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [a, 10n] }),
    ])
    expect(await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'balanceOf', args: [a] })).toBe(10n)
    const transfer = encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [b, 1n] })
    expect(await revertData(node, a, token, transfer)).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'PolicyForbids', args: [TRANSFER_EXECUTOR_POLICY, ALWAYS_BLOCK] }),
    )
  })

  it('keeps the last admin: revoke and renounce refuse, renounceLastAdmin gives it up', async () => {
    const a = node.accounts[0].address as Address
    const b = node.accounts[1].address as Address
    const { token } = await createToken(0, ASSET, assetParams('Roles', 'RL', a, 6), 7)
    const call = (functionName: 'revokeRole' | 'renounceRole', account: Address) =>
      encodeFunctionData({ abi: b20Abi, functionName, args: [DEFAULT_ADMIN_ROLE, account] })
    const lastAdmin = encodeErrorResult({ abi: b20Abi, errorName: 'LastAdminCannotRenounce' })
    expect(await revertData(node, a, token, call('revokeRole', a))).toBe(lastAdmin)
    expect(await revertData(node, a, token, call('renounceRole', a))).toBe(lastAdmin)
    expect(await revertData(node, a, token, call('renounceRole', b))).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'AccessControlBadConfirmation' }),
    )
    const gone = await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'renounceLastAdmin' }))
    expect(gone.logs.map((l) => decodeEventLog({ abi: b20Abi, ...l }))).toEqual([
      { eventName: 'RoleRevoked', args: { role: DEFAULT_ADMIN_ROLE, account: a, sender: a } },
      { eventName: 'LastAdminRenounced', args: { previousAdmin: a } },
    ])
    expect(
      await node.publicClient.readContract({
        address: token,
        abi: b20Abi,
        functionName: 'hasRole',
        args: [DEFAULT_ADMIN_ROLE, a],
      }),
    ).toBe(false)
  })

  it('inverts a policy with bit 63 (Denim): an inverted blocklist lets only its members send', async () => {
    const [a, b, c] = [0, 1, 2].map((i) => node.accounts[i].address as Address)
    const INVERTED = 1n << 63n
    const created = await send(
      0,
      POLICY_REGISTRY_ADDRESS,
      encodeFunctionData({ abi: policyRegistryAbi, functionName: 'createPolicyWithAccounts', args: [a, 0, [a]] }),
    )
    const base = (decodeEventLog({ abi: policyRegistryAbi, ...created.logs[0] }).args as { policyId: bigint }).policyId
    const read = <T>(functionName: 'invertedPolicyId' | 'policyExists' | 'policyAdmin', id: bigint) =>
      node.publicClient.readContract({
        address: POLICY_REGISTRY_ADDRESS,
        abi: policyRegistryAbi,
        functionName,
        args: [id],
      }) as Promise<T>
    expect(await read('invertedPolicyId', base)).toBe(base | INVERTED)
    expect([await read('policyExists', base | INVERTED), await read('policyAdmin', base | INVERTED)]).toEqual([true, a])
    // An inverted id of a policy that does not exist authorizes nobody.
    const authorized = (id: bigint, who: Address) =>
      node.publicClient.readContract({
        address: POLICY_REGISTRY_ADDRESS,
        abi: policyRegistryAbi,
        functionName: 'isAuthorized',
        args: [id, who],
      })
    expect([
      await authorized(base | INVERTED, a),
      await authorized(base | INVERTED, b),
      await authorized(999n | INVERTED, b),
    ]).toEqual([true, false, false])
    const { token } = await createToken(0, ASSET, assetParams('Inverted', 'INV', a, 6), 8, [
      encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [a, 10n] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [b, 10n] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'updatePolicy', args: [TRANSFER_SENDER_POLICY, base | INVERTED] }),
    ])
    const transfer = encodeFunctionData({ abi: b20Abi, functionName: 'transfer', args: [c, 1n] })
    expect((await node.publicClient.call({ account: a, to: token, data: transfer })).data).toBe(pad('0x01'))
    expect(await revertData(node, b, token, transfer)).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'PolicyForbids', args: [TRANSFER_SENDER_POLICY, base | INVERTED] }),
    )
  })

  it('burns with a memo, burns a blocked holder, pauses by feature and renames (EIP-712 domain follows)', async () => {
    const [a, b] = [0, 1].map((i) => node.accounts[i].address as Address)
    const role = (name: string) => keccak256(toHex(name))
    const grant = (name: string) => encodeFunctionData({ abi: b20Abi, functionName: 'grantRole', args: [role(name), a] })
    const { token } = await createToken(0, ASSET, assetParams('Old', 'OLD', a, 6), 10, [
      ...['MINT_ROLE', 'BURN_ROLE', 'BURN_BLOCKED_ROLE', 'PAUSE_ROLE', 'UNPAUSE_ROLE', 'METADATA_ROLE'].map(grant),
      encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [a, 100n] }),
      encodeFunctionData({ abi: b20Abi, functionName: 'mint', args: [b, 100n] }),
    ])
    const memo = pad('0xbeef')
    const burned = await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'burnWithMemo', args: [40n, memo] }))
    expect(burned.logs.map((l) => decodeEventLog({ abi: b20Abi, ...l }))).toEqual([
      { eventName: 'Transfer', args: { from: a, to: zeroAddress, amount: 40n } },
      { eventName: 'Memo', args: { caller: a, memo } },
    ])
    expect(await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'totalSupply' })).toBe(160n)
    // b is not blocked (the sender policy is ALWAYS_ALLOW): AccountNotBlocked(b).
    const burnBlocked = encodeFunctionData({ abi: b20Abi, functionName: 'burnBlocked', args: [b, 1n] })
    expect(await revertData(node, a, token, burnBlocked)).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'AccountNotBlocked', args: [b] }),
    )
    await send(
      0,
      token,
      encodeFunctionData({ abi: b20Abi, functionName: 'updatePolicy', args: [TRANSFER_SENDER_POLICY, (1n << 56n) | 1n] }),
    )
    const seized = await send(0, token, burnBlocked)
    expect(seized.logs.map((l) => decodeEventLog({ abi: b20Abi, ...l }).eventName)).toEqual(['Transfer', 'BurnedBlocked'])
    // Pause MINT and BURN, not TRANSFER.
    const paused = await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'pause', args: [[1, 2]] }))
    expect(decodeEventLog({ abi: b20Abi, ...paused.logs[0] })).toEqual({
      eventName: 'Paused',
      args: { updater: a, features: [1, 2] },
    })
    expect(await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'pausedFeatures' })).toEqual([1, 2])
    expect(await revertData(node, a, token, encodeFunctionData({ abi: b20Abi, functionName: 'burn', args: [1n] }))).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'ContractPaused', args: [2] }),
    )
    expect(await revertData(node, a, token, encodeFunctionData({ abi: b20Abi, functionName: 'pause', args: [[]] }))).toBe(
      encodeErrorResult({ abi: b20Abi, errorName: 'EmptyFeatureSet' }),
    )
    // Paused bits in slot 11 of the namespace: 1 << MINT | 1 << BURN.
    expect(
      hexToBigInt((await node.publicClient.getStorageAt({ address: token, slot: toHex(B20_ROOT + 11n, { size: 32 }) })) as Hex),
    ).toBe(6n)
    await send(0, token, encodeFunctionData({ abi: b20Abi, functionName: 'updateName', args: ['New'] }))
    const domain = await node.publicClient.readContract({ address: token, abi: b20Abi, functionName: 'eip712Domain' })
    expect(domain.slice(1, 5)).toEqual(['New', '1', BigInt(node.chainId), token])
  })
})
