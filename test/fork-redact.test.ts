// Upstream URLs as pcnode prints them: no API key in a banner, a log line or an error.
import { describe, expect, it } from 'vitest'
import { redactUrl } from '../src/node/fork/redact.js'

describe('redactUrl', () => {
  it.each([
    ['https://base-mainnet.g.alchemy.com/v2/aBcD1234eFgH5678iJkL9012', 'https://base-mainnet.g.alchemy.com/v2/***'],
    ['https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef', 'https://mainnet.infura.io/v3/***'],
    ['https://rpc.example.com/?apikey=secret&x=1', 'https://rpc.example.com/?apikey=***&x=***'],
    ['https://user:pass@rpc.example.com/rpc', 'https://***@rpc.example.com/rpc'],
    ['https://mainnet.base.org', 'https://mainnet.base.org/'],
    ['http://127.0.0.1:8545/', 'http://127.0.0.1:8545/'],
    ['not a url', '<invalid URL>'],
  ])('%s → %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown)
  })
})
