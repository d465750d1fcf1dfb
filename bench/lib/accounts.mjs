// Dev accounts, pre-signed transfers and their receipts. Both nodes start from the same genesis
// (the same mnemonic), so every transaction is signed once for all of them.
import { setTimeout as sleep } from 'node:timers/promises'
import { keccak256, toHex } from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { ErrorLog } from './log.mjs'
import { runPool } from './measure.mjs'
import { RpcError } from './rpc.mjs'
import { now } from './stats.mjs'

const MNEMONIC = 'test test test test test test test test test test test junk'
export const CHAIN_ID = 31337
const GWEI = 1_000_000_000n
// Generous fee cap: base fees rise under the burst (anvil's 30M-gas blocks fill up), 1 gwei tip.
export const MAX_FEE = 100n * GWEI
export const TIP = 1n * GWEI

export const DEV = Array.from({ length: 3 }, (_, i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }))
export const recipient = (tag, i) => `0x${keccak256(toHex(`pcnode-bench:${tag}:${i}`)).slice(26)}`

export async function signTransfer(account, nonce, to, value = 1n) {
  return account.signTransaction({
    chainId: CHAIN_ID,
    type: 'eip1559',
    nonce,
    to,
    value,
    gas: 21000n,
    maxFeePerGas: MAX_FEE,
    maxPriorityFeePerGas: TIP,
  })
}

export async function signedSet(account, count, tag) {
  const raws = new Array(count)
  for (let i = 0; i < count; i++) raws[i] = await signTransfer(account, i, recipient(tag, i))
  return { raws, hashes: raws.map((r) => keccak256(r)) }
}

/** Burst: `senders` fresh keys funded by dev account 1; transaction k is sender k % S's nonce floor(k / S). */
export async function burstSet(count, senders) {
  const keys = Array.from({ length: senders }, (_, j) => privateKeyToAccount(keccak256(toHex(`pcnode-bench:sender:${j}`))))
  const perSender = Math.ceil(count / senders)
  const fundWei = (BigInt(perSender) * 21000n * MAX_FEE * 3n) / 2n + 10n ** 16n
  const funding = []
  for (let j = 0; j < senders; j++) funding.push(await signTransfer(DEV[1], j, keys[j].address, fundWei))
  const raws = new Array(count)
  const tails = new Array(senders).fill(-1)
  for (let k = 0; k < count; k++) {
    const j = k % senders
    raws[k] = await signTransfer(keys[j], Math.floor(k / senders), recipient(`burst${j}`, k))
    tails[j] = k
  }
  return { keys, funding, raws, hashes: raws.map((r) => keccak256(r)), tails }
}

export async function waitReceipt(node, hash, boundMs, pollMs = 5) {
  const t0 = now()
  for (let i = 0; i < 1_000_000; i++) {
    const s = now()
    let r = null
    try {
      r = await node.rpc('eth_getTransactionReceipt', [hash])
    } catch (e) {
      if (now() - t0 > boundMs) throw e
    }
    if (r) return r
    if (now() - t0 > boundMs) throw new RpcError(`no receipt for ${hash} within ${boundMs} ms`, 'RECEIPT_TIMEOUT')
    const w = pollMs - (now() - s)
    if (w > 0) await sleep(w)
  }
  throw new Error('unreachable')
}

/** Fetches every receipt (32 in flight, bounded); counts present / status 0x1 / blocks. */
export async function verifyReceipts(node, hashes, boundMs) {
  const deadline = now() + boundMs
  let present = 0
  let success = 0
  let preconfirmed = 0
  const blocks = new Set()
  const errs = new ErrorLog()
  const checked = await runPool(hashes.length, 32, deadline, async (i) => {
    try {
      const r = await node.rpc('eth_getTransactionReceipt', [hashes[i]])
      if (!r) return
      present++
      if (r.status === '0x1') success++
      if (!r.blockHash || /^0x0*$/.test(r.blockHash)) preconfirmed++
      blocks.add(r.blockNumber)
    } catch (e) {
      errs.add(e)
    }
  })
  return { checked, present, success, preconfirmedAtCheck: preconfirmed, blocks: blocks.size, errors: errs.toJSON() }
}
