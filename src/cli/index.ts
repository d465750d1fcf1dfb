// The pcnode command line. Subcommands are thin: parse flags, call the library or a JSON-RPC
// endpoint, format the answer (human text, or --json for scripts).
import { Command } from 'commander'
import { registerStart } from './start.js'

const program = new Command()
program.name('pcnode').description('A local devnet imitating a Flashblocks-style pre-confirmation L2 node').version('0.1.0')
registerStart(program)

program.parseAsync(process.argv).catch((error) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
