// `pcnode start`'s activity log for the built-in bundler's user operations, beside the transactions'
// lines (start-log.ts): received, bundled into a handleOps transaction, pre-confirmed, sealed with
// the op's outcome, refused with its ERC-7769 code, replaced, dropped. At -q only what went wrong
// stays: refusals, drops and ops whose call failed, as for transactions.
import type { ChalkInstance } from 'chalk'
import type { NodeEvents } from '../node/events.js'

/** `userop` lines from the node's userOp events; `log` queues a line as start-log.ts does. */
export function followUserOps(chalk: ChalkInstance, events: NodeEvents, log: (line: () => string) => void, all: boolean): void {
  events.on('userOp', (e) => {
    switch (e.kind) {
      case 'received':
        if (all) {
          const how = e.restored ? 'restored from the state file' : 'received'
          log(() => `userop ${e.hash} from ${e.sender} ${how} (EntryPoint v${e.version})`)
        }
        return
      case 'bundled':
        if (all) for (const hash of e.hashes) log(() => `userop ${hash} bundled into tx ${hex(e.txHash)}`)
        return
      case 'preconfirmed':
        if (all) log(() => `userop ${e.hash} pre-confirmed in block #${e.blockNumber}, flashblock ${e.flashblockIndex}`)
        return
      case 'sealed': {
        const outcome = e.success ? 'ok' : `${chalk.red('failed')}: ${e.reason}`
        if (all) log(() => `userop ${e.hash} sealed in block #${e.blockNumber}: ${outcome}`)
        else if (!e.success) log(() => `userop ${e.hash} in block #${e.blockNumber} ${outcome}`)
        return
      }
      case 'refused': {
        const which = e.hash ? `userop ${e.hash}` : `a userop from ${e.sender}`
        log(() => `${chalk.red('refused')} ${which} (${e.code}): ${e.reason}`)
        return
      }
      case 'replaced':
        if (all) log(() => `userop ${e.hash} replaced by ${e.by}`)
        return
      case 'dropped':
        log(() => `${chalk.red('drop')}  userop ${e.hash}: ${e.reason}`)
        return
    }
  })
}

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`
