// Tests of the shared transport (dsh-web/provider-http) as each search provider
// uses it, against its own fixtures on a real loopback server. A provider's
// spec calls these inside its own `describe`, next to the tests that are its alone.
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { WebError } from 'dsh-web'
import type { ModelSearchProvider, ModelSearchSettings } from 'dsh-provider-kit'
import type { FixtureServer } from './fixture-server.js'
import { call, rejection, type ProviderFor } from './provider-harness.js'

export interface HttpSubject {
  server: FixtureServer
  providerFor: ProviderFor<ModelSearchSettings, ModelSearchProvider>
  /** The key `providerFor` resolves; it must never show in an error. */
  testKey: string
  fixtures: {
    /** A 429 with `retry-after: 1`. */
    rateLimited: string
    /** A good answer with four sources. */
    multiResult: string
    /** HTTP 200 with an HTML page. */
    proxyHtml200: string
    /** HTTP 200 with JSON cut short. */
    truncated: string
  }
  /** The first bytes of a good answer, sent before the socket is destroyed. */
  bodyPrefix: string
}

export interface ErrorAnswerCase {
  fixture: string
  code: string
  status: number
  /** What of the provider's own message the error must quote. */
  quote: string
  retried: boolean
}

/** One test per fixture: the code, the status, the quote, and whether it was retried (twice, after 500 and 1000 ms). */
export function itMapsErrorAnswers(subject: HttpSubject, cases: readonly ErrorAnswerCase[]): void {
  const { server } = subject
  for (const entry of cases) {
    it(`${entry.fixture}: ${entry.code}, ${entry.retried ? 'retried twice' : 'not retried'}, quoting the provider`, async () => {
      server.reply(entry.fixture, entry.fixture, entry.fixture)
      const { provider, waits } = subject.providerFor(server)
      const error = await rejection(provider.search({ query: 'q' }, call()))
      assert.ok(WebError.is(error))
      assert.equal(error.code, entry.code)
      assert.equal(error.details.status, entry.status)
      assert.ok(error.message.includes(entry.quote), error.message)
      assert.equal(error.retryable, entry.retried)
      assert.equal(server.requests.length, entry.retried ? 3 : 1)
      assert.deepEqual(waits, entry.retried ? [500, 1000] : [])
      assert.ok(!JSON.stringify(error.toJSON()).includes(subject.testKey))
      assert.ok(!error.message.includes('<html'), 'proxy HTML is not quoted')
      await provider.close()
    })
  }
}

/** A 429 is retried after its retry-after, but never past the caller's deadline, and an abort ends the wait. */
export function itRetriesWithinTheDeadline(subject: HttpSubject): void {
  const { server, fixtures } = subject

  it('429 then success: one retry after retry-after, same body, the result returned', async () => {
    server.reply(fixtures.rateLimited, fixtures.multiResult)
    const { provider, waits } = subject.providerFor(server)
    const result = await provider.search({ query: 'q' }, call())
    assert.equal(result.sources.length, 4)
    assert.equal(server.requests.length, 2)
    assert.equal(server.requests[1]!.body, server.requests[0]!.body)
    assert.deepEqual(waits, [1000])
    await provider.close()
  })

  it("a retry-after that ends after the caller's deadline (call.deadline) is not waited for", async () => {
    server.reply(fixtures.rateLimited, fixtures.multiResult)
    const { provider, waits } = subject.providerFor(server, { timeoutMs: 60_000 })
    const error = await rejection(provider.search({ query: 'q' }, { signal: new AbortController().signal, deadline: Date.now() + 500 }))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 1000)
    assert.equal(server.requests.length, 1)
    assert.deepEqual(waits, [])
    server.reset()
    server.reply(fixtures.rateLimited, fixtures.multiResult)
    await provider.search({ query: 'q' }, { signal: new AbortController().signal, deadline: Date.now() + 30_000 })
    assert.equal(server.requests.length, 2, 'within the deadline the wait is taken and the retry sent')
    assert.deepEqual(waits, [1000])
    await provider.close()
  })

  it('an abort during the retry wait ends the search with WEB_ABORTED and no further request', async () => {
    server.reply(fixtures.rateLimited, fixtures.multiResult)
    const controller = new AbortController()
    const { provider } = subject.providerFor(server, {}, {
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason), { once: true })
          controller.abort()
        }),
    })
    const error = await rejection(provider.search({ query: 'q' }, { signal: controller.signal }))
    assert.equal(error.code, 'WEB_ABORTED')
    assert.equal(server.requests.length, 1)
    await provider.close()
  })
}

