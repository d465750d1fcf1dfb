// State history pruning (src/node/pruning.ts): old blocks' trie nodes go, everything still
// reachable stays — the recent blocks, the live state, evm_snapshot's and anvil_reset's roots.
import { parseEther, toHex } from 'viem'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestNode, type TestNode, until } from './helpers.js'

const RECIPIENT = '0x00000000000000000000000000000000000b0b00'

describe('state history pruning', () => {
  let node: TestNode
  afterEach(() => node?.stop())

  async function transferAndMine(value: bigint): Promise<bigint> {
    const from = node.accounts[0].address
    const sent = await node.rpc('eth_sendTransaction', [{ from, to: RECIPIENT, value: toHex(value) }])
    expect(sent.error).toBeUndefined()
    expect((await node.rpc('evm_mine')).error).toBeUndefined()
    return BigInt((await node.rpc('eth_blockNumber')).result)
  }

  const balanceAt = (block: bigint | string) =>
    node.rpc('eth_getBalance', [RECIPIENT, typeof block === 'bigint' ? toHex(block) : block])

  it('deletes the state of blocks past the window, keeps the rest, and the node keeps working', async () => {
    node = await startTestNode({ mining: false, stateHistory: 16 })
    const early = await transferAndMine(1n)
    expect((await node.rpc('evm_mine')).error).toBeUndefined()
    const snapshot = (await node.rpc('evm_snapshot')).result // at early + 1
    const before = node.node.engine.nodes.map.size
    for (let i = 0; i < 4; i++) {
      expect((await node.rpc('anvil_mine', ['0x10'])).error).toBeUndefined()
      await node.node.pruner?.idle()
    }
    const head = await transferAndMine(2n)
    await node.node.pruner?.idle()

    expect(await balanceAt(early)).toMatchObject({
      error: {
        code: -32000,
        message: `state of block ${early} is not available (pcnode keeps the state of the last 16 blocks: --state-history)`,
      },
    })
    const earlyRoot = node.node.chain.blocks[Number(early)].header.stateRoot
    expect(node.node.engine.nodes.has(earlyRoot)).toBe(false)
    // Within the window, the live state, genesis (anvil_reset's) all answer.
    expect(BigInt((await balanceAt(head - 15n)).result)).toBe(1n)
    expect(BigInt((await balanceAt('latest')).result)).toBe(3n)
    expect(BigInt((await balanceAt('earliest')).result ?? -1n)).toBe(0n)
    // Each empty block writes system-contract storage: without pruning the store only grows.
    expect(node.node.engine.nodes.map.size).toBeLessThan(before + 60 * 8)
    // The whole live state is still there: a dump walks every node of it.
    expect((await node.rpc('anvil_dumpState')).error).toBeUndefined()

    // The snapshot's root was kept: reverting brings back its state, and the chain goes on from it.
    expect((await node.rpc('evm_revert', [snapshot])).result).toBe(true)
    expect(BigInt((await balanceAt('latest')).result)).toBe(1n)
    expect(BigInt((await balanceAt(early + 1n)).result)).toBe(1n)
    expect((await balanceAt(early)).error.code).toBe(-32000)
    const after = await transferAndMine(parseEther('1'))
    expect(BigInt((await balanceAt(after)).result)).toBe(parseEther('1') + 1n)
    expect((await node.rpc('anvil_reset')).error).toBeUndefined()
    expect(BigInt((await balanceAt('latest')).result)).toBe(0n)
  })

  it('prunes inside one long anvil_mine, not after it', async () => {
    node = await startTestNode({ mining: false, stateHistory: 16 })
    expect((await node.rpc('anvil_mine', ['0x20'])).error).toBeUndefined()
    await node.node.pruner?.idle()
    const before = node.node.engine.nodes.map.size
    expect((await node.rpc('anvil_mine', ['0x200'])).error).toBeUndefined()
    // Read as the call returns: a sweep waiting for the queue would only start now. An empty block
    // writes ~20 nodes, ~3 of which stay (the system contracts' ring buffers fill up).
    expect(node.node.engine.nodes.map.size).toBeLessThan(before + 512 * 6)
    const old = BigInt((await node.rpc('eth_blockNumber')).result) - 100n
    expect((await balanceAt(old)).error?.code).toBe(-32000)
  })

  it('a sweep waiting for the queue gives way to the sweeps inside a long anvil_mine', async () => {
    node = await startTestNode({ mining: false, stateHistory: 16 })
    expect((await node.rpc('anvil_mine', ['0x20'])).error).toBeUndefined()
    await node.node.pruner?.idle()
    const before = node.node.engine.nodes.map.size
    // Between two anvil_mine requests a sealed block starts a sweep; it needs the queue, which the
    // next request then holds for its whole run. Here: a task holds the queue while both queue up.
    const { queue } = node.node.engine
    let release = () => {}
    const holder = queue.run(() => new Promise<void>((resolve) => (release = resolve)))
    const sweep = node.node.pruner!.sweep()
    const mined = node.rpc('anvil_mine', ['0x200'])
    await until(() => queue.size === 3, 5000, 'anvil_mine queued behind the sweep')
    release()
    await holder
    expect((await mined).error).toBeUndefined()
    expect(node.node.engine.nodes.map.size).toBeLessThan(before + 512 * 6)
    // The replaced sweep answers with the result of the one that replaced it.
    expect((await sweep).deleted).toBeGreaterThan(0)
  })

  it("keeps a past head's unwritten edits while its block is in the window, and forgets them after", async () => {
    node = await startTestNode({ blockTime: 3_600_000, preconfInterval: 10, stateHistory: 16 })
    const pruner = node.node.pruner!
    // Edits the head, seals it and edits the new head, which leaves the past head's edits
    // unwritten (dev/edits.ts); then mines `after` blocks. Returns the past head's number.
    const pastHeadEdited = async (value: string, next: string, after: string): Promise<bigint> => {
      const head = BigInt((await node.rpc('eth_blockNumber')).result)
      expect((await node.rpc('anvil_setBalance', [RECIPIENT, value])).error).toBeUndefined()
      expect((await node.rpc('anvil_mine', ['0x1'])).error).toBeUndefined()
      expect((await node.rpc('anvil_setBalance', [RECIPIENT, next])).error).toBeUndefined()
      expect((await node.rpc('anvil_mine', [after])).error).toBeUndefined()
      return head
    }
    expect((await node.rpc('anvil_mine', ['0x20'])).error).toBeUndefined()
    const edited = await pastHeadEdited('0x7', '0x8', '0x4')
    await pruner.sweep()
    expect(BigInt((await balanceAt(edited)).result)).toBe(7n)
    // A second past head, never read: once its block leaves the window its edits are dropped, and
    // a read there is refused as any pruned block's.
    const unread = await pastHeadEdited('0x9', '0xa', '0x20')
    await pruner.sweep()
    for (const block of [edited, unread]) {
      expect((await balanceAt(block)).error).toMatchObject({ code: -32000, message: expect.stringContaining('--state-history') })
    }
    expect(BigInt((await balanceAt('latest')).result)).toBe(10n)
  })

  it('keeps every block with --state-history 0', async () => {
    node = await startTestNode({ mining: false, stateHistory: 0 })
    const early = await transferAndMine(5n)
    expect((await node.rpc('anvil_mine', ['0x40'])).error).toBeUndefined()
    expect(BigInt((await balanceAt(early)).result)).toBe(5n)
    expect(node.node.pruner).toBeUndefined()
  })

  it('sweeps while transactions execute without losing any', async () => {
    node = await startTestNode({ blockTime: 20, preconfInterval: 10, stateHistory: 16 })
    const pruner = node.node.pruner!
    let sweeps = 0
    const sweep = pruner.sweep.bind(pruner)
    pruner.sweep = () => {
      sweeps++
      return sweep()
    }
    const wallet = node.wallet(1)
    const hashes: `0x${string}`[] = []
    // Sends until two sweeps have started (one every 16 blocks of 20 ms), bounded; after every ten
    // a block is sealed, so the transactions spread over the blocks the sweeps run between.
    while ((sweeps < 2 || hashes.length < 30) && hashes.length < 1000) {
      hashes.push(await wallet.sendTransaction({ to: RECIPIENT, value: 1n, nonce: hashes.length }))
      if (hashes.length % 10 === 0) {
        const head = node.node.blockNumber()
        await until(() => node.node.blockNumber() > head, 5000, 'a block')
      }
    }
    expect(sweeps).toBeGreaterThanOrEqual(2)
    for (const hash of hashes) expect((await node.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')
    await pruner.idle()
    expect(BigInt((await balanceAt('latest')).result)).toBe(BigInt(hashes.length))
    expect((await node.rpc('anvil_dumpState')).error).toBeUndefined()
  })
})
