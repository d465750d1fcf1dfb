// The dispatcher's reply: results are stringified without a replacer (it makes V8 ~2× slower on
// big replies: traces, simulations); a bigint a handler lets through still goes out as a quantity.
import { describe, expect, it } from 'vitest'
import { Dispatcher } from '../src/rpc/dispatch.js'

describe('Dispatcher replies', () => {
  const dispatcher = new Dispatcher(
    {},
    {
      plain: () => ({ hash: '0x01', logs: [] }),
      big: () => 10n,
      nested: () => ({ gas: [0n, 255n], note: 'x' }),
      nothing: () => undefined,
    },
  )
  const call = (method: string) => dispatcher.handle(JSON.stringify({ jsonrpc: '2.0', id: 7, method }))

  it('sends JSON results as they are, and bigints anywhere in a result as hex quantities', async () => {
    expect(await call('plain')).toBe('{"jsonrpc":"2.0","id":7,"result":{"hash":"0x01","logs":[]}}')
    expect(await call('big')).toBe('{"jsonrpc":"2.0","id":7,"result":"0xa"}')
    expect(await call('nested')).toBe('{"jsonrpc":"2.0","id":7,"result":{"gas":["0x0","0xff"],"note":"x"}}')
    expect(await call('nothing')).toBe('{"jsonrpc":"2.0","id":7,"result":null}')
  })
})
