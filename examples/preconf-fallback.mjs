#!/usr/bin/env node
// What your app should do when a pre-confirmation is dropped (README "Pre-confirmation faults").
//
//   pcnode start --preconf-drop-rate 0.2 --preconf-seed 1
//   node examples/preconf-fallback.mjs [--rpc-url http://127.0.0.1:8545] [--count 10] [--json]
//
// It sends `count` transfers from dev account 0, one after another, and follows each the way Base
// asks apps to ("a strong promise, not a guarantee … implement fallback logic"):
//   1. send it with eth_sendRawTransactionSync: the answer is the pre-confirmed receipt (~200 ms),
//      good enough to show the user "done, pending finality";
//   2. keep its signed bytes until the receipt comes from a sealed block (a real blockHash);
//   3. if the receipt disappears meanwhile, the pre-confirmation was dropped: if the node still has
//      the transaction (eth_getTransactionByHash), wait for it; if not, send the same signed bytes
//      again. The same nonce means it can never land twice.
// Nothing here is pcnode-only: on Base it runs the same (pcnode_transactionStatus only adds the
// reason to the log, when the node has the method).
//
// The transfers have fixed fields (nonce from the node, fixed fees and gas), so on a fresh node the
// same transactions are sent on every run and --preconf-seed drops the same ones.
import { pathToFileURL } from 'node:url'
import { createPublicClient, defineChain, http, keccak256, parseGwei, zeroHash } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

/** The first key of the default mnemonic (`test test … junk`): pcnode's dev account 0. */
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
/** How often the app looks at the receipt until its block is sealed (Base seals every 2 s). */
const POLL_MS = 100
/** How long it waits for one transfer to be sealed before giving up. */
const SEAL_TIMEOUT_MS = 60_000

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const short = (hash) => `${hash.slice(0, 10)}…`

/**
 * Sends and follows the transfers; resolves with what happened. `log` gets the lines a user sees.
 */
export async function run({ rpcUrl = 'http://127.0.0.1:8545', count = 10, privateKey = DEV_KEY, log = console.log } = {}) {
  const transport = http(rpcUrl, { retryCount: 0 })
  const probe = createPublicClient({ transport })
  const chain = defineChain({
    id: await probe.getChainId(),
    name: 'pcnode',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    experimental_preconfirmationTime: 200, // viem reads at "pending", as on Base
  })
  const client = createPublicClient({ chain, transport })
  const account = privateKeyToAccount(privateKey)
  const transfers = []

  for (let i = 0; i < count; i++) {
    const nonce = await client.getTransactionCount({ address: account.address, blockTag: 'pending' })
    const raw = await account.signTransaction({
      chainId: chain.id,
      type: 'eip1559',
      nonce,
      to: RECIPIENT,
      value: 1000n + BigInt(i),
      gas: 21_000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: parseGwei('1'),
    })
    const label = `transfer ${i + 1}/${count}`
    const t0 = performance.now()
    const pre = await sendSync(client, raw)
    const hash = pre.transactionHash
    log(`${label}  ${short(hash)}  pre-confirmed in ${Math.round(performance.now() - t0)} ms (block ${pre.blockNumber})`)
    const record = { hash, drops: 0, block: undefined }
    transfers.push(record)

    // Until the receipt comes from a sealed block.
    const deadline = Date.now() + SEAL_TIMEOUT_MS
    for (;;) {
      if (Date.now() > deadline) throw new Error(`${label} ${hash} was not sealed within ${SEAL_TIMEOUT_MS} ms`)
      const receipt = await client.getTransactionReceipt({ hash }).catch(() => null)
      if (receipt && receipt.blockHash !== zeroHash) {
        record.block = receipt.blockNumber
        log(`${' '.repeat(label.length)}  sealed in block ${receipt.blockNumber}`)
        break
      }
      if (!receipt) {
        // The pre-confirmation is gone. Still known to the node (back in its pool)? Then wait.
        const known = await client.getTransaction({ hash }).catch(() => null)
        if (!known) {
          record.drops++
          const why = await reason(client, hash)
          log(`${' '.repeat(label.length)}  dropped: its receipt is gone${why}; sending it again`)
          const again = await sendSync(client, raw)
          log(`${' '.repeat(label.length)}  pre-confirmed again (block ${again.blockNumber})`)
        }
      }
      await sleep(POLL_MS)
    }
  }
  const dropped = transfers.reduce((n, t) => n + t.drops, 0)
  log(
    `${transfers.length} transfers sealed; ${dropped} pre-confirmation${dropped === 1 ? ' was' : 's were'} dropped and sent again.`,
  )
  return { sealed: transfers.length, dropped, transfers }
}

/**
 * eth_sendRawTransactionSync: the pre-confirmed receipt. "already known" (the node kept it after a
 * drop) or a timeout: poll for the receipt instead.
 */
async function sendSync(client, raw) {
  try {
    return await client.sendRawTransactionSync({ serializedTransaction: raw, throwOnReceiptRevert: true })
  } catch (error) {
    if (!/already known|wasn't confirmed within/.test(error.details ?? error.message)) throw error
    const hash = keccak256(raw)
    for (;;) {
      const receipt = await client.getTransactionReceipt({ hash }).catch(() => null)
      if (receipt) return receipt
      await sleep(POLL_MS)
    }
  }
}

/** pcnode's reason for a drop, when the node has pcnode_transactionStatus (Base does not). */
async function reason(client, hash) {
  try {
    const status = await client.request({ method: 'pcnode_transactionStatus', params: [hash] })
    return status.status === 'dropped' ? ` (pcnode: ${status.reason})` : ''
  } catch {
    return ''
  }
}

function flag(name, fallback) {
  const i = process.argv.indexOf(name)
  return i > 0 ? process.argv[i + 1] : fallback
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const json = process.argv.includes('--json')
  run({
    rpcUrl: flag('--rpc-url', 'http://127.0.0.1:8545'),
    count: Number(flag('--count', '10')),
    log: json ? () => {} : console.log,
  }).then(
    (result) => {
      if (json) console.log(JSON.stringify(result, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)))
    },
    (error) => {
      console.error(`preconf-fallback: ${error.message}`)
      process.exit(1)
    },
  )
}
