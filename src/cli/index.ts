// The pcnode command line. Subcommands are thin: parse flags, call the library or a JSON-RPC
// endpoint, format the answer (human text, or --json for scripts).
import { Command } from 'commander'
import { registerEstimate } from './estimate.js'
import { registerSend } from './send.js'
import { registerSimulate } from './simulate.js'
import { registerStart } from './start.js'
import { registerTrace } from './trace.js'
import { typedDataCommand } from './typed-data.js'
import { registerTypedDataApp } from './typed-data-app.js'
import { walletCommand } from './wallet.js'

const program = new Command()
program.name('pcnode').description('A local devnet imitating a Flashblocks-style pre-confirmation L2 node').version('0.1.0')
registerStart(program)
registerSimulate(program)
registerEstimate(program)
walletCommand(program)
typedDataCommand(program)
registerTypedDataApp(program) // typed-data prepare / verify (the example app)
registerSend(program)
registerTrace(program)

program.parseAsync(process.argv).catch((error) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
