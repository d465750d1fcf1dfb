// `pcnode trace` (the built CLI) names what `cast run` would label: pcnode's genesis contracts
// (predeploys and preinstalls) by name, the calls, returns and events of the ABIs it has, and
// Solidity console.log calls as the line the node prints.
import { encodeFunctionData, erc20Abi, multicall3Abi, parseAbi } from 'viem'
import { describe, expect, it } from 'vitest'
import { BIN, runNode } from './cli.js'
import { useTestNode, waitForReceipt } from './helpers.js'

const pcnode = (args: string[]) => runNode([BIN], args, 120_000)
const WETH9 = '0x4200000000000000000000000000000000000006'
const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11'
const CONSOLE = '0x000000000000000000636F6e736F6c652e6c6f67'
const consoleAbi = parseAbi(['function log(string, uint256) view'])

describe('pcnode trace names what it knows', { timeout: 300_000 }, () => {
  const node = useTestNode({ blockTime: 400, preconfInterval: 50 })

  it('predeploys and preinstalls by name, decoded calls and returns, and console.log', async () => {
    const logCall = encodeFunctionData({ abi: consoleAbi, args: ['x is %d', 5n] })
    const aggregate = encodeFunctionData({
      abi: multicall3Abi,
      functionName: 'aggregate3',
      args: [
        [
          { target: WETH9, allowFailure: false, callData: encodeFunctionData({ abi: erc20Abi, functionName: 'symbol' }) },
          { target: CONSOLE, allowFailure: true, callData: logCall },
        ],
      ],
    })
    const call = await pcnode(['trace', '--to', MULTICALL3, '--data', aggregate, '--rpc-url', node.rpcUrl])
    expect(call.code, call.stderr).toBe(0)
    expect(call.stdout).toMatch(/^ {2}\[\d+\] MultiCall3::aggregate3\(\[\(target: 0x4200000000000000000000000000000000000006, /m)
    expect(call.stdout).toMatch(/├─ \[\d+\] WETH9::symbol\(\)/)
    expect(call.stdout).toContain('└─ ← [Return] "WETH"')
    expect(call.stdout).toMatch(/├─ \[\d+\] console::log\("x is 5"\)/)

    // A transaction: WETH9's transfer, with its event decoded.
    const wallet = node.wallet(2)
    const deposit = await wallet.sendTransaction({ to: WETH9, value: 10n, data: '0xd0e30db0' })
    await waitForReceipt(node, deposit)
    const transfer = await wallet.sendTransaction({
      to: WETH9,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [node.accounts[3].address, 4n] }),
    })
    await waitForReceipt(node, transfer)
    const tx = await pcnode(['trace', transfer, '--rpc-url', node.rpcUrl])
    expect(tx.code, tx.stderr).toBe(0)
    expect(tx.stdout).toContain(`WETH9::transfer(${node.accounts[3].address}, 4)`)
    expect(tx.stdout).toContain(`emit Transfer(from: ${node.accounts[2].address}, to: ${node.accounts[3].address}, value: 4)`)
    expect(tx.stdout).toContain('← [Return] true')

    // An OP predeploy stub: named, with its revert reason.
    const stub = await pcnode([
      'trace',
      '--to',
      '0x4200000000000000000000000000000000000007',
      '--data',
      '0x12345678',
      '--rpc-url',
      node.rpcUrl,
    ])
    expect(stub.code).toBe(1)
    expect(stub.stdout).toContain('L2CrossDomainMessenger::12345678()')
    expect(stub.stdout).toContain('← [Revert] Predeploy L2CrossDomainMessenger is not supported.')
  })
})
