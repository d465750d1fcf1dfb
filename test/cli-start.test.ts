// `pcnode start` as a user runs it (the built CLI): a start that fails says why and exits at once.
import { createServer, type Server } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pcnode } from './cli.js'

describe('pcnode start', () => {
  let busy: Server
  let port: number
  beforeAll(async () => {
    busy = createServer()
    await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done))
    port = (busy.address() as { port: number }).port
  })
  afterAll(() => new Promise<void>((done) => busy.close(() => done())))

  for (const mode of [['--silent'], ['--json'], []]) {
    it(`exits 98 at once on a port in use (${mode.join(' ') || 'spinner'})`, async () => {
      // The runner kills it after 20 s (code -1): a start that hangs fails here.
      const run = await pcnode(['start', '--port', String(port), '--no-app', ...mode], 20_000)
      expect(run.code).toBe(98)
      expect(`${run.stdout}${run.stderr}`).toMatch(/pcnode failed to start: .*EADDRINUSE/)
    })
  }
})
