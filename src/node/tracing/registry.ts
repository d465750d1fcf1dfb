// Tracer names to tracers, as geth's DefaultDirectory resolves them (eth/tracers/dir.go): the
// native ones by name, the struct logger when no name is given, and anything else evaluated as a
// JavaScript tracer (so an unknown name fails as JavaScript: "ReferenceError: x is not defined").
import { NodeError } from '../errors.js'
import { CallTracer } from './call-tracer.js'
import { type TraceConfig, tracerFlags } from './config.js'
import { ConsoleTracer } from './console-tracer.js'
import { parseErc7562Config } from './erc7562-config.js'
import { Erc7562Tracer } from './erc7562-tracer.js'
import { FourByteTracer, NoopTracer } from './four-byte-tracer.js'
import { JsTracer } from './js-tracer.js'
import { PrestateTracer } from './prestate-tracer.js'
import { StructLogger } from './struct-logger.js'
import type { Tracer } from './tracer.js'

/** geth's other native tracers: named, so asking for one says so instead of failing as JavaScript. */
const NOT_SERVED = ['flatCallTracer', 'muxTracer', 'keccak256PreimageTracer', 'opcodeTracer']

export function createTracer(cfg: TraceConfig, deadline: () => number): Tracer {
  const name = cfg.tracer
  switch (name) {
    case undefined:
      return new StructLogger(cfg.logger)
    case 'callTracer':
      return new CallTracer(tracerFlags(cfg.tracerConfig, 'callTracerConfig', ['onlyTopCall', 'withLog'] as const))
    case 'prestateTracer':
      return new PrestateTracer(
        tracerFlags(cfg.tracerConfig, 'PrestateTracerConfig', [
          'diffMode',
          'disableCode',
          'disableStorage',
          'includeEmpty',
        ] as const),
      )
    // ERC-4337 bundlers' (rundler's, the eth-infinitism bundler's) validation collector.
    case 'erc7562Tracer':
      return new Erc7562Tracer(parseErc7562Config(cfg.tracerConfig))
    case '4byteTracer':
      return new FourByteTracer()
    case 'noopTracer':
      return new NoopTracer()
    // pcnode's own: the console.log lines (the explorer's transaction page asks for them).
    case 'consoleTracer':
      return new ConsoleTracer()
    default:
      if (NOT_SERVED.includes(name)) {
        throw new NodeError(
          `tracer ${name} is not served by pcnode (it serves callTracer, prestateTracer, erc7562Tracer, 4byteTracer, noopTracer, consoleTracer, the struct logger and JavaScript tracers)`,
        )
      }
      return new JsTracer(name, cfg.tracerConfig, deadline)
  }
}
