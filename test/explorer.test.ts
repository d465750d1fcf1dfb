// The explorer page the node serves at GET / (src/explorer/), in Debian's Chromium through Playwright, against a
// real node: a new block arrives live, and the flashblocks with the transactions each pre-confirmed; a transfer
// from a dev account is found through the search box and shows its from, to, value and status; a reverted call
// shows its reason; a contract creation its created address, its internal call, its logs and state changes, and
// the contract's creator; an ERC-20 transfer its decoded input and log; a pre-confirmation a fault dropped shows
// as dropped, with why, and its stages' times; halts, resumes, restarts and reorgs are listed as they happen; a
// transaction's console.log lines are shown; a Multicall3 call is decoded; a user operation is found by its hash; a 375 px phone screen scrolls no sideways; the
// page logs no error and every request it makes goes to the node's own origin. With PCNODE_SCREENSHOTS=1 it
// writes the screenshots docs/explorer.md shows (docs/img/explorer-*.png). With fetch: the page's headers
// (strict CSP), other GETs and POST JSON-RPC as before, and `explorer: false` answering GET / with the old text.
// Without /usr/bin/chromium or playwright-core the browser part is skipped, saying why.
// (page callbacks run in the browser; this file is type-checked without the DOM lib, hence `(globalThis as any).document`.)
import type { Page } from 'playwright-core'
import { encodeFunctionData, erc1155Abi, getContractAddress, type Hex, keccak256, multicall3Abi, parseEther, toHex } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { b20Abi } from '../src/index.js'
import { chromiumUnavailable } from './chromium.js'
import { creatorInitCode, revertingContract, screenshot, sendFirst7702Op, startCli } from './explorer-helpers.js'
import { useExplorerPage } from './explorer-page.js'
import { erc20Abi, erc20Bytecode } from './fixtures/erc20.js'
import { traceRootAbi, traceRootBytecode } from './fixtures/tracing.js'
import { emitterInitCode, poll, startTestNode, useTestNode } from './helpers.js'

const OLD_TEXT = 'pcnode JSON-RPC endpoint: POST JSON-RPC 2.0 requests here (WebSocket on the same port).\n'

const skipReason = chromiumUnavailable()
if (skipReason) console.warn(`explorer browser tests skipped: ${skipReason}`)

