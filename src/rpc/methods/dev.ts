// Test-client methods: what viem's test actions send (createTestClient({ mode: 'anvil' }), and the
// hardhat_* names of mode 'hardhat') and Hardhat scripts call, plus pcnode's own pcnode_*. Names,
// parameters and answers follow anvil (viem's actions/test/*.js); hardhat_* setters answer true as
// Hardhat does. The node side is src/node/devcontrol.ts.
import { StateFormatError } from '../../node/storage/state-file/decode.js'
import { expectArgs, type Handler, type MethodTable } from '../dispatch.js'
import { invalidParams } from '../errors.js'
import { parseAddress, parseData, parseHash, parseQuantity, parseSlot, toData, toQuantity } from '../hex.js'
import { isObject, parseBoundedQuantity, parseCallRequest } from '../params.js'
import { parseReorgPairs } from '../reorg-params.js'
import type { MethodGroup } from './group.js'

function parseBool(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw invalidParams(`invalid argument ${name}: expected a boolean`)
  return value
}

function optionalQuantity(value: unknown, name: string): bigint | undefined {
  return value === undefined || value === null ? undefined : parseQuantity(value, name)
}

/** Milliseconds or seconds as a JSON number or hex quantity, within setTimeout's range. */
function parseDuration(value: unknown, name: string, scale: number): number {
  const n = Number(parseQuantity(value, name)) * scale
  if (!Number.isSafeInteger(n) || n > 2_147_483_647) throw invalidParams(`invalid argument ${name}: too large`)
  return n
}

/** A storage value: up to 32 bytes, left-padded (viem passes 32-byte hex). */
function parseWord(value: unknown, name: string): Uint8Array {
  const bytes = parseData(value, name)
  if (bytes.length > 32) throw invalidParams(`invalid argument ${name}: longer than 32 bytes`)
  const out = new Uint8Array(32)
  out.set(bytes, 32 - bytes.length)
  return out
}

/** L1Block's field widths (OP specs, jovian/l1-attributes.md). */
const L1_FEE_BITS = {
  baseFee: 256,
  blobBaseFee: 256,
  baseFeeScalar: 32,
  blobBaseFeeScalar: 32,
  operatorFeeScalar: 32,
  operatorFeeConstant: 64,
} as const

function parseL1Fees(value: unknown): Partial<Record<keyof typeof L1_FEE_BITS, bigint>> {
  if (!isObject(value)) throw invalidParams('invalid argument 0: expected an object of L1 fee values')
  const out: Partial<Record<keyof typeof L1_FEE_BITS, bigint>> = {}
  for (const [key, raw] of Object.entries(value)) {
    if (!(key in L1_FEE_BITS)) {
      throw invalidParams(`invalid argument 0: unknown field ${key} (expected ${Object.keys(L1_FEE_BITS).join(', ')})`)
    }
    const name = key as keyof typeof L1_FEE_BITS
    out[name] = parseBoundedQuantity(raw, name, L1_FEE_BITS[name])
  }
  return out
}

