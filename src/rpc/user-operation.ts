// User operations on the wire (ERC-4337's RPC shape, ERC-7769): parsed strictly into the bundler's
// UserOp (bigints, validated hex; -32602 naming the field), and the bundler's answers formatted back.
import { getAddress, type Hex, toHex } from 'viem'
import { formatUserOperationRequest } from 'viem/account-abstraction'
import type { UserOpOutcome } from '../node/bundler/receipt.js'
import type { UserOp } from '../node/bundler/user-op.js'
import { invalidParams } from './errors.js'
import { formatLog, formatReceipt } from './format.js'
import { parseAddress, parseData } from './hex.js'
import { isObject, parseBoundedQuantity } from './params.js'

/** v0.8's EIP-7702 marker stands where a factory address would (viem sends it as "0x7702"). */
const EIP7702_FACTORY = '0x7702'

/** Whether gas and fee fields may be left out (eth_estimateUserOperationGas) or must be given (send). */
export type GasFields = 'optional' | 'required'

const GAS_FIELDS = ['callGasLimit', 'verificationGasLimit', 'preVerificationGas', 'maxFeePerGas', 'maxPriorityFeePerGas'] as const

export function parseUserOperation(value: unknown, gas: GasFields, name = 'userOperation'): UserOp {
  if (!isObject(value)) throw invalidParams(`invalid argument ${name}: expected a user operation object`)
  const present = (key: string) => value[key] !== undefined && value[key] !== null
  const address = (key: string) => getAddress(toHex(parseAddress(value[key], `${name}.${key}`)))
  const data = (key: string): Hex => toHex(parseData(value[key], `${name}.${key}`))
  const quantity = (key: string, bits: number) => parseBoundedQuantity(value[key], `${name}.${key}`, bits)
  if (!present('sender')) throw invalidParams(`invalid argument ${name}: missing sender`)
  if (!present('callData')) throw invalidParams(`invalid argument ${name}: missing callData`)
  const op: Record<string, unknown> = {
    sender: address('sender'),
    nonce: present('nonce') ? quantity('nonce', 256) : 0n,
    callData: data('callData'),
    signature: present('signature') ? data('signature') : '0x',
  }
  for (const key of GAS_FIELDS) {
    if (present(key)) op[key] = quantity(key, 128)
    else if (gas === 'optional') op[key] = 0n
    else throw invalidParams(`invalid argument ${name}: missing ${key}`)
  }
  if (present('factory')) {
    const f = value.factory
    op.factory = typeof f === 'string' && f.toLowerCase() === EIP7702_FACTORY ? EIP7702_FACTORY : address('factory')
    op.factoryData = present('factoryData') ? data('factoryData') : '0x'
  }
  if (present('initCode')) op.initCode = data('initCode')
  if (present('paymaster')) {
    op.paymaster = address('paymaster')
    op.paymasterData = present('paymasterData') ? data('paymasterData') : '0x'
    for (const key of ['paymasterVerificationGasLimit', 'paymasterPostOpGasLimit']) {
      op[key] = present(key) ? quantity(key, 128) : 0n
    }
  }
  if (present('paymasterAndData')) op.paymasterAndData = data('paymasterAndData')
  if (present('eip7702Auth')) op.authorization = parseAuthorization(value.eip7702Auth, `${name}.eip7702Auth`)
  return op as UserOp
}

function parseAuthorization(value: unknown, name: string): UserOp['authorization'] {
  if (!isObject(value)) throw invalidParams(`invalid argument ${name}: expected an authorization object`)
  const quantity = (key: string, bits: number) => parseBoundedQuantity(value[key], `${name}.${key}`, bits)
  return {
    address: getAddress(toHex(parseAddress(value.address, `${name}.address`))),
    chainId: Number(quantity('chainId', 53)),
    nonce: Number(quantity('nonce', 53)),
    r: toHex(quantity('r', 256), { size: 32 }),
    s: toHex(quantity('s', 256), { size: 32 }),
    yParity: Number(quantity('yParity', 8)),
  }
}

/** A user operation as eth_getUserOperationByHash and debug_bundler_dumpMempool return it. */
export function formatUserOperation(op: UserOp): Record<string, unknown> {
  return formatUserOperationRequest(op) as Record<string, unknown>
}

/** eth_getUserOperationReceipt's result. */
export function formatUserOperationReceipt(hash: Hex, entryPoint: Hex, o: UserOpOutcome): Record<string, unknown> {
  const t = o.included
  return {
    userOpHash: hash,
    entryPoint,
    sender: o.sender,
    nonce: toHex(o.nonce),
    paymaster: o.paymaster,
    actualGasCost: toHex(o.actualGasCost),
    actualGasUsed: toHex(o.actualGasUsed),
    success: o.success,
    ...(o.reason ? { reason: o.reason } : {}),
    logs: o.logIndexes.map((i) => formatLog(t.receipt.logs[i]!, t, t.receipt.firstLogIndex + i)),
    receipt: formatReceipt(t),
  }
}