describe('the explorer page over fetch', () => {
  const node = useTestNode()

  it('answers GET / and /index.html with the page under a strict CSP', async () => {
    for (const path of ['/', '/index.html']) {
      const res = await fetch(`${node.rpcUrl}${path}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      const csp = res.headers.get('content-security-policy') ?? ''
      expect(csp).toContain("default-src 'self'")
      expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/)
      expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${node.port}`)
      expect(csp).toContain('img-src data:')
      expect(csp).not.toContain('unsafe-eval')
      const html = await res.text()
      expect(html).toContain('<title>pcnode explorer</title>')
      expect(html).not.toMatch(/https?:\/\//)
    }
  })

  it('keeps the old text on other GETs and JSON-RPC on POST', async () => {
    const other = await fetch(`${node.rpcUrl}/other`)
    expect(other.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(await other.text()).toBe(OLD_TEXT)
    const answer = await node.rpc('eth_chainId')
    expect(answer).toEqual({ jsonrpc: '2.0', id: expect.any(Number), result: '0x7a69' })
  })

  it('answers the old text at GET / with explorer: false', async () => {
    const off = await startTestNode({ explorer: false })
    try {
      const res = await fetch(`${off.rpcUrl}/`)
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8')
      expect(res.headers.get('content-security-policy')).toBeNull()
      expect(await res.text()).toBe(OLD_TEXT)
      expect((await off.rpc('eth_chainId')).result).toBe('0x7a69')
    } finally {
      await off.stop()
    }
  })

  it('pcnode start prints the page in its banner, and --no-explorer turns it off', async () => {
    const started = await Promise.allSettled([startCli([]), startCli(['--no-explorer'])])
    try {
      const [on, off] = started.map((s) => {
        if (s.status === 'rejected') throw s.reason
        return s.value
      })
      expect(on.banner).toContain(`Explorer   ${on.rpcUrl}/`)
      expect((await fetch(`${on.rpcUrl}/`)).headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(off.banner).not.toContain('Explorer')
      const res = await fetch(`${off.rpcUrl}/`)
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8')
      expect(await res.text()).toBe(OLD_TEXT)
    } finally {
      for (const s of started) if (s.status === 'fulfilled') s.value.child.kill('SIGKILL')
    }
  }, 120_000)

  it('refuses the page to another site, as any request (the origin rules are unchanged)', async () => {
    const res = await fetch(`${node.rpcUrl}/`, { headers: { origin: 'https://evil.example' } })
    expect(res.status).toBe(403)
  })
})

describe.skipIf(skipReason !== undefined)(`the explorer page in Chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const node = useTestNode({ blockTime: 1000, preconfInterval: 200 })
  const explorer = useExplorerPage(node)
  const { waitForText, searchFor } = explorer
  let page: Page
  beforeAll(() => {
    page = explorer.page
  })

  it('shows new blocks arriving live and the open block filling with flashblocks', async () => {
    await waitForText('#live', /^live$/)
    const first = Number(await page.getAttribute('#blocks li', 'data-number'))
    await page.waitForFunction(
      (n) => Number((globalThis as any).document.querySelector('#blocks li')?.dataset.number) > n,
      first,
      { timeout: 60_000, polling: 50 },
    )
    expect(await page.textContent('#blocks li')).toMatch(/#\d+.*\d+ txs.*\d+ gas/)
    await waitForText('#flash-list', /flashblock \d+\s*\d+ txs/)
    // The timeline: the flashblock that pre-confirmed a transfer links it; once its block sealed and the
    // next one opened, that block's timeline moves below, marked sealed, the transfer still in it.
    const hash = await node.wallet(8).sendTransaction({ to: node.accounts[9].address, value: 1n })
    await page.waitForSelector(`#flash-list a[href="#tx/${hash}"]`, { timeout: 60_000 })
    expect(await page.textContent('#flash-list')).toMatch(/flashblock \d+\s*\d+ txs.*\d{2}:\d{2}:\d{2}\.\d{3}/)
    const { blockNumber } = await node.publicClient.waitForTransactionReceipt({ hash })
    await page.waitForFunction(
      ([n, h]) => {
        const d = (globalThis as any).document
        return (
          new RegExp(`^block #${n} · sealed \\d{2}:\\d{2}:\\d{2}\\.\\d{3}$`).test(
            d.getElementById('flash-prev-block').textContent,
          ) && d.querySelector(`#flash-prev-list a[href="#tx/${h}"]`) !== null
        )
      },
      [String(blockNumber), hash] as const,
      { timeout: 60_000, polling: 20 },
    )
    await screenshot(page, 'blocks', 760, 560)
  }, 90_000)

  it('finds a transfer through the search box and shows from, to, value and status', async () => {
    const [from, to] = node.accounts
    const hash = await node.wallet(0).sendTransaction({ to: to.address, value: parseEther('1.5') })
    await node.publicClient.waitForTransactionReceipt({ hash })
    await searchFor(hash)
    const view = await waitForText('#view', /Status/)
    expect(await page.textContent('[data-field="From"]')).toBe(from.address.toLowerCase())
    expect(await page.textContent('[data-field="To"]')).toBe(to.address.toLowerCase())
    expect(await page.textContent('[data-field="Value"]')).toBe('1.5 ETH')
    expect(await page.textContent('[data-field="Status"]')).toMatch(/^(confirmed|preconfirmed) · success$/)
    expect(await page.textContent('[data-field="Flashblock"]')).toMatch(/^\d+$/)
    expect(view).toContain('L1 fee')
    expect(await page.textContent('#call-tree')).toMatch(/^CALL /)
    // The sender's address view lists the transfer (ots_searchTransactionsBefore) once its block is sealed
    // (the receipt above may be a pre-confirmation).
    await poll(
      () => node.publicClient.getTransactionCount({ address: from.address, blockTag: 'latest' }),
      (n) => n === 1,
      { timeoutMs: 60_000 },
    )
    await searchFor(from.address)
    await waitForText('#view', new RegExp(`Recent transactions.*${hash.slice(0, 10)}`))
    expect(await page.textContent('[data-field="Nonce"]')).toBe('1')
  }, 90_000)

  it("shows a contract creation's created address and a reverted call's reason", async () => {
    const wallet = node.wallet(2)
    const deploy = await wallet.sendTransaction({ data: revertingContract(), gas: 200_000n })
    const created = await node.publicClient.waitForTransactionReceipt({ hash: deploy })
    expect(created.status).toBe('success')
    await searchFor(deploy)
    await waitForText('[data-field="Created"]', new RegExp(`^${created.contractAddress}$`, 'i'))
    const call = await wallet.sendTransaction({ to: created.contractAddress as `0x${string}`, data: toHex('hi'), gas: 100_000n })
    const reverted = await node.publicClient.waitForTransactionReceipt({ hash: call })
    expect(reverted.status).toBe('reverted')
    await searchFor(call)
    await waitForText('#revert-reason', /explorer says no/)
    expect(await page.textContent('[data-field="Status"]')).toMatch(/reverted$/)
  }, 90_000)

  it('shows a contract creation with its internal call, its logs, its state changes and, on its address, its creator', async () => {
    const wallet = node.wallet(3)
    const from = node.accounts[3].address
    const nonce = await node.publicClient.getTransactionCount({ address: from, blockTag: 'pending' })
    const emitter = getContractAddress({ from, nonce: BigInt(nonce) }).toLowerCase() as Hex
    await node.publicClient.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ data: emitterInitCode() }) })
    const hash = await wallet.sendTransaction({ data: creatorInitCode(emitter), value: 2n, gas: 300_000n })
    const receipt = await node.publicClient.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(receipt.logs).toHaveLength(2)
    await searchFor(hash)
    await waitForText('[data-field="Created"]', new RegExp(`^${receipt.contractAddress}$`, 'i'))
    // The call tree: the creation, and inside it the constructor's call to the emitter with 1 wei.
    const tree = await waitForText('#call-tree', /^CREATE /)
    const short = (a: string) => `${a.slice(0, 10)}…${a.slice(-8)}`
    const created = (receipt.contractAddress as string).toLowerCase()
    expect(tree).toContain(`CREATE ${short(from.toLowerCase())} → ${short(created)}`)
    expect(await page.textContent('#call-tree ul.tree li')).toMatch(
      new RegExp(`^CALL ${short(created)} → ${short(emitter)} · 0\\.000000000000000001 ETH`),
    )
    // Both logs: the emitter's Ping, then the constructor's Made().
    const view = await waitForText('#view', /Logs \(2\)/)
    expect(view).toContain(keccak256(toHex('Made()')))
    expect(view).toContain(keccak256(toHex('Ping(address,bytes)')))
    await screenshot(page, 'transaction', 640, 900, { from: '#view', to: '#call-tree' })
    // The state changes (prestateTracer diffMode): the new contract's code and the wei it passed on.
    const rows = await page.$$eval('#state-diff li', (items) => items.map((li) => li.textContent ?? ''))
    expect(rows.find((r) => r.startsWith(short(created)))).toMatch(/code 0 → 1 bytes/)
    expect(rows.find((r) => r.startsWith(short(emitter)))).toMatch(/balance 0 ETH → 0\.000000000000000001 ETH/)
    // The contract's page names its creator and the creating transaction (ots_getContractCreator), read
    // at "latest": once the creation's block is sealed (the receipt above may be a pre-confirmation).
    await poll(
      () => node.publicClient.getCode({ address: created as Hex, blockTag: 'latest' }),
      (code) => code !== undefined && code !== '0x',
      { timeoutMs: 60_000, what: 'the sealed creation' },
    )
    // Sealed now: the transaction's page gives the block's time.
    await searchFor(hash)
    const block = await node.publicClient.getBlock({ blockNumber: receipt.blockNumber })
    await waitForText('[data-field="Block time"]', new RegExp(`^${new Date(Number(block.timestamp) * 1000).toISOString()}$`))
    // Each stage's time (pcnode_transactionStatus's pooledAt, preconfirmedAt, sealedAt), in order.
    expect(await page.textContent('[data-field="Stages"]')).toMatch(/^pooled [\d:.]+ → pre-confirmed [\d:.]+ → sealed [\d:.]+$/)
    await searchFor(created)
    await waitForText('[data-field="Creator"]', new RegExp(`^${from}$`, 'i'))
    expect(await page.textContent('[data-field="Created by"]')).toBe(short(hash))
  }, 90_000)

  it("decodes a known call's input and its logs (an ERC-20 transfer)", async () => {
    const wallet = node.wallet(1)
    const holder = node.accounts[1].address
    const deploy = await wallet.deployContract({ abi: erc20Abi, bytecode: erc20Bytecode, args: [holder, 1000n] })
    const token = (await node.publicClient.waitForTransactionReceipt({ hash: deploy })).contractAddress as Hex
    const to = node.accounts[2].address
    const hash = await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [to, 5n] })
    await node.publicClient.waitForTransactionReceipt({ hash })
    await searchFor(hash)
    await waitForText('[data-field="Input"]', new RegExp(`^transfer\\(recipient: ${to}, amount: 5\\)$`, 'i'))
    expect((await page.textContent('#view .log .decoded'))?.toLowerCase()).toBe(
      `transfer(from: ${holder}, to: ${to}, value: 5)`.toLowerCase(),
    )
    // A preinstall's call (Multicall3's getEthBalance, sent as a transaction) is decoded by its ABI too.
    const multicall = await wallet.sendTransaction({
      to: '0xcA11bde05977b3631167028862bE2a173976CA11',
      data: encodeFunctionData({ abi: multicall3Abi, functionName: 'getEthBalance', args: [to] }),
    })
    await node.publicClient.waitForTransactionReceipt({ hash: multicall })
    await searchFor(multicall)
    await waitForText('[data-field="Input"]', new RegExp(`^getEthBalance\\(addr: ${to}\\)$`, 'i'))
    // Dynamic arguments through their offsets: a string (B20's updateName), arrays (ERC-1155's balanceOfBatch).
    const dynamic = [
      encodeFunctionData({ abi: b20Abi, functionName: 'updateName', args: ['Hello, ünïcode'] }),
      encodeFunctionData({
        abi: erc1155Abi,
        functionName: 'balanceOfBatch',
        args: [
          [holder, to],
          [1n, 2n],
        ],
      }),
    ]
    const expected = [
      /^updateName\(newName: "Hello, ünïcode"\)$/,
      new RegExp(`^balanceOfBatch\\(accounts: \\[${holder}, ${to}\\], ids: \\[1, 2\\]\\)$`, 'i'),
    ]
    for (const [i, data] of dynamic.entries()) {
      const sent = await wallet.sendTransaction({ to, data })
      await node.publicClient.waitForTransactionReceipt({ hash: sent })
      await searchFor(sent)
      await waitForText('[data-field="Input"]', expected[i])
    }
  }, 90_000)

  it('shows the console.log lines a transaction printed', async () => {
    const wallet = node.wallet(3)
    const deploy = await wallet.sendTransaction({ data: traceRootBytecode, gas: 3_000_000n, value: 10n })
    const root = (await node.publicClient.waitForTransactionReceipt({ hash: deploy })).contractAddress as Hex
    const hash = await wallet.sendTransaction({
      to: root,
      data: encodeFunctionData({ abi: traceRootAbi, functionName: 'shout', args: [42n] }),
    })
    await node.publicClient.waitForTransactionReceipt({ hash })
    await searchFor(hash)
    await waitForText('#console-log', new RegExp(`^value 42 seen by ${root}$`, 'i'))
  }, 90_000)

  it('shows a pre-confirmation a fault dropped as dropped, with where it was and why', async () => {
    expect((await node.rpc('pcnode_setPreconfFaults', [{ dropRate: 1, seed: 1 }])).error).toBeUndefined()
    let hash: Hex
    let status: { blockNumber: Hex }
    try {
      hash = await node.wallet(4).sendTransaction({ to: node.accounts[5].address, value: 1n })
      status = await poll(
        async () => (await node.rpc('pcnode_transactionStatus', [hash])).result,
        (s) => s?.status === 'dropped',
        { timeoutMs: 60_000, what: 'the drop' },
      )
    } finally {
      await node.rpc('pcnode_setPreconfFaults', [{ dropRate: 0 }])
    }
    // As it happened: the live feed saw it pre-confirmed, then its block sealed without it.
    await page.waitForSelector(`#drops-list a[href="#tx/${hash}"]`, { timeout: 60_000 })
    expect(await page.textContent('#drops-list li')).toContain(
      `pre-confirmed in block #${BigInt(status.blockNumber)}, left out of it`,
    )
    await searchFor(hash)
    await waitForText('[data-field="Status"]', /^dropped$/)
    expect(await page.textContent('[data-field="Reason"]')).toMatch(/^left out as block \d+ sealed \(drop rate 1, seed 1\)$/)
    expect(await page.textContent('[data-field="Pre-confirmed in"]')).toMatch(/^#\d+$/)
    expect(await page.textContent('[data-field="Afterwards"]')).toBe('discarded')
    expect(await page.textContent('[data-field="Stages"]')).toMatch(/^pooled [\d:.]+ → pre-confirmed [\d:.]+ → dropped [\d:.]+$/)
  }, 90_000)

  it('shows halts, resumes, restarts and reorgs as they happen', async () => {
    const fault = (pattern: RegExp) => waitForText('#drops-list li.fault', pattern)
    expect((await node.rpc('pcnode_haltFlashblocks')).result).toBe(true)
    await fault(/halt: flashblocks stop; blocks go on sealing, built whole; "pending" reads "latest"$/)
    expect((await node.rpc('pcnode_resumeFlashblocks')).result).toBe(true)
    await fault(/resume: flashblocks again, from flashblock 0 of the next block$/)
    expect((await node.rpc('pcnode_restartFlashblocks')).error).toBeUndefined()
    await fault(/restart: block \d+'s flashblock stream starts again \(payload 0x[0-9a-f]+, \d+ transactions, order \w+\)$/)
    expect((await node.rpc('anvil_reorg', [1, []])).error).toBeUndefined()
    await fault(/reorg: block \d+ replaced by anvil_reorg \(0x[0-9a-f]{64} -> 0x[0-9a-f]{64}\); .+$/)
  }, 90_000)

  it("finds a user operation by its hash and shows its sender, nonce and bundle (the node's bundler)", async () => {
    const { op, owner, receipt } = await sendFirst7702Op(node, 6, node.accounts[7].address)
    expect(receipt.success).toBe(true)
    await searchFor(op)
    await waitForText('[data-field="Sender"]', new RegExp(`^${owner.address}$`, 'i'))
    expect(await page.textContent('[data-field="Status"]')).toBe('success')
    expect(await page.textContent('[data-field="Nonce"]')).toBe(String(receipt.nonce))
    // Its life in the bundler, from pcnode_userOperationStatus, in order.
    expect(await page.textContent('[data-field="Stages"]')).toMatch(/^received [\d:.]+ → bundled [\d:.]+ → pre-confirmed [\d:.]+/)
    const bundle = receipt.receipt.transactionHash
    expect(await page.textContent('[data-field="Bundle"]')).toBe(`${bundle.slice(0, 10)}…${bundle.slice(-8)}`)
    // The bundle's link leads to the transaction that carried it.
    await page.click('[data-field="Bundle"] a')
    await waitForText('[data-field="Hash"]', new RegExp(`^${bundle}$`))
  }, 90_000)

  it('finds a block by number and fits a 375 px screen without horizontal scroll', async () => {
    await searchFor('1')
    await waitForText('#view', /^Block #1/)
    await page.setViewportSize({ width: 375, height: 812 })
    expect(await page.textContent('#blocks li a')).toMatch(/^#\d+$/)
    // The widest views: a transaction with its call tree, and an address.
    await searchFor(node.accounts[0].address)
    await waitForText('#view', /Recent transactions/)
    const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)
    expect(width).toBeLessThanOrEqual(375)
    await screenshot(page, 'phone', 375, 720)
  }, 90_000)

  it('under the ethereum profile shows blocks and no flashblocks section', async () => {
    const eth = await startTestNode({ profile: 'ethereum', blockTime: 500 })
    const context = await explorer.browser.newContext({ viewport: { width: 375, height: 812 } })
    try {
      const other = await context.newPage()
      const logged: string[] = []
      other.on('console', (m) => {
        if (m.type() === 'error') logged.push(m.text())
      })
      other.on('pageerror', (e) => logged.push(e.message))
      await other.goto(`${eth.rpcUrl}/`)
      await other.waitForFunction(
        () => ((globalThis as any).document.querySelectorAll('#blocks li').length ?? 0) >= 3,
        undefined,
        { timeout: 60_000, polling: 50 },
      )
      expect(await other.textContent('#live')).toBe('live')
      expect(await other.isHidden('#flash')).toBe(true)
      expect(logged).toEqual([])
    } finally {
      await context.close()
      await eth.stop()
    }
  }, 90_000)

  it('under the base profile (Denim) shows each block to the millisecond and no flashblocks section', async () => {
    const base = await startTestNode({ profile: 'base' })
    const context = await explorer.browser.newContext({ viewport: { width: 375, height: 812 } })
    try {
      const other = await context.newPage()
      const logged: string[] = []
      other.on('pageerror', (e) => logged.push(e.message))
      await other.goto(`${base.rpcUrl}/`)
      await other.waitForFunction(
        () => ((globalThis as any).document.querySelectorAll('#blocks li').length ?? 0) >= 5,
        undefined,
        { timeout: 60_000, polling: 50 },
      )
      // Five blocks a second: each row's time carries its milliseconds (.000 … .800).
      // Genesis has no BaseTime deposit, so no milliseconds.
      const times = await other.$$eval('#blocks li:not([data-number="0"]) .muted', (spans) =>
        spans.map((s) => s.textContent ?? ''),
      )
      expect(times.length).toBeGreaterThanOrEqual(4)
      for (const t of times) expect(t).toMatch(/\d\.(000|200|400|600|800)$/)
      const number = await other.getAttribute('#blocks li', 'data-number')
      const block = (await base.rpc('eth_getBlockByNumber', [`0x${Number(number).toString(16)}`, false])).result
      await other.fill('#q', String(number))
      await other.click('#search button')
      await other.waitForSelector('#view dd[data-field="Time"]')
      expect(await other.textContent('#view dd[data-field="Time"]')).toBe(
        new Date(Number(BigInt(block.timestampMs))).toISOString(),
      )
      expect(await other.isHidden('#flash')).toBe(true)
      expect(logged).toEqual([])
    } finally {
      await context.close()
      await base.stop()
    }
  }, 90_000)

  it('logged no error and sent every request to the node itself', () => {
    explorer.expectQuietAndLocal()
    expect(explorer.requests).toContain(`ws://${new URL(node.rpcUrl).host}/`)
  })
})