export const devMethods: MethodGroup = (node) => {
  const dev = node.dev
  const anvil: MethodTable = {
    anvil_mine: async (params) => {
      expectArgs(params, 0, 2)
      await dev.mine(optionalQuantity(params[0], 'blocks') ?? 1n, optionalQuantity(params[1], 'interval') ?? 0n)
      return null
    },
    anvil_setBalance: async (params) => {
      expectArgs(params, 2, 2)
      await dev.setBalance(parseAddress(params[0], 'address'), parseBoundedQuantity(params[1], 'balance', 256))
      return null
    },
    anvil_setCode: async (params) => {
      expectArgs(params, 2, 2)
      await dev.setCode(parseAddress(params[0], 'address'), parseData(params[1], 'code'))
      return null
    },
    anvil_setNonce: async (params) => {
      expectArgs(params, 2, 2)
      await dev.setNonce(parseAddress(params[0], 'address'), parseBoundedQuantity(params[1], 'nonce', 64))
      return null
    },
    anvil_setStorageAt: async (params) => {
      expectArgs(params, 3, 3)
      await dev.setStorageAt(parseAddress(params[0], 'address'), parseSlot(params[1], 'slot'), parseWord(params[2], 'value'))
      return true
    },
    anvil_impersonateAccount: (params) => {
      expectArgs(params, 1, 1)
      dev.impersonate(parseAddress(params[0], 'address'))
      return null
    },
    anvil_stopImpersonatingAccount: (params) => {
      expectArgs(params, 1, 1)
      dev.stopImpersonating(parseAddress(params[0], 'address'))
      return null
    },
    anvil_autoImpersonateAccount: (params) => {
      expectArgs(params, 1, 1)
      dev.setAutoImpersonate(parseBool(params[0], 'enabled'))
      return null
    },
    anvil_getAutomine: () => dev.automine,
    anvil_setAutomine: async (params) => {
      expectArgs(params, 1, 1)
      await dev.setAutomine(parseBool(params[0], 'enabled'))
      return null
    },
    /** Seconds, as anvil takes them; 0 stops mining. */
    anvil_setIntervalMining: async (params) => {
      expectArgs(params, 1, 1)
      await dev.setIntervalMining(parseDuration(params[0], 'interval', 1000))
      return null
    },
    anvil_dropTransaction: async (params) => {
      expectArgs(params, 1, 1)
      const hash = parseHash(params[0], 'hash')
      return (await dev.dropTransaction(hash)) ? toData(hash) : null
    },
    /** `[depth, [[tx, blockOffset], ...]]`: the last `depth` blocks replaced (node/dev/reorg.ts). */
    anvil_reorg: async (params) => {
      expectArgs(params, 1, 2)
      const first = node.accounts[0]
      const pairs = parseReorgPairs(params[1], first && parseAddress(first.address, 'from'))
      await dev.reorg(parseQuantity(params[0], 'depth'), pairs)
      return null
    },
    anvil_dropAllTransactions: async () => {
      await dev.dropAllTransactions()
      return null
    },
    anvil_reset: async (params) => {
      expectArgs(params, 0, 1)
      // anvil's and Hardhat's shape: {forking: {jsonRpcUrl, blockNumber}}: start again on that fork.
      // Neither given (viem's reset() sends {forking: {}}): a plain reset, back to the fork block.
      const forking = isObject(params[0]) ? params[0].forking : undefined
      if (isObject(forking) && (forking.jsonRpcUrl != null || forking.blockNumber != null)) {
        const url = forking.jsonRpcUrl
        if (url != null && typeof url !== 'string') throw invalidParams('invalid argument 0: forking.jsonRpcUrl must be a string')
        const n = forking.blockNumber
        if (typeof n === 'number' && !Number.isSafeInteger(n))
          throw invalidParams('invalid argument 0: forking.blockNumber must be an integer')
        const blockNumber = n == null ? undefined : typeof n === 'number' ? BigInt(n) : parseQuantity(n, 'forking.blockNumber')
        await dev.reset({ url: url ?? undefined, blockNumber })
      } else {
        await dev.reset()
      }
      return null
    },
    /** The state file's content (docs/state-file.md), hex-encoded as viem's dumpState types it. */
    anvil_dumpState: async () => toData(Buffer.from(await dev.dumpState(), 'utf8')),
    /** Takes what anvil_dumpState returned (or the JSON document itself, or gzip of it). */
    anvil_loadState: async (params) => {
      expectArgs(params, 1, 1)
      const input = params[0]
      if (typeof input !== 'string' && !isObject(input))
        throw invalidParams('invalid argument state: expected hex or a state object')
      try {
        await dev.loadState(input)
      } catch (error) {
        if (error instanceof StateFormatError) throw invalidParams(`invalid argument state: ${error.message}`)
        throw error
      }
      return true
    },
    anvil_setLoggingEnabled: () => null,
  }

  // Hardhat's names for the same methods; its setters answer true.
  const hardhat: MethodTable = {}
  for (const [name, handler] of Object.entries(anvil)) {
    const alias = name.replace(/^anvil_/, 'hardhat_')
    hardhat[alias] = async (params, ctx) => (await handler(params, ctx)) ?? true
  }
  hardhat.hardhat_dropTransaction = async (params, ctx) => (await anvil.anvil_dropTransaction(params, ctx)) !== null

  const evm: Record<string, Handler> = {
    evm_snapshot: async () => toQuantity(await dev.snapshot()),
    evm_revert: async (params) => {
      expectArgs(params, 1, 1)
      return dev.revert(parseQuantity(params[0], 'id'))
    },
    /** anvil: a timestamp or { timestamp, blocks }; Hardhat: a timestamp. */
    evm_mine: async (params) => {
      expectArgs(params, 0, 1)
      const opt = params[0]
      if (isObject(opt)) {
        await dev.mine(optionalQuantity(opt.blocks, 'blocks') ?? 1n, 0n, optionalQuantity(opt.timestamp, 'timestamp'))
      } else {
        await dev.mine(1n, 0n, optionalQuantity(opt, 'timestamp'))
      }
      return '0x0'
    },
    evm_increaseTime: async (params) => {
      expectArgs(params, 1, 1)
      return Number(await dev.increaseTime(parseQuantity(params[0], 'seconds')))
    },
    evm_setNextBlockTimestamp: async (params) => {
      expectArgs(params, 1, 1)
      await dev.setNextBlockTimestamp(parseQuantity(params[0], 'timestamp'))
      return null
    },
    evm_setAutomine: anvil.anvil_setAutomine,
    /** Seconds, as anvil takes them (viem's mode 'hardhat' sends milliseconds: use pcnode_setBlockTime). */
    evm_setIntervalMining: anvil.anvil_setIntervalMining,
    eth_sendUnsignedTransaction: async (params) => {
      expectArgs(params, 1, 1)
      return toData(await dev.sendUnsigned(parseCallRequest(params[0])))
    },
    /** Milliseconds between flashblocks; 0 pre-confirms each transaction as it arrives. */
    pcnode_setPreconfInterval: (params) => {
      expectArgs(params, 1, 1)
      dev.setPreconfInterval(parseDuration(params[0], 'interval', 1))
      return null
    },
    /** Milliseconds between sealed blocks (0 seals every flashblock); starts mining if stopped. */
    pcnode_setBlockTime: async (params) => {
      expectArgs(params, 1, 1)
      await dev.setBlockTime(parseDuration(params[0], 'blockTime', 1))
      return null
    },
    pcnode_getMiningConfig: () => dev.miningConfig,
    /**
     * OP stack: L1 values from the next block on, any subset of { baseFee, blobBaseFee,
     * baseFeeScalar, blobBaseFeeScalar, operatorFeeScalar, operatorFeeConstant }. Answers the number
     * of the first block whose L1-info deposit carries them.
     */
    pcnode_setL1Fees: (params) => {
      expectArgs(params, 1, 1)
      return toQuantity(dev.setL1Fees(parseL1Fees(params[0])))
    },
  }
  return { ...anvil, ...hardhat, ...evm }
}
