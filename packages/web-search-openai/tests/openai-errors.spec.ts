import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { WebError } from 'dsh-web'
import { FixtureServer } from './fixture-server.js'
import { call, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('openai: HTTP errors and retries', () => {
  let server: FixtureServer
  before(async () => {
    server = await FixtureServer.start()
  })
  after(() => server.close())
  beforeEach(() => server.reset())

  const cases = [
    { fixture: 'openai-401', code: 'WEB_PROVIDER_AUTH_FAILED', status: 401, quote: 'Incorrect API key provided', retried: false },
    { fixture: 'openai-403', code: 'WEB_PROVIDER_AUTH_FAILED', status: 403, quote: 'Country, region, or territory not supported', retried: false },
    { fixture: 'openai-429-quota', code: 'WEB_PROVIDER_QUOTA_EXHAUSTED', status: 429, quote: 'You exceeded your current quota', retried: false },
    { fixture: 'openai-400', code: 'WEB_PROVIDER_ERROR', status: 400, quote: "The requested model 'gpt-nope' does not exist.", retried: false },
    { fixture: 'openai-500', code: 'WEB_PROVIDER_ERROR', status: 500, quote: 'The server had an error', retried: true },
    { fixture: 'openai-503', code: 'WEB_PROVIDER_ERROR', status: 503, quote: 'currently overloaded', retried: true },
    { fixture: 'openai-502-proxy-html', code: 'WEB_PROVIDER_ERROR', status: 502, quote: 'not JSON, text/html', retried: true },
  ] as const

  for (const entry of cases) {
    it(`${entry.fixture}: ${entry.code}, ${entry.retried ? 'retried twice' : 'not retried'}, quoting the provider`, async () => {
      server.reply(entry.fixture, entry.fixture, entry.fixture)
      const { provider, waits } = providerFor(server)
      const error = await rejection(provider.search({ query: 'q' }, call()))
      assert.ok(WebError.is(error))
      assert.equal(error.code, entry.code)
      assert.equal(error.details.status, entry.status)
      assert.ok(error.message.includes(entry.quote), error.message)
      assert.equal(error.retryable, entry.retried)
      assert.equal(server.requests.length, entry.retried ? 3 : 1)
      assert.deepEqual(waits, entry.retried ? [500, 1000] : [])
      assert.ok(!JSON.stringify(error.toJSON()).includes(TEST_KEY))
      await provider.close()
    })
  }

  it('429 rate_limit_exceeded: WEB_PROVIDER_RATE_LIMITED with retryAfterMs, retried at most twice honouring retry-after', async () => {
    server.reply('openai-429', 'openai-429', 'openai-429')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 1000)
    assert.equal(error.details.providerCode, 'rate_limit_exceeded')
    assert.equal(error.details.requestId, 'req_err_1')
    assert.equal(server.requests.length, 3)
    assert.deepEqual(waits, [1000, 1000])
    await provider.close()
  })

  it('429 then success: one retry after retry-after, same body', async () => {
    server.reply('openai-429', 'openai-multi-result')
    const { provider, waits } = providerFor(server)
    const result = await provider.search({ query: 'q' }, call())
    assert.equal(result.sources.length, 4)
    assert.equal(server.requests.length, 2)
    assert.equal(server.requests[1]!.body, server.requests[0]!.body)
    assert.deepEqual(waits, [1000])
    await provider.close()
  })

  it('a retry-after beyond the deadline is not waited for', async () => {
    server.reply({ status: 429, headers: { 'retry-after': '600' }, body: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } } })
    const { provider, waits } = providerFor(server, { timeoutMs: 10_000 })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 600_000)
    assert.equal(server.requests.length, 1)
    assert.deepEqual(waits, [])
    await provider.close()
  })

  it("a retry-after that ends after the caller's deadline (call.deadline) is not waited for", async () => {
    server.reply('openai-429', 'openai-multi-result')
    const { provider, waits } = providerFor(server, { timeoutMs: 60_000 })
    const error = await rejection(provider.search({ query: 'q' }, { signal: new AbortController().signal, deadline: Date.now() + 500 }))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 1000)
    assert.equal(server.requests.length, 1)
    assert.deepEqual(waits, [])
    server.reset()
    server.reply('openai-429', 'openai-multi-result')
    await provider.search({ query: 'q' }, { signal: new AbortController().signal, deadline: Date.now() + 30_000 })
    assert.equal(server.requests.length, 2, 'within the deadline the wait is taken and the retry sent')
    assert.deepEqual(waits, [1000])
    await provider.close()
  })

  it('an abort during the retry wait ends the search with WEB_ABORTED and no further request', async () => {
    server.reply('openai-429', 'openai-multi-result')
    const controller = new AbortController()
    const { provider } = providerFor(server, {}, {
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

  it('a 200 that is not JSON (proxy HTML) is WEB_PROVIDER_BAD_RESPONSE', async () => {
    server.reply('openai-200-proxy-html')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_BAD_RESPONSE')
    assert.equal(error.details.contentType, 'text/html')
    await provider.close()
  })

  it('a truncated JSON body is WEB_PROVIDER_BAD_RESPONSE', async () => {
    server.reply('openai-truncated')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_BAD_RESPONSE')
    assert.match(error.message, /not JSON/)
    await provider.close()
  })

  it('a body cut off by a closed socket is WEB_PROVIDER_BAD_RESPONSE', async () => {
    server.replyWith((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' })
      response.write('{"id":"resp_1","object":"response","output":[')
      setImmediate(() => response.socket?.destroy())
    })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_BAD_RESPONSE')
    assert.match(error.message, /cut off/)
    await provider.close()
  })

  it('an error envelope under HTTP 200 is classified by its code and quoted', async () => {
    server.reply({ status: 200, body: { error: { message: 'You exceeded your current quota.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_QUOTA_EXHAUSTED')
    assert.equal(error.retryable, false)
    assert.match(error.message, /You exceeded your current quota\./)
    await provider.close()
  })

  it('a body over maxResponseBytes is WEB_PROVIDER_BAD_RESPONSE naming the limit', async () => {
    server.reply('openai-multi-result')
    const { provider } = providerFor(server, { maxResponseBytes: 256 })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_BAD_RESPONSE')
    assert.equal(error.details.limit, 256)
    await provider.close()
  })

  it('an abort while waiting for the answer closes the socket: WEB_ABORTED, no retry', async () => {
    const controller = new AbortController()
    let closed!: Promise<void>
    server.replyWith((request, response) => {
      closed = new Promise((resolve) => response.on('close', () => resolve()))
      void request
      controller.abort()
    })
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, { signal: controller.signal }))
    assert.equal(error.code, 'WEB_ABORTED')
    await closed
    assert.equal(server.requests.length, 1)
    assert.deepEqual(waits, [])
    await provider.close()
  })

  it('refuses a redirect: WEB_REDIRECT_BLOCKED, the Location is never requested', async () => {
    server.reply({ status: 302, headers: { location: `${server.url}/stolen` }, rawBody: '' })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_REDIRECT_BLOCKED')
    assert.deepEqual(server.requests.map((request) => request.path), ['/v1/responses'])
    server.reset()
    server.reply('openai-redirect')
    const again = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(again.code, 'WEB_REDIRECT_BLOCKED')
    assert.equal(server.requests.length, 1)
    await provider.close()
  })

  it('scrubs the key from a provider message that echoes it', async () => {
    server.reply({ status: 401, body: { error: { message: `Incorrect API key provided: ${TEST_KEY}.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.ok(!error.message.includes(TEST_KEY))
    assert.match(error.message, /\[redacted\]/)
    assert.ok(error.message.endsWith('(the key used: DSH_TEST_OPENAI_UNUSED from the credentials store)'), error.message)
    await provider.close()
  })
})