/** A 2xx body that cannot be read is WEB_PROVIDER_BAD_RESPONSE, never retried. */
export function itRefusesUnreadableAnswers(subject: HttpSubject): void {
  const { server, fixtures } = subject

  it('a 200 that is not JSON (proxy HTML) is WEB_PROVIDER_BAD_RESPONSE, not retried', async () => {
    server.reply(fixtures.proxyHtml200)
    const { provider } = subject.providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_BAD_RESPONSE')
    assert.equal(error.details.contentType, 'text/html')
    assert.equal(server.requests.length, 1)
    await provider.close()
  })

  it('a redirect whose Location is not a URL is WEB_PROVIDER_BAD_RESPONSE (it used to escape as a TypeError)', async () => {
    server.replyWith((_request, response) => {
      response.writeHead(302, { location: 'http://[not-an-address/v1' })
      response.end()
    })
    const { provider } = subject.providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_BAD_RESPONSE')
    assert.equal(error.retryable, false)
    assert.match(error.message, /Location header that is not a URL/)
    assert.equal(server.requests.length, 1)
    await provider.close()
  })

  it('a truncated JSON body is WEB_PROVIDER_BAD_RESPONSE', async () => {
    server.reply(fixtures.truncated)
    const { provider } = subject.providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_BAD_RESPONSE')
    assert.match(error.message, /not JSON/)
    await provider.close()
  })

  it('a body cut off by a closed socket is WEB_PROVIDER_BAD_RESPONSE', async () => {
    server.replyWith((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' })
      response.write(subject.bodyPrefix)
      setImmediate(() => response.socket?.destroy())
    })
    const { provider } = subject.providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_BAD_RESPONSE')
    assert.match(error.message, /cut off/)
    await provider.close()
  })

  it('an answer nested thousands of levels deep is WEB_PROVIDER_BAD_RESPONSE saying so (its walks overflowed the stack: INTERNAL_ERROR)', async () => {
    // A good answer's start, one entry nested 20,000 levels deep (objects and arrays in turn), and the closers of what the start opened.
    const depth = 10_000
    const body = subject.bodyPrefix + '{"a":['.repeat(depth) + ']}'.repeat(depth) + closersOf(subject.bodyPrefix)
    server.reply({ status: 200, headers: { 'content-type': 'application/json' }, rawBody: body })
    const { provider } = subject.providerFor(server, { maxResponseBytes: 1024 * 1024 })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.ok(WebError.is(error), `a WebError, not ${error?.name}: ${error?.message}`)
    assert.equal(error.code, 'WEB_PROVIDER_BAD_RESPONSE')
    assert.match(error.message, /nested more than \d+ levels deep/)
    assert.equal(error.retryable, false)
    assert.equal(server.requests.length, 1)
    await provider.close()
  })

  it('a body over maxResponseBytes is WEB_PROVIDER_BAD_RESPONSE naming the limit', async () => {
    server.reply(fixtures.multiResult)
    const { provider } = subject.providerFor(server, { maxResponseBytes: 256 })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_BAD_RESPONSE')
    assert.equal(error.details.limit, 256)
    await provider.close()
  })
}

/** Cancelling while the server holds the answer closes the socket and is not retried. */
export function itAbortsWhileWaiting(subject: HttpSubject): void {
  const { server } = subject

  it('an abort while waiting for the answer closes the socket: WEB_ABORTED, no retry', async () => {
    const controller = new AbortController()
    let closed!: Promise<void>
    server.replyWith((request, response) => {
      closed = new Promise((resolve) => response.on('close', () => resolve()))
      void request
      controller.abort()
    })
    const { provider, waits } = subject.providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, { signal: controller.signal }))
    assert.equal(error.code, 'WEB_ABORTED')
    await closed
    assert.equal(server.requests.length, 1)
    assert.deepEqual(waits, [])
    await provider.close()
  })
}

/** The brackets and braces that close what a JSON prefix opened, innermost first. */
function closersOf(prefix: string): string {
  const open: string[] = []
  let inString = false
  for (let index = 0; index < prefix.length; index++) {
    const char = prefix[index]
    if (inString) {
      if (char === '\\') index++
      else if (char === '"') inString = false
    } else if (char === '"') inString = true
    else if (char === '{' || char === '[') open.push(char === '{' ? '}' : ']')
    else if (char === '}' || char === ']') open.pop()
  }
  return open.reverse().join('')
}
